"""What a class name says the whole named thing is, read from WordNet (issue 50, used by
``knowledge.infer``): positive evidence for the affordances a person trusts.

The neighbours of a name by embedding vote on its affordances, and a known head noun lends its
own; neither says what the *whole* thing is. A ``pencil_cup`` is near cup and a ``play_dough``
near dough, yet neither is drunk from nor eaten. This module reads a name as a compound, the
head noun (its last word) and the modifiers before it, and each word by its WordNet senses:

- **consumption** (``consumption``): a thing is eaten or drunk only on positive evidence that the
  whole named thing is food or drink: WordNet has the whole name as a food (a beverage is
  ``drinkable``, other food ``consumable``; a seasoning, a cooking fat or oil, and animal feed
  are neither: a person does not eat them as they are), or the head noun is food or drink (a
  food sense before any artifact or substance sense, or a known class of the map that is) and
  every modifier is food, drink, a person who eats it ("baby food"), the occasion it is
  eaten at ("teething biscuit", a process to WordNet), or no noun at all ("fried", "iced"); when
  the head noun is also an artifact (a punch is a drink and a tool), only food, drink, a person or
  no noun (a fruit punch, not a hole punch). A modifier that names an artifact, an activity, a material or an animal
  makes the whole thing something else: a play dough, a cat food, a salt water; so does a plant
  that is no food itself (a holly berry is no food: only a plant with a food sense, a mint, keeps it).
- **drinking vessels** (``drink_vessel_named``): the whole name is a drinking vessel in WordNet,
  or its head is one and no modifier names what it holds instead: food that is not drink (an
  egg cup, a snack cup), an artifact (a pencil cup), an activity in ``-ing`` (stacking cups, a
  measuring cup), an animal or a plant. A drink, a material, a measure, a person or an occasion
  keeps it (a coffee cup, a paper cup, a pint glass, a toddler cup, a travel mug).
- **placing** (``artifact_kind``): containers, surfaces and carried things are artifacts, so the
  name's artifact sense is read (a ``trunk`` is the luggage, not the tree's; a ``sandpit`` the
  child's box of sand, not the quarry), the whole name's first, else its head noun's.
  ``holds_things`` reads a container from its hypernyms and from the role its definition states
  ("a holding device", "an open receptacle for holding", "used for shelter or storage", "an
  enclosure in which babies may be left"); ``carried`` reads a small artifact or commodity that
  is not furniture, a fixture, a structure, a vehicle, white goods, nor said to be large.

Nothing here names a class of an evaluation list; the word tables are WordNet synset words of
general kinds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Optional

from groundplan.knowledge.lexicon import (
    _LARGE,
    _SMALL,
    BEVERAGE,
    CONTAINER_WORDS,
    FIXED_WORDS,
    FOOD_LEXFILE,
    SUPPORT_WORDS,
    Kind,
    _wordnet,
)
from groundplan.knowledge.wordnet import singulars

ARTIFACT, PERSON, ANIMAL, PLANT, SUBSTANCE, QUANTITY, ACT, OBJECT = 6, 18, 5, 20, 27, 23, 4, 17
#: food one does not eat as it is: seasonings and sweeteners, cooking fats and oils, animal feed
NOT_EATEN_AS_IT_IS = frozenset({"flavorer", "edible_fat", "feed", "fodder", "leaven", "food_additive"})
#: a food's definition saying it is for animals, or an ingredient used on other food
_NOT_FOR_PEOPLE = re.compile(r"\bfor (dogs?|cats?|pets?|birds?|animals?|horses?|livestock|cattle|poultry|fish)\b|"
                             r"\bused (to|for|in) (give|giving|add|adding|flavou?r|colou?r|thicken|season|sweeten|preserve)\b")
#: modifiers naming what a container holds (a stuff, a food or drink, a plant)
_HELD = frozenset({"food", "drink", "material", "plant"})
#: modifiers that leave a thing food or drink (what it is made of, who eats it, the occasion in
#: ``-ing``: a teething biscuit, a cooking apple; or no noun)
FOOD_MODIFIERS = frozenset({"food", "drink", "person", "gerund", "other", "none"})
#: modifiers that name what a vessel holds or is for instead of drink
NOT_DRINK_MODIFIERS = frozenset({"food", "artifact", "gerund", "animal", "plant"})
#: what a definition says a container does ("a holding device", "for holding or displaying",
#: "used for shelter or storage", "an enclosure in which babies may be left", "filled with water",
#: "an enclosed chamber in which heat is produced": a furnace, a kiln)
_HOLDS = re.compile(r"\b(storage|receptacle|container|vessel|in which\b.{0,40}\b(kept|stored|left|placed|put|carried)|"
                    r"enclosed (chamber|space|compartment)|filled with|(a|an) (box|case|bag|basket|chest|bin|tray|pouch|jar|tub|crate)\b)")
_HOLDS_WEAK = re.compile(r"\b(holding device|for (holding|storing|keeping|carrying)|^holds|drawers|compartments?)\b")
_FIXED = frozenset({"vehicle", "furniture", "building", "edifice", "room", "facility", "plumbing_fixture", "housing"})
#: WordNet words of things with a top or a face that things are put on
_BEARING = frozenset({"furniture", "furnishing", "white_goods", "mat", "mattress"})
#: WordNet words of things held in the hand to use
_HAND_HELD = frozenset({"hand_tool", "edge_tool", "cutlery", "writing_implement", "kitchen_utensil"})
#: what a definition says is put on it
_ON_IT = re.compile(r"\b(flat|level) (top|surface)\b|\bwork(ing)? surface\b|"
                    r"\bon which\b.{0,30}\b(put|placed|set|laid|kept|stood|displayed|rests?|stands?|sits?|lies?|sleeps?)\b|"
                    r"\b(sit|kneel|stand|lie|rest|sleep|sleeping|put|place|set) on\b")
#: kinds of plant that are not carried (a tree, a shrub, a vine)
_WOODY = frozenset({"woody_plant", "tree", "shrub", "bush", "vine"})


@dataclass(frozen=True)
class Sense:
    lemma: str
    lexfile: int
    words: tuple[str, ...]  # its own words, then its hypernyms' (nearest first)
    gloss: str

    def has(self, table: Iterable[str]) -> bool:
        t = frozenset(table)
        return any(w in t for w in self.words)

    def definition(self) -> str:
        return re.split(r';\s*"', self.gloss, maxsplit=1)[0].lower()

    def kind(self, whole: bool = True) -> Kind:
        """The sense as ``lexicon.Kind`` (for the lexicon's questions)."""
        return Kind(self.lemma, tuple(w for w in self.words if w != self.lemma), self.gloss,
                    frozenset(self.words), whole, self.lexfile)


def _words(cls: str) -> list[str]:
    from groundplan.knowledge.infer import words

    return words(cls)


@lru_cache(maxsize=8192)
def senses(lemma: str) -> tuple[Sense, ...]:
    """Every noun sense of exactly ``lemma`` (or of its singular), in WordNet's order."""
    wn = _wordnet()
    if wn is None:
        return ()
    cands = [lemma, *singulars(lemma)]
    for lm in cands:
        offs = wn.index.get(lm)
        if not offs:
            continue
        out = []
        for off in offs:
            syn = wn._synset(off)
            ws = list(syn.words)
            level, seen = list(syn.hypernyms), set(syn.hypernyms)
            for _ in range(10):
                nxt = []
                for h in level:
                    s = wn._synset(h)
                    ws += s.words
                    nxt += [x for x in s.hypernyms if x not in seen]
                    seen.update(s.hypernyms)
                level = nxt
            out.append(Sense(lm, syn.lexfile, tuple(dict.fromkeys(ws)), syn.gloss))
        return tuple(out)
    return ()


def whole_senses(cls: str) -> tuple[Sense, ...]:
    """The senses of the whole name in any spelling WordNet has (``hot_water_bottle`` ->
    ``hot-water_bottle``, ``bird_seed`` -> ``birdseed``), else ()."""
    from groundplan.knowledge.lexicon import name_variants

    for v in name_variants(cls):
        s = senses(v)
        if s:
            return s
    return ()


def read_at_all(cls: str) -> bool:
    """WordNet has the whole name or some word of it as a noun (else nothing here is evidence)."""
    return bool(whole_senses(cls)) or any(senses(w) for w in _words(cls))


def available() -> bool:
    return _wordnet() is not None


# --------------------------------------------------------------------------- food and drink


def _food_sense(ss: tuple[Sense, ...]) -> Optional[Sense]:
    """The food sense of a word read as a thing one eats or drinks: the first food sense, when no
    artifact or substance sense comes before it (a cup is first a container, oil first a
    substance; a mango is first the tree, then the fruit), and no sense is a vessel or container
    (a demitasse is the coffee and the cup it comes in: the object in a scene is the cup)."""
    if any(s.lexfile == ARTIFACT and (s.has(CONTAINER_WORDS | {"crockery", "dishware"}) or _holds(s)) for s in ss):
        return None  # (a larder is a supply of food and the storeroom it is kept in)
    for s in ss:
        if s.lexfile == FOOD_LEXFILE:
            return s
        if s.lexfile in (ARTIFACT, SUBSTANCE):
            return None
    return None


def _is_drink(s: Sense) -> bool:
    """A beverage or a serving of one by its hypernyms, or a food its definition calls a liquid
    or fluid ("clear to whitish fluid from within a fresh coconut")."""
    if s.has(BEVERAGE | {"drink", "milk", "water"}):
        return True
    first = re.split(r"\b(of|from|in|that|which|with|for|used|;)\b", s.definition(), maxsplit=1)[0]
    return bool(re.search(r"\b(liquid|fluid|juice)$", first.strip()))


def _eaten(s: Sense) -> Optional[str]:
    """``drinkable`` / ``consumable`` for a food sense, None for food not eaten as it is: under
    ``NOT_EATEN_AS_IT_IS``, made for animals ("a hard biscuit for dogs"), or used on other food
    ("a substance used to give color to food")."""
    if s.has(NOT_EATEN_AS_IT_IS) or _NOT_FOR_PEOPLE.search(s.definition()):
        return None
    if _is_drink(s):
        return "drinkable"
    return "consumable"


def modifier_role(word: str) -> str:
    """What a modifier names: ``animal``, ``person`` (by its first sense: a fish food is for fish, a
    baby food for a baby), ``drink``, ``food`` (any sense), ``material``, ``quantity``, ``artifact``,
    ``act`` (any sense an act: a play), ``plant``, ``other``; ``gerund`` for an ``-ing`` word WordNet lacks as a noun (what
    the thing is used for: stacking, measuring); ``none`` for a word that is no noun (iced, fried)."""
    ss = senses(word)
    if not ss:
        return "gerund" if word.endswith("ing") and len(word) > 5 else "none"
    first = ss[0]
    if first.lexfile == ANIMAL:
        return "animal"
    if first.lexfile == PERSON:
        return "person"
    if any(s.lexfile == FOOD_LEXFILE and _is_drink(s) for s in ss):
        return "drink"
    if any(s.lexfile == FOOD_LEXFILE for s in ss):
        return "food"
    if first.lexfile == SUBSTANCE or first.has({"material", "metal"}):
        return "material"
    if first.lexfile == QUANTITY:
        return "quantity"
    if first.lexfile == ARTIFACT:
        return "artifact"
    if first.lexfile == PLANT:
        return "plant"
    if first.lexfile == ACT or any(s.lexfile == ACT for s in ss):  # (a play is also a move in a game)
        return "gerund" if word.endswith("ing") else "act"
    return "other"


def consumption(cls: str, known_food: Optional[str] = None) -> tuple[frozenset[str], str]:
    """(``{"consumable"}`` / ``{"drinkable"}`` / ∅, why) from positive evidence that the whole
    named thing is food or drink (module docstring). ``known_food``: the consumption affordance a
    known class of the map that heads the name has (``juice`` for ``apple_juice``)."""
    whole = whole_senses(cls)
    if whole:
        fs = _food_sense(whole)
        if fs is None:
            return frozenset(), "no food or drink sense in WordNet"
        e = _eaten(fs)
        return (frozenset({e}), f"WordNet: {fs.lemma} is {'a drink' if e == 'drinkable' else 'food'}") if e else (
            frozenset(), f"WordNet: {fs.lemma} is not eaten as it is ({fs.words[1] if len(fs.words) > 1 else ''})")
    ws = _words(cls)
    if len(ws) < 2:
        return frozenset(), f"no food or drink sense of {cls} in WordNet"
    head = known_food
    allowed = FOOD_MODIFIERS
    if head is None:
        head_ss = senses(ws[-1])
        fs = _food_sense(head_ss)
        head = _eaten(fs) if fs is not None else None
        if head is not None and any(s.lexfile == ARTIFACT for s in head_ss):
            # the head is also a thing (a punch is a drink and a tool, a sling a cocktail and a
            # carrier, a peel a rind and a baker's shovel): a compound WordNet lacks is not read as food
            return frozenset(), f"its head noun, {ws[-1]}, is also a thing: a {ws[-1]} may be no food"
    if head is None:
        return frozenset(), f"its head noun, {ws[-1]}, is no food or drink"
    if head == "drinkable":  # a drink only as food, drink or a person's: a word WordNet cannot place
        allowed = allowed & {"food", "drink", "person"}  # may make it no drink (soapy, pond, cleansing water)
    for m in ws[:-1]:
        role = modifier_role(m)
        if role not in allowed:
            return frozenset(), f"'{m}' names {'an' if role[0] in 'aeiou' else 'a'} {role}: a {ws[-1]} of {m} is not eaten"
    return frozenset({head}), f"its head noun, {ws[-1]}, is {'a drink' if head == 'drinkable' else 'food'}"


def _vessel(ss: tuple[Sense, ...]) -> bool:
    from groundplan.knowledge.lexicon import drink_vessel

    s = next((x for x in ss if x.lexfile == ARTIFACT), None)
    return s is not None and drink_vessel(s.kind())


def drink_vessel_named(cls: str, known_vessel: bool = False) -> tuple[bool, str]:
    """(designed to drink from, why): the whole name is a drinking vessel in WordNet, or its head
    is one (in WordNet, or ``known_vessel``: a known class of the map heads it) and no modifier
    names a thing it holds instead (module docstring)."""
    whole = whole_senses(cls)
    if whole and any(s.lexfile == ARTIFACT for s in whole):
        ok = _vessel(whole)
        return ok, f"WordNet: {cls} is {'' if ok else 'not '}a drinking vessel"
    ws = _words(cls)
    if len(ws) < 2:
        return False, f"no drinking vessel sense of {cls} in WordNet"
    if not (known_vessel or _vessel(senses(ws[-1]))):
        return False, f"its head noun, {ws[-1]}, is no drinking vessel"
    for m in ws[:-1]:
        role = modifier_role(m)
        if role in NOT_DRINK_MODIFIERS:
            return False, f"'{m}' names {'an' if role[0] in 'aeiou' else 'a'} {role} it holds or is for, not a drink"
    return True, f"its head noun, {ws[-1]}, is a drinking vessel"


# --------------------------------------------------------------------------- placing


@dataclass(frozen=True)
class Reading:
    """The name read as a thing: its artifact senses in WordNet's order (else its plant, food,
    object or substance sense), and whether they are the whole name's (not its head noun's)."""
    senses: tuple[Sense, ...]
    whole: bool

    @property
    def first(self) -> Optional[Sense]:
        """The first artifact sense that is no vehicle (a monitor is first an ironclad in WordNet;
        the display comes later), else the first sense."""
        return next((s for s in self.senses if s.lexfile == ARTIFACT and not s.has({"vehicle"})),
                    self.senses[0] if self.senses else None)


def artifact_kind(cls: str) -> Optional[Reading]:
    """The name read as an artifact: the whole name's artifact senses, else its head noun's (the
    last word, or the end of a closed compound WordNet lacks); a plant, a food, an object or a
    substance when the name has no artifact sense at all (a houseplant)."""
    whole = whole_senses(cls)
    if whole:
        arts = tuple(s for s in whole if s.lexfile == ARTIFACT)
        other = next((s for s in whole if s.lexfile in (PLANT, FOOD_LEXFILE, OBJECT, SUBSTANCE)), None)
        return Reading(arts or ((other,) if other else ()), True) if (arts or other) else None
    ws = _words(cls)
    heads = [ws[-1]] if len(ws) > 1 else []
    if len(ws) == 1:  # a closed compound WordNet lacks: its end
        heads = [ws[0][n:] for n in range(3, len(ws[0]) - 2)]
    for h in heads:
        ss = senses(h)
        if ss:
            arts = tuple(s for s in ss if s.lexfile == ARTIFACT)
            if len(ws) > 1 and all(modifier_role(m) in _HELD for m in ws[:-1]):
                # the modifier names what the thing holds: its container sense (an oil drum, a
                # biscuit barrel, a plant trough; not the drum one plays)
                arts = tuple(sorted(arts, key=lambda s: not _holds(s)))
            return Reading(arts, False) if arts else None
    return None


def _genus_sense(s: Sense) -> Optional[Sense]:
    """The first artifact sense of the genus of the definition ("a deep pan with a handle" -> pan)."""
    g = s.kind().genus()
    if not g or g == s.lemma:
        return None
    return next((x for x in senses(g) if x.lexfile == ARTIFACT and not x.has({"vehicle"})), None)


def _holds(s: Sense) -> bool:
    if s.has({"vehicle"}):
        return False  # (a vessel that sails)
    if s.has(CONTAINER_WORDS) or _HOLDS.search(s.definition()):
        return True
    return not bears_things(s) and bool(_HOLDS_WEAK.search(s.definition()))


def holds_things(r: Optional[Reading]) -> Optional[bool]:
    """True when the artifact is a container by its hypernyms, by what its definition says it
    does, or by the genus of its definition (a saucepan is a deep pan, a pan a vessel); None when
    it cannot tell (no artifact sense)."""
    s = r.first if r is not None else None
    if s is None or s.lexfile != ARTIFACT:
        return None
    if _holds(s):
        return True
    g = _genus_sense(s)
    return g is not None and _holds(g)


def bears_things(r) -> bool:
    """Things are put on it: a table, stand, shelf, seat, counter, tray, platform, supporting
    structure, a piece of furniture (a chest of drawers, a vanity unit have tops), white goods
    (a freezer, a tumble dryer), a mat or mattress, or what its definition says things or people
    are put on ("a support on which things can be put", "a board for someone to kneel on")."""
    s = r.first if isinstance(r, Reading) else r
    if s is None or s.lexfile != ARTIFACT:
        return False
    return s.has(SUPPORT_WORDS) or s.has(_BEARING) or bool(_ON_IT.search(s.definition()))


def held_in_hand(r: Optional[Reading]) -> bool:
    """A thing held in the hand to use (a hand tool, cutlery, a pen, a kitchen utensil): no
    surface, whatever its neighbours by name say (a spanner is near a table and a shelf)."""
    s = r.first if r is not None else None
    return s is not None and s.lexfile == ARTIFACT and s.has(_HAND_HELD)


def _fixed(s: Sense) -> bool:
    """Furniture, a fixture, a building or room, a vehicle, white goods; a structure unless a
    framework or supporting structure (a picture frame, a rack)."""
    return s.has(_FIXED) or (s.has({"white_goods"}) and s.has({"appliance"})) or (
        s.has({"structure"}) and not s.has({"framework", "supporting_structure"}))


def _carried_artifact(s: Sense) -> bool:
    from groundplan.knowledge.lexicon import portable

    text = s.definition()
    if _fixed(s):
        return bool(_SMALL.search(text)) and not s.has({"vehicle", "building"})
    if portable(s.kind()) is True and not s.has(FIXED_WORDS):  # tableware, a hand tool, a bottle: carried
        return True
    return not (_LARGE.search(text) and not _SMALL.search(text))


def carried(r: Optional[Reading]) -> Optional[bool]:
    """True for a small artifact or commodity (a plant, a solid food) that is not furniture, a
    fixture, a structure, a vehicle or white goods and not said to be large (its first artifact
    sense that is no vehicle: a cutter is first a boat, then a cutting tool); False for those;
    None when it cannot tell (no sense, a substance, a drink)."""
    if r is None or not r.senses:
        return None
    s = r.first
    if s.lexfile == ARTIFACT:
        return _carried_artifact(s)
    if s.lexfile == PLANT:
        return not s.has(_WOODY)
    if s.lexfile == FOOD_LEXFILE and not s.has(BEVERAGE):
        return True
    return None


__all__ = ["Sense", "senses", "whole_senses", "available", "read_at_all", "modifier_role", "consumption", "drink_vessel_named",
           "Reading", "artifact_kind", "holds_things", "bears_things", "held_in_hand", "carried", "NOT_EATEN_AS_IT_IS"]
