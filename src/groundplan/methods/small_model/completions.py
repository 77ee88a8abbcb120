"""Stage: complete. Goals the ranked atoms imply but do not say: a lid closed again, the
container left shut, a surface cleared, contents moved, a cup refilled, a drink served in a
vessel, a wet cloth for sticky hands, things chilled before they spoil."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Optional, Sequence

import numpy as np

from groundplan.knowledge.wordnet import WordNet
from groundplan.methods.small_model import structures
from groundplan.methods.small_model.candidates import (
    CandidateAtom,
    SceneView,
)
from groundplan.methods.small_model.mentions import Analysis, with_vessels
from groundplan.methods.small_model.needs import (
    wanted,
)
from groundplan.methods.small_model.patterns import (
    _CLAUSE_SPLIT,
    _DET,
    _HOT_KINDS,
    _NESTED_GAP,
    _NOUNS,
    _PLANT_WORDS,
    _PRONOUN,
    _SENTENCE,
    _WORD,
    _class_words,
    _cold_places,
    _drinking_vessels,
    _kind,
)
from groundplan.methods.small_model.records import GoalCandidate, Request, Scored
from groundplan.methods.small_model.scene_lexicon import Lexicon, held_by
from groundplan.pddl.formula import Atom, Not

if TYPE_CHECKING:
    from groundplan.methods.small_model.search import GoalSearcher


#: (``empty_state``) empty vessels asked for, not said to be empty: "I want every empty vase"
_EMPTY_WANTED = re.compile(r"\b(?:every|each|all(?:\s+the)?|the|an|any|some|two|three|a\s+couple\s+of)\s+empty\s+\w+",
                           re.IGNORECASE)


#:  the person's own ("my coffee", "for me", "bring me")
_MINE = re.compile(r"\b(?:my|me|mine)\b")


#: (``wet_wipe``) hands or fingers said to be sticky or dirty; and said to be wet
_STICKY_HANDS = re.compile(r"\b(?:hands?|fingers|paws|face)\b[^.!?]{0,30}?\b(?:sticky|greasy|gunky|gunk|tacky|caked|covered|"
                           r"mucky|grubby|dirty|filthy|black|jam|honey|paint|ketchup|glue|grease|clay|mud|muddy|smeared)\b|"
                           r"\b(?:sticky|greasy|gunky|tacky|mucky|grubby|dirty|filthy|muddy)\s+(?:hands|fingers|paws|face)\b|"
                           r"\b(?:gunk|grease|paint|ketchup|jam|honey|glue|clay|mud)\s+(?:all\s+)?(?:over|on)\s+my\s+"
                           r"(?:hands|fingers|face)\b")


_WET_HANDS = re.compile(r"\b(?:wet|dripping|soaking|soaked|damp|drenched|washed|sweaty)\b")


#: a vessel said to be empty (``fill_for_need``)
_EMPTY_SAID = re.compile(r"\b(?:empty|bone\s+dry|run\s+dry|(?:is|are|'s|'re|gone|looks?)\s+(?:\w+\s+)?dry|"
                         r"nothing\s+(?:left\s+)?in\s+(?:it|them))\b", re.IGNORECASE)


def _ends_closed(atoms: list, things, closing: dict[str, Atom]) -> list:
    """``atoms`` with each of ``things`` closed at the end: its opening goes, its closing is added
    (``closing_steps``, ``negated_leave``)."""
    for o in things:
        atoms = [a for a in atoms if not (a.predicate == "opened" and a.args and a.args[0] == o)]
        if closing[o] not in atoms:
            atoms.append(closing[o])
    return atoms


def _whole_things(cl: str, lex: Lexicon) -> list:
    """The mentions of things (no categories) in ``cl``; "the fridge door" names the fridge (its
    door), not a door of the room."""
    ms = [m for m in lex.mentions(cl) if not m.category]
    return [m for k, m in enumerate(ms) if not (k and not cl[ms[k - 1].end:m.start].strip()
                                                and _PART_WORD.fullmatch(cl[m.start:m.end].lower()))]


#:  "clear the clamps off my bench"; "clear the bench off", "clear off the shelf", "clear the
#: table for the next round"
_CLEAR_END = r"(?=\s*(?:[,.;!?]|$|\bbut\b|\bexcept\b|\bapart\b|\bleav|\bplease\b|\bthanks\b|\bcheers\b))"


_CLEAR_OFF = (re.compile(r"\b(?:clear|take|get|lift)\s+(?P<np>[^,.;!?]{1,50}?)\s+off(?:\s+of)?\s+"
                         r"(?P<place>(?:the\s+|my\s+|your\s+|our\s+|that\s+|this\s+)?[a-z' ]{1,30}?)" + _CLEAR_END),
              re.compile(r"\bclear\s+(?:off\s+)?(?P<place>(?:the\s+|my\s+|your\s+|our\s+|that\s+|this\s+)[a-z' ]{1,30}?)"
                         r"(?:\s+off)?(?:\s+for\s+[a-z' ]{1,30}?)?" + _CLEAR_END))


#:  "tidy (up) my desk, but leave ...", "empty the fridge except for the milk": a place
#: tidied or emptied (``tidy_kept``)
_TIDY_KEPT = re.compile(r"\b(?:tidy|empty)\s+(?:up\s+|out\s+)?(?P<place>(?:the\s+|my\s+|your\s+|our\s+|that\s+|this\s+)[a-z' ]{1,30}?)"
                        r"(?:\s+up)?" + _CLEAR_END)


#:  words that make the text after "off" more than a place ("off the shelf for me", "... and bring them")
_NOT_A_PLACE = re.compile(r"\b(?:onto|into|on|in|to|for|off|except|from|with|me|us|and|then|or|it|them|over|please)\b")


#:  what a clearing keeps: "..., but leave the violin where it is", "apart from my towel"
_CLEAR_KEPT = re.compile(r"\b(?:(?:leave|leaving)(?!\s+(?:it|them)\b)|not|don't|do\s+not|except|apart|but\s+the|bar|besides|other\s+than)\b"
                         r"[^,.;!?]*")


#:  after the place cleared, in its sentence: something else done with the things
_CLEAR_THEN = re.compile(r"\b(?:me|us|hand|give|pass|bring|put|place|set|lay|pop|stick|drop|move|carry|throw|bin|chuck|"
                         r"dump|wash|rinse|wipe|stack|pile|store|hang|goes|go)\b")


#:  a destination said after the place cleared: "... and onto the counter", "into the box"
_DEST_AFTER = re.compile(r"\b(?:onto|into|inside|on\s+to|in\s+to|over\s+to|on|in|to|away\s+in|back\s+(?:in|on))\s+"
                         r"(?:the|my|your|our|a|an|that|this)\b")


_MOVED_CONTENTS = re.compile(
    r"\b(?:(?:clear|tidy|empty)(?:\s+(?:up|out|off))?\s+(?P<place0>" + _DET + _NOUNS + r")"
    r"|(?:put|move|take|bring|gather|transfer|shift|get|carry|stash|pack|tip|load|clear)\s+"
    r"(?P<np>[^,.;!?]{1,40}?)\s+(?P<src>from|off\s+of|off|out\s+of|on|in|that's\s+on|that's\s+in)\s+"
    r"(?P<place>" + _DET + _NOUNS + r"(?:\s+(?:on|in)\s+" + _DET + _NOUNS + r")?))"
    r"(?:\s+(?:out|up|away|over|across|back))?\s+(?:and\s+)?(?P<prep>into|onto|in\s+to|on\s+to|over\s+to|across\s+to|"
    r"up\s+onto|up\s+on|up\s+to|to|in|on)\s+(?P<dest>" + _DET + _NOUNS + r")"
    r"(?=\s*(?:[,.;!?:(\u2013-]|$)|\s+(?:but|except|apart|all\s+but|bar|other\s+than|save|only|leaving|and\s+leave|"
    r"though|please|for\s+me)\b)")


#:  "bring me the fruit bowl but take the banana out of it first"
_TAKE_OUT_FIRST = re.compile(r"\b(?:bring|hand|pass|give|fetch|get|carry)\s+(?:me\s+|us\s+)?(?P<c>" + _DET + _NOUNS + r")"
                             r"(?:\s+(?:over|here|across|through))?(?:\s+(?:to|for)\s+(?:me|us))?\s*,?\s+(?:but|and)\s+"
                             r"(?:first\s+)?(?:take|get|pull|lift|fish)\s+(?P<x>" + _DET + _NOUNS + r")\s+out\b")


#: (``still_whole``) food said to be uncut: "still whole", "in one piece", "not sliced yet",
#: "too big to manage in one go"
_STILL_WHOLE = re.compile(r"\b(?:(?:still|all)\s+(?:whole|in\s+one\s+piece|uncut|in\s+one\s+lump)|"
                          r"(?:is|are|'s|'re)\s+whole\b|in\s+one\s+piece|uncut|(?:not|n't|never)\s+(?:been\s+)?"
                          r"(?:cut|sliced|chopped|diced)(?:\s+up)?\s+yet|too\s+big\s+to\s+(?:eat|manage|bite|fit|get))\b")


#:  the words for "whatever is there": no kind said
_ANY_THING = re.compile(r"\s*(?:everything|all|it\s+all|all\s+of\s+it|the\s+lot|(?:all\s+)?(?:the\s+)?(?:stuff|things|bits|"
                        r"odds\s+and\s+ends|bits\s+and\s+pieces))\s*")


#:  a destination preposition that cannot say where a thing is now
_DIRECTIONAL = re.compile(r"into|onto|in\s+to|on\s+to|over\s+to|across\s+to|up\s+onto|up\s+to")


#:  "don't leave the fridge open", "never leave it open", "make sure the tub isn't left open"
_LEAVE_OPEN = re.compile(r"\b(?:(?:don't|do\s+not|dont|never|not\s+to|try\s+not\s+to)\s+(?:go\s+and\s+)?leave\s+"
                         r"(?P<np>[^,.;!?]{1,40}?)\s+(?:wide\s+|hanging\s+|standing\s+|lying\s+)?(?:open|opened|ajar)|"
                         r"(?:make\s+sure|check|see\s+that)\s+(?P<np2>[^,.;!?]{1,40}?)\s+(?:isn't|is\s+not|aren't|"
                         r"are\s+not|doesn't\s+get|does\s+not\s+get|don't\s+get|isn't\s+being)\s+(?:left\s+)?"
                         r"(?:wide\s+)?(?:open|opened|ajar))\b")


#:  a step that closes something ("shut it again", "put the lid back on"; not "close to")
_CLOSE_STEP = re.compile(r"\b(?:close|shut)\b(?!\s+(?:to|by|up\s+shop)\b)|\blid\s+(?:back\s+)?on\b")


_NOT_STEP = re.compile(r"\b(?:don't|do\s+not|dont|never|not|no\s+need|without)\b")


#: (``served_drink``) the plain needs that ask for a drink, and the kinds of drink preferred
_HOT_DRINK_NEED = re.compile(r"\bhot drink\b")


_THIRST_NEED = re.compile(r"\bthirsty\b")


_COLD_KINDS = frozenset({"juice", "lemonade", "soda", "coke", "cola", "pop", "squash", "smoothie"})


#: vessels a cold drink is drunk from as they are (not a watering can, a kettle or a bucket)
_DRINK_PACKS = frozenset({"bottle", "carton", "cartoon", "flask", "thermos", "canteen", "tetrapak", "pouch"})


def _things_at(view: SceneView, place: str) -> dict[str, str]:
    """The things on or in ``place`` now, each with its relation ("on" / "in"), people and robots
    left out (sorted: the initial state is a set, and a goal's text must not depend on its order)."""
    return {a.args[0]: a.predicate for a in sorted(view.init, key=lambda a: a.args)
            if a.predicate in ("on", "in") and len(a.args) == 2 and a.args[1] == place
            and a.args[0] not in view.humans and a.args[0] not in view.robots}


def _of_kind(noun: str, things: Sequence[str], view: SceneView) -> list[str]:
    """ Those of ``things`` whose class is a ``noun`` ("fish": the mackerel and the cod)
    by its own name's words or its WordNet hypernyms' (none without WordNet)."""
    wordnet = WordNet.load()
    forms = {noun, *((noun[:-1],) if noun.endswith("s") else ()), *((noun[:-2],) if noun.endswith("es") else ()),
             *((noun[:-3] + "y",) if noun.endswith("ies") else ())}
    out = []
    for o in things:
        cls = view.cls(o)
        words = set(cls.split("_")) | {w for b in (wordnet.broader(cls, 8) if wordnet else ()) for w in b.split("_")}
        if words & forms:
            out.append(o)
    return out


def _cup_rank(view: SceneView, cup: str, hot: bool) -> int:
    """(``served_drink``) which cup a drink is served in first: a mug or cup for a hot
    drink, a glass or cup for a cold one, then any other."""
    words = _class_words(view, cup)
    prefer = ({"mug"}, {"cup", "teacup"}) if hot else ({"glass"}, {"cup", "tumbler"})
    return next((k for k, ws in enumerate(prefer) if words & ws), len(prefer))


_PART_WORD = re.compile(r"(?:the\s+)?(?:door|lid|doors|lids)")


#: a closing step about the thing before: "shut it again", "put the lid back on", "close the door"
_STEP_BACK_REF = re.compile(r"\b(?:it|them|lid|again|door|back)\b")


def closes_named(cl: str, cands, lex: Optional[Lexicon]) -> bool:
    """"close the fridge door again so it stops beeping" closes what it names; its
    "it" is no earlier thing."""
    if lex is None or not _CLOSE_STEP.search(cl.lower()):
        return False
    closing = {c.atom.args[0] for c in cands if c.atom.predicate == "closed"}
    return any(m.objects and m.objects <= closing for m in lex.mentions(cl) if not m.category)

def closing_steps(text: str, atoms: Sequence[Atom], cands, lex: Lexicon) -> Optional[tuple[Atom, ...]]:
    """(``closing_steps``): a later step that closes a thing ("then shut the fridge",
    "then shut it again", "and put the lid back on") leaves it closed: its closing is in the
    goal and an opening of it is not. The thing is the one the step names, or (for "it", "the
    lid", "again") the last thing that opens and closes named before. None when nothing changes."""
    clauses = [c for c in _CLAUSE_SPLIT.split(text) if c and _WORD.search(c)]
    closing = {c.atom.args[0]: c.atom for c in cands if c.atom.predicate == "closed"}
    out = list(atoms)
    for k, cl in enumerate(clauses):
        low = cl.lower().replace("’", "'")
        if k == 0 or not _CLOSE_STEP.search(low) or _NOT_STEP.search(low):
            continue
        ms = _whole_things(cl, lex)
        said = [m.objects & closing.keys() for m in ms]
        things = [next(iter(o)) for o in said if len(o) == 1]
        if not things and not any(said):
            earlier = [o for c in clauses[:k] for m in lex.mentions(c) if not m.category and len(m.objects) == 1
                       for o in m.objects if o in closing]
            if not earlier or not _STEP_BACK_REF.search(low) or any(a.predicate == "closed" for a in out):
                continue
            things = [earlier[-1]]
        out = _ends_closed(out, things, closing)
    return tuple(out) if out != list(atoms) else None

def cleared_goal(instruction: str, an: Analysis, atoms: Sequence[Atom], view: SceneView,
             lex: Lexicon, possible: frozenset | set = frozenset(), tidy: bool = False) -> Optional[tuple]:
    """(``clear_off``): "clear the clamps off my bench", "clear the bench off", with no
    destination said: each thing there is off it and in nobody's hand (it is put away somewhere,
    wherever the planner finds), as negative literals in place of the goal's atoms about it;
    kept and excluded things stay (on it). Nor does a thing go onto or into what stays there (a
    candidate atom of ``possible``): "clear the table except the plate" is not done by
    stacking everything on the plate. None when the instruction says no such thing."""
    low = instruction.lower().replace("’", "'")
    m = next((m for rx in (*_CLEAR_OFF, *((_TIDY_KEPT,) if tidy else ())) for m in rx.finditer(low)
              if not _NOT_A_PLACE.search(m.group("place"))), None)
    if m is None:
        return None
    tidied = m.re is _TIDY_KEPT  # (``tidy_kept``) only with a thing kept back
    places = [mm for mm in lex.mentions(instruction[m.start("place"):m.end("place")]) if not mm.category]
    if not places:
        return None
    np_text = m.groupdict().get("np") or ""
    named = {o for mm in lex.mentions(instruction[m.start("np"):m.end("np")]) for o in mm.objects} \
        if np_text.strip() else set()
    holding = [p for p in places[-1].objects if named & held_by(view, p)]
    if len(places[-1].objects) == 1:
        place = next(iter(places[-1].objects))
    elif len(holding) == 1:  # "the plates off the table": the table the plates are on
        place = holding[0]
    else:
        return None
    # what the rest says of the things, leaving aside what is kept ("leave the violin where it is")
    kept_spans = [k.span() for k in _CLEAR_KEPT.finditer(low, m.end())]
    kept = {o for k0, k1 in kept_spans for mm in lex.mentions(instruction[k0:k1]) for o in mm.objects}
    rest = _CLEAR_KEPT.sub(" ", low[m.end():])
    sentence = re.split(r"[.;!?]", rest, maxsplit=1)[0]
    if _CLEAR_THEN.search(sentence) or _DEST_AFTER.search(rest):
        return None  # "... off the chair and place it on the coffee table", "... for me": elsewhere
    # (sorted: the initial state is a set, and the goal's text must not depend on its order)
    there = _things_at(view, place)
    if np_text.strip() and not re.fullmatch(r"\s*(?:everything|it\s+all|all\s+of\s+it|all|the\s+lot|stuff)\s*",
                                            np_text):
        things = [o for o in there if o in named]
    else:
        things = list(there)
    if tidied and not (kept | an.kept | an.excluded) & set(there):
        return None  # "tidy the desk": no clearing said
    kept |= {o for o in there if held_by(view, o) & (kept | an.kept | an.excluded)}  # "the one with the salmon on it"
    things = [o for o in things if o not in an.kept and o not in an.excluded and o not in kept]
    if not things:
        return None
    gone = set(things)
    # (and no state of the place: "clear the table" asks for nothing to be cleaned)
    # (and the goal's other moves of the things said, kept or not, go unless they hold now)
    said = gone | kept | named | set(an.group)
    init = set(view.init)
    out: list = [a for a in atoms if not (a.args and a.args[0] in said and _kind(a.predicate) == "place"
                                          and a not in init)
                 and not (a.args == (place,) and a.predicate != "visited")]
    staying = sorted(o for o in there if o not in gone)
    held_back = kept | an.kept | an.excluded
    # what is kept back stays there ("everything off the table except the plate": the plate too)
    out.extend(Atom(there[k], (k, place)) for k in staying if k in held_back
               and Atom(there[k], (k, place)) not in out)
    for o in things:
        out.append(Not(Atom(there[o], (o, place))))
        out.extend(Not(Atom("inhand", (o, agent))) for agent in (*view.robots, *view.humans))
        out.extend(Not(a) for k in staying for a in (Atom("on", (o, k)), Atom("in", (o, k))) if a in possible)
    return tuple(out)

def moved_contents(instruction: str, an: Analysis, view: SceneView, lex: Lexicon,
                    possible: frozenset | set, opts_unkept: bool = False) -> Optional[tuple[Atom, ...]]:
    """(``moved_contents``): a place's things moved to a destination, with some kept
    back: "clear the coffee table into the basket, all but the remote", "tidy the bench onto the
    shelf but leave the tyre levers", "put all the fish from the display into the ice chest
    except the salmon". Each thing on or in the place (of the kind the words say, when the scene
    has that kind there) goes to the destination, in or on it as the skill set allows; what is
    kept back (or holds a thing kept back: "except the peanuts", the bowl they are in) stays
    where it is. None without a thing kept back, or when the words say no such move."""
    low = instruction.lower().replace("’", "'")
    m = _MOVED_CONTENTS.search(low)
    if m is None:
        return None
    np_text = m.group("np") or ""
    if np_text and m.group("src") in ("on", "in") and not _ANY_THING.fullmatch(np_text) \
            and not _DIRECTIONAL.fullmatch(m.group("prep")):
        return None  # "put the books in the box on the counter": the box is where they go
    ps = "place0" if m.group("place0") else "place"
    place_text = instruction[m.start(ps):m.end(ps)]
    place_ms = [mm for mm in lex.mentions(place_text) if not mm.category]
    dest_ms = [mm for mm in lex.mentions(instruction[m.start("dest"):m.end("dest")]) if not mm.category]
    if not dest_ms or len(dest_ms[0].objects) != 1:
        return None
    dest = next(iter(dest_ms[0].objects))
    if place_ms:
        places = set(place_ms[0].objects)
    else:  # "the display": the one thing whose name has the word ("display_counter")
        head = _WORD.findall(place_text.lower().split(" on ")[0].split(" in ")[0])[-1]
        places = {o for o in view.objects if head in view.cls(o).split("_")}
    spans = [k.span() for k in _CLEAR_KEPT.finditer(low, m.end())]
    kept = {o for k0, k1 in spans for mm in lex.mentions(instruction[k0:k1]) for o in mm.objects}
    kept |= set(an.kept) | set(an.excluded)
    whole = bool(m.group("place0")) or _ANY_THING.fullmatch(np_text) is not None
    more = re.search(r"\b(?:then|and|after|before)\b", re.split(r"[.;!?]", low[m.end():], maxsplit=1)[0])
    if not places or not (kept or (whole and opts_unkept and not more)):
        # (without a thing kept back, only "empty the box onto the table", "everything from ...",
        # and nothing more asked: "..., then close the fridge" is the clauses')
        return None
    named: set = set()
    if np_text and not _ANY_THING.fullmatch(np_text):
        named = {o for mm in lex.mentions(instruction[m.start("np"):m.end("np")]) for o in mm.objects}
    if len(places) > 1:  # which table: the one with the things said ("..., apart from the bowl of apples")
        for said in (kept, named, {o for mm in place_ms[1:] for o in mm.objects}):
            narrowed = {p for p in places if (held_by(view, p) | {view.place.get(p)}) & said}
            places = narrowed if narrowed else places
    if len(places) != 1:
        return None
    place = next(iter(places))
    if place == dest:
        return None
    there = _things_at(view, place)
    # a thing kept back inside one of them keeps its holder there ("except the peanuts")
    kept |= {o for o in there if held_by(view, o) & kept}
    things = [o for o in there if o not in kept and o != dest]
    if named:
        things = [o for o in things if o in named] or things
    elif np_text and not _ANY_THING.fullmatch(np_text):  # "all the fish": a kind the scene has no word for
        things = _of_kind(_WORD.findall(np_text)[-1], things, view) or things
    out: list = []
    for o in things:
        rel = next((Atom(r, (o, dest)) for r in ("in", "on") if Atom(r, (o, dest)) in possible), None)
        if rel is not None:
            out.append(rel)
    if not out:
        return None
    out.extend(Atom(there[k], (k, place)) for k in sorted(kept) if k in there)
    return tuple(out)

def taken_out_first(instruction: str, view: SceneView, lex: Lexicon) -> Optional[tuple]:
    """(``taken_out_first``): "bring me the fruit bowl but take the banana out of it
    first": (inhand bowl person), and the banana neither in the bowl nor handed over. None
    unless the words name one container and things in it now."""
    m = _TAKE_OUT_FIRST.search(instruction.lower().replace("’", "'"))
    if m is None:
        return None
    cs = [mm for mm in lex.mentions(instruction[m.start("c"):m.end("c")]) if not mm.category]
    if not cs or len(cs[0].objects) != 1:
        return None
    c = next(iter(cs[0].objects))
    inside = held_by(view, c, True)
    xs = sorted({o for mm in lex.mentions(instruction[m.start("x"):m.end("x")]) for o in mm.objects} & inside)
    if not xs:
        return None
    person = view.humans[0]
    out: list = [Atom("inhand", (c, person))]
    for x in xs:
        rel = "in" if Atom("in", (x, c)) in view.init else "on"
        out += [Not(Atom(rel, (x, c))), Not(Atom("inhand", (x, person)))]
    return tuple(out)

def left_shut(text: str, atoms: Sequence[Atom], cands, lex: Lexicon) -> Optional[tuple[Atom, ...]]:
    """(``negated_leave``): "don't leave the fridge open", "make sure the tub isn't left
    open": the thing named between the verb and "open" ends closed, and an opening of it goes
    from the goal ("it" is the last thing that opens and closes named before). None when
    nothing changes."""
    low = text.lower().replace("’", "'")
    closing = {c.atom.args[0]: c.atom for c in cands if c.atom.predicate == "closed"}
    out = list(atoms)
    for m in _LEAVE_OPEN.finditer(low):
        g = "np" if m.group("np") is not None else "np2"
        span = text[m.start(g):m.end(g)]
        things = [o for mm in _whole_things(span, lex) if len(mm.objects & closing.keys()) == 1
                  for o in mm.objects & closing.keys()]
        if not things and _PRONOUN.fullmatch(span.strip()):
            earlier = [o for mm in lex.mentions(text[:m.start()]) if not mm.category and len(mm.objects) == 1
                       for o in mm.objects if o in closing]
            things = earlier[-1:]
        out = _ends_closed(out, things, closing)
    return tuple(out) if out != list(atoms) else None

def refill_goal(text: str, an: Analysis, cands, view: SceneView, score: float) -> Optional[GoalCandidate]:
    """(``fill_for_need``): a need statement that says a vessel it names is empty or
    dry ("the dog's water bowl is bone dry", "all the cups are empty"): the vessel filled, with
    the liquid its name says ("water bowl": water) or else water."""
    m = _EMPTY_SAID.search(text)
    if m is None:
        return None
    for mention in an.mentions:
        if mention.category or not mention.objects or wanted(text, mention.start):
            continue
        for vessel in sorted(mention.objects):
            fills = [c.atom for c in cands if c.atom.predicate == "liquid_in" and c.atom.args[1] == vessel
                     and not c.holds]
            if not fills:
                continue
            words = set(view.cls(vessel).split("_"))
            best = next((a for a in fills if view.cls(a.args[0]) in words), None) or \
                next((a for a in fills if view.cls(a.args[0]) == "water"), None)
            if best is not None:
                return GoalCandidate((best,), score, "single")
    return None

def filled_goal(top: GoalCandidate, cands, view: SceneView) -> Optional[GoalCandidate]:
    """(``fill_for_need``): handing over vessel V for a need, where a phrase of V's
    class uses says water ("to water the plants", "to boil water", "pour myself some water")
    and (liquid_in water V) is a candidate: V filled with water. (Only water: "to make tea"
    names what a kettle makes, not what it holds.)"""
    atom = top.atoms[0]
    if atom.predicate != "inhand" or len(atom.args) != 2 or atom.args[1] not in view.humans:
        return None
    vessel = atom.args[0]
    mine = next((c for c in cands if c.atom == atom), None)
    if mine is None or not mine.n_uses:
        return None
    uses = " ".join(mine.phrases[-mine.n_uses:]).lower()
    for c in cands:
        a = c.atom
        if a.predicate == "liquid_in" and a.args[1] == vessel and not c.holds and \
                view.cls(a.args[0]) == "water" and re.search(r"\bwater", uses):
            return GoalCandidate((a, atom), top.score, "single")
    return None

def loaded_set_down(goal: GoalCandidate, view: SceneView) -> GoalCandidate:
    """(``loaded_set_down``): (inhand S person) beside (on X S) asks for what no plan
    does (nothing is picked up with a thing on it): S is set down where the person is, (on S L)
    for the support L the person is at; without one the goal is kept."""
    loaded = {a.args[1] for a in goal.atoms if not isinstance(a, Not) and a.predicate == "on" and len(a.args) == 2}
    if not loaded:
        return goal
    at = {a.args[0]: a.args[1] for a in view.init if a.predicate == "at" and len(a.args) == 2}
    atoms = []
    for a in goal.atoms:
        if not isinstance(a, Not) and a.predicate == "inhand" and len(a.args) == 2 and a.args[0] in loaded \
                and a.args[1] in view.humans:
            place = at.get(a.args[1])
            if place is None or place in view.humans or place in view.robots:
                return goal
            a = Atom("on", (a.args[0], place))
        atoms.append(a)
    return goal if tuple(atoms) == goal.atoms else replace(goal, atoms=tuple(atoms))

def served_warm(top: GoalCandidate, cands, view: SceneView, lex: Lexicon) -> Optional[GoalCandidate]:
    """(``served_warm``): a need met by warming liquid L that stands in a vessel V
    people drink from (a mug of tea gone cold) is met with the warm drink handed over: (and
    (liquid_warm L) (liquid_in L V) (inhand V person)): warmed in its own cup, not poured
    into a pan and the empty cup handed over. A kettle's or a pot's water stays where it is."""
    if len(top.atoms) != 1 or top.atoms[0].predicate != "liquid_warm" or not view.humans:
        return None
    warm = top.atoms[0]
    cups = _drinking_vessels(lex)
    held = next((a for a in view.init if a.predicate == "liquid_in" and len(a.args) == 2
                 and a.args[0] == warm.args[0] and a.args[1] in cups), None)
    if held is None:
        return None
    hand = next((c for c in cands if c.atom.predicate == "inhand" and c.atom.args == (held.args[1], view.humans[0])),
                None)
    if hand is None or hand.holds:
        return None
    return GoalCandidate((warm, held, hand.atom), top.score, top.source, top.lm_logprob)

def wet_wipe(top: GoalCandidate, cands, view: SceneView) -> Optional[GoalCandidate]:
    """(``wet_wipe``): a need met by handing over a thing that can be wetted (a cloth,
    a sponge; not a towel) for sticky or dirty hands: (and (wet S) (inhand S person))."""
    if len(top.atoms) != 1 or top.atoms[0].predicate != "inhand" or top.atoms[0].args[1] not in view.humans:
        return None
    thing = top.atoms[0].args[0]
    if "towel" in view.cls(thing) and "paper" not in view.cls(thing):
        return None
    wet = next((c for c in cands if c.atom.predicate == "wet" and c.atom.args == (thing,) and not c.holds), None)
    if wet is None:
        return None
    return GoalCandidate((wet.atom, top.atoms[0]), top.score, top.source, top.lm_logprob)

def still_whole(an: Analysis, cands, scores) -> Optional[GoalCandidate]:
    """(``still_whole``): things named before "... (are) still whole / in one piece /
    not cut yet / too big to eat in one go", in their sentence, asked for chopped: (and (chopped
    X) ...) for each that can be; None when none can."""
    text = an.text.lower().replace("’", "'")
    whole: list[str] = []
    for sent in _SENTENCE.finditer(text):
        cue = _STILL_WHOLE.search(sent.group(0))
        if cue is None:
            continue
        whole += [o for m in an.mentions if not m.category and sent.start() <= m.start < sent.start() + cue.start()
                  for o in sorted(m.objects)]
    by_atom = {c.atom: i for i, c in enumerate(cands) if c.atom.predicate == "chopped" and not c.holds}
    atoms = tuple(dict.fromkeys(Atom("chopped", (o,)) for o in whole if Atom("chopped", (o,)) in by_atom))
    if not atoms:
        return None
    return GoalCandidate(atoms, max(float(scores[by_atom[a]]) for a in atoms), "single" if len(atoms) == 1 else "all")

def served_drink(plain: Sequence[str], top: GoalCandidate, cands, view: SceneView,
                  lex: Lexicon) -> list[GoalCandidate]:
    """(``served_drink``): a need for a drink ("I am thirsty ...", "I want a hot drink
    ...", need_paraphrases.yaml) whose best goal hands over something that is no drink ready to
    drink (an empty cup, a kettle, a cold cup of tea for a hot drink) is met by a drink served:
    a drinkable liquid L in vessel V handed over, (and (liquid_in L V) (inhand V person)), and
    (liquid_warm L) for a hot drink. L: for a hot drink tea, coffee or cocoa, else milk, else
    water; for thirst water, else juice or a soft drink, else milk. V: the cup L is in, else a
    bottle or carton holding it (thirst), else an empty cup it can be poured into; with no cup, a
    hot drink is the liquid warmed where it can be. One goal per liquid, best first (the next is
    planned when one cannot be: milk that cannot be warmed in its cup)."""
    hot = any(_HOT_DRINK_NEED.search(n) for n in plain)
    if not (hot or any(_THIRST_NEED.search(n) for n in plain)) or not view.humans or lex.is_a is None:
        return []
    person = view.humans[0]
    by_atom = {c.atom: c for c in cands}
    held: dict[str, list[str]] = {}
    for a in view.init:
        if a.predicate == "liquid_in" and len(a.args) == 2:
            held.setdefault(a.args[1], []).append(a.args[0])
    warm_now = {a.args[0] for a in view.init if a.predicate == "liquid_warm" and a.args}
    warm_now |= {a.args[0] for a in top.atoms if a.predicate == "liquid_warm" and a.args}

    def drinkable(o: str) -> bool:
        return bool(lex.is_a(o, "drinkable"))

    cups = _drinking_vessels(lex)
    hands = [a for a in top.atoms if a.predicate == "inhand" and a.args[1:] == (person,)]
    if not hands:
        return []  # (a state change, a placement, the water in the kettle warmed: no drink handed over)
    given = hands[0].args[0]
    poured = [a.args[0] for a in top.atoms if a.predicate == "liquid_in" and a.args[1:] == (given,)]
    ready = [liq for liq in [*held.get(given, ()), *poured] if drinkable(liq) and (not hot or liq in warm_now)]
    if (poured and given in cups) or ready or (drinkable(given) and not hot):
        return []  # already a drink ready to drink (a cup filled with water too)
    if not (drinkable(given) or lex.is_a(given, "liquid-contain")):
        return []  # (not a vessel: what the words say besides the drink, "chapped lips": a balm)
    liquids = [o for o in view.objects if any(o in ls for ls in held.values()) and drinkable(o)]
    if hot:
        liquids = [liq for liq in liquids if Atom("liquid_warm", (liq,)) in by_atom or liq in warm_now]
    if not liquids:
        return []

    def rank(liq: str) -> tuple:
        words = _class_words(view, liq)
        order = (_HOT_KINDS, {"milk"}, {"water"}) if hot else ({"water"}, _COLD_KINDS, {"milk"})
        return (next((k for k, kinds in enumerate(order) if words & kinds), len(order)), liq)

    out: list[GoalCandidate] = []
    for liq in sorted(liquids, key=rank):
        vessel = next((v for v, ls in held.items() if liq in ls), None)
        warm = () if not hot or liq in warm_now else (Atom("liquid_warm", (liq,)),)
        options = []
        if vessel in cups or (not hot and vessel is not None and
                              _class_words(view, vessel) & _DRINK_PACKS):
            options.append((vessel, ()))  # (the cup it is in; for thirst, its bottle or carton too)
        options += [(v, (Atom("liquid_in", (liq, v)),)) for v in sorted(cups, key=lambda v: (_cup_rank(view, v, hot), v))
                    if not held.get(v) and Atom("liquid_in", (liq, v)) in by_atom]
        for v, pour in options:
            hand = Atom("inhand", (v, person))
            if hand in by_atom and not by_atom[hand].holds:
                stay = pour or (Atom("liquid_in", (liq, v)),)
                out.append(GoalCandidate(warm + stay + (hand,), top.score, "single", top.lm_logprob))
                break
    if hot:  # (no cup to serve it in, or none that plans) the liquid warmed where it can be
        out += [GoalCandidate((Atom("liquid_warm", (liq,)),), top.score, "single", top.lm_logprob)
                for liq in sorted(liquids, key=rank) if liq not in warm_now]
    return out[:4]

def chilled_group(an: Analysis, cands, view: SceneView, scores) -> Optional[GoalCandidate]:
    """(``spoiling``): several things said to be left out or about to spoil ("those
    bananas", "this fruit": a plural or a kind, each of its things; a liquid: its vessel) all go
    into one cold place (the best scored one), when two or more of them can."""
    cold = _cold_places(view)
    things = with_vessels({o for m in an.mentions if not m.descriptor and (m.plural or m.category)
                           for o in m.objects} - cold - an.excluded, view)
    if not cold or len(things) < 2:
        return None
    best: dict[str, list[int]] = {}
    for i, c in enumerate(cands):
        a = c.atom.args
        if c.atom.predicate == "in" and len(a) == 2 and a[0] in things and a[1] in cold:
            best.setdefault(a[1], []).append(i)
    if not best:
        return None
    place, picked = max(best.items(), key=lambda kv: (len(kv[1]), max(scores[i] for i in kv[1])))
    if len(picked) < 2 or all(cands[i].holds for i in picked):
        return None
    return GoalCandidate(tuple(cands[i].atom for i in picked), float(np.mean([scores[i] for i in picked])), "all")


def complete(gs: GoalSearcher, req: Request, sc: Scored, goals: list[GoalCandidate], singles: list[GoalCandidate],
             structure: str, cands: Sequence[CandidateAtom], view: SceneView, lex: Lexicon) -> list[GoalCandidate]:
    """Stage 6, complete: the ranked goals with what the request implies but does not say
    (closed again, left shut, cleared, refilled, served in a vessel, kept in place), each goal
    once, in rank order."""
    opts = gs.options
    instruction, text, an, need, plain = req.instruction, req.text, req.analysis, req.need, req.plain
    scores, watered, chill, keep = sc.scores, sc.watered, sc.chill, sc.keep
    if need and singles and structure == "single" and watered.any():
        #  "that plant on the table is wilting": the robot waters it (not a can handed over)
        j = max(np.nonzero(watered)[0], key=lambda k: scores[k])
        goals.insert(0, GoalCandidate((cands[j].atom,), float(scores[j]), "single"))
    elif need and opts.rule("fill_for_need") and singles:
        refill = refill_goal(text, an, cands, view, singles[0].score) if an is not None and not (
            opts.rule("empty_state") and _EMPTY_WANTED.search(text)) else None
        if refill is not None:  # (before a group: "all the cups are empty")
            goals.insert(0, refill)
        elif structure == "single" and (filled := filled_goal(singles[0], cands, view)) is not None:
            goals.append(filled)
    mine = opts.rule("warm_mine") and bool(_MINE.search(instruction.lower().replace("’", "'")))
    if (need or mine) and opts.rule("served_warm") and structure == "single" and (goals or singles):
        served = served_warm((goals or singles)[0], cands, view, lex)
        if served is not None:
            goals.insert(0, served)
    if opts.rule("served_drink") and plain and structure == "single" and (goals or singles) and not any(
            w in _PLANT_WORDS or w.rstrip("s") in _PLANT_WORDS for w in _WORD.findall(text.lower())):
        # (not "the seedlings look parched": the plants are thirsty)
        goals[:0] = served_drink(plain, (goals or singles)[0], cands, view, lex)
    if need and opts.rule("wet_wipe") and (goals or singles) and _STICKY_HANDS.search(instruction.lower().replace("’", "'")) \
            and not _WET_HANDS.search(instruction.lower().replace("’", "'")):
        wiped = wet_wipe((goals or singles)[0], cands, view)
        if wiped is not None:  #  "my hands are all sticky": a wet cloth
            goals.insert(0, wiped)
    if opts.rule("still_whole") and an is not None:  #  "the tomato's still in one piece": chopped
        cut = still_whole(an, cands, scores)
        if cut is not None:
            goals.insert(0, cut)
    if chill is not None:  #  "those bananas will go brown in this heat": both, chilled (not heated)
        goals.insert(0, chill)
    goals.extend(singles)
    if opts.rule("nested_destinations") and _NESTED_GAP.search(text.lower()):
        # "serve it on a plate at the table": the plate goes there too
        nested = structures.nested(text, lex, view, {c.atom for c in cands})
        if nested:
            goals = [GoalCandidate(g.atoms + tuple(dict.fromkeys(
                t for a in g.atoms if a.predicate in ("on", "in") and len(a.args) == 2
                for t in nested.get(a.args[1], ()) if t not in g.atoms)), g.score, g.source, g.lm_logprob)
                for g in goals]
    if opts.rule("closing_steps") and goals:  #  "..., then shut it again": it ends closed
        closed = closing_steps(text, goals[0].atoms, cands, lex)
        if closed is not None:
            goals.insert(0, GoalCandidate(closed, goals[0].score, goals[0].source, goals[0].lm_logprob))
    if opts.rule("negated_leave") and goals:  #  "don't leave the fridge open": it ends closed
        shut = left_shut(instruction, goals[0].atoms, cands, lex)
        if shut is not None:
            goals.insert(0, GoalCandidate(shut, goals[0].score, goals[0].source, goals[0].lm_logprob))
    if keep:  # kept objects stay where they are, whatever else the goal asks
        goals = [GoalCandidate(tuple(a for a in g.atoms if a not in keep) + keep, g.score, g.source, g.lm_logprob)
                 for g in goals]
    if opts.rule("clear_off") and goals and an is not None:  #  "clear the clamps off my bench": off it
        cleared = cleared_goal(instruction, an, goals[0].atoms, view, lex, {c.atom for c in cands},
                                tidy=opts.rule("tidy_kept"))
        if cleared is not None:
            goals.insert(0, GoalCandidate(cleared, goals[0].score, goals[0].source, goals[0].lm_logprob))
    if opts.rule("moved_contents") and goals and an is not None:  #  "clear the table into the sink, but ..."
        moved = moved_contents(instruction, an, view, lex, {c.atom for c in cands}, opts.rule("moved_unkept"))
        if moved is not None:
            goals.insert(0, GoalCandidate(moved, goals[0].score, "all", goals[0].lm_logprob))
    if opts.rule("taken_out_first") and goals and view.humans:  #  "..., but take the banana out first"
        emptied = taken_out_first(instruction, view, lex)
        if emptied is not None:
            goals.insert(0, GoalCandidate(emptied, goals[0].score, goals[0].source, goals[0].lm_logprob))
    if opts.rule("loaded_set_down") and goals:  #  a plate with the salad on it is set down by the person
        goals = [loaded_set_down(g, view) for g in goals]
    seen, ranked = set(), []
    for g in goals:
        if g.text not in seen:
            seen.add(g.text)
            ranked.append(g)
    return ranked
