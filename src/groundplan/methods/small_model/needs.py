"""Need statements, for goalsearch's need mode .

"My throat feels like sandpaper", "someone is knocking", "the tea has gone cold": none of
the clauses asks for an action, so the instruction states a need. Its goal hands the person
something or changes a state that meets the need (a window opened, a drink warmed), not a
placement of whatever the sentence happens to mention (the chair a nail sticks out of, the
walnuts that will not crack). The words are in ``knowledge/data/goalsearch/speech.yaml``.

Nothing here reads a gold goal; only the instruction."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from groundplan.knowledge.goalsearch_words import word_list_file, word_list_text
from groundplan.schemas import yaml_lines as yaml_fast

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
#: clause boundaries of a spoken sentence (dashes and "so" / "because" start a new thought)
_CLAUSES = re.compile(r"\s*(?:[,;:.!?]+|\s-+\s|\bbut\b|\band\b|\bso\b|\bbecause\b|\bthen\b)\s*", re.IGNORECASE)
_PLACE_PREP = r"(?:in|into|inside|on|onto|back|away|out)"


@lru_cache(maxsize=1)
def speech() -> dict:
    text = word_list_text("speech.yaml")
    data = yaml_fast.safe_load(text) or {}
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
            # (also of a group or a number of things: "I want every mug on the shelf")
            "wish_object": re.compile(r"\b(?:want|need|like|prefer|love)\s+(?:the|my|your|this|that|these|those|both|"
                                      r"all\s+(?:of\s+)?the|all|every(?:\s+single)?|each|two|three|four|five|six|"
                                      r"a\s+couple\s+of|a\s+few|a\s+pair\s+of)\s+(?:[a-z]+\s+){1,3}?(?:" + "|".join(
                re.escape(w) for w in data.get("wish_object") or ("in", "on")) + r")\b"),
            # a wish about where two named things go ("I need both the pan and the pot up
            # on the stove")
            "wish_pair": re.compile(r"\b(?:want|need|like|prefer|love)\s+(?:both\s+)?(?:the|my|your|this|that)\s+"
                                    r"(?:[a-z]+\s+){1,3}?and\s+(?:the|my|your|this|that)\s+(?:[a-z]+\s+){1,3}?"
                                    r"(?:(?:up|down|over|out|back)\s+)?(?:" + "|".join(
                re.escape(w) for w in data.get("wish_object") or ("in", "on")) + r")\b"),
            "conditionals": tuple(tuple(c.split()) for c in data.get("conditionals") or ()),
            # disposal containers and the words that ask for throwing away; spills
            "disposal_classes": frozenset(data.get("disposal_classes") or ()),
            "disposal": _alternation(data.get("disposal_cues") or ()),
            "spill": re.compile(r"\b(?:" + "|".join(data.get("spill_words") or ("(?!)",)) + r")\b"),
            # set phrases rewritten to plain words ("put the kettle on": boil the kettle)
            "idioms": tuple((re.compile(r"\b(?:" + pat + r")\b", re.IGNORECASE), rep)
                            for pat, rep in data.get("idioms") or ()),
            "placement": re.compile(r"\b(?:" + "|".join(re.escape(p) for p in sorted(
                data.get("placements") or (), key=len, reverse=True)) + r")\s+" + _PLACE_PREP + r"\b")}


def _alternation(words) -> re.Pattern:
    """One word-bounded pattern over literal words and phrases, longest first."""
    words = sorted({str(w).lower() for w in words}, key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b") if words else re.compile(r"(?!)")


def is_disposal_class(cls: str) -> bool:
    """A container things are thrown away into (``trash_can``, ``recycling_bin``, ``bin``; not a
    ``bread_bin``): a word of ``disposal_classes`` in its name, or the name ``bin`` itself."""
    words = cls.lower().replace("-", "_").split("_")
    return cls.lower() == "bin" or any(w in speech()["disposal_classes"] for w in words)


def disposal_said(text: str) -> bool:
    """The instruction asks for (or allows) throwing something away ("bin it", "it's gone off")."""
    return bool(speech()["disposal"].search(text.lower().replace("’", "'")))


def plain_idioms(text: str) -> str:
    """``text`` with the set phrases of ``speech.yaml``'s ``idioms`` in plain words."""
    for pat, rep in speech()["idioms"]:
        text = pat.sub(rep, text)
    return text


def spill_said(text: str) -> bool:
    """The instruction says something spilled ("I knocked my tea over", "juice went everywhere")."""
    return bool(speech()["spill"].search(text.lower().replace("’", "'")))


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


def is_need_statement(text: str, pairs: bool = False) -> bool:
    """True when no clause of ``text`` asks for an action or says where something belongs.
    ``pairs`` : nor wishes two named things somewhere."""
    lex = speech()
    low = text.lower().replace("’", "'")
    if pairs and lex["wish_pair"].search(low):
        return False
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


#: (what the person is looking for: "can't find the clicker", "where's my phone")
_WANT = re.compile(r"\b(?:like|want|need|have|use|fancy|crave|craving|get|give|bring|hand|pass|fetch|grab|find|seen|"
                   r"lost|misplaced|locate|where's|where\s+is|where\s+are|where're)\s+"
                   r"(?:me\s+)?(?:(?:the|a|an|some|my|your|that|this|one|of|those|these|any|more|couple|pair|few|two|"
                   r"three|both|all|several)\s+){0,4}$")

#:  a determiner, then one or two words that describe the thing wanted: "need a spare
#: ", "like a nice clean ", "could use a fresh "; not a clause's function words ("need to clean
#: the "), nor a thing to be used ("I want to use my new keyboard": it goes on the desk)
_WANT_MODIFIED = re.compile(
    r"\b(?:like|want|need|could\s+use|fancy|crave|get|give|bring|hand|pass|fetch|grab|find)\s+(?:me\s+)?"
    r"(?:(?:the|a|an|some|my|your|that|this|another|one|those|these|any|more)\s+){1,2}"
    r"(?:(?!(?:of|to|for|with|on|in|at|from|and|or|but|so|if|because|when|while|by|into|onto|off|out|up|"
    r"the|a|an|is|are|was|it|its|it's|that|this|please)\s)[a-z][a-z'-]*\s+){1,2}$")


@lru_cache(maxsize=1)
def _need_states() -> dict[str, tuple[tuple[str, str], ...]]:
    """A plain need -> the states that meet it (``states`` of need_paraphrases.yaml:
    "opened window": a window opened)."""
    res = word_list_file("need_paraphrases.yaml")
    data = yaml_fast.safe_load(res.read_text()) if res.is_file() else None
    out = {}
    for entry in data or ():
        states = tuple(tuple(str(x).split(None, 1)) for x in entry.get("states") or ())
        if states:
            out[str(entry["need"]).strip()] = states
    return out


def need_states(needs: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """The (predicate, class) states that meet the plain ``needs`` (``paraphrase_needs``)."""
    table = _need_states()
    return tuple(dict.fromkeys(st for n in needs for st in table.get(n, ())))


def _lexicon_entries(name: str) -> list:
    res = word_list_file(name)
    return list(yaml_fast.safe_load(res.read_text()) or ()) if res.is_file() else []


@lru_cache(maxsize=2)
def _paraphrases(more: bool = False) -> tuple[re.Pattern, dict[str, int], tuple[str, ...]]:
    """``knowledge/data/goalsearch/need_paraphrases.yaml``: colloquial phrasings -> a plain need :
    one pattern over every phrasing (longest first), the need each phrasing signals, the needs.
    ``more`` : with need_paraphrases_more.yaml's phrasings (of the same needs or new)."""
    entries = _lexicon_entries("need_paraphrases.yaml")
    if more:
        entries += _lexicon_entries("need_paraphrases_more.yaml")
    needs: list[str] = []
    of: dict[str, int] = {}
    for entry in entries:
        need = str(entry["need"]).strip()
        if need not in needs:
            needs.append(need)
        k = needs.index(need)
        for w in entry.get("says") or ():
            w = str(w).lower().strip()
            if w:
                of.setdefault(w, k)
    if not of:
        return re.compile(r"(?!)"), {}, ()
    pat = re.compile(r"(?<![a-z])(?:" + "|".join(re.escape(w) for w in sorted(of, key=len, reverse=True)) +
                     r")(?![a-z])")
    return pat, of, tuple(needs)


#: words a loose phrasing match skips: a phrasing's content words are the others
_LOOSE_SKIP = frozenset("""i i'm im my me a an the is are am was were be been being have has had got get gets
    getting to of in on at for it its it's so too very really all and some need needs want like could would can just
    feel feels feeling this that these those up out off with from bit little as such something anything nothing
    thing things stuff one lot over under into onto around about down across through again still now""".split())


def _stem(word: str) -> str:
    """A crude stem for loose matching: "fingers" / "finger", "rumbling" / "rumble", "stomach's"."""
    w = word.lower().replace("’", "'")
    w = w[:-2] if w.endswith("'s") else w
    for suffix in ("ing", "ed", "es", "s", "e"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3 and not w.endswith("ss"):
            return w[:-len(suffix)]
    return w


@lru_cache(maxsize=2)
def _loose_phrasings(more: bool = False) -> tuple[tuple[tuple[str, ...], int], ...]:
    """Phrasings of two or more content words: (their stems in order, the need's index)."""
    _, of, _ = _paraphrases(more)
    out = []
    for w, i in of.items():
        content = tuple(dict.fromkeys(_stem(t) for t in re.findall(r"[a-z']+", w) if t not in _LOOSE_SKIP))
        if len(content) >= 2:
            out.append((content, i))
    return tuple(out)


def _loose_needs(low: str, more: bool = False) -> list[tuple[int, int, int]]:
    """(start, end, need index) of phrasings said with other words between ("my mouth as dry as a
    desert" for "mouth is dry", "fingers are all tacky" for "fingers are tacky"): the content words
    in the phrasing's order, within a window of their count plus three words ("bone dry" is not
    "dry as a bone")."""
    toks = [(m.start(), m.end(), _stem(m.group(0))) for m in re.finditer(r"[a-z][a-z']*", low)]
    at: dict[str, list[int]] = {}
    for k, (_, _, st) in enumerate(toks):
        at.setdefault(st, []).append(k)
    found = []
    for content, i in _loose_phrasings(more):
        if not all(c in at for c in content):
            continue
        for k0 in at[content[0]]:
            k, limit = k0, k0 + len(content) + 3
            for c in content[1:]:
                k = next((j for j in at[c] if k < j <= limit), None)
                if k is None:
                    break
            if k is not None:
                found.append((toks[k0][0], toks[k][1], i))
                break
    return found


def paraphrase_needs(text: str, loose: bool = False, more: bool = False) -> tuple[str, ...]:
    """The plain needs the colloquial phrasings of ``text`` signal ("I'm gasping": "I am thirsty
    and want something to drink"), each once, in the order said; the longest phrasing wins where
    two overlap ("the plants are thirsty" is no thirst). ``loose`` : a phrasing of two or
    more content words also counts with other words between or in another order. ``more`` (round
    15): with need_paraphrases_more.yaml."""
    pat, of, needs = _paraphrases(more)
    low = text.lower().replace("’", "'")
    exact = [(m.start(), m.end(), of[m.group(0)]) for m in pat.finditer(low)]  # leftmost-longest, no overlaps
    hits = exact
    if loose:  # a loose phrasing beats a one-word one inside it; an exact phrasing of more words beats it
        many = [(a, b) for a, b, _ in exact if " " in low[a:b].strip()]
        found = [h for h in _loose_needs(low, more) if not any(a < h[1] and h[0] < b for a, b in many)]
        hits = sorted([h for h in exact if " " in low[h[0]:h[1]].strip()
                       or not any(a <= h[0] and h[1] <= b for a, b, _ in found)] + found)
    out: list[str] = []
    for _, _, i in hits:
        need = needs[i]
        if need not in out:
            out.append(need)
    return tuple(out)


#:  a thing asked about: "have we got any of those energy bars left?", "is there any cake?"
_ASKED_ABOUT = re.compile(r"\b(?:(?:have|has)\s+(?:we|you|they|i)\s+(?:still\s+)?got|(?:we|you)'ve\s+(?:still\s+)?got|"
                          r"(?:we|you)\s+got|(?:is|are)\s+there(?:\s+still)?|(?:do|did)\s+(?:we|you)\s+(?:still\s+)?"
                          r"have|(?:any|some)\s+(?:more|left)\s+of)\s+(?:(?:any|some|a|an|the|more|of|those|these|that|"
                          r"left|my|our)\s+){0,4}$")


#:  a thing the person cannot find, has run out of, or sees no sign of
_MISSING_BEFORE = re.compile(
    r"\b(?:(?:can't|cannot|can\s+not|couldn't|could\s+not)\s+(?:find|see|spot|reach|locate|get\s+at|get\s+to)|"
    r"(?:run|ran|running|runs)\s+out\s+of|no\s+sign\s+of|lost|misplaced|mislaid)\s+"
    r"(?:(?:the|my|a|an|any|our|your|some|those|these|that|this)\s+)?(?:[a-z]+\s+)?$")
#:  ... or says is gone or out of reach: "my keyboard's gone walkabout", "the
#: thermometer's nowhere near me", "the scissors aren't anywhere", "the stapler is miles away"
_MISSING_AFTER = re.compile(
    r"^(?:(?:'s|'re|\s+(?:is|are|was|were|has|have|had|went|seems\s+to\s+have|must\s+have))?\s+"
    r"(?:all\s+|just\s+|completely\s+|gone\s+|been\s+)?(?:walkabout|walkies|missing|astray|awol|disappeared|vanished|"
    r"walked\s+off|wandered\s+off|nowhere|out\s+of\s+(?:my\s+|your\s+|our\s+)?reach|(?:too\s+)?far\s+(?:away|off|from\s+me)|"
    r"miles\s+away|all\s+the\s+way\s+over\s+there)\b|"
    r"(?:'s\s+not|'re\s+not|\s+(?:is|are|was|were)\s+not|\s+(?:isn't|aren't|wasn't|weren't))\s+"
    r"(?:here|anywhere|around|near\s+me|nearby|to\s+hand|at\s+hand|within\s+reach|in\s+reach|where\s+(?:it|they)\s+should\s+be)\b)")
#:  "there's no fork up here", "not a scrap of sticky tape to hand": a lack said with
#: "no" and where, rewritten before the negation is read ("the fork missing up here"), so
#: that the thing is what is asked for, not a thing left out
_NONE_HERE = re.compile(
    r"\b(?:no|not\s+(?:a|one|any)(?:\s+(?:single|scrap\s+of|bit\s+of|drop\s+of|sign\s+of))?)\s+"
    r"((?:[a-z]+\s+){0,2}?[a-z]+)\s+(?=(?:to\s+hand|at\s+hand|up\s+here|down\s+here|in\s+here|over\s+here|"
    r"out\s+here|here|around|about|nearby|near\s+me|in\s+sight|anywhere|on\s+me|within\s+reach|left)\b)",
    re.IGNORECASE)


def none_here(text: str) -> str:
    """``text`` with a lack said with "no" and where ("there's no fork up here") as the thing
    missing there ("there's the fork missing up here")."""
    return _NONE_HERE.sub(lambda m: f"the {m.group(1)} missing ", text)


def missing(text: str, start: int, end: int) -> bool:
    """The mention at ``start``..``end`` is something the person lacks: they cannot find it, have
    run out of it, or it is gone or out of reach ("my keyboard's gone walkabout", "the
    thermometer's nowhere near me"). Such a thing is what a need statement asks for ."""
    low = text.lower().replace("’", "'")
    return bool(_MISSING_BEFORE.search(low[max(0, start - 40):start]) or _MISSING_AFTER.match(low[end:end + 60]))


def wanted(text: str, start: int, questions: bool = False, modifiers: bool = False) -> bool:
    """The mention at ``start`` is what the person asks for ("I'd like an apple", "could use the
    remote"), not context ("these walnuts won't crack"); with ``questions`` , also what
    they ask about ("have we got any of those energy bars left?"); with ``modifiers`` ,
    also after a word or two that describe it ("I need a spare tube", "I'd like a clean towel")."""
    before = text[max(0, start - 40):start].lower().replace("’", "'")
    return bool(_WANT.search(before) or (questions and _ASKED_ABOUT.search(before))
                or (modifiers and _WANT_MODIFIED.search(before)))


__all__ = ["INFINITIVE", "disposal_said", "is_disposal_class", "is_need_statement", "need_states", "paraphrase_needs",
           "plain_idioms", "speech",
           "spill_said", "strip_purpose", "wanted", "missing", "none_here"]
