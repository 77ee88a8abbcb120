"""Need statements, for goalsearch's need mode (issue 21, round 4).

"My throat feels like sandpaper", "someone is knocking", "the tea has gone cold": none of
the clauses asks for an action, so the instruction states a need. Its goal hands the person
something or changes a state that meets the need (a window opened, a drink warmed), not a
placement of whatever the sentence happens to mention (the chair a nail sticks out of, the
walnuts that will not crack). The words are in ``prompts/small_model/speech.yaml``.

Nothing here reads a gold goal; only the instruction."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

import yaml

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
#: clause boundaries of a spoken sentence (dashes and "so" / "because" start a new thought)
_CLAUSES = re.compile(r"\s*(?:[,;:.!?]+|\s-+\s|\bbut\b|\band\b|\bso\b|\bbecause\b|\bthen\b)\s*", re.IGNORECASE)
_PLACE_PREP = r"(?:in|into|inside|on|onto|back|away|out)"


@lru_cache(maxsize=1)
def speech() -> dict:
    text = resources.files("groundplan.prompts.small_model").joinpath("speech.yaml").read_text()
    data = yaml.safe_load(text) or {}
    wrappers = sorted((w.split() for w in data.get("wrappers") or ()), key=len, reverse=True)
    return {"commands": frozenset(data.get("commands") or ()),
            "multi": tuple(tuple(c.split()) for c in data.get("commands") or () if " " in c),
            "fillers": frozenset(data.get("fillers") or ()),
            "wrappers": tuple(tuple(w) for w in wrappers),
            "wish": re.compile(r"\b(?:want|need|like|prefer|'d\s+love)\s+(?:\w+\s+){1,3}?to\s+(?:" + "|".join(
                re.escape(w) for w in data.get("wish_state") or ("be",)) + r")\b"),
            "modal": re.compile(r"\b(?:" + "|".join(re.escape(m) for m in data.get("modals") or ("should",)) +
                                r")\s+(?:not\s+)?(?:just\s+)?(?:" + "|".join(
                re.escape(w) for w in data.get("wish_state") or ("be",)) + r")\b"),
            # "I'd like the apple in the fridge", "I want the cups washed": a wish about where or
            # how a named thing is
            # (round 5: also of a group or a number of things: "I want every mug on the shelf")
            "wish_object": re.compile(r"\b(?:want|need|like|prefer|love)\s+(?:the|my|your|this|that|these|those|both|"
                                      r"all\s+(?:of\s+)?the|all|every(?:\s+single)?|each|two|three|four|five|six|"
                                      r"a\s+couple\s+of|a\s+few|a\s+pair\s+of)\s+(?:[a-z]+\s+){1,3}?(?:" + "|".join(
                re.escape(w) for w in data.get("wish_object") or ("in", "on")) + r")\b"),
            "conditionals": tuple(tuple(c.split()) for c in data.get("conditionals") or ()),
            "placement": re.compile(r"\b(?:" + "|".join(re.escape(p) for p in sorted(
                data.get("placements") or (), key=len, reverse=True)) + r")\s+" + _PLACE_PREP + r"\b")}


def _opens_with_command(words: list[str], lex: dict) -> bool:
    i = 0
    while True:
        while i < len(words) and words[i] in lex["fillers"]:
            i += 1
        for w in lex["wrappers"]:
            if tuple(words[i:i + len(w)]) == w:
                i += len(w)
                break
        else:
            break
    rest = tuple(words[i:])
    return bool(rest) and (any(v in lex["commands"] for v in _verb_forms(rest[0]))
                           or any(rest[:len(c)] == c for c in lex["multi"]))


def _verb_forms(word: str) -> tuple[str, ...]:
    """"taking" -> take, "putting" -> put, "grabbing" -> grab (after "would you mind ...")."""
    if not word.endswith("ing") or len(word) < 5:
        return (word,)
    stem = word[:-3]
    return (word, stem, stem + "e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else stem)


def is_need_statement(text: str) -> bool:
    """True when no clause of ``text`` asks for an action or says where something belongs."""
    lex = speech()
    low = text.lower().replace("’", "'")
    if lex["placement"].search(low) or re.search(r"\b(?:into|onto)\b", low) or lex["wish"].search(low) \
            or lex["wish_object"].search(low) or lex["modal"].search(low):
        return False
    for clause in _CLAUSES.split(low):
        words = _WORD.findall(clause)
        if words and _opens_with_command(words, lex):
            return False
        if any(tuple(words[:len(c)]) == c for c in lex["conditionals"]) and \
                any(_opens_with_command(words[i:], lex) for i in range(2, len(words))):
            return False  # "if there is a bottle in the fridge pour a cup of water"
    return True


#: a reason after a request ("... so I can wipe the table", "... because I'm cold")
_PURPOSE = re.compile(r"[,;]?\s*\b(?:so\s+(?:that\s+)?(?:i|we|you)\s+(?:can|could|may|might)|because|since|"
                      r"as\s+(?:i|we)(?:'m|'re|\s+am|\s+are)?)\b.*$", re.IGNORECASE)
#: an infinitive the person will do themselves: "I want to slice the bread", "nothing to cut it with"
INFINITIVE = r"\bto\s+(?:\w+\s+)?"


def strip_purpose(text: str) -> str:
    """A request without the reason given after it ("give me the sponge so I can wipe the
    table": the sponge, not the table)."""
    m = _PURPOSE.search(text)
    if m is None or m.start() == 0:
        return text
    head = text[:m.start()].strip()
    return head if head and not is_need_statement(head) else text


_WANT = re.compile(r"\b(?:like|want|need|have|use|fancy|crave|craving|get|give|bring|hand|pass|fetch|grab)\s+"
                   r"(?:me\s+)?(?:(?:the|a|an|some|my|your|that|this|one|of|those|these|any|more|couple|pair|few|two|"
                   r"three|both|all|several)\s+){0,4}$")


def wanted(text: str, start: int) -> bool:
    """The mention at ``start`` is what the person asks for ("I'd like an apple", "could use the
    remote"), not context ("these walnuts won't crack")."""
    return bool(_WANT.search(text[max(0, start - 40):start].lower()))


__all__ = ["INFINITIVE", "is_need_statement", "speech", "strip_purpose", "wanted"]
