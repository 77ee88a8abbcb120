"""Stage: score (cues). What the words say about which atom is meant, as score adjustments
per candidate atom: the things named and their ordinals, destinations and sources said with a
preposition, "the one by the sink", state verbs, "hand me", multi-step references (a lid
closed again, "from it"), the things kept where they are."""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Optional, Sequence

import numpy as np

from groundplan.methods.small_model import need_cues, structures
from groundplan.methods.small_model.candidates import (
    CandidateAtom,
    SceneView,
)
from groundplan.methods.small_model.mentions import Analysis, to_person
from groundplan.methods.small_model.needs import (
    INFINITIVE,
)
from groundplan.methods.small_model.patterns import _CLOSE, _HEAT, _LIQUID_STATES, _PRONOUN, _WORD
from groundplan.methods.small_model.scene_lexicon import STATE_ADJ, Lexicon, functions
from groundplan.pddl.formula import Atom

if TYPE_CHECKING:
    from groundplan.methods.small_model.search import GoalSearcher


#: verbs that move a liquid itself, not its container
_POUR = re.compile(r"\b(?:pour|fill|top\s+up|refill|warm|heat|boil|drink|spill|tip|splash|squeeze)", re.IGNORECASE)


_DEST_BEFORE = re.compile(r"\b(?:onto|into|inside|on\s+top\s+of)\s+(?:the\s+|a\s+|an\s+|my\s+|your\s+)?(?:\w+\s+)?$")


_SOURCE_BEFORE = re.compile(r"\b(?:out\s+of|from|off(?:\s+of)?)\s+(?:the\s+|my\s+|your\s+|its\s+)?(?:\w+\s+)?$")


_EMPTY_ONE = re.compile(r"\b(?:the|a|an|one|that|your|my)\s+(?:empty|spare|free|unused|vacant)\s+$")


#: after a mention: "the bar inside", "the one in there"
_INSIDE_AFTER = re.compile(r"\s+(?:inside|in\s+(?:it|there)|from\s+(?:it|there))\b")


#:  a source right before "on / in the X": "from the box on the shelf"
_SOURCE_CHAIN = re.compile(r"\b(?:from|out\s+of|off)\s+(?:the|my|your|a|an|that|this|our)\s+((?:\w+\s+){1,2})$")


#:  "fill the teapot (up) from the kettle", "top the jug up with water from the tap"
_FILL_FROM = re.compile(r"\b(?:fill|refill|top)\s+(?:up\s+)?(?P<x>(?:the|my|a|an|your|that|this|our)\s+(?:\w+\s+){0,2}?"
                        r"\w+)\s+(?:up\s+)?(?:from|with|out\s+of|using)\s+(?P<y>(?:(?:the|my|a|an|your|that|this|our|"
                        r"some)\s+)?\w+(?:\s+\w+){0,4})")


#:  a destination right before "on / in the X": "into the box (over) on the counter"
_DEST_CHAIN = re.compile(r"\b(?:in|into|inside|onto|on\s+top\s+of|on)\s+(?:the|my|your|a|an|that|this|our)\s+"
                         r"((?:\w+\s+){1,3}?)(?:(?:over|up|down|there|sitting|standing|that's|that\s+is|which\s+is|"
                         r"which's|just)\s+)*$")


#:  a clause that adds something: "add the cereal", "then stir in the sugar"
_ADD = re.compile(r"^\W*(?:(?:and|then|now|also)\s+)*(?:add|stir\s+in|mix\s+in|throw\s+in|tip\s+in|pop\s+in|"
                  r"drop\s+in|put\s+in|sprinkle\s+in|toss\s+in)\b|^\W*(?:(?:and|then|now|also)\s+)*(?:tip|put|pop|throw|"
                  r"drop|chuck|pour|stir|toss|sprinkle)\s+(?:the\s+|some\s+|a\s+bit\s+of\s+)?\w+(?:\s+\w+)?\s+in"
                  r"(?:\s+too|\s+as\s+well)?\W*$", re.IGNORECASE)


#:  a giving verb whose first object is the person
_HAND_ME = re.compile(r"\b(?:give|hand|bring|pass|fetch|grab|toss|chuck|get|find|fish)\s+(?:me|us)\b"
                      r"(?!\s+(?:to|a\s+hand|know))", re.IGNORECASE)


_FOR_ME = re.compile(r"\b(?:grab|get|fetch|bring|find|fish\s+out|dig\s+out)\b[^,.;!?]*\bfor\s+(?:me|us)\b|"
                     r"^\W*(?:(?:please|could\s+you|can\s+you|would\s+you|will\s+you)\s+)?(?:bring|fetch)\b", re.IGNORECASE)


#:  a request without a verb: "two new brake pads from the box on the shelf, please"
_VERBLESS = re.compile(r"^\W*(?:a|an|some|two|three|four|a\s+couple\s+of|a\s+few|one\s+of\s+the|another)\s+"
                       r"[a-z\s'-]+?(?:\s+(?:from|out\s+of|off)\s+[a-z\s'-]+)?,?\s+please\W*$", re.IGNORECASE)


_DEST_SAID = re.compile(r"\b(?:on|onto|in|into|inside|to|under|next\s+to|beside)\s+(?:the|a|an|my|your|our|this|that)\b",
                        re.IGNORECASE)


#: a destination preposition right before a place's name ("into the", "over to my", "back on the")
_DEST_PREP = re.compile(r"\b((?:back\s+)?(?:into|inside|in|onto|on\s+top\s+of|on|to|over\s+to))\s+"
                        r"(?:the\s+|my\s+|your\s+|our\s+|a\s+|an\s+|that\s+|this\s+)?(?:\w+\s+)?$")


#: before a destination preposition: a phrasal verb ("hold onto the can") or a relative clause
#: that says where something is ("the place that has a banana in a bowl")
_NOT_DEST = re.compile(r"\b(?:hold|hang|holding|hanging)\s*$|\b(?:that|which|where)\s+(?:has|have|had|is|are)\b"
                       r"[^,.;]*$|\bwith\s+(?:a|an|the|some)?\s*\w+\s*$")


#:  a thing said by where it is, right before the preposition: "the screw that's sitting
#: on the board", "the cup lying in the sink", "the one that's in the box"
_WHERE_IT_IS = re.compile(r"\b(?:(?:that|which|who)(?:'s|\s+is|\s+are|'re|\s+was|\s+were)(?:\s+(?:still|just|now))?"
                          r"(?:\s+(?:sitting|lying|standing|resting|perched|kept|stored|left|stuck|hanging))?|"
                          r"(?:sitting|lying|standing|resting|perched|kept|stored))\s*$")


#:  where a kept object is to be left: "leave the orange (behind / here) on the shelf"
_KEEP_PREP = re.compile(r"\b(on|in|inside|at)\s+(?:the\s+|my\s+|your\s+|its\s+|their\s+)?(?:\w+\s+)?$")


#: a placing verb, then its object, right before "into it" ("load the pot into it"; not "everything in it")
_PLACING_BEFORE = re.compile(r"\b(?:put|place|set|drop|pop|stick|store|lay|load|pack|tip|pour|chuck|throw|toss|slide|"
                             r"stack|shove|return|move|transfer|plonk|stuff)\s+(?:\w+\s+){0,7}$")


_KEEP_CLAUSE_END = re.compile(r"[,.;!?]|\b(?:and|then|but|please)\b")


#: a destination preposition before a pronoun ("into it", "on top of them", "in there")
_PRONOUN_DEST = re.compile(r"\b(into|inside|onto|on\s+top\s+of|in|on)\s+(?:it|them|that|this|there)\b")


_PREP_KIND = {"into": "in", "inside": "in", "in": "in", "onto": "on", "on top of": "on", "on": "on"}


#:  where the thing said before is: "that's on the counter", "from the shelf"
_LOCATED_AFTER = re.compile(r"\s*(?:(?:that|which)(?:'s|\s+is|\s+are|'re)\s+(?:still\s+|just\s+|now\s+)?(?:(?:sitting|lying|"
                            r"standing|left|resting|kept)\s+)?(?:on|in|inside|by|beside|next\s+to|near|under)|(?:sitting|lying|"
                            r"standing|resting)\s+(?:on|in|inside)|from|off|out\s+of)\s+(?:the|my|your|that|this|our)\s+")


#: (``which_appositive``) ", the one in the fridge", " - the ones that are on the shelf"
_APPOSITIVE_PLACE = re.compile(r"\s*(?:,|;|-|\u2013|\u2014|\()\s*(?:the|that)\s+ones?\s+(?:(?:that|which)(?:'s|\s+is|\s+are|'re)\s+)?"
                               r"(?:(?:still\s+|just\s+)?(?:sitting|lying|standing|left|resting|kept)\s+)?"
                               r"(?:on|in|inside|by|beside|next\s+to|near|under|from|off|out\s+of)\s+(?:the|my|your|that|this|our)\s+")


_NEAR_IT = re.compile(r"\s*(?:(?:that's|which\s+is|sitting|standing|just)\s+)?(?:beside|next\s+to|by|near)\s+(?:it|them)\b")


_OTHER_ONE = re.compile(r"\b(on\s+top\s+of|onto|on|into|inside|in|next\s+to|beside)\s+the\s+other\s+(?:one|\w+)\b")


_PREP_BEFORE = re.compile(r"\b(?:in|into|on|onto|to|inside|at|under|beside|near|by|over|across|towards?|next\s+to|"
                          r"on\s+top\s+of|back\s+in|back\s+on)\s+(?:the\s+|a\s+|an\s+|my\s+|your\s+|our\s+|its\s+|"
                          r"their\s+|this\s+|that\s+)?(?:\w+\s+)?$")


_PUT = re.compile(r"\b(?:put|place|set|leave|drop|move|pop|stick|store|lay|hang)\b")


def _state_verbs() -> dict[str, tuple[str, ...]]:
    return {p: tuple(v) for p, v in (functions().get("states") or {}).items()}


def mention_bonus(gs: "GoalSearcher", an: Analysis, cands: Sequence[CandidateAtom], view: SceneView) -> np.ndarray:
    """Excluded objects out; atoms about the objects the instruction names up (an ordinal
    names one object of its class: the others of that class go down)."""
    out = np.zeros(len(cands))
    w = gs.options.weights.mention
    named, kinds, person = an.named, an.kinds, an.to_person
    contents = gs.options.rule("contents_descriptor")
    if gs.options.rule("liquid_vessels") and not _POUR.search(an.text):
        #  "put the milk back in the fridge": the carton the milk is in
        named = named | {a.args[1] for a in view.init if a.predicate == "liquid_in" and len(a.args) == 2
                         and a.args[0] in named and a.args[1] not in view.humans}
    picked = {m.cls: m.objects for m in an.mentions if m.ordinal is not None and not m.category}
    #  "some cutlery, anything but a knife": the rest of a kind some of which is left out
    rest = {o for m in an.mentions if m.category and m.objects & an.excluded for o in m.objects - an.excluded} \
        if gs.options.rule("kind_rest") else set()
    if gs.options.rule("liquid_sources"):
        picked = {**structures.liquid_sources(an, view), **picked}
    for i, c in enumerate(cands):
        args = c.atom.args
        if an.excluded and any(a in an.excluded for a in args):
            out[i] -= 5.0
            continue
        if not w:
            continue
        if c.focus in named:
            out[i] += w
        elif c.focus in rest:
            out[i] += w
        elif c.focus in kinds:
            out[i] += 0.5 * w
        elif contents and c.focus in an.descriptors and view.place.get(c.focus) in named:
            out[i] -= 2 * w + gs.options.weights.context  #  "the bowl of peanuts": not the peanuts
        if person and c.frame.startswith("inhand/"):
            out[i] += 0.5 * w if c.frame == "inhand/?/human" else -0.5 * w
        for a in args[1:]:
            if a in named:
                out[i] += 0.5 * w
            elif a in an.descriptors:
                out[i] -= w  # "the orange on the table": not a destination
        for a in args:
            objs = picked.get(view.cls(a))
            if objs is not None and a not in objs:
                out[i] -= w
    return out

def hand_me(gs: "GoalSearcher", text: str, cands) -> np.ndarray:
    """(``w_hand_me``): a giving verb with "me" ("hand me two bowls"), a fetch "for
    us" or a bare "bring the X" without a destination, or a verbless "two X, please": the
    person's hand-overs gain ``w_hand_me``."""
    w = gs.options.weights.hand_me
    if not w or not (_HAND_ME.search(text) or (_FOR_ME.search(text) and not _DEST_SAID.search(text))
                     or _VERBLESS.match(text.replace("’", "'"))):
        return np.zeros(len(cands))
    return w * np.array([c.frame == "inhand/?/human" for c in cands], dtype=float)

def added(cl: str, chosen, cands, lex: Lexicon, s) -> Optional[int]:
    """(``add_to``): "add the cereal", "stir in the sugar", "throw in the carrots": the
    thing a clause adds goes into the vessel the clause before filled or put something in."""
    if not _ADD.match(cl):
        return None
    prev = cands[chosen[-1]].atom
    if prev.predicate not in ("in", "liquid_in") or len(prev.args) != 2:
        return None
    things = {o for m in lex.mentions(cl) if not m.category for o in m.objects} - {prev.args[1]}
    into = [j for j, c in enumerate(cands) if c.atom.predicate in ("in", "liquid_in") and len(c.atom.args) == 2
            and c.atom.args[1] == prev.args[1] and c.atom.args[0] in things and not c.holds]
    return max(into, key=lambda j: s[j]) if into else None

def clause_refs(gs: "GoalSearcher", cl: str, chosen, cands, lex: Lexicon, *, person: bool = True) -> np.ndarray:
    """Who and which, within one clause: "... to me" hands to the person, not the robot's hand;
    "the cup" after "fill a plastic cup" is that cup; "out of the fridge" / "from the shelf"
    is where the thing is now (no destination; things there are meant)."""
    out = np.zeros(len(cands))
    w = gs.options.weights.mention
    low = cl.lower()
    if person and to_person(cl, gs.options.rule("cue_words")):
        for i, c in enumerate(cands):
            if c.frame.startswith("inhand/"):
                out[i] += w if c.frame == "inhand/?/human" else -w
    before = {a for i in chosen for a in cands[i].atom.args}
    if person:  # the destination this clause names ("... in the bin"), not one another clause names
        here = {o for m in lex.mentions_simple(cl) if not m.descriptor and not (
            gs.options.rule("plural_refs") and not _PREP_BEFORE.search(low[max(0, m.start - 25):m.start]))
            for o in m.objects}  # (a place named after a preposition, not a verb's object)
        for i, c in enumerate(cands):
            a = c.atom.args
            if c.atom.predicate in ("on", "in", "liquid_in") and len(a) == 2 and a[1] in here:
                out[i] += w
    kind = next((k for k in _PRONOUN_DEST.finditer(low) if _PLACING_BEFORE.search(low[:k.start()])),
                None) if gs.options.rule("pronoun_preps") else None
    if kind:  #  "load the pot into it": in, not on ("everything in it" says no place)
        want = _PREP_KIND[re.sub(r"\s+", " ", kind.group(1))]
        for i, c in enumerate(cands):
            if c.atom.predicate in ("on", "in") and len(c.atom.args) == 2:
                out[i] += w if c.atom.predicate == want else -w
    inside = {cands[i].atom.args[0] for i in chosen if cands[i].atom.predicate == "opened"}
    for m in lex.mentions(cl):
        if m.category or not m.objects:
            continue
        if len(m.objects) > 1 and before & m.objects:
            other = m.objects - before
            for i, c in enumerate(cands):
                if c.focus in other:
                    out[i] -= 2 * w
        if len(m.objects) > 1 and inside and _INSIDE_AFTER.match(low[m.end:]):
            # "open the box and take out the bar inside": the one in the box
            for i, c in enumerate(cands):
                if c.focus in m.objects and lex.view.place.get(c.focus) not in inside:
                    out[i] -= 2 * w
        if _DEST_BEFORE.search(low[max(0, m.start - 25):m.start]):
            for i, c in enumerate(cands):  # "put one of the vegetables onto the plate": not the plate
                if c.focus in m.objects and c.atom.predicate in ("on", "in"):
                    out[i] -= w
        if _SOURCE_BEFORE.search(low[max(0, m.start - 25):m.start]):
            for i, c in enumerate(cands):
                a = c.atom.args
                if len(a) == 2 and a[1] in m.objects and c.atom.predicate in ("on", "in"):
                    out[i] -= 3 * w  # taken out of it: not put into it
                elif lex.view.place.get(c.focus) in m.objects:
                    out[i] += w
                elif gs.options.rule("plural_refs") and c.focus in m.objects:
                    out[i] -= w  #  nor moved itself
    return out

def clause_focus(gs: "GoalSearcher", cl: str, cands, lex: Lexicon) -> np.ndarray:
    """(``clause_objects``): a clause without a pronoun that names a thing as its
    verb's object is about that thing: atoms about other things, and about a thing it names
    only as a source ("out of the tin", "from the shelf"), lose ``w_clause_object``."""
    out = np.zeros(len(cands))
    if _PRONOUN.search(cl):
        return out  # the pronoun's own rules decide ("hand it to me")
    low = cl.lower()
    objs: set[str] = set()
    sources: set[str] = set()
    for m in lex.mentions_simple(cl):
        if m.descriptor or m.category or not m.objects:
            continue
        pre = low[max(0, m.start - 25):m.start]
        if _SOURCE_BEFORE.search(pre):
            sources |= set(m.objects)
        elif not (_PREP_BEFORE.search(pre) or _DEST_BEFORE.search(pre)):
            objs |= set(m.objects)
    if not objs:
        return out
    if gs.options.rule("vessel_focus"):  #  "boil the kettle": the water in it is about the kettle
        objs |= {c.atom.args[0] for c in cands if c.holds and c.atom.predicate == "liquid_in"
                 and len(c.atom.args) == 2 and c.atom.args[1] in objs}
    for i, c in enumerate(cands):
        if c.focus not in objs:
            out[i] -= gs.options.weights.clause_object
    return out

def dest_bonus(gs: "GoalSearcher", text: str, cands, lex: Lexicon) -> np.ndarray:
    """Places ``text`` names after a destination preposition: their placing atoms get
    ``w_dest`` ("into" / "inside" ask for ``in``, "onto" / "on top of" for ``on``; "in" and
    "on" for theirs when the place has both; "to", "over to", "next to" for either)."""
    out = np.zeros(len(cands))
    low = text.lower()
    placing = ("on", "in", "liquid_in")
    places = {c.atom.args[1] for c in cands if c.atom.predicate in placing and len(c.atom.args) == 2}
    dests: dict[str, str] = {}
    last: set[str] = set()  # the destination said last
    back: set[str] = set()  #  "put it back in the fridge"
    locators: set[str] = set()
    for m in lex.mentions(text):
        if m.category or m.descriptor:
            continue
        hit = m.objects & places
        pm = _DEST_PREP.search(low[max(0, m.start - 30):m.start]) if hit else None
        if pm is None or _NOT_DEST.search(low[max(0, m.start - 60):pm.start(1)]):
            continue
        if gs.options.rule("dest_locators") and _WHERE_IT_IS.search(low[max(0, m.start - 60):max(0, m.start - 30) +
                                                                     pm.start(1)]):
            continue  #  "the screw that's sitting on the board": where it is, no destination
        if gs.options.rule("nested_places") and pm.group(1) in ("on", "in", "inside") and \
                (sc := _SOURCE_CHAIN.search(low[max(0, m.start - 60):max(0, m.start - 30) + pm.start(1)])) and \
                any(c.holds and c.atom.predicate in ("on", "in") and c.atom.args[1] in m.objects
                    and c.atom.args[0] in src.objects for src in lex.mentions(sc.group(1)) for c in cands):
            continue  #  "from the box on the shelf": where the box is, no destination
        if gs.options.rule("dest_locators") and (there := locates_dest(low, max(0, m.start - 30) + pm.start(1),
                                                                       m, cands, lex)):
            #  "into the box on the counter": where the box is, no destination; of
            # several boxes, the one there
            for o in last - there:
                dests.pop(o, None)
            locators |= m.objects
            continue
        kind = _PREP_KIND.get(re.sub(r"\s+", " ", pm.group(1)).removeprefix("back "), "")
        for o in hit:
            dests[o] = kind
        if gs.options.rule("put_back") and pm.group(1).startswith("back"):
            back |= hit
        last = set(hit)
    if gs.options.rule("fill_from"):
        out += fill_from(gs, low, cands, lex)
    if not dests:
        return out
    has = {(c.atom.args[0], c.atom.args[1], c.atom.predicate) for c in cands
           if c.atom.predicate in ("on", "in") and len(c.atom.args) == 2}
    #  how things are placed at each destination now: "on" the desk, "in" the fridge
    now = Counter((c.atom.args[1], c.atom.predicate) for c in cands
                  if c.holds and c.atom.predicate in ("on", "in") and len(c.atom.args) == 2)
    usual = {p: ("on" if now[(p, "on")] > now[(p, "in")] else "in") for p in dests
             if now[(p, "on")] != now[(p, "in")]}
    for i, c in enumerate(cands):
        a = c.atom.args
        if c.atom.predicate not in placing or len(a) != 2 or a[1] not in dests or (c.holds and a[1] not in back):
            continue
        kind = dests[a[1]]
        pred = "in" if c.atom.predicate == "liquid_in" else c.atom.predicate  # (milk into the bowl)
        if not kind or kind == pred or (a[0], a[1], kind) not in has:
            out[i] += gs.options.weights.dest
        if not kind and gs.options.rule("usual_placing") and pred in ("in", "on") and \
                (a[0], a[1], "on" if pred == "in" else "in") in has and usual.get(a[1]) == pred:
            out[i] += 0.5 * gs.options.weights.dest  #  "over to my desk": on it, as things are now
    for i, c in enumerate(cands):  #  not onto the place that only says where
        if locators and c.atom.predicate in placing and len(c.atom.args) == 2 and c.atom.args[1] in locators \
                and not c.holds:
            out[i] -= gs.options.weights.dest
    return out

def which_one(gs: "GoalSearcher", text: str, cands, lex: Lexicon) -> np.ndarray:
    """(``which_one``): a thing of several said with where it is ("the book that's on
    the counter", "the spoon from the counter", "the box beside it") is the one there: atoms
    about the others lose ``w_dest``; "on top of the other one" is the other one of them."""
    out = np.zeros(len(cands))
    low = text.lower().replace("’", "'")
    ms = [m for m in lex.mentions(text) if not m.category]
    where: dict[str, set[str]] = {}
    for c in cands:
        if c.holds and c.atom.predicate in ("on", "in") and len(c.atom.args) == 2:
            where.setdefault(c.atom.args[0], set()).add(c.atom.args[1])
    excluded: set[str] = set()
    targets: set[str] = set()  # "the other one"
    locators: set[str] = set()  # places that say which one, no destinations
    picked: dict[int, frozenset[str]] = {}
    for k, m in enumerate(ms):
        if len(m.objects) < 2:
            continue
        rest = low[m.end:]
        place: set[str] = set()
        lm = _LOCATED_AFTER.match(rest)
        am = _APPOSITIVE_PLACE.match(rest) if lm is None and gs.options.rule("which_appositive") else None
        nxt = next((j for j in range(k + 1, len(ms)) if ms[j].start >= m.end + am.end() - 1), None) \
            if am is not None else None  # (past "the one", which may be a mention itself)
        if lm and k + 1 < len(ms) and ms[k + 1].start <= m.end + lm.end() + 1:
            place = set(ms[k + 1].objects)
            locators |= place
        elif nxt is not None and ms[nxt].start <= m.end + am.end() + 1:
            place = set(ms[nxt].objects)
            locators |= place
        elif _NEAR_IT.match(rest) and (things := [j for j in range(k) if any(o in where for o in ms[j].objects)]):
            # "it": the last thing said before that lies somewhere (not the place it lies on)
            place = {p for o in picked.get(things[-1], ms[things[-1]].objects) for p in where.get(o, ())}
        there = frozenset(o for o in m.objects if where.get(o, set()) & place)
        if there and there < m.objects:
            picked[k] = there
            excluded |= m.objects - there
    for om in _OTHER_ONE.finditer(low):
        before = [k for k, m in enumerate(ms) if m.end <= om.start() and len(m.objects) >= 2]
        if not before:
            continue
        k = before[-1]
        others = ms[k].objects - picked.get(k, frozenset())
        if not others or others == ms[k].objects:
            continue
        kind = _PREP_KIND.get(re.sub(r"\s+", " ", om.group(1)), "")
        for i, c in enumerate(cands):
            a = c.atom.args
            if c.atom.predicate in ("on", "in") and len(a) == 2 and a[1] in others and a[0] in picked[k] \
                    and (not kind or kind == c.atom.predicate):
                out[i] += gs.options.weights.dest
        targets |= others
    if excluded:
        for i, c in enumerate(cands):
            if c.focus in excluded or (c.atom.predicate in ("on", "in") and len(c.atom.args) == 2
                                       and c.atom.args[1] in excluded - targets):
                out[i] -= gs.options.weights.dest
            elif c.atom.predicate in ("on", "in") and len(c.atom.args) == 2 and c.atom.args[1] in locators \
                    and not c.holds:
                out[i] -= gs.options.weights.dest  # "the box that's on the table": not onto the table
    return out

def fill_from(gs: "GoalSearcher", low: str, cands, lex: Lexicon) -> np.ndarray:
    """(``fill_from``): "fill the teapot from the kettle", "top up the jug with water
    from the tap": pouring into the vessel filled gets ``w_dest`` (of what the source holds, if
    a source is said), pouring into the source loses it."""
    out = np.zeros(len(cands))
    fills = list(_FILL_FROM.finditer(low))
    ms = [m for m in lex.mentions(low) if not m.category] if fills else []
    for fm in fills:
        vessel = {o for m in ms if fm.start("x") <= m.start < fm.end("x") for o in m.objects}
        source = {o for m in ms if fm.start("y") <= m.start < fm.end("y") for o in m.objects}
        if not vessel:
            continue
        held = {c.atom.args[0] for c in cands if c.holds and c.atom.predicate == "liquid_in"
                and len(c.atom.args) == 2 and c.atom.args[1] in source}
        for i, c in enumerate(cands):
            a = c.atom.args
            if c.atom.predicate != "liquid_in" or len(a) != 2 or c.holds:
                continue
            if a[1] in vessel and (not source or a[0] in held or a[0] in source):
                out[i] += gs.options.weights.dest
            elif a[1] in source - vessel:
                out[i] -= gs.options.weights.dest
    return out

def dest_locators(gs: "GoalSearcher", text: str, cands, lex: Lexicon) -> set[str]:
    """The places ``text`` names only to say where a destination is ("in the basket on the
    worktop": the worktop), by ``_locates_dest`` (``dest_locators``)."""
    if not gs.options.rule("dest_locators"):
        return set()
    low = text.lower()
    out: set[str] = set()
    for m in lex.mentions(text):
        pm = None if m.category else _DEST_PREP.search(low[max(0, m.start - 30):m.start])
        if pm is not None and locates_dest(low, max(0, m.start - 30) + pm.start(1), m, cands, lex):
            out |= set(m.objects)
    return out

def locates_dest(low: str, at: int, m, cands, lex: Lexicon) -> frozenset[str]:
    """What is on / in the place ``m`` now, if ``m`` (its preposition at ``at``) only says
    where a destination said right before it is ("in the box (over) on the counter", with the
    box on the counter now); else nothing."""
    chain = _DEST_CHAIN.search(low[max(0, at - 60):at])
    if chain is None:
        return frozenset()
    held = frozenset(c.atom.args[0] for c in cands if c.holds and c.atom.predicate in ("on", "in")
                     and len(c.atom.args) == 2 and c.atom.args[1] in m.objects)
    return held if any(not d.category and d.objects & held for d in lex.mentions(chain.group(1))) else frozenset()

def empty_ones(gs: "GoalSearcher", instruction: str, an: Analysis, cands, view: SceneView) -> np.ndarray:
    """"the spare bowl", "an empty glass": of several, the ones holding nothing."""
    out = np.zeros(len(cands))
    low = instruction.lower()
    full = {a.args[1] for a in view.init if a.predicate in ("in", "on", "liquid_in") and len(a.args) == 2}
    for m in an.mentions:
        if m.category or len(m.objects) < 2 or not _EMPTY_ONE.search(low[max(0, m.start - 20):m.start]):
            continue
        taken = m.objects & full
        if taken == m.objects:
            continue
        for i, c in enumerate(cands):
            if any(a in taken for a in c.atom.args):
                out[i] -= 2 * gs.options.weights.mention
    return out

def lid(gs: "GoalSearcher", cl: str, chosen, cands, lex: Lexicon) -> Optional[int]:
    """"... and close the lid (again)", "shut it behind you": a clause that closes and names
    nothing that opens closes the last thing an earlier clause opened or put something in."""
    if not chosen or not _CLOSE.search(cl):
        return None
    shut = {c.atom.args[0] for c in cands if c.atom.predicate == "closed"}
    if any(o in shut for m in lex.mentions(cl) if not m.category for o in m.objects):
        return None  # the clause names what it closes
    for i in reversed(chosen):
        a = cands[i].atom
        target = a.args[0] if a.predicate == "opened" else a.args[1] if a.predicate in ("in", "on") and \
            len(a.args) == 2 else None
        if target in shut:
            return next((j for j, c in enumerate(cands) if c.atom.predicate == "closed" and c.atom.args[0] == target),
                        None)
    return None

def taken(earlier: Sequence[str], chosen, cands, lex: Lexicon, agents) -> set[str]:
    """What a plural pronoun refers to : the things the earlier clauses name (not
    the places they are taken from): a plural noun's members (there), one of a singular's
    (the one an earlier atom is about). When that makes more than two, places (things that
    hold other things now) are left out: with several things named, a place is where they go
    or come from. (A heuristic, kept as measured on held-out f and g; a destination
    preposition before the mention would be the better test.)"""
    about = {cands[i].focus for i in chosen}
    out: set[str] = set()
    for cl in earlier:
        low = cl.lower()
        ms = [m for m in lex.mentions(cl) if not m.category and not m.descriptor and m.objects]
        src = {o for m in ms if _SOURCE_BEFORE.search(low[max(0, m.start - 25):m.start]) for o in m.objects}
        for m in ms:
            objs = set(m.objects) - src
            if not objs:
                continue
            if m.plural:
                out |= {o for o in objs if lex.view.place.get(o) in src} or objs if src else objs
            else:
                out.add(next(iter(sorted(objs & about)), None) or sorted(objs)[0])
    return out - agents - set(lex.view.place.values()) if len(out) > 2 else out - agents

def refs(chosen, cands, cl: str, agents, heat: bool = False) -> set[str]:
    """What a pronoun of the clause refers to: the previous clause's object."""
    if not chosen or not _PRONOUN.search(cl):
        return set()
    prev = cands[chosen[-1]].atom
    refs = {prev.args[0] if prev.predicate != "at" else prev.args[-1]} - agents
    if heat and _HEAT.search(cl):  # (``heat_contents``) heating a vessel heats its liquid
        refs |= poured_into(refs, chosen, cands)
    return refs

def poured_into(vessels, chosen, cands) -> set[str]:
    """The liquids the chosen atoms pour into ``vessels``."""
    return {cands[j].atom.args[0] for j in chosen if cands[j].atom.predicate == "liquid_in"
            and cands[j].atom.args[1] in vessels}

def state_bonus(gs: "GoalSearcher", text: str, cands, lex: Lexicon, pronoun_refs: frozenset[str] | set[str] = frozenset(),
                 person_does: bool = False) -> np.ndarray:
    """Atoms of the predicate a state verb of ``text`` names, about an object ``text`` names
    (or a pronoun refers to), get ``w_state``. ``person_does``: a need statement, where a
    verb after "to" is what the person will do ("I want to slice the bread")."""
    out = np.zeros(len(cands))
    said = text.lower()
    if gs.options.rule("state_descriptors"):  # "put the clean mugs away": an adjective, no state asked
        said = STATE_ADJ.sub(lambda m: m.group(1) + " " * (len(m.group(0)) - len(m.group(1))), said)
    if gs.options.rule("instruments"):  # a verb in a class name is no verb ("the rinse jar")
        for m in reversed(lex.mentions_simple(text)):
            said = said[:m.start] + " " * (m.end - m.start) + said[m.end:]
    low = " " + " ".join(_WORD.findall(said)) + " "
    preds = {p for p, verbs in _state_verbs().items() if any(f" {v} " in low for v in verbs)}
    if person_does:
        preds = {p for p in preds if not any(re.search(INFINITIVE + re.escape(v) + r"\b", low)
                                             for v in _state_verbs()[p])}
    if not preds:
        return out
    named = {o for m in lex.mentions(text) if not m.descriptor and not m.category for o in m.objects} | \
        set(pronoun_refs)
    if not named:
        return out
    if gs.options.rule("vessel_contents") and "liquid_in/focus" in preds:
        # "put the milk in the fridge": a named place no liquid is poured into takes the vessel
        pourable = {c.atom.args[1] for c in cands if c.atom.predicate == "liquid_in" and len(c.atom.args) == 2}
        poured = {c.atom.args[0] for c in cands if c.atom.predicate == "liquid_in" and c.atom.args}
        places = need_cues.places_of(cands)
        if any(o in places and o not in pourable and o not in poured for o in named):
            preds = preds - {"liquid_in/focus"}
            if not preds:
                return out
    liquids: set[str] = set()
    if gs.options.rule("vessel_contents") and preds & _LIQUID_STATES:  # "boil the kettle": the water in it
        liquids = {c.atom.args[0] for c in cands if c.holds and c.atom.predicate == "liquid_in"
                   and len(c.atom.args) == 2 and c.atom.args[1] in named}
    if gs.options.rule("instruments") and preds & {"wet", "clean"} and not _PUT.search(said):
        # "dip the cloth in the jar", "wash the apple in the sink": not a placement of it
        for i, c in enumerate(cands):
            if c.atom.predicate in ("in", "on") and c.focus in named:
                out[i] -= 0.5 * gs.options.weights.state
    for i, c in enumerate(cands):
        if c.holds and not (gs.options.rule("multistep_refs") and c.atom.predicate in ("opened", "closed")):
            continue  # a door or lid a clause closes may be opened on the way ("... and close the fridge")
        if (c.atom.predicate in preds and any(a in named for a in c.atom.args)) or \
                (c.atom.predicate + "/focus" in preds and c.focus in named) or \
                (c.atom.predicate in preds & _LIQUID_STATES and c.focus in liquids):
            out[i] = gs.options.weights.state
    return out

def need_bonus(gs: "GoalSearcher", text: str, cands, lex: Lexicon) -> np.ndarray:
    """Handing over what serves a function the text names ("needs snipping": things that cut)."""
    out = np.zeros(len(cands))
    low = text.lower()
    hits = [(m.start(), m.end(), objs) for pat, objs in lex.function_words.values() for m in pat.finditer(low)]
    members: set[str] = set()
    for a, b, objs in hits:  # "drink out of" over "drink": the longest word says the function
        if not any(a2 <= a and b <= b2 and (b2 - a2) > (b - a) for a2, b2, _ in hits):
            members |= objs
    if not members:
        return out
    for i, c in enumerate(cands):
        if c.frame == "inhand/?/human" and c.focus in members:
            out[i] = gs.options.weights.need
    return out

def companion(cl: str, state: CandidateAtom, cands, lex: Lexicon) -> Optional[int]:
    """"slice the tomato on the cutting board": the place a state clause names after on / in
    is where its object goes, unless the object is there already."""
    low = cl.lower()
    obj = state.atom.args[0]
    for m in lex.mentions(cl):
        if m.descriptor or m.category or obj in m.objects or not re.search(r"\b(?:on|onto|in|into)\s+(?:the\s+|a\s+|my\s+)?(?:\w+\s+)?$",
                                             low[max(0, m.start - 25):m.start]):
            continue
        hits = [j for j, c in enumerate(cands) if c.atom.predicate in ("on", "in") and c.atom.args[0] == obj
                and c.atom.args[1] in m.objects]
        if len(hits) == 1 or (hits and len(m.objects) == 1):
            j = hits[0]
            return None if cands[j].holds else j
    return None

def keep_atoms(gs: "GoalSearcher", instruction: str, an: Analysis, view: SceneView, cands,
                lex: Lexicon) -> tuple[Atom, ...]:
    """Kept objects ("leave the X on the Y") where they are now, as positive literals; with
    ``kept_places`` , where the instruction says to leave them when that is not
    where they are now ("bring the fruit bowl over but leave the orange on the shelf": the
    orange comes out of the bowl onto the shelf)."""
    said = kept_places(instruction, an, view, cands, lex) if gs.options.rule("kept_places") else {}
    out = []
    for o in sorted(an.kept):
        if o in said:
            out.append(said[o])
            continue
        p = view.place.get(o)
        if p is None or p in view.humans or p in view.robots:
            continue
        fact = next((a for a in view.init if a.predicate in ("on", "in") and a.args == (o, p)), None)
        if fact is not None:
            out.append(fact)
    return tuple(out)

def kept_places(instruction: str, an: Analysis, view: SceneView, cands, lex: Lexicon) -> dict[str, Atom]:
    out: dict[str, Atom] = {}
    if not an.kept:
        return out
    low = instruction.lower()
    # (the analysis drops mentions inside a "leave the X on the Y" span: the kept X is one)
    ms = [m for m in lex.mentions(instruction) if not m.category]
    for k, m in enumerate(ms):
        objs = m.objects & an.kept
        if not objs:
            continue
        end = _KEEP_CLAUSE_END.search(low, m.end)
        nxt = next((x for x in ms[k + 1:] if x.start < (end.start() if end else len(low))), None)
        prep = _KEEP_PREP.search(low[max(0, nxt.start - 30):nxt.start]) if nxt is not None else None
        if prep is None or len(nxt.objects) != 1:
            continue
        place = next(iter(nxt.objects))
        kind = "in" if prep.group(1) in ("in", "inside") else "on"
        for o in objs:
            if view.place.get(o) == place:
                continue  # where it is now: the current fact says it
            atoms = [c.atom for c in cands if c.atom.predicate in ("on", "in") and c.atom.args == (o, place)]
            atoms.sort(key=lambda a: a.predicate != kind)
            if atoms:
                out[o] = atoms[0]
    return out
