"""Stage 1, normalise: the instruction rewritten into the plainer words the later stages
read."""

from __future__ import annotations

import re

from groundplan.methods.small_model.candidates import (
    SceneView,
)
from groundplan.methods.small_model.needs import (
    none_here,
    plain_idioms,
)
from groundplan.methods.small_model.options import SearchOptions
from groundplan.methods.small_model.patterns import (
    _CORRECTION,
    _COURTESY_TAG,
    _COURTESY_TAIL,
    _DET,
    _NOUNS,
    _TAKEN_THEN_PUT,
    _WORD,
)
from groundplan.methods.small_model.scene_lexicon import Lexicon

#: "<verb> <object> <destination> together with / along with / as well as <another>"
_ALONG_WITH = re.compile(r"(?P<verb>\b(?:put|place|set|lay|leave|stand|pop|stick|move|take|bring|carry|stow|pack|tuck)"
                         r"(?:\s+(?:down|back|away))?\s+)(?P<obj>it|them|(?:the|my|your|a|an)\s+[a-z_]+(?:\s+[a-z_]+)?)"
                         r"(?P<dest>\s+(?:on|onto|in|into|inside|next\s+to|beside|by|under|to)\s+[^,.;!?]*?)"
                         r"\s*,?\s+(?:together\s+with|along\s+with|as\s+well\s+as)\s+"
                         r"(?P<other>(?:the|my|your|a|an)\s+[a-z_]+(?:\s+[a-z_]+)?)(?=\s*(?:[,.;!?]|$))",
                         re.IGNORECASE)


#:  "<give> me <one> along with / together with / as well as <another>"
_ALONG_WITH_ME = re.compile(r"(?P<verb>\b(?:give|hand|pass|bring|fetch|get|grab|toss|chuck)\s+(?:me|us)\s+)"
                            r"(?P<obj>(?:the|my|your|a|an|some)\s+[a-z_]+(?:\s+[a-z_]+)?)\s*,?\s+"
                            r"(?:together\s+with|along\s+with|as\s+well\s+as)\s+"
                            r"(?P<other>(?:the|my|your|a|an|some)\s+[a-z_]+(?:\s+[a-z_]+)?)(?=\s*(?:[,.;!?]|$|\s+(?:too|please)\b))",
                            re.IGNORECASE)


def _along_with(text: str) -> str:
    """"Put it on the mat together with the ruler": "put it on the mat, and put the ruler on the
    mat" (the other thing goes where the first goes)."""
    return _ALONG_WITH.sub(lambda m: f"{m.group('verb')}{m.group('obj')}{m.group('dest')}, and "
                                     f"{m.group('verb')}{m.group('other')}{m.group('dest')}", text)


def _corrected(instruction: str) -> str:
    """"Don't put the roses in the fridge, put them in the vase" -> "put the roses in the vase"
    (``corrections``)."""
    m = _CORRECTION.match(instruction.replace("’", "'"))
    if m is None:
        return instruction
    rest = re.sub(r"\s*\binstead\b", "", m.group("rest"))
    np_ = m.group("np1") or m.group("np2")
    return f"{m.group('verb')} {np_[:1].lower()}{np_[1:]}{rest}"


def _taken_then_put(instruction: str) -> str:
    """"Take everything off the desk except the laptop and put it on the bed" -> "put everything
    from the desk on the bed except the laptop" (``taken_then_put``)."""
    m = _TAKEN_THEN_PUT.match(instruction.replace("’", "'"))
    if m is None or not m.group("kept"):
        return instruction
    kept = m.group("kept").strip().lstrip(",").strip()
    return f"put {m.group('np')} from {m.group('place')} {m.group('prep')} {m.group('dest')}, {kept}{m.group('end')}"


#:  "whatever's on", "whatever is left in", "whatever's lying about on"
_WHATEVER = re.compile(r"\bwhatever(?:'s|\s+is|\s+are|'s\s+been|\s+has\s+been|\s+was)?(?:\s+(?:left|lying|sitting|"
                       r"still|been|about|around|kept|stored))*\s+(on|in|inside|out\s+of|off|from)\b"
                       r"(?![^,.;!?]*\b(?:is|are|will|would|'ll|should|does|do)\s+(?:be\s+)?(?:fine|ok|okay|good|great|"
                       r"alright|all\s+right|do|work)\b)", re.IGNORECASE)


def _without_courtesy(text: str) -> str:
    """``text`` without a leading or trailing courtesy tag ("boil the kettle, would you?")."""
    head = _COURTESY_HEAD.match(text)
    if head and _WORD.search(text[head.end():].lower()):
        text = text[head.end():]
    tail = _COURTESY_TAIL.search(text)
    if tail and _COURTESY_TAG.match(tail.group(1).replace("’", "'")) and _WORD.search(text[:tail.start()].lower()):
        text = text[:tail.start()] + "."
    return text


_COURTESY_HEAD = re.compile(r"^\s*(?:if\s+you\s+(?:would|could|can|don't\s+mind|do\s+not\s+mind|get\s+a\s+chance)|"
                            r"when\s+you\s+(?:can|get\s+a\s+(?:chance|sec|second|moment|minute)))\s*,\s*", re.IGNORECASE)


#:  "empty the bottle into the can", "tip the jug out into the sink"
_EMPTY_INTO = re.compile(r"\b(empty|tip|drain|dump)\s+(?:out\s+)?(?P<np>[^,.;!?]{1,40}?)\s+(?:out\s+)?(?:into|in)\b",
                         re.IGNORECASE)


#:  "the two things on the coffee table", "both items in the box": everything there
_COUNTED_THINGS = re.compile(r"\b(?:(?:the|those|these)\s+(?:two|three|four|five|2|3|4|5)|both|both\s+the)\s+"
                             r"(?:things|items|objects|bits)\s+(?=(?:that\s+are\s+|lying\s+|sitting\s+|left\s+)?"
                             r"(?:on|in|inside|from|off)\b)", re.IGNORECASE)


#:  "open (up) the kiln, ...": what is opened, at a clause's start
_OPENED = re.compile(r"(?:^|[,;]\s*|\b(?:and|then|first)\s+)open(?:\s+up)?\s+(?P<x>" + _DET + _NOUNS + r")"
                     r"(?=\s*(?:[,;]|\s+(?:and|then)\b))")


#:  "pop the bowl inside", "drop the mainspring in to soak": put in, with no place said
_PUT_IN_BARE = re.compile(r"\b(?:put|pop|drop|place|stick|set|slip|tuck|pack|load|slide|lay|stand)\s+"
                          r"(?:[^,.;!?]{1,40}?)\s+(?P<in>inside|in)(?=\s*(?:[,.;!?]|$|\s+(?:and|then|to|for|please)\b))")


def _into_opened(text: str) -> str:
    """(``into_opened``) "Open the kiln, pop the bowl from the wheel inside and close it
    up" -> "... pop the bowl from the wheel into the kiln ...": a thing put "in" or "inside" with no
    place said goes into the thing opened in an earlier clause."""
    low = text.lower().replace("’", "'")
    opened = _OPENED.search(low)
    if opened is None:
        return text
    put = _PUT_IN_BARE.search(low, opened.end())
    if put is None:
        return text
    return text[:put.start("in")] + "into " + opened.group("x") + text[put.end("in"):]


def normalise(instruction: str, view: SceneView, lex: Lexicon, opts: SearchOptions) -> str:
    """Stage 1, normalise: the instruction in the plainer words the later stages read (idioms
    said plainly, courtesy dropped, "whatever's on the table" as "everything on the table", a
    correction as the placing it asks for, ...)."""
    if opts.rule("idioms"):
        instruction = plain_idioms(instruction)
    if opts.rule("along_with"):
        instruction = _along_with(instruction)
    if opts.rule("courtesy_tags"):
        instruction = _without_courtesy(instruction)
    if opts.rule("along_with_me"):  #  "pass me the mug along with the capo": both
        instruction = _ALONG_WITH_ME.sub(lambda m: f"{m.group('verb')}{m.group('obj')} and {m.group('other')}",
                                         instruction)
    if opts.rule("whatever_all") and _WHATEVER.search(instruction.replace("’", "'")):
        #  "whatever's on the coffee table": everything on it
        instruction = _WHATEVER.sub(lambda m: "everything " + m.group(1), instruction.replace("’", "'"))
    if opts.rule("empty_into"):  #  "empty the water bottle into the watering can": pour it
        instruction = _EMPTY_INTO.sub(lambda m: "pour" + m.group(0)[len(m.group(1)):] if any(
            a.predicate == "liquid_in" and len(a.args) == 2 and a.args[1] in mm.objects
            for mm in lex.mentions(m.group("np")) for a in view.init) else m.group(0), instruction)
    if opts.rule("into_opened"):  #  "open the kiln, pop the bowl inside": into the kiln
        instruction = _into_opened(instruction)
    if opts.rule("corrections"):  #  "don't put the roses in the fridge, put them in the vase"
        instruction = _corrected(instruction)
    if opts.rule("taken_then_put"):  #  "take everything off the desk but the laptop and put it on the bed"
        instruction = _taken_then_put(instruction)
    if opts.rule("counted_things"):  #  "the two things on the coffee table": everything on it
        instruction = _COUNTED_THINGS.sub("everything ", instruction)
    if opts.rule("missing_asked"):  #  "there's no fork up here": the fork, missing up here
        instruction = none_here(instruction)
    return instruction
