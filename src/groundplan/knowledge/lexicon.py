"""What the dictionary says a class is, read for its affordances (used by ``knowledge.infer``).

The affordance inference (``infer.py``) asks WordNet 3.0 (``knowledge.wordnet``) a few general
questions about a class it does not know, whatever its neighbours by embedding vote:

- is it food or drink (``ingestion_checked``): a thing is edible only when its name, or the head
  noun of its name, has a food sense; a food word that modifies a vessel, a dish, a utensil or a
  piece of furniture names what that thing holds or serves, not what it is (an egg cup, a sugar
  bowl, a cake stand are not eaten);
- is it a container, something to put things on, something a person picks up and carries
  (``is_container``, ``supports``, ``portable``): by its hypernyms (a kit is a case, a sofa is a
  seat, a sawhorse a supporting structure, a flashlight a device), by the genus of its
  definition ("an unattached *counter* in a kitchen") and by the size and handling its
  definition states ("a *small portable* battery-powered lamp", "a *relatively large* open
  container", "a *hand-held* electric blower");
- is it made to drink from (``drink_vessel``), to cut with, to pour from.

The word tables below are WordNet synset words of general kinds (container, seat, device,
implement, furniture, vehicle, ...), not class names of any evaluation list. How a name is
looked up: the whole name (also hyphenated or closed: ``hot_water_bottle`` -> ``hot-water_bottle``,
``night_stand`` -> ``nightstand``), then its head noun and shorter tails
(``WordNet.lemmas``), then the end of a closed compound (``nightstand`` -> ``stand``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Optional

from groundplan.errors import ConfigError

#: WordNet's noun.food lexicographer file; words a drink's hypernyms include
FOOD_LEXFILE = 13
BEVERAGE = frozenset({"beverage", "drinkable", "potable"})
#: WordNet words whose hyponyms are designed to drink from (a cup, a wineglass, a vacuum flask,
#: a feeding bottle); a bottle or jug in general is not
DRINK_VESSELS = frozenset({"cup", "drinking_glass", "drinking_vessel", "flask", "mug", "tumbler", "goblet",
                           "feeding_bottle", "water_bottle", "canteen"})
#: WordNet words that make a thing a container (a car is a wheeled vehicle, "a container for
#: transporting things or people"), and kinds that neither make nor unmake one (a dresser or a
#: desk may have drawers)
CONTAINER_WORDS = frozenset({"container", "receptacle", "vessel", "bag", "box", "case", "chest", "cabinet",
                             "drawer", "compartment", "basket", "storage_space"})
NEUTRAL_WORDS = frozenset({"furniture", "structure", "fixture", "area", "room", "facility", "enclosure",
                           "vehicle", "equipment", "system"})
#: WordNet words of things that cut (else an inferred ``cut`` is dropped: a drill, a screwdriver)
CUTTING_WORDS = frozenset({"cutting_implement", "edge_tool", "cutter", "saw", "blade", "razor", "knife", "scissors",
                           "shears"})
#: WordNet words of vessels one pours from (else an inferred ``pour`` is dropped: a lamp, goggles)
POURING_WORDS = frozenset({"vessel", "bottle", "jar", "jug", "pitcher", "pot", "can", "cup", "drinking_glass",
                           "container", "ladle", "dipper"})
#: WordNet words of things no one picks up and carries: vehicles, furniture, large appliances
#: ("white goods": a refrigerator, a dishwasher), buildings and fixtures. A small appliance (a
#: toaster, a hair dryer) is neither fixed nor portable by its kind alone.
FIXED_WORDS = frozenset({"vehicle", "furniture", "white_goods", "structure", "building", "room", "facility",
                         "plumbing_fixture"})
#: WordNet words of things a person picks up and carries: hand tools and implements, utensils,
#: toys, clothing, food, dressings, writing implements, books, and the hand-sized kinds of device
#: (electronic and electrical devices, instruments, mechanical devices, sources of light)
PORTABLE_WORDS = frozenset({"hand_tool", "kitchen_utensil", "cutlery", "tableware", "crockery", "writing_implement",
                            "plaything", "garment", "clothing", "footwear", "headdress", "dressing", "toiletry",
                            "solid_food", "edible_fruit", "baked_goods", "publication", "implement", "utensil",
                            "book", "device", "instrument", "kit", "bag", "case", "bottle", "jar", "box", "can"})
#: WordNet words of things made to put other things on (tables, stands, shelves, seats, counters,
#: trays, platforms, supporting structures)
SUPPORT_WORDS = frozenset({"table", "stand", "shelf", "seat", "counter", "tray", "platform", "rack", "bench",
                           "worktable", "work_surface", "supporting_structure", "sideboard"})
#: WordNet words of things made to hold, serve or handle other things: a food word before one
#: of these names what it holds or serves (an egg cup, a butter dish), not what it is
HOLDER_WORDS = frozenset({"container", "vessel", "receptacle", "tableware", "crockery", "dishware", "cutlery",
                          "utensil", "implement", "furniture", "stand", "rack", "packaging"})
#: what a definition says of size and handling (read as separate words)
_SMALL = re.compile(r"\b(small|little|portable|hand-held|handheld|hand-operated|pocket|pocket-sized|lightweight|"
                    r"miniature|tiny)\b")
_LARGE = re.compile(r"\b(large|big|huge|massive|fixed|built-in|installed|stationary)\b")
#: the words that end a definition's genus ("an unattached counter *in* a kitchen")
_GENUS_END = frozenset({"of", "for", "in", "on", "with", "that", "which", "where", "who", "to", "used", "usually",
                        "consisting", "having", "made", "designed", "or", "and", "from", "by", "at", "containing",
                        "holding", "as", "into", "often", "especially", "typically"})
_ARTICLES = frozenset({"a", "an", "the", "any", "one", "some"})


@dataclass(frozen=True)
class Kind:
    """A class's first physical WordNet sense: the lemma read, its synonyms and hypernym words
    (nearest first), and its gloss."""
    lemma: str
    words: tuple[str, ...]
    gloss: str
    #: words of every sense of the lemma and their hypernyms (a mortar is first cement, but also a bowl)
    every_sense: frozenset[str] = frozenset()
    #: the lemma read is the whole class name (not its head noun or the end of a closed compound)
    whole: bool = True
    lexfile: int = -1

    def has(self, table: frozenset[str]) -> bool:
        return any(w in table for w in (self.lemma, *self.words))

    def first(self) -> str:
        return next((w for w in self.words if w != self.lemma), self.lemma)

    def definition(self) -> str:
        """The gloss without its quoted examples, lower case."""
        return re.split(r';\s*"', self.gloss, maxsplit=1)[0].lower()

    def genus(self) -> Optional[str]:
        """The head of the definition's first noun phrase: "an unattached counter in a kitchen"
        -> counter, "low table where magazines can be placed" -> table, "a piece of furniture
        with ..." -> furniture; None when the definition starts otherwise."""
        toks = re.findall(r"[a-z][a-z'-]*|[;,(:]", self.definition())
        phrase: list[str] = []
        for t in toks:
            if t in _GENUS_END or t in ";,(:":
                break
            if t in _ARTICLES and not phrase:
                continue
            phrase.append(t)
        if not phrase:
            return None
        if phrase[-1] in ("piece", "kind", "type", "sort", "set", "pair", "article") and len(toks) > len(phrase):
            rest = [t for t in toks[toks.index(phrase[-1]) + 1:] if t not in ("of", "a", "an")]
            return rest[0] if rest else None
        return phrase[-1]


def _wordnet():
    from groundplan.knowledge.wordnet import WordNet

    try:
        return WordNet.load()
    except ConfigError:
        return None


def name_variants(cls: str) -> list[str]:
    """The whole name as WordNet may spell it: ``hot_water_bottle``, ``hot-water_bottle``,
    ``hot_water-bottle``, closed (``nightstand``) when of two words."""
    from groundplan.knowledge.infer import words

    ws = words(cls)
    out = ["_".join(ws)]
    for i in range(len(ws) - 1):
        out.append("_".join([*ws[:i], f"{ws[i]}-{ws[i + 1]}", *ws[i + 2:]]))
    if len(ws) == 2:
        out.append("".join(ws))
    return list(dict.fromkeys(out))


@lru_cache(maxsize=4096)
def kind_of(cls: str) -> Optional[Kind]:
    """The class's WordNet kind (see the module docstring for the order names are tried), or None."""
    wn = _wordnet()
    if wn is None:
        return None
    from groundplan.knowledge.infer import words

    name = "_".join(words(cls))
    if name not in wn.index:
        for variant in name_variants(cls)[1:]:  # a spelling WordNet has for the whole name
            hit = wn._physical(variant)
            if hit is not None and hit[0] == variant:
                name = variant
                break
    hit = wn._physical(name)
    if hit is None:  # no physical sense (a coin is money to WordNet): every sense of the word
        lemma = next((lm for lm in wn.lemmas(name) if wn.index.get(lm)), None)
        kinds = wn.kinds(name)
        if lemma is None or kinds is None:
            return _closed_compound_kind(name, wn)
        first = wn._synset(wn.index[lemma][0])  # its first sense's words and hypernyms lead
        lead = [*first.words, *(w for off in first.hypernyms for w in wn._synset(off).words)]
        ordered = list(dict.fromkeys(w for w in (*lead, *sorted(kinds[1])) if w != lemma))
        return Kind(lemma, tuple(ordered), first.gloss, frozenset(kinds[1]), lemma == name, first.lexfile)
    every = wn.kinds(hit[0])
    return Kind(hit[0], tuple(wn.broader(hit[0], depth=8)), hit[2].gloss, frozenset(every[1]) if every else frozenset(),
                hit[0] == name, hit[2].lexfile)


def _closed_compound_kind(name: str, wn) -> Optional[Kind]:
    """A one-word name WordNet lacks read by its end (``nightstand`` -> stand, ``lunchbox`` ->
    box): the longest final part of at least three letters, after at least three, that WordNet
    has with a physical sense."""
    if "_" in name or "-" in name:
        return None
    for n in range(3, len(name) - 2):
        hit = wn._physical(name[n:])
        if hit is not None and hit[0] == name[n:]:
            every = wn.kinds(hit[0])
            return Kind(hit[0], tuple(wn.broader(hit[0], depth=8)), hit[2].gloss,
                        frozenset(every[1]) if every else frozenset(), False, hit[2].lexfile)
    return None


def is_container(kind: Optional[Kind]) -> Optional[bool]:
    """True / False when WordNet says the class is / is not a container; None when it cannot tell."""
    if kind is None:
        return None
    if kind.has(CONTAINER_WORDS) or re.search(r"\bcontents\b", kind.definition()):
        return True  # (a folder is a "covering ... to protect the contents")
    if kind.has(NEUTRAL_WORDS) or re.search(r"\b(drawers?|compartments?|storage)\b", kind.gloss):
        return None
    if kind.every_sense & CONTAINER_WORDS:  # another sense is one (a mortar is also a bowl): no verdict
        return None
    return False


def supports(kind: Optional[Kind]) -> bool:
    """WordNet says things are put on it: a table, stand, shelf, seat, counter, tray, platform or
    supporting structure, by its hypernyms or the genus of its definition."""
    if kind is None:
        return False
    return kind.has(SUPPORT_WORDS) or kind.genus() in SUPPORT_WORDS or bool(
        re.search(r"\b(flat|level) (top|surface)\b|\bwork(ing)? surface\b", kind.definition()))


def portable(kind: Optional[Kind]) -> Optional[bool]:
    """True when WordNet says a person picks it up and carries it (a portable kind, not fixed and
    not said to be large; or any artifact its definition calls small, portable or hand-held);
    False when it is fixed (a vehicle, furniture, white goods, a building) or said to be large;
    None otherwise (a toaster, a substance)."""
    if kind is None:
        return None
    text = kind.definition()
    small, large = bool(_SMALL.search(text)), bool(_LARGE.search(text))
    if kind.has(FIXED_WORDS):
        return None if small and not kind.has(frozenset({"vehicle", "white_goods", "building"})) else False
    if kind.has(PORTABLE_WORDS):  # (a jug is "a large bottle": still carried)
        return True
    if large and not small:
        return False
    if small and kind.lexfile == 6:  # an artifact
        return True
    return None


def drink_vessel(kind: Optional[Kind]) -> bool:
    """Made to drink from: a drinking vessel by its hypernyms, or a cup or glass whose definition
    says it holds drinks ("a disposable cup made of paper; for holding drinks")."""
    if kind is None:
        return False
    return kind.has(DRINK_VESSELS) or bool(kind.genus() in ("cup", "glass", "mug", "bottle", "vessel") and re.search(
        r"\b(drinks?|drinking|drunk|beverages?)\b", kind.definition()))


def _head_is_holder(cls: str, wn) -> bool:
    """The head noun (last word) of a name of several words is first a vessel, dish, utensil,
    implement or piece of furniture."""
    from groundplan.knowledge.infer import words

    ws = words(cls)
    if len(ws) < 2:
        return False
    k = kind_of(ws[-1])
    return k is not None and k.lemma == ws[-1] and k.has(HOLDER_WORDS)


def ingestion_checked(cls: str, affs: Iterable[str]) -> tuple[set[str], tuple[str, ...]]:
    """Neighbours' votes never make a thing edible or drinkable that the dictionary says is
    not: ``consumable`` is kept only when some WordNet sense of the class (its most specific
    lemma WordNet has) is a food, or of another word of its name unless its head noun is a
    vessel, dish, utensil or piece of furniture (a "cheese_wheel" is cheese, an "egg_cup" is a
    cup); ``drinkable`` only when a sense is a beverage (varnish sits next to water and juice by
    embedding, but is a coating). Classes WordNet lacks keep the vote. Returns the affordances
    and the ones withheld."""
    from groundplan.knowledge.infer import words

    out = set(affs)
    risky = out & {"consumable", "drinkable"}
    if not risky:
        return out, ()
    wn = _wordnet()
    kinds = wn.kinds(cls) if wn is not None else None
    if kinds is None:
        return out, ()
    files, hyper = kinds
    withheld = []
    whole = "_".join(words(cls)) in wn.index
    if "consumable" in risky and ((not whole and _head_is_holder(cls, wn)) or (FOOD_LEXFILE not in files and (
            _head_is_holder(cls, wn) or not any(FOOD_LEXFILE in (wn.kinds(w) or ((), ()))[0] for w in words(cls))))):
        withheld.append("consumable")  # (a candy dish: "dish" is also food, but a candy dish is a dish)
    if "drinkable" in risky and not (hyper & BEVERAGE):
        withheld.append("drinkable")
    return out - set(withheld), tuple(withheld)


def holds_undrinkable(cls: str, drinks: frozenset[str] = frozenset()) -> bool:
    """A name of several words whose modifier is a substance, food or toiletry one does not drink,
    not a material: an oil bottle, a perfume bottle, an egg cup hold what they name and are not
    drunk from (a milk bottle, a coffee cup, a paper cup, a plastic bottle are). ``drinks``: the
    known map's drinkable classes (a juice glass)."""
    from groundplan.knowledge.infer import words

    ws = words(cls)
    if len(ws) < 2:
        return False
    for w in ws[:-1]:
        k = kind_of(w)
        if k is None or w in drinks or not k.whole:
            continue
        if not (k.lexfile in (FOOD_LEXFILE, 27) or k.has(frozenset({"toiletry", "cosmetic"}))):
            continue  # (a spray bottle: a spray is first a pesticide; a shot glass: a shot is a pellet)
        if k.every_sense & BEVERAGE or k.has(frozenset({"solid", "metal", "alloy"})) or "material" in k.words[:2]:
            continue  # a milk bottle; a paper cup, a plastic bottle, a tin cup
        return True
    return False


def an(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word.replace('_', ' ')}"


__all__ = ["Kind", "kind_of", "is_container", "supports", "portable", "drink_vessel", "ingestion_checked",
           "name_variants", "holds_undrinkable", "an", "FOOD_LEXFILE", "BEVERAGE", "DRINK_VESSELS", "CONTAINER_WORDS", "NEUTRAL_WORDS",
           "CUTTING_WORDS", "POURING_WORDS", "FIXED_WORDS", "PORTABLE_WORDS", "SUPPORT_WORDS", "HOLDER_WORDS"]
