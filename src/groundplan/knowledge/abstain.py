"""Answer or abstain: does the scene hold what a request names or needs?

A robot that silently hands over a screwdriver when asked for a wrench is worse than one that
says it has no wrench. Two checks, both over the request's words and the scene's classes only
(no gold goal, no method internals):

- ``absent_thing``: the request names a thing with a determiner in the object of a request word
  ("bring me the wrench", "I need a torch", "I'd like an umbrella"), and no class of the scene
  is that thing, a kind of it (WordNet hypernyms over every sense of the class name: a coke is
  a drink, a screwdriver a tool), a synonym, a compound head (the bench of a workbench) or one
  of the scene's category words;
- ``unmet_need`` (``knowledge.need_check``): the request states a need and nothing in the scene
  meets it (thirst: nothing ``drinkable``; cold: no garment, blanket or heater, no open window to
  shut; a bleeding cut: no dressing, cloth or tissue).

Either gives an ``Abstention``: the thing or need, and the nearest alternative (the object a
method chose instead, else the scene class sharing most of the thing's WordNet hypernyms), said
as ``no wrench in the scene; nearest: screwdriver0``. The words are data
(``knowledge/data/abstain.yaml``); a noun that does not name a physical thing in WordNet's
first sense (a cut, a match on television) is never an absent thing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Callable, Iterable, Mapping, Optional, Sequence

from groundplan.knowledge.need_check import need_specs, unmet_need
from groundplan.knowledge.wordnet import PHYSICAL_LEXFILES, WordNet
from groundplan.schemas import yaml_lines as yaml_fast

_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")
#: how many of a noun's most frequent WordNet senses may make it a physical thing
SENSES = 3
#: WordNet's noun.act and noun.event lexicographer files: a rinse, a wash, a fix
_DOINGS = frozenset({4, 11})


@dataclass(frozen=True)
class Abstention:
    """Why nothing in the scene meets a request, and what comes nearest."""

    kind: str  # "absent" (a thing the scene lacks) or "need" (a need nothing meets)
    wanted: str  # the noun asked for ("wrench"), or the need's word ("drinkable")
    nearest: Optional[str] = None  # an object of the scene, or None

    @property
    def reason(self) -> str:
        what = f"no {self.wanted} in the scene" if self.kind == "absent" else f"nothing {self.wanted} in the scene"
        return what + (f"; nearest: {self.nearest}" if self.nearest else "")

    def to_dict(self) -> dict:
        return {"kind": self.kind, "wanted": self.wanted, "nearest": self.nearest, "reason": self.reason}


@dataclass(frozen=True)
class Words:
    determiners: frozenset[str]
    between: frozenset[str]
    request_words: frozenset[str]
    between_verb: frozenset[str]
    like_after: frozenset[str]
    not_things: frozenset[str]
    #: words that end a noun phrase (prepositions, conjunctions, pronouns, adverbs)
    function_words: frozenset[str]
    #: containers and measures before "of" ("a cup of coffee"): the thing is what follows
    measures: frozenset[str]
    #: "can I have", "could I have", "may I have"
    may_i: frozenset[str]
    #: class heads that the words before them name (a whipped_cream_can, a rib_tool)
    named_by_modifier: frozenset[str] = frozenset()
    #: words that alone name the packaging of a thing ("put the carton back")
    packaging: frozenset[str] = frozenset()
    #: verbs acting on a thing ("open", "wipe", "fill"): their object is needed
    action_words: frozenset[str] = frozenset()
    #: verbs putting a thing somewhere: the place in their clause is needed
    placing_words: frozenset[str] = frozenset()
    #: prepositions opening a destination or source
    places_after: frozenset[str] = frozenset()


@lru_cache(maxsize=1)
def words() -> Words:
    text = resources.files("groundplan.knowledge").joinpath("data/abstain.yaml").read_text()
    d = yaml_fast.safe_load(text) or {}

    def fs(key: str) -> frozenset[str]:
        return frozenset(str(w) for w in d.get(key) or ())

    return Words(fs("determiners"), fs("between"), fs("request_words"), fs("between_verb"), fs("like_after"),
                 fs("not_things"), fs("function_words"), fs("measures"), fs("may_i"),
                 fs("measures") | fs("named_by_modifier"), fs("packaging"), fs("action_words"), fs("placing_words"),
                 fs("places_after"))


def _parts(cls: str) -> list[str]:
    return [w for w in re.split(r"[_\s-]+", cls.lower()) if w]


class Vocabulary:
    """The words a scene's classes cover (their own words, joined forms, WordNet synonyms and
    hypernyms over every sense), cached per class: built once per scene, O(classes)."""

    def __init__(self, wn: WordNet):
        self.wn = wn
        self._phys: dict[str, bool] = {}
        self._cov: dict[str, frozenset[str]] = {}

    def physical(self, word: str) -> bool:
        """Whether one of the word's ``SENSES`` most frequent noun senses is a physical thing
        (artifact, food, ...): a wrench is first a strain, then a twist, then the tool."""
        hit = self._phys.get(word)
        if hit is None:
            hit = False
            for lemma in self.wn.lemmas(word):
                offs = self.wn.index.get(lemma, ())
                if offs:
                    files = [self.wn._synset(o).lexfile for o in offs]
                    doings = sum(f in _DOINGS for f in files)
                    # a noun WordNet knows mostly as a doing ("the bottles need a rinse") names no thing
                    hit = any(f in PHYSICAL_LEXFILES for f in files[:SENSES]) and doings * 4 < len(files) * 3
                    break
            self._phys[word] = hit
        return hit

    def covered(self, cls: str) -> frozenset[str]:
        hit = self._cov.get(cls)
        if hit is None:
            # English compounds end in their head: a tape_measure is a measure, not a tape; but
            # a whipped_cream_can is named by what it holds, a rib_tool by its first word
            parts = _parts(cls)
            out = {parts[-1], "_".join(parts), "".join(parts), "-".join(parts)} if parts else set()
            if len(parts) == 1:
                parts = _split_compound(self, parts[0]) or parts  # a matchbox is a match box
            if len(parts) > 1 and parts[-1] in words().named_by_modifier:
                out.update(parts[:-1])
                out.add("_".join(parts[:-1]))
            k = self.wn.kinds(cls, lexfiles=PHYSICAL_LEXFILES)
            if k is not None:
                out.update(k[1])
            hit = self._cov[cls] = frozenset(out)
        return hit

    def hypernyms(self, word: str) -> frozenset[str]:
        k = self.wn.kinds(word)
        return k[1] if k is not None else frozenset()


def _requested(toks: Sequence[str], det: int, w: Words) -> bool:
    """The determiner at ``det`` opens the thing a request asks for: the object of a request word
    ("bring me the", "I need a"), of "can I have" / "I'd like" / "I'd love", of a question
    ("do you have a", "have you got any", "is there a", "where's the"), or a clause that opens
    with an indefinite one ("Some milk, please.", "A towel for the baby?")."""
    k = det - 1
    if k >= 1 and toks[k] in _CONJUNCTIONS:
        # "hand me the floss and a toothpick": a second conjunct is asked for as the first is
        # (not a new clause: "a cup of tea soon and the kettle's cold")
        prev = next((j for j in range(k - 1, max(-1, k - 5), -1) if toks[j] in w.determiners), None)
        clause = any(t in _COPULAS for t in toks[det + 1:det + 5])
        if prev is not None and not clause and all(t not in w.function_words and t != "of" for t in toks[prev + 1:k]):
            return _requested(toks, prev, w)
    while k >= 0 and toks[k] in w.between_verb:
        k -= 1
    if k >= 1 and toks[k - 1] in _OWN_ACTION and "you" not in toks[max(0, k - 4):k - 1]:
        return False  # "I want to put up a picture frame", "I need to get a nail in": the person's own doing
    if k < 0:
        return det == 0 and toks[det] in _ASKING_DETERMINERS
    if toks[k] in ("like", "love"):
        return k > 0 and toks[k - 1] in w.like_after
    if k >= 2 and toks[k] == "have" and toks[k - 1] == "i" and toks[k - 2] in w.may_i:
        return True  # "can I have some milk"
    if toks[k] in ("have", "got") and k >= 1 and toks[k - 1] in ("you", "we", "ya"):
        return True  # "do you have a pen", "have we got any batteries"
    if toks[k] == "got" and k >= 2 and toks[k - 1] in ("you", "we") and toks[k - 2] == "have":
        return True
    if toks[k] == "there" and k >= 1 and toks[k - 1] in ("is", "are", "s"):
        return True  # "is there a thermometer", "there's no"... is handled by the need reading
    if k >= 1 and toks[k - 1] == "where" and toks[k] in ("s", "is", "are"):
        return True  # "where's the shampoo"
    if toks[k] in w.request_words:
        return True
    return _acted_on(toks, det, w)


def _acted_on(toks: Sequence[str], det: int, w: Words) -> bool:
    """The determiner at ``det`` opens a thing the request acts on ("open the cupboard") or the
    place it puts a thing ("put the card in the vase"), not one of the person's own ("my
    cereal"): a thing the scene must hold too, judged more leniently (``_near_kind``)."""
    if toks[det] in _OWNED:
        return False
    k = det - 1
    while k >= 0 and (toks[k] in w.between_verb or toks[k] in ("on", "off")):
        k -= 1  # "turn on the lamp", "switch the fan off"
    if k >= 0 and _acting_verb(toks, k, w):
        return not _own_doing(toks, k)  # "I can't cut the paper": the person's doing
    return _placed_at(toks, det, w)


def _acting_verb(toks: Sequence[str], k: int, w: Words) -> bool:
    """``toks[k]`` is a verb acting on a thing (after a determiner the word is a noun: "pour the
    water down the drain")."""
    return toks[k] in w.action_words and not (k > 0 and toks[k - 1] in w.determiners)


def _own_doing(toks: Sequence[str], k: int) -> bool:
    """The verb at ``k`` is the person's own doing ("I can't cut the paper")."""
    return bool({"i", "we"} & set(toks[max(0, k - 4):k]))


def _instrument(toks: Sequence[str], i: int, w: Words) -> bool:
    """``toks[i]`` is the "with" of what an action of the request is done with ("wipe the bell
    with some degreaser", "fill the bowl with bleach"): a thing the scene must hold, with or
    without a determiner. Not the person's own doing ("I can't cut it with this") or own thing
    ("with my nails"), nor help with a thing ("help me with the shopping")."""
    if toks[i] != "with" or i + 1 >= len(toks) or toks[i + 1] in _OBJECT_PRONOUNS | _INDEFINITE | _OWNED:
        return False
    verb = next((k for k in range(i) if toks[k] in w.action_words), None)
    if verb is None or not _acting_verb(toks, verb, w) or "help" in toks[:i]:
        return False
    return not _own_doing(toks, verb) and not any(t in _OWN_ACTION for t in toks[:verb])


def _asked_for(toks: Sequence[str], det: int, w: Words) -> bool:
    k = det - 1
    while k >= 0 and toks[k] in w.between_verb:
        k -= 1
    return k >= 0 and toks[k] in w.request_words


def _near_kind(phrase: Sequence[str], classes: Iterable[str], vocab: Vocabulary, depth: int = 2) -> bool:
    """A scene class shares a hypernym with the phrase's head within ``depth`` levels of both (a
    bench and a table are both furniture; a hamper is a basket): a place or a thing acted on may
    go by another name than the scene's."""
    if any(phrase[-1] in _parts(c) for c in classes):
        return True  # "the marble" for the marble_slab
    near = {w for w, _ in vocab.wn._broader(phrase[-1], depth)} - _GENERIC
    if not near:
        return False
    return any(near & ({w for w, _ in vocab.wn._broader(c, depth)} | {c, _parts(c)[-1]}) for c in classes)


#: hypernyms too broad to make two things of a kind (a drawer and a key are both devices)
_GENERIC = frozenset({"instrumentality", "instrumentation", "device", "artifact", "artefact", "object",
                      "physical_object", "whole", "unit", "material", "stuff", "equipment", "implement",
                      "structure", "construction", "area", "container", "covering", "commodity", "goods",
                      "substance", "matter", "piece", "part", "portion"})


def _placed_at(toks: Sequence[str], det: int, w: Words) -> bool:
    """The determiner at ``det`` opens the place a placing verb of the clause puts a thing at or
    takes it from ("put the card in the vase", "take the mug off the shelf")."""
    k = det - 1
    if k < 0 or toks[k] not in w.places_after or toks[k] in _SOURCES:
        return False  # (a source misnamed takes nothing from the request: "the pan off the grill")
    return any(t in w.placing_words for t in toks[:k]) and not any(t in _OWN_ACTION for t in toks[:k])


#: words joining two things asked for alike ("the pump and a pressure gauge")
_CONJUNCTIONS = frozenset({"and", "or", "plus"})
#: after a conjunct's noun, these make it a clause of its own ("the kettle's stone cold")
_COPULAS = frozenset({"s", "is", "are", "was", "were", "has", "have", "looks", "seems", "needs", "need"})
#: prepositions of a source: where a thing comes from is not judged (the thing itself is)
_SOURCES = frozenset({"from", "off", "out"})
#: a thing said with these is the person's own, not one the scene must hold for the request
_OWNED = frozenset({"my", "your", "our", "his", "her", "their"})
#: before a request word, these make it the person's own action ("I need to get a nail in")
_OWN_ACTION = frozenset({"to", "gotta", "wanna"})
#: a determiner after these opens a group asked for by kind, not one thing
_GROUP_WORDS = frozenset({"all", "every", "each"})
#: an indefinite determiner opening a clause asks for the thing ("Some milk, please.")
_ASKING_DETERMINERS = frozenset({"some", "a", "an", "any"})
#: where a clause ends (the words of each are read on their own)
_CLAUSE_END = re.compile(r"[.,;!?:()]+|\s[-\u2013\u2014]\s")


_INDEFINITE = frozenset({"something", "anything", "everything", "nothing", "one", "ones"})
_OBJECT_PRONOUNS = frozenset({"it", "them", "me", "us", "him", "her"})


def _not_thing(word: str, vocab: Vocabulary, w: Words) -> bool:
    return word in w.not_things or any(lemma in w.not_things for lemma in vocab.wn.lemmas(word))


def _in_wordnet(vocab: Vocabulary, word: str) -> bool:
    return any(vocab.wn.index.get(lemma) for lemma in vocab.wn.lemmas(word))


def _known_whole(vocab: Vocabulary, whole: str) -> bool:
    """WordNet has the compound itself ("bread_knife"), not only its head."""
    n = whole.count("_")
    return any(vocab.wn.index.get(f) for f in vocab.wn.lemmas(whole) if f.count("_") == n)


def _category(vocab: Vocabulary, whole: str) -> bool:
    """The compound ("shaping_tools") is a WordNet kind with kinds of its own."""
    n = whole.count("_")
    return any(vocab.wn.is_category(f) for f in vocab.wn.lemmas(whole) if f.count("_") == n)


def _split_compound(vocab: Vocabulary, word: str) -> Optional[list[str]]:
    """A closed compound WordNet has as two words ("hairdryer": hair dryer), or None."""
    for cut in range(3, len(word) - 2):
        a, b = word[:cut], word[cut:]
        if _in_wordnet(vocab, a) and _in_wordnet(vocab, b) and _in_wordnet(vocab, f"{a}_{b}"):
            return [a, b]
    return None


def _noun_phrase(toks: Sequence[str], start: int, vocab: Vocabulary, w: Words) -> list[str]:
    """The words of the thing after a determiner: up to three words, ending before a function
    word, a determiner or a verb with its object ("take the tomato, chop it"); the last is the
    head noun ("the phone charger", "a magnifying glass", "a clean towel"). A measure phrase
    gives the thing measured ("a cup of coffee", "a roll of duct tape": coffee, duct tape);
    "one" names no class ("the gilt one")."""
    k = start
    while k < len(toks) and (toks[k] in w.between or (toks[k] in w.determiners and k == start)):
        k += 1  # "a clean towel", "a few cotton buds", "some more sugar"
    out: list[str] = []
    while k < len(toks) and len(out) < 3 and toks[k] not in w.determiners and toks[k] not in w.function_words \
            and toks[k] not in ("of", "one", "ones"):
        if k + 1 < len(toks) and toks[k + 1] in _OBJECT_PRONOUNS:
            break
        out.append(toks[k])
        k += 1
    if k < len(toks) and toks[k] in ("one", "ones"):
        return []
    if k < len(toks) and toks[k] == "of" and out and out[-1] in w.measures:
        k += 1
        if k < len(toks) and toks[k] in w.determiners:
            k += 1
        return _noun_phrase(toks, k, vocab, w)
    if k < len(toks) and toks[k] == "of":
        return []  # "the edge of the table", "a picture of ...": not the thing itself
    while out and not _in_wordnet(vocab, out[-1]):
        split = _split_compound(vocab, out[-1])
        if split is None:
            return []  # no noun WordNet knows heads it: a name, a misspelling
        out = out[:-1] + split
    return out[-3:]


def _phrase_covered(phrase: Sequence[str], covered: set[str], vocab: Vocabulary,
                    known: Callable[[str], bool], classes: Iterable[str] = (),
                    holders: frozenset[str] = frozenset()) -> bool:
    """Whether the scene has the thing: a holder (``holders``: carton, box, bag, ...) whose
    first word names a scene thing ("the milk carton" for the milk in the fridge: a thing named
    by what holds it); else a compound
    WordNet knows ("magnifying_glass") is judged as a whole, any other by its head noun. A
    thing is covered when a scene class is it, a kind of it or a synonym (``Vocabulary``). A
    compound's first word contrasts: "the bread knife" is not the scene's butter_knife (a
    class of the same head with another first word), though a plain knife would do."""
    def has(word: str) -> bool:
        return word in covered or bool(set(vocab.wn.lemmas(word)) & covered) or known(word)

    head = phrase[-1]
    if head in holders and any(has(word) for word in phrase[:-1]):
        return True
    if any(has(word) and ({head, *vocab.wn.lemmas(head)} & vocab.covered(word)
                          or _same_kind(vocab, word, head)) for word in phrase[:-1]):
        return True  # "the leather hide": the scene's leather, which like a hide is an animal skin
    whole = "_".join(phrase)
    if len(phrase) > 1 and _known_whole(vocab, whole):
        # judged as a whole: by its own lemmas only (not the head's: a butter knife is no bread_knife)
        forms = {f for f in vocab.wn.lemmas(whole) if f.count("_") == whole.count("_")}
        if (forms | {f.replace("_", "") for f in forms}) & covered or known(" ".join(phrase)):
            return True
    if len(phrase) > 1 and (whole in covered or "".join(phrase) in covered or known(" ".join(phrase))):
        return True
    if len(phrase) > 1 and _known_whole(vocab, whole) and not _category(vocab, whole) \
            and _contrasted(phrase, head, classes, vocab):
        return False  # an established kind ("bread knife") is not another one the scene has
        # (a kind with kinds of its own, "shaping tools", may be any the scene has: a loop_tool)
    if has(head):
        return True
    if _kind_of_a_class(vocab, whole if len(phrase) > 1 and _known_whole(vocab, whole) else head, classes):
        return True  # "a biro" for the scene's pen, "the secateurs" for its pruning_shears
    return any(len(head) >= 4 and c.endswith(head) for c in covered)  # "the bench" for the workbench


def _kind_of_a_class(vocab: Vocabulary, word: str, classes: Iterable[str]) -> bool:
    """``word`` names a kind of one of the scene's classes, by its WordNet synonyms and
    hypernyms up to two levels (none too general): a biro is a ballpoint, a pen; a brolly an
    umbrella; Sellotape an adhesive tape, a tape."""
    broader = set(vocab.wn.broader(word, 2)) - _GENERIC
    return bool(broader) and any("_".join(_parts(c)) in broader for c in classes)


def _same_kind(vocab: Vocabulary, a: str, b: str) -> bool:
    """``a`` and ``b`` are kinds of one specific thing (WordNet's direct hypernym of a physical
    sense of each, not a generic one): leather and a hide are animal skins."""
    shared = vocab.wn.parents(a) & vocab.wn.parents(b)
    return bool(shared) and not vocab.wn.words_of(shared) <= _GENERIC


def _contrasted(phrase: Sequence[str], head: str, classes: Iterable[str], vocab: Vocabulary) -> bool:
    """Every scene class named by ``head`` ("oven mitts": baking_mitt) has a first word of its
    own, unrelated to the phrase's: the phrase asks for another kind of the thing."""
    heads = {head, *vocab.wn.lemmas(head)}
    kinds = [_parts(c) for c in classes]
    same = [p for p in kinds if p and p[-1] in heads]

    def related(mods: Sequence[str]) -> bool:  # a cat carrier is a pet carrier: a cat is a pet
        return any(m == n or n in vocab.covered(m) or m in vocab.covered(n) for m in mods for n in phrase[:-1])

    return bool(same) and all(len(p) > 1 and not related(p[:-1]) for p in same)


def _asked_things(text: str, classes: Iterable[str], vocab: Vocabulary,
                  known: Callable[[str], bool]) -> Iterable[tuple[str, bool]]:
    """(phrase, whether the scene has it) for each thing ``text`` asks for or acts on, in order."""
    w = words()
    covered: set[str] = set()
    for c in classes:
        covered |= vocab.covered(c)
    for clause in _CLAUSE_END.split(text.lower().replace("’", "'")):
        toks = [m.group(0) for m in _WORD.finditer(clause)]
        for i, tok in enumerate(toks):
            if not ((tok in w.determiners and _requested(toks, i, w)) or _instrument(toks, i, w)):
                continue
            if tok in _GROUP_WORDS or (i > 0 and toks[i - 1] in _GROUP_WORDS):
                continue  # "all the protective gear": whatever there is of a kind (a group, not a thing)
            phrase = _noun_phrase(toks, i + 1, vocab, w)
            if not phrase or _not_thing(phrase[-1], vocab, w) or len(phrase[-1]) < 3 or phrase[0] in _INDEFINITE:
                continue  # "some elbow room", "the kitchen counter": no thing to fetch
            if len(phrase) == 1 and (phrase[0] in w.packaging or (phrase[0] in w.measures and not _asked_for(toks, i, w))):
                continue  # "put the carton back": the packaging of a thing the scene names by its contents
            whole = "_".join(phrase)
            if not (vocab.physical(phrase[-1]) or (len(phrase) > 1 and vocab.physical(whole))):
                continue
            if _phrase_covered(phrase, covered, vocab, known, classes, w.named_by_modifier):
                yield " ".join(phrase), True
            elif _acted_on(toks, i, w) and not _asked_for(toks, i, w) and _near_kind(phrase, classes, vocab):
                continue  # "the bench" where the scene has a table: a place of the same kind
            else:
                yield " ".join(phrase), False


def absent_thing(text: str, classes: Iterable[str], vocab: Vocabulary,
                 known: Callable[[str], bool] = lambda word: False) -> Optional[str]:
    """The first thing ``text`` asks for that no scene class covers (see the module), else None:
    the noun phrase after a determiner that follows a request word ("bring me the phone
    charger"), judged by its head noun and the compound it makes ("phone_charger").
    ``known(word)``: the caller's own words for scene things (synonyms, category members)."""
    return next((phrase for phrase, has in _asked_things(text, classes, vocab, known) if not has), None)


def asks_for_a_present_thing(text: str, classes: Iterable[str], vocab: Vocabulary,
                             known: Callable[[str], bool] = lambda word: False) -> bool:
    """``text`` asks for or acts on a thing the scene has ("bring me my reading glasses, I want
    to do the crossword"): a need it also states is context, not the request."""
    return any(has for _, has in _asked_things(text, classes, vocab, known))


def nearest_object(wanted: str, objects: Mapping[str, str], vocab: Vocabulary) -> Optional[str]:
    """The scene object (name -> class) whose class shares most WordNet hypernyms with
    ``wanted`` (a wrench and a screwdriver: hand tools), or None when none shares any."""
    mine = vocab.hypernyms(wanted)
    if not mine:
        return None
    best, best_n = None, 0
    for o, c in sorted(objects.items()):
        n = len(mine & vocab.covered(c))
        if n > best_n:
            best, best_n = o, n
    return best


__all__ = ["Abstention", "Vocabulary", "absent_thing", "asks_for_a_present_thing", "need_specs", "unmet_need", "nearest_object", "words"]
