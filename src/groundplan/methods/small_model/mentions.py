"""Stage 3, resolve: what an instruction says about the scene's objects (``analyze``: the
``Analysis`` of a ``records.Request``). The words that name things are the scene's lexicon
(``scene_lexicon.Lexicon``).

* mentions: class nouns (singular and plural, longest match first: "coffee table" before
  "table"), with an ordinal ("the second plate" is ``plate1``) or a place ("the one in the
  bowl"), and category words ("fruit", "snacks", "drinks": ``knowledge/data/goalsearch/categories.yaml``,
  classes or affordances);
* negation: "except X", "but not X", "not X", "other than X", "X isn't ...", "don't give me X",
  "leave X where it is": the objects named there are excluded from the goal, and the
  negated words are removed from the text that is scored;
* groups: "all / every / each / everything", a plural noun, or a number word before a noun
  ("two plastic cups", "three apples"): the set of objects the goal is about, optionally
  restricted to a named place ("everything on the second shelf", "the fruit in the bowl").

Nothing here reads a gold goal; only the instruction and the scene view."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from groundplan.methods.small_model.candidates import SceneView
from groundplan.methods.small_model.scene_lexicon import (
    _NO_DEST,
    _WORD,
    Lexicon,
    Mention,
    _by_contents,
    _one_of,
    categories,
    functions,
    functions_data,
    held_by,
    plural_forms,
)

ALL_WORDS = ("all", "every", "each", "everything")


#: the user as the receiver: "give me", "bring it to me", "I'd like"
PERSON = re.compile(r"\b(?:give|hand|bring|get|pass|fetch|grab|toss)\s+me\b|\b(?:to|for)\s+me\b|"
                    r"\bi\s*(?:'d|would)?\s*(?:like|want|need)\b|\bcan\s+i\s+(?:have|get)\b", re.IGNORECASE)


#: where a negated span starts (the span runs to the next comma / clause boundary)
_NEG_CUE = re.compile(
    r"\b(?:except(?:\s+for)?|but\s+not|other\s+than|apart\s+from|excluding|besides|without|"
    r"(?<=\ball )but|(?<=\beverything )but|(?<=\banything )but|(?<=\beach )but|(?<=\bevery one )but|"
    r"(?:is|are|was)n'?t|(?:is|are)\s+not|do\s*n[o']?t\s+(?:give|bring|hand|get|take|put|move|throw|use|touch|want|open|close|shut|"
    r"eat|drink|pour|cut|slice|chop|wash|clean|heat|warm|fill|empty|toss|bin|drop|forget\s+about)"
    r"(?:\s+me)?|never|not)\b", re.IGNORECASE)


#: "just no peanuts", ", no tomatoes though", "but no X": a bare "no" after a clause boundary
_NO_CUE = re.compile(r"(?:(?<=[,;:\-])\s*|\b(?:just|but|and|though)\s+)no\b(?!\s+(?:one|need|thanks|problem|way)\b)",
                     re.IGNORECASE)


#: "the X stays on the Y", "the X can stay there", "keep the X on it": X is kept where it is
_STAYS = re.compile(r"\b((?:the|my|your)\s+)([a-z_ ]+?)\s+(?:stays|remains|can\s+stay|should\s+stay|must\s+stay|"
                    r"has\s+to\s+stay)\b", re.IGNORECASE)


#: (``bar_cue``): "anything bar the coke", "all of them barring the blue one"
_NEG_CUE_BAR = re.compile(r"\b(?:(?<=\ball )bar|(?<=\beverything )bar|(?<=\banything )bar|(?<=\beach )bar|"
                          r"(?<=\bthem )bar|(?<=\bthose )bar|barring|"
                          #  "set it on the counter, bar the milk"
                          r"(?<=, )bar(?=\s+(?:the|my|your|our|that|this|those|these|a|an)\b))\b", re.IGNORECASE)


#: (``cue_words``): "I don't need the veil", "no need for the ladder", "the knife isn't needed",
#: "don't you dare move my coffee"
_NEG_CUE_MORE = re.compile(r"\b(?:do\s*n[o']?t|won'?t|will\s+not)\s+(?:really\s+)?need\b|\bno\s+need\s+for\b|"
                           r"\bnot\s+needed\b|\bdo\s*n[o']?t\s+(?:you\s+)?(?:dare|even\s+think\s+about)\b",
                           re.IGNORECASE)


#: (``subject_negation``): "..., but the knives shouldn't go in there", "and the lid
#: mustn't come off": a thing named as the subject of a negated modal is left out
_NEG_SUBJECT = re.compile(r"\b(?:but|and|though|while|just)\s+((?:the|my|your|our|those|these)\s+[a-z_ ]+?)\s+"
                          r"(?:should\s*n[o']?t|should\s+not|must\s*n[o']?t|must\s+not|can\s*n[o']?t|can't|"
                          r"do\s*n[o']?t|does\s*n[o']?t|do\s+not|does\s+not|won'?t|will\s+not|are\s*n'?t\s+to|"
                          r"are\s+not\s+to|is\s*n'?t\s+to|is\s+not\s+to|need\s*n[o']?t|need\s+not)\b",
                          re.IGNORECASE)


#: (``cue_words``): "get a coke out and hand it over", "pass them here", "fetch the salad":
#: handed to the person too
PERSON_MORE = re.compile(r"\b(?:hand|pass|give|toss|chuck|bring)\s+(?:(?:it|them|that|this|those|these|one|some)\s+)?"
                         r"(?:over|here)\b|\bfetch\b", re.IGNORECASE)


_NEG_END = re.compile(r"[,.;!?]|\b(?:and|then|but|give|bring|hand|instead|please)\b", re.IGNORECASE)


#: "leave the hammer where it is" / "keep the sponge on the counter": that object stays
_LEAVE = re.compile(r"\b(?:leave|keep)\s+((?:the|my|your|a|an)\s+)?([a-z_ ]+?)\s+(?:where\s+it\s+is|alone|as\s+it\s+is|"
                    r"where\s+they\s+are|there|be|untouched|on|in|out)\b", re.IGNORECASE)


#: "chuck the tomato in the bin, but keep the chopping board": a thing kept, with
#: nothing after it in its clause (not "keep the door shut", "keep the milk cold")
_KEPT_THING = r"((?:the|my|your|a|an)\s+)?([a-z_ ]+?)\s*(?=[,.;!?]|$)"


_KEEP_END = re.compile(r"(?:\b(?:but|and|though|just)|,)\s+keep\s+" + _KEPT_THING, re.IGNORECASE)


#: words that make "keep the X ..." a state or a place, not a thing kept: "keep the door shut"
_KEPT_STATES = frozenset({"shut", "closed", "open", "cold", "cool", "warm", "hot", "clean", "dry", "safe", "tidy",
                          "full", "empty", "on", "off", "out", "in", "going", "running", "away", "handy", "nearby",
                          "close", "ready", "covered", "upright", "locked", "chilled", "wet", "separate", "apart",
                          "whole", "intact", "fresh", "aside", "back", "it", "them", "there", "here"})


#: (``bother_cue``): "don't bother with the glass, it's clean", "no need to worry about the plate"
_NEG_CUE_BOTHER = re.compile(r"\b(?:do\s*n[o']?t|no\s+need\s+to|never)\s+(?:bother|worry)\s+(?:with|about)\b", re.IGNORECASE)


#: (``leave_end``): "bring me my keys and wallet, but leave the jacket": "leave" as "keep"
#:  and at the start: "leave the mug, but put the rag in the drawer"
_LEAVE_END = re.compile(r"(?:^\s*(?:please\s+)?|(?:\b(?:but|and|though|just)|,)\s+)(?:keep|leave)\s+" + _KEPT_THING,
                        re.IGNORECASE)


def _kept_at_end(text: str, leave: bool = False) -> list:
    """The matches of ``_KEEP_END`` (with ``leave``, ``_LEAVE_END``) whose kept words are a thing
    alone, with no state or place: not "keep the door shut", "keep the tomato off it", "keep the
    other one whole"."""
    return [m for m in (_LEAVE_END if leave else _KEEP_END).finditer(text)
            if not _KEPT_STATES.intersection(m.group(2).lower().split())]


#: "all" that quantifies nothing: "crumbs all over the table", "all day", "not at all"
_ALL_IDIOM = re.compile(r"\ball(?=\s+(?:over|around|along|day|night|week|morning|evening|alone|right|set|done|gone|"
                        r"of\s+a\s+sudden|the\s+time|the\s+way|in\s+all)\b)|(?<=\bat\s)all\b|(?<=\bafter\s)all\b",
                        re.IGNORECASE)


#: (``cue_words``): "tea all across my notes", "mud all down my jeans", "all through the night"
_ALL_IDIOM_MORE = re.compile(r"\ball(?=\s+(?:across|through|down|up|about|under|into)\b)", re.IGNORECASE)


#: (``adverb_all``): "all" as an intensifier after a linking verb, before a word that is
#: no determiner: "my fingers are all tacky", "I'm all sweaty", "it's got all sticky"
_ALL_ADVERB = re.compile(r"\b(?:am|are|is|was|were|be|been|get|gets|got|getting|feel|feels|look|looks|'re|'m|'s)"
                         r"\s+(all)\s+(?!(?:the|of|my|your|our|their|his|her|its|those|these|that|this|them|us|you|"
                         r"mine|yours|ours|theirs|set|done|gone|in|out|here|there|right|over|around)\b)[a-z]",
                         re.IGNORECASE)


def quantifier_text(text: str, more_cues: bool = False, adverb: bool = False) -> str:
    """``text`` with idiomatic "all" blanked (same length, so positions stay)."""
    out = _ALL_IDIOM.sub(lambda m: " " * len(m.group(0)), text)
    if adverb:
        out = _ALL_ADVERB.sub(lambda m: m.group(0)[:m.start(1) - m.start(0)] + "   " + m.group(0)[m.end(1) - m.start(0):],
                              out)
    return _ALL_IDIOM_MORE.sub(lambda m: " " * len(m.group(0)), out) if more_cues else out


@dataclass(frozen=True)
class Analysis:
    text: str  # the instruction without its negated spans
    mentions: tuple[Mention, ...] = ()
    excluded: frozenset[str] = frozenset()
    #: the objects a group instruction is about (empty: not a group instruction)
    group: frozenset[str] = frozenset()
    #: "all": every object of the group; k >= 2: that many of them
    count: Optional[int] = None
    #: a place the group is taken from ("everything on the second shelf")
    source: Optional[str] = None
    negated_spans: tuple[str, ...] = field(default=())
    #: objects the instruction keeps where they are ("leave the X on the Y", "the X stays")
    kept: frozenset[str] = frozenset()
    #: (``cue_words``): "hand it over", "fetch" hand things to the person too
    more_cues: bool = False

    @property
    def named(self) -> frozenset[str]:
        return frozenset(o for m in self.mentions if not m.category and not m.descriptor for o in m.objects)

    @property
    def kinds(self) -> frozenset[str]:
        """Objects of a category the instruction names ("some cutlery")."""
        return frozenset(o for m in self.mentions if m.category for o in m.objects)

    @property
    def to_person(self) -> bool:
        return to_person(self.text, self.more_cues)

    @property
    def descriptors(self) -> frozenset[str]:
        return frozenset(o for m in self.mentions if m.descriptor for o in m.objects)


def _clause_end(text: str, start: int) -> int:
    m = re.compile(r"[,.;!?]|\b(?:and|then|but|instead|please)\b", re.IGNORECASE).search(text, start)
    return m.start() if m else len(text)


def _is_pronoun(words: str) -> bool:
    return words.strip().lower() in ("it", "them", "this", "that", "these", "those", "this one", "that one",
                                     "both", "them both", "both of them", "them all", "all of them")  #


def to_person(text: str, more_cues: bool = False) -> bool:
    """Whether ``text`` hands something to the person ("give me", "for me", "I'd like"; with
    ``more_cues``  also "hand it over", "pass them here", "fetch")."""
    return bool(PERSON.search(text) or (more_cues and PERSON_MORE.search(text)))


def _negated_spans(text: str, keep: bool = False, more_cues: bool = False,
                   bar: bool = False, subject: bool = False, leave: bool = False,
                   bother: bool = False) -> list[tuple[int, int]]:
    """Negated spans; with ``keep``  also "just no X", and a kept object's span runs to
    the end of its clause ("leave the broom on the counter": the counter is no destination);
    with ``more_cues``  also "I don't need the X", "no need for the X"."""
    spans = []
    cues = list(_NEG_CUE.finditer(text))
    if more_cues:
        cues += [m for m in _NEG_CUE_MORE.finditer(text) if not any(c.start() <= m.start() < c.end() for c in cues)]
    if bar:
        cues += list(_NEG_CUE_BAR.finditer(text))
    if bother:
        cues += list(_NEG_CUE_BOTHER.finditer(text))
    for m in cues:
        end_m = _NEG_END.search(text, m.end())
        end = end_m.start() if end_m else len(text)
        # "isn't coke" / "not the banana": the span is the cue and what follows it
        spans.append((m.start(), end))
    if subject:  #  "but the knives shouldn't go in there": the subject to the clause's end
        spans += [(m.start(1), _clause_end(text, m.end())) for m in _NEG_SUBJECT.finditer(text)]
    for m in _LEAVE.finditer(text):
        if keep and _is_pronoun(m.group(2)):
            continue  # "pick up the spoon and leave it on the counter": a placement, nothing kept
        spans.append((m.start(), _clause_end(text, m.end(2)) if keep else m.end(2)))
    if keep:
        for m in _NO_CUE.finditer(text):
            end_m = _NEG_END.search(text, m.end())
            spans.append((m.start(), end_m.start() if end_m else len(text)))
        for m in list(_STAYS.finditer(text)) + _kept_at_end(text, leave):
            if not _is_pronoun(m.group(2)):
                spans.append((m.start(), _clause_end(text, m.end())))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for s, e in spans:
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return merged


def _kept_objects(text: str, mentions: list[Mention], leave: bool = False) -> set[str]:
    """The objects of "leave / keep the X ..." and "the X stays ...": the first mention of each."""
    out: set[str] = set()
    starts = [m.start(2) for m in list(_LEAVE.finditer(text)) + list(_STAYS.finditer(text))
              + _kept_at_end(text, leave) if not _is_pronoun(m.group(2))]
    for st in starts:
        m = next((x for x in mentions if x.start >= st and not x.category), None)
        if m is not None and m.start - st < 30:
            out |= set(m.objects)
    return out


#: a definite article before a mention: "the fruit", "your cutlery"
_DEFINITE = re.compile(r"\b(?:the|my|your|our|these|those)\s+(?:\w+\s+)?$")


#: "all the fabric", "all of the bread": every object of a singular (mass) noun
_ALL_THE = re.compile(r"\ball\s+(?:of\s+)?(?:the|my|your|our|these|those)\s+(?:\w+\s+)?$")


#: between two things said together: "the fruit and (all the) vegetables", "the apple, and the bananas"
_AND_GAP = re.compile(r"\s*(?:,\s*)?(?:and|or|&)\s+(?:the\s+|all\s+the\s+|any\s+)?")


#: a source place said as a pronoun: "take everything out of it", "shift every single thing off it"
_PLACE_PRONOUN = re.compile(r"\b(?:out\s+of|off(?:\s+of)?|from)\s+(?:it|there)\b")


_ON_PLACE = re.compile(r"\s+(?:on|in|inside|from|off|under)\s+(?:the|my|your|our|that|this)\s+", re.IGNORECASE)


def _placed_one(text: str, m: "Mention", kept, view: SceneView) -> Optional[str]:
    """of the objects a mention names, the one on or in the place said right after it
    ("the basket on the shelf", "the box in the cupboard"); None unless exactly one."""
    after = _ON_PLACE.match(text, m.end)
    if after is None:
        return None
    where = next((x for x in kept if x.start == after.end() and not x.category), None)
    if where is None:
        return None
    there = {o for o in m.objects if view.place.get(o) in where.objects}
    return next(iter(there)) if len(there) == 1 else None


#:  "not the apple from my lunch box": the words between a thing and its place
_LOCATED_GAP = re.compile(r"\s*(?:that's\s+|that\s+is\s+|which\s+is\s+|that\s+are\s+|still\s+)?(?:from|in|on|inside|"
                          r"out\s+of|off)\s+(?:(?:the|my|your|our|his|her|their|this|that)\s+)?(?:[a-z'-]+\s+)?", re.IGNORECASE)


def _excluded_places(text: str, mentions, spans, view: SceneView) -> dict[int, set[str]]:
    """(``located_exclusions``): in a negated span, a thing of several followed by where it
    is ("not the apple from my lunch box") excludes the ones there, and the place is no exclusion.
    Mention index -> excluded objects (an empty set for the place)."""
    out: dict[int, set[str]] = {}
    for k in range(len(mentions) - 1):
        m, at = mentions[k], mentions[k + 1]
        span = next(((s, e) for s, e in spans if s <= m.start < e), None)
        if span is None or len(m.objects) < 2 or not (span[0] <= at.start < span[1]) or at.category \
                or not _LOCATED_GAP.fullmatch(text[m.end:at.start]):
            continue
        there = {o for o in m.objects if view.place.get(o) in at.objects}
        if there and there != set(m.objects):
            out[k], out[k + 1] = there, set()
    return out


def with_vessels(objs: set[str], view: SceneView) -> set[str]:
    """``objs`` and the vessels that hold those of them that are liquids (not a person's hand)."""
    return objs | {a.args[1] for a in view.init if a.predicate == "liquid_in" and len(a.args) == 2
                   and a.args[0] in objs and a.args[1] not in view.humans}


def analyze(instruction: str, view: SceneView, lex: Lexicon, *, negation: bool = True,
            groups: bool = True, keep: bool = False, singular_all: bool = False,
            mass_groups: bool = False, more_cues: bool = False, bar: bool = False,
            adverb_all: bool = False, place_pronoun: bool = False, every_place: bool = False,
            subject_negation: bool = False, conjoined: bool = False, contents: bool = False,
            nested_places: bool = False, plural_pairs: bool = False, definite_source: bool = False,
            excluded_vessels: bool = False,
            one_of_adjective: bool = False, located_exclusions: bool = False,
            nested_sources: bool = False, leave_end: bool = False, bother: bool = False) -> Analysis:
    """``keep`` : "just no X", kept objects ("leave the X on the Y"); ``singular_all``:
    "every mug", "each glass" name every object of the class; ``mass_groups`` : a
    definite category word with an exception names the category's members ("the fruit, apart
    from the tomato", "the cutlery but not the knives"), and "all the fabric" every object of
    a singular noun. ``more_cues`` : "don't need the X" negates, "hand it over" / "fetch"
    hand to the person, "everything out of the fridge" takes the group from the fridge."""
    text = instruction
    mentions = lex.mentions(text)
    excluded: set[str] = set()
    spans = _negated_spans(text, keep, more_cues, bar, subject_negation, leave_end, bother) if negation else []
    kept_objs = frozenset(_kept_objects(text, mentions, leave_end)) if negation and keep else frozenset()
    kept = []
    where = _excluded_places(text, mentions, spans, view) if located_exclusions else {}
    for k, m in enumerate(mentions):
        inside = any(s <= m.start < e for s, e in spans)
        if inside:
            excluded |= where.get(k, set(m.objects))
        else:
            kept.append(m)
    excluded -= {view.place.get(o) for o in kept_objs}  # "leave the X on the counter": the counter is not excluded
    if excluded_vessels and excluded:  #  "everything out of the fridge, bar the milk": the milk carton
        excluded |= with_vessels(excluded, view) - {o for m in kept for o in m.objects}
    positive = text
    for s, e in reversed(spans):
        positive = positive[:s] + " " + positive[e:]
    positive = re.sub(r"\s+", " ", re.sub(r"\s+([,.;!?])", r"\1", positive)).strip(" ,;")
    named_excl = frozenset(excluded)
    if not groups:
        return Analysis(positive or text, tuple(kept), named_excl, negated_spans=tuple(text[s:e] for s, e in spans),
                        kept=kept_objs, more_cues=more_cues)
    words = _WORD.findall(quantifier_text(positive, more_cues, adverb_all).lower())
    group: set[str] = set()
    count: Optional[int] = None
    source: Optional[str] = None
    # "clear the table (into the trash)": everything there
    has_all = any(w in ALL_WORDS for w in words) or bool(re.search(r"\b(clear|empty)\s+(off\s+|out\s+)?the\b",
                                                                     positive, re.IGNORECASE))
    # a plural noun is a group; a category word ("fruit", "food") only with "all"
    grouped = [m for m in kept if (m.plural or (m.category and has_all)) and len(m.objects - excluded) >= 2
               and not (lex.state_descriptors and m.descriptor)]  # ("the box of energy bars")
    if singular_all:  # "hand me one of the drinks": one member
        low = instruction.lower()
        grouped = [m for m in grouped if not _one_of(_WORD.findall(low[max(0, m.start - 40):m.start])[-5:],
                                                     one_of_adjective)]
    if singular_all:  # "every mug you can find", "each glass", "every single juice"
        low = instruction.lower()
        grouped += [m for m in kept if not m.plural and not m.category and m not in grouped
                    and re.search(r"\b(?:every|each)\s+(?:single\s+)?" + (r"(?:empty\s+|clean\s+|dirty\s+|open\s+|"
                                  r"closed\s+)?" if lex.empty_state else "") + "$", low[max(0, m.start - 26):m.start])
                    and len(m.objects - excluded) >= 2]
    if mass_groups:
        low = instruction.lower()
        grouped += [m for m in kept if m not in grouped and len(m.objects - excluded) >= 2 and (
            (m.category and excluded and _DEFINITE.search(low[max(0, m.start - 25):m.start])
             and not _one_of(_WORD.findall(low[max(0, m.start - 40):m.start])[-4:])
             and not re.search(r"\b(?:any|one|either|some)\s+(?:of\s+)?(?:the\s+)?(?:\w+\s+)?$",
                               low[max(0, m.start - 25):m.start]))
            or (not m.plural and not m.category and _ALL_THE.search(low[max(0, m.start - 30):m.start])))]
    if definite_source and not grouped:
        #  "tip the fruit out of the bowl": a definite category taken out of a place that
        # holds two or more of its members is all of them there
        low = instruction.lower()
        places = set(view.place.values())
        for m in kept:
            if not m.category or not _DEFINITE.search(low[max(0, m.start - 12):m.start]):
                continue
            after = re.match(r"\s+(?:out\s+of|off|from)\s+(?:the|my|your|that|this)\s+", low[m.end:])
            at = next((x for x in kept if after and x.start == m.end + after.end() and not x.category), None)
            if at is not None and len(at.objects) == 1 and set(at.objects) <= places and \
                    len(held_by(view, next(iter(at.objects)), every_place) & (m.objects - excluded)) >= 2:
                grouped = [m]
                break
    if plural_pairs and has_all and not grouped:
        #  "all the pots and pans" with one pot and one pan: plurals joined by "and"
        low = instruction.lower()
        pair = [m for m in kept if m.plural and not m.category and m.objects - excluded]
        joined = [m for m in pair if any(_AND_GAP.fullmatch(low[g.end:m.start]) or _AND_GAP.fullmatch(low[m.end:g.start])
                                         for g in pair if g is not m)]
        if joined and len(frozenset().union(*(m.objects for m in joined)) - excluded) >= 2:
            grouped = joined
    if conjoined and grouped:  #  "all the fruit and vegetables", "the apple and the bananas": one joins too
        low = instruction.lower()
        grouped += [m for m in kept if m not in grouped and m.objects - excluded and any(
            _AND_GAP.fullmatch(low[g.end:m.start]) or _AND_GAP.fullmatch(low[m.end:g.start]) for g in grouped)]
    counted = [m for m in kept if m.count and m.count >= 2 and len(m.objects - excluded) >= m.count]
    if counted:
        count = counted[0].count
        group = set(counted[0].objects) - excluded
    elif grouped or has_all:
        for m in grouped:
            group |= set(m.objects)
        places = set(view.place.values())
        # a source place: "on / in / from / off the X" naming a place that holds members
        for m in kept:
            if m.category or not (set(m.objects) & places):
                continue
            pre = instruction.lower()[max(0, m.start - 25):m.start]
            prep = re.search(r"\b(on|in|from|off|at|inside|clear|empty" + (r"|out\s+of" if more_cues else "") +
                             r")\b(\s+\w+){0,2}\s*$", pre)
            if not prep:
                continue
            # a source when said so ("from", "off", "clear the table"), when a destination
            # follows, or when the verb needs none ("throw away all the fruit in the bowl");
            # else a destination
            later = [x for x in kept if x.start > m.end and not x.category and (set(x.objects) & places)]
            said = prep.group(1) in ("from", "off", "clear", "empty") or prep.group(1).startswith("out")
            if not said and not later and not _NO_DEST.search(instruction):
                continue
            place = next(iter(m.objects)) if len(m.objects) == 1 else None
            if place is None and nested_places:  #  "the basket on the shelf": the one there
                place = _placed_one(instruction, m, kept, view)
            if place is None:
                continue
            here = held_by(view, place, every_place)
            if nested_sources and group:  #  "all the food from the table": the apple on a plate there too
                here = here | {o for x in here for o in held_by(view, x, every_place) if o in group}
            if group and not (group & here):
                continue  # "put all the books on the coffee table": a destination
            if not group and not has_all:
                continue
            source = place
            group = (group & here) if group else here
            break
        if source is None and place_pronoun and has_all and not (group and len(group) >= 2):
            #  "I'm restocking the drawer, so take everything out of it": the place said before
            low = instruction.lower()
            ref = _PLACE_PRONOUN.search(low)
            before = [x for x in kept if ref and x.end <= ref.start() and not x.category and len(x.objects) == 1
                      and set(x.objects) & places]
            if ref and before:
                place = next(iter(before[-1].objects))
                here = held_by(view, place, every_place)
                if len(here) >= 2:
                    source, group = place, here
        if not group and not has_all:
            group = set()
    if contents and group:  #  "the bowls that have nuts in them", "not the empty one"
        group, excluded, said = _by_contents(instruction, spans, group, excluded, view, lex, every_place)
        if said:  # the words scored say "two of the bowls", not "... in them" (no destination)
            positive = re.sub(r"\s+", " ", positive.replace("’", "'").replace(said, " ")).strip()
    group -= excluded
    if group and len(group) < 2 and count is None:
        group = set()
    return Analysis(positive or text, tuple(kept), named_excl, frozenset(group), count, source,
                    tuple(text[s:e] for s, e in spans), kept_objs, more_cues)


__all__ = ["Analysis", "Lexicon", "Mention", "analyze", "categories", "functions", "functions_data", "held_by",
           "plural_forms", "with_vessels"]
