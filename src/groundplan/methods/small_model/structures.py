"""Stage: enumerate structured goals. Goals of several atoms from the request's structure:
groups ("all the mugs", "two sodas", a category with an exception), clauses ("... and then
..."), conjoined noun phrases, "all but one", things left open."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy as np

from groundplan.methods.small_model import completions, cues, need_cues, scoring
from groundplan.methods.small_model.candidates import (
    CandidateAtom,
    SceneView,
)
from groundplan.methods.small_model.mentions import Analysis, quantifier_text
from groundplan.methods.small_model.needs import (
    wanted,
)
from groundplan.methods.small_model.patterns import (
    _CLAUSE_SPLIT,
    _CLOSE,
    _COURTESY_TAIL,
    _HEAT,
    _LIQUID_STATES,
    _NESTED_GAP,
    _PRONOUN,
    _WORD,
    ALL_WORDS,
    NUMBER_WORDS,
    _asks_nothing,
    _caused,
    _kind,
    _statement,
)
from groundplan.methods.small_model.records import GoalCandidate, Request, Scored
from groundplan.methods.small_model.scene_lexicon import Lexicon, held_by
from groundplan.pddl.formula import Atom

if TYPE_CHECKING:
    from groundplan.methods.small_model.search import GoalSearcher


#: "... to chop (some of) the": the person's own verb before a mention (a need statement)
_DONE_TO = re.compile(r"\bto\s+[a-z]+\s+(?:(?:up|down|some|the|my|a|an|all|of|these|those|them)\s+){0,3}$",
                      re.IGNORECASE)


#:  why a thing is kept: "I need it next", "I'm still using them", "we'll want it later"
_KEEP_REASON = re.compile(r"^\W*(?:(?:as|because|since|cos|'cause|coz)\s+)?(?:i|we)(?:'ll|\s+will|'m|\s+am|'re|\s+are|"
                          r"'d|\s+would|'ve|\s+have)?(?:\s+(?:still|just|only|probably|definitely|be))*\s+"
                          r"(?:need|needs|needing|want|wanting|use|using|going\s+to\s+use|got\s+plans\s+for)\s+"
                          r"(?:it|them|that|those|this)\b", re.IGNORECASE)


_ALL_BUT_ONE = re.compile(r"\b(?:all|every\s+one|each\s+one|all\s+of\s+them|the\s+lot)\s*,?\s+(?:but|bar|except|"
                         r"save|apart\s+from|other\s+than|minus)\s+(?:for\s+)?(?:just\s+)?(?:one|a\s+single\s+one)\b|"
                         r"\bleave\s+(?:just\s+)?one\s+(?:of\s+them\s+)?(?:behind|there|where\s+it\s+is|hanging|"
                         r"in\s+place)\b|\bexcept\s+(?:for\s+)?one\b")


_STATE_PREDICATES = frozenset({"chopped", "liquid_warm", "warm", "clean", "wet"})


#: before that destination: "on a", "into the"
_NESTED_BEFORE = re.compile(r"\b(?:on|onto|in|into)\s+(?:a|an|the|my|one\s+of\s+the)\s+$")


def _np_conjoined(text: str, lex: Lexicon) -> tuple[str, ...]:
    """``text``'s clauses, where a bare "and" followed (after determiners) by a thing the scene
    names joins two noun phrases, not two clauses ("all the fruit and veg into the fridge"), and
    one followed by "onto" / "into" adds a destination ("everything off the table and onto the shelf")."""
    out: list[str] = []
    pos, joined = 0, False
    for m in list(_CLAUSE_SPLIT.finditer(text)) + [None]:
        part = text[pos:m.start()] if m is not None else text[pos:]
        if part and _WORD.search(part):
            lead = re.match(r"\s*(?:(?:the|some|all|a|an|my|those|these|of)\s+)*", part, re.IGNORECASE).end()
            said = lex.mentions(part)
            dest = re.match(r"\s*(?:onto|into|on\s+to|in\s+to)\s", part, re.IGNORECASE)
            if joined and out and (said and said[0].start == lead or dest) and lex.mentions(out[-1]):
                out[-1] = out[-1] + " and " + part
            else:
                out.append(part)
        if m is None:
            break
        joined = m.group(0).strip().lower() == "and"
        pos = m.end()
    return tuple(out)


#:  "close everything that's open", "shut whatever's been left open", "close all
#: the open ones", "shut every window and door that's still open"
_CLOSE_OPEN = re.compile(
    r"\b(?:close|shut)\s+(?:up\s+)?(?:all|every|each|any)(?:\s+of)?\s+(?:the\s+)?(?:open|opened)\b(?P<after>[^.;!?,]*)|"
    r"\b(?:close|shut)\s+(?:up\s+)?(?:(?:all|every|each|any)(?:thing)?|whatever|everything|anything)(?:\s+of)?"
    r"(?:\s+(?:the|those|these))?(?P<span>[^.;!?]*?)(?:\s+(?:that|which|what|who))?(?:'s|'re|\s+is|\s+are|\s+was|"
    r"\s+were|\s+has\s+been|\s+have\s+been|'s\s+been|'ve\s+been|\s+got)?(?:\s+(?:been|still|left|hanging|"
    r"standing|lying|sitting|wide|all))*\s+(?:open|opened|ajar)\b|"
    r"\b(?:close|shut)\s+(?:up\s+)?(?:everything|all\s+(?:of\s+)?(?:the\s+)?\w+|every\s+\w+|each\s+\w+)"
    r"(?=\s+(?:on|in|inside|at)\s)(?P<at>)", re.IGNORECASE)


#:  a clause that takes a thing out of a place: "get the packet out of the fridge"
_TAKE_OUT = re.compile(r"\b(?:out\s+of|from|off)\s+(?:the|my|your|a|an|that|this|our|its|their)\b", re.IGNORECASE)


#:  a clause that only fetches something: "get the milk", "grab the jar from the shelf"
_FETCH_STEP = re.compile(r"^\W*(?:(?:first|and|then|now)\s+)*(?:get|grab|take|fetch|find|pick\s+up|take\s+out|get\s+out)"
                         r"(?!\s+(?:me|us)\b)(?![^,.;]*\b(?:to|for)\s+me\b)\b", re.IGNORECASE)


#:  a clause that hands or carries something
_HAND_OVER = re.compile(r"\b(?:bring|give|hand|pass|fetch|carry|take)\b[^,.;]*\b(?:me|over|here|through)\b|"
                        r"\b(?:bring|give|hand|pass)\s+(?:it|them)\b", re.IGNORECASE)


#: (``clause_fetch``) a clause that fetches ("and fetch the milk"): a liquid is fetched in its vessel
_FETCHES = re.compile(r"^\W*(?:(?:and|then|now|also|please|just)\s+)*(?:fetch|bring|get|grab)\b(?!\s+rid\b)",
                      re.IGNORECASE)


#:  a clause that carries something or sets it on a surface, not one that pours it
_CARRIED = re.compile(r"\W*(?:(?:please|then|now|and|also|next)\s+)*(?:(?:take|get|carry|fetch|grab|lift|move)\b.*\b"
                      r"(?:out|off|over|through|across|up)\b|(?:put|place|set|stand|pop|leave)\b.*\b(?:on|onto)\b)",
                      re.IGNORECASE)


_POURED = re.compile(r"\b(?:pour|pouring|poured|fill|filled|tip|top\s+up|splash|drizzle|into|in\s+(?:the|a|my|your)\s+"
                     r"(?:cup|mug|glass|bowl|pot|jug|kettle))\b", re.IGNORECASE)


#: (``group_conjuncts``) between two noun phrases joined by "and": "s and the ", ", "
_CONJUNCT_GAP = re.compile(r"\s*(?:,\s*)?(?:(?:and|plus|as\s+well\s+as|along\s+with)\s+)?(?:(?:the|a|an|my|your|some|that|this|"
                           r"those|these|both|all|of|two|three)\s+)*", re.IGNORECASE)


_SOURCE_PRONOUN = re.compile(r"\b(?:from|out\s+of|off)\s+(?:it|them)\b", re.IGNORECASE)


_WITH_PRONOUN = re.compile(r"\bwith\s+(?:it|them|that|this)\b", re.IGNORECASE)


#: "clear the plates off the table" (of two tables): taken from somewhere, a relation
_TAKEN_OFF = re.compile(r"\b(?:clear|take|get|move|remove|empty)\b[^,.;]*\b(?:off|from|out\s+of)\s+(?:the|my|your|this|that)\b",
                        re.IGNORECASE)


#: a plural pronoun as a verb's object ("put them both on the shelf"), not after a preposition
#: ("pour milk over them": a place) nor "one of them"
_PLURAL_PRONOUN = re.compile(r"(?<!\bin )(?<!\bon )(?<!\bof )(?<!\bto )(?<!\binto )(?<!\bonto )(?<!\bover )"
                             r"(?<!\bfrom )(?<!\bwith )(?<!\bunder )\b(?:them|those|these|both)\b", re.IGNORECASE)


_FILL = re.compile(r"\b(?:fill|refill|top\s+up|pour)\b", re.IGNORECASE)


def group_conjuncts(gs: "GoalSearcher", text: str, an: Analysis, multi: GoalCandidate, cands, scores,
                     lex: Lexicon) -> GoalCandidate:
    """(``group_conjuncts``) "bring me two roses and the ribbon", "put both mugs and
    the teapot on the tray": a thing joined to the group's noun phrase by "and" (nothing
    between but a comma, "and" and determiners) gets the group's atom too."""
    atoms = list(multi.atoms)
    chosen = set(atoms)
    pats = {pattern(c) for c in cands if c.atom in chosen}
    if len(pats) != 1:
        return multi
    pat = next(iter(pats))
    have = {c.focus for c in cands if c.atom in chosen}
    ms = [m for m in lex.mentions(text) if not m.category]
    gms = [m for m in ms if m.objects & an.group]
    for m in ms:
        if m.objects & (an.group | an.excluded | an.kept) or not m.objects.isdisjoint(set(pat)):
            continue
        if not any((g.end <= m.start and _CONJUNCT_GAP.fullmatch(text[g.end:m.start]))
                   or (m.end <= g.start and _CONJUNCT_GAP.fullmatch(text[m.end:g.start])) for g in gms):
            continue
        fit = [i for i, c in enumerate(cands) if c.focus in m.objects and pattern(c) == pat]
        if fit and not m.objects & have:
            i = max(fit, key=lambda j: scores[j])
            atoms.append(cands[i].atom)
            have.add(cands[i].focus)
    return multi if len(atoms) == len(multi.atoms) else replace(multi, atoms=tuple(atoms))

def pattern(c: CandidateAtom) -> tuple:
    """An atom with its focus argument blanked: atoms sharing it differ only in the object."""
    return (c.atom.predicate,) + tuple("_" if a == c.focus else a for a in c.atom.args)

def count_group(gs: "GoalSearcher", k: int, cands, scores, order) -> Optional[GoalCandidate]:
    best = cands[order[0]]
    pat = pattern(best)
    picked, focus = [], set()
    for i in order:
        c = cands[i]
        if pattern(c) == pat and c.focus not in focus:
            picked.append(i)
            focus.add(c.focus)
        if len(picked) == k:
            break
    if len(picked) < 2:
        return None
    return GoalCandidate(tuple(cands[i].atom for i in picked), float(np.mean([scores[i] for i in picked])), "count")

def all_group(gs: "GoalSearcher", instruction: str, words, cands, scores, order, view: SceneView, *,
               require_place: bool = False, lex: Optional[Lexicon] = None) -> Optional[GoalCandidate]:
    text = " " + " ".join(words) + " "
    # a place the instruction names ("on the table", "from the second counter")
    places = {p for p in view.place.values()}
    named = [p for p in places if " " + view.words.get(p, p).replace("the ", "", 1) + " " in text]
    if cands[order[0]].atom.predicate in ("visited", "at"):
        named = []  # "visit all the locations": the best atom is about places, not things on one
    if not named and lex is not None:  # "everything in the fridge" for a refrigerator (synonyms)
        low = instruction.lower()
        named = [o for m in lex.mentions_simple(instruction) for o in sorted(m.objects) if o in places
                 and re.search(r"\b(?:in|on|from|off|out\s+of)\s+(?:the\s+|my\s+)?$", low[max(0, m.start - 15):m.start])]
    if named and lex is not None:  #  "all the fruit in the basket on the worktop": not the worktop's
        locators = cues.dest_locators(gs, instruction, cands, lex)
        named = [p for p in named if p not in locators] or named
    if named:
        # the longest name wins ("second counter" over "counter")
        named.sort(key=lambda p: -len(view.words.get(p, p)))
        here = held_by(view, named[0], gs.options.rule("every_place"))
        pool = [i for i in order if cands[i].focus in here]
    elif require_place and cands[order[0]].atom.predicate not in ("visited", "at"):
        return None  # "every one of the cups" with no class named so: not every object
    else:
        pool = list(order)
    if gs.options.rule("multistep_refs"):
        pool = [i for i in pool if scores[i] > -1.0]  # excluded objects ("all but the remote") stay
    if not pool:
        return None
    best = cands[pool[0]]
    pat = pattern(best)
    picked = [i for i in pool if pattern(cands[i]) == pat]
    if named:
        # the destination must not be where the things already are
        picked = [i for i in picked if named[0] not in cands[i].atom.args]
    if len(picked) < 2:
        return None
    return GoalCandidate(tuple(cands[i].atom for i in picked), float(np.mean([scores[i] for i in picked])), "all")

def nested(text: str, lex: Lexicon, view: SceneView, atoms: set) -> dict[str, list[Atom]]:
    """"On a plate at the table", "in the bowl on the counter": a carried destination said with
    a place of its own. Destination -> the candidate atoms that put it at that place
    (``nested_destinations``)."""
    low = text.lower()
    ms = [m for m in lex.mentions(text) if not m.category]
    out: dict[str, list[Atom]] = {}
    for a, b in zip(ms, ms[1:]):
        if len(b.objects) != 1 or not _NESTED_GAP.fullmatch(low[a.end:b.start]) \
                or not _NESTED_BEFORE.search(low[max(0, a.start - 12):a.start]):
            continue
        place = next(iter(b.objects))
        for x in a.objects:
            if x == place or view.place.get(x) == place:
                continue
            there = Atom("on", (x, place)) if Atom("on", (x, place)) in atoms else Atom("in", (x, place))
            if there in atoms:
                out.setdefault(x, []).append(there)
    return out

def open_ones(instruction: str, an: Analysis, cands, view: SceneView, lex: Lexicon) -> Optional[GoalCandidate]:
    """(``open_ones``): "close everything that's open", "shut whatever's been left
    open", "close every cupboard and drawer that's hanging open", "shut all the open ones":
    the closing atom of each thing open now, of the kinds said if the words between name any."""
    said = instruction.replace("’", "'")
    m = _CLOSE_OPEN.search(said)
    if m is None:
        return None
    is_open = {a.args[0] for a in view.init if a.predicate == "opened" and a.args}
    closing = {c.focus: c.atom for c in cands if c.atom.predicate == "closed" and not c.holds
               and c.focus in is_open and c.focus not in an.excluded}
    kinds = {o for mm in lex.mentions(m.group("span") or m.group("after") or "") for o in mm.objects} & set(closing)
    if m.group("at") is not None:  # "close everything on the counter": what is open there
        rest = re.split(r"[,.;!?]|\b(?:and|then|but)\b", said[m.end():], maxsplit=1)[0]
        places = set(view.place.values())
        at = next((o for mm in lex.mentions(rest) for o in sorted(mm.objects) if o in places), None)
        named = {o for mm in lex.mentions(m.group(0)) for o in mm.objects}  # "all the bottles on ..."
        kinds = {o for o in closing if at is not None and view.place.get(o) == at and (not named or o in named)}
        if not kinds:
            return None
    targets = sorted(o for o in closing if not kinds or o in kinds)
    if not targets:
        return None
    return GoalCandidate(tuple(closing[o] for o in targets), 1.0, "all")

def liquid_sources(an: Analysis, view: SceneView) -> dict[str, frozenset[str]]:
    """class -> the named portions of that liquid whose vessel, or the vessel's place, the
    instruction names too, where that is some but not all of them ."""
    vessel = {a.args[0]: a.args[1] for a in view.init if a.predicate == "liquid_in" and len(a.args) == 2}
    where = {a.args[0]: a.args[1] for a in view.init if a.predicate in ("on", "in") and len(a.args) == 2}
    said = an.named | an.descriptors | ({an.source} if an.source else frozenset())
    by_cls: dict[str, set[str]] = {}
    for o in an.named:
        if o in vessel:
            by_cls.setdefault(view.cls(o), set()).add(o)
    out = {}
    for cls, objs in by_cls.items():
        keep = frozenset(o for o in objs if vessel[o] in said or where.get(vessel[o]) in said)
        if keep and len(keep) < len(objs):
            out[cls] = keep
    return out

def group_goal(gs: "GoalSearcher", an: Analysis, cands, scores, order) -> Optional[GoalCandidate]:
    """One atom pattern over the group ("all the forks on the second table", "two plastic
    cups"): the best atom about a member fixes the pattern, every member (or the best k) gets it."""
    # things taken from a place go somewhere: a relation, not a state ("clear the table")
    moved = an.source is not None or (gs.options.rule("plural_refs") and bool(_TAKEN_OFF.search(an.text)))
    idx = [i for i in order if cands[i].focus in an.group and scores[i] > -1.0
           and (not moved or (an.source not in cands[i].atom.args
                              and cands[i].atom.predicate in ("on", "in", "inhand")))]
    if not idx:
        return None
    pat = pattern(cands[idx[0]])
    picked, seen = [], set()
    for i in idx:
        if pattern(cands[i]) == pat and cands[i].focus not in seen:
            picked.append(i)
            seen.add(cands[i].focus)
    if an.count:
        picked = picked[:an.count]
    if len(picked) < 2:
        return None
    return GoalCandidate(tuple(cands[i].atom for i in picked), float(np.mean([scores[i] for i in picked])),
                         "count" if an.count else "all")

def rewrite_clauses(gs: "GoalSearcher", clauses: Sequence[str], lex: Lexicon) -> tuple[str, ...]:
    """Verbless conjuncts share the previous clause's verb ("take the screw and the nail
    to the table": "take the nail to the table", and the screw goes there too); clauses
    that name no object (an implicit need before an explicit request) are dropped when
    another clause names one."""
    if gs.options.rule("multistep_refs"):
        clauses = shared_predicates(gs, clauses, lex)
    if gs.options.rule("empty_clauses"):  # "..., but." once the kept part is cut out; "..., thanks"
        clauses = [c for c in clauses if not _asks_nothing(c, gs.options.rule("courtesy_tags"))]
    out: list[str] = []
    lists = gs.options.rule("noun_lists")
    for cl in clauses:
        words = _WORD.findall(cl.lower())
        #  "put the hydrometer, thermometer and airlock back on the shelf": a bare noun
        # that opens a clause with at most a destination after it is listed with the one before,
        # when that one ends in a thing
        listed = False
        if lists and out and words and (cm := lex.mentions_simple(cl)) and cm[0].start == 0 and re.fullmatch(
                r"\s*(?:(?:back\s+)?(?:to|on|onto|in|into|inside)\b.*)?", cl[cm[0].end:], re.DOTALL):
            pm = lex.mentions_simple(out[-1])
            listed = bool(pm) and not out[-1][pm[-1].end:].strip()
        if gs.options.rule("verbless_clauses") and out and words and (words[0] in gs._DETS or listed):
            prev = out[-1]
            pm = lex.mentions_simple(prev)
            cm = lex.mentions_simple(cl)
            if pm and cm:
                verb = prev[:pm[0].start].strip()
                vwords = verb.split()
                while vwords and vwords[-1].lower() in gs._DETS:
                    vwords.pop()
                tail = cl[cm[0].end:]
                back = (r"(?:(?:back|up|down|over)\s+)?" if gs.options.rule("wish_pairs") else r"(?:back\s+)?") \
                    if lists else ""
                if re.match(r"\s*" + back + r"(to|on|onto|in|into|inside)\b", tail) and \
                        not prev[pm[0].end:].strip():
                    out[-1] = prev + tail
                cl = " ".join(vwords + [cl])
        out.append(cl)
    if gs.options.rule("drop_context_clauses") and len(out) >= 2:
        named = [bool(lex.mentions_simple(c)) or bool(_PRONOUN.search(c))
                 or bool(gs.options.rule("multistep_refs") and _CLOSE.search(c)) for c in out]
        if not any(named):
            return ()  # "I like fruits, can you bring me something I'd like?": one request
        if sum(named) >= 2:
            out = [c for c, n in zip(out, named) if n]
    return tuple(out)

def group_and_clauses(gs: "GoalSearcher", text: str, an: Optional[Analysis], multi: Optional[GoalCandidate], cands, scores, emb,
                       owner, bonus, lex: Lexicon) -> Optional[GoalCandidate]:
    """"Put both knives in the box, then close the fridge": the group's clause alone decides
    the group's atoms (the box, not the fridge; a group of the mention analysis is chosen
    again from that clause), and each other clause adds its own atom."""
    clauses = _np_conjoined(text, lex) if gs.options.rule("np_conjuncts") else \
        tuple(c for c in _CLAUSE_SPLIT.split(text) if c and _WORD.search(c))
    members = an.group if an is not None else frozenset()
    if len(clauses) < 2 or (multi is None and not members):
        return multi
    at = [k for k, cl in enumerate(clauses) if any(m.objects & members for m in lex.mentions(cl))
          or any(w in ALL_WORDS or w in NUMBER_WORDS for w in _WORD.findall(
              quantifier_text(cl, gs.options.rule("cue_words"), gs.options.rule("adverb_all")).lower()))]
    if not at and gs.options.rule("source_clause") and an is not None and an.source is not None:
        #  "empty the basket onto the counter and then pass me the basket": the group's
        # clause is the first that names where it is taken from
        at = [k for k, cl in enumerate(clauses) if any(an.source in m.objects for m in lex.mentions(cl))]
    if not at:
        return multi
    g = at[0]
    pronoun = any(_PRONOUN.search(cl) and not _CLOSE.search(cl) for k, cl in enumerate(clauses) if k != g)
    if pronoun and not (gs.options.rule("plural_refs") and multi is not None):
        # "gather all the fruit and put it on the plate": one group, the whole sentence ("... and
        # close it" is a clause of its own: it closes where the group went)
        return multi
    group = multi
    if pronoun:  # (plural_refs) the group as the whole sentence chose it; only closing clauses add
        # (``group_other_clauses``: and a clause about something else, with no pronoun:
        # "... put them in the sink, then put the rack on the shelf")
        clauses = tuple(cl for k, cl in enumerate(clauses) if k == g or _CLOSE.search(cl) or (
            gs.options.rule("group_other_clauses") and not _PRONOUN.search(cl) and lex.mentions_simple(cl)
            and not all(o in members for m in lex.mentions(cl) for o in m.objects)
            and not (gs.options.rule("statement_context") and _statement(cl))))
        members = frozenset()
    if members:
        s, _, _, _ = scoring.base_scores(gs, clauses[g], cands, emb, owner)
        s = s + bonus + gs.options.weights.clause_context * scores + cues.clause_refs(gs, clauses[g], [], cands, lex)
        if gs.options.rule("group_states") and gs.options.rule("state_verbs"):
            #  "wipe down the two cups on the tray ...": each cup cleaned
            s = s + cues.state_bonus(gs, clauses[g], cands, lex)
        if gs.options.rule("destinations"):
            s = s + cues.dest_bonus(gs, clauses[g], cands, lex)
        s = s + cues.hand_me(gs, text, cands)
        group = group_goal(gs, an, cands, s, list(np.argsort(-s, kind="stable")))
        if group is None:
            return multi
    chosen = [next(j for j, c in enumerate(cands) if c.atom == a) for a in group.atoms]
    atoms = list(group.atoms)
    rest = tuple(cl for k, cl in enumerate(clauses) if k != g)
    rest = rest if pronoun else rewrite_clauses(gs, rest, lex)
    for cl in rest:
        if not (lex.mentions_simple(cl) or _CLOSE.search(cl)):
            continue
        if all(o in members for m in lex.mentions(cl) for o in m.objects) and not _CLOSE.search(cl):
            continue  # another clause about the group ("... and put them all away")
        i = cues.lid(gs, cl, chosen, cands, lex)
        if i is None:
            sc, _, _, _ = scoring.base_scores(gs, cl, cands, emb, owner)
            sb = cues.state_bonus(gs, cl, cands, lex)
            sc = sc + gs.options.weights.clause_context * scores + np.minimum(bonus, 0.0) + \
                sb + cues.clause_refs(gs, cl, chosen, cands, lex)
            i = int(np.argmax(sc))
            if gs.options.rule("state_clauses") and sb.max() > 0:  #  "boil the kettle, ..."
                i = max(np.nonzero(sb > 0)[0], key=lambda j: sc[j])
        if all(cands[i].focus != cands[j].focus for j in chosen):
            atoms.append(cands[i].atom)
            chosen.append(i)
    return GoalCandidate(tuple(atoms), group.score, group.source)

def shared_predicates(gs: "GoalSearcher", clauses: Sequence[str], lex: Lexicon) -> tuple[str, ...]:
    """"The cucumber and the salad belong in the fridge": a clause that is only a noun phrase
    shares the predicate of the next clause, when that clause opens with a noun phrase too."""
    out = list(clauses)
    for k in range(len(out) - 2, -1, -1):
        cl, nxt = out[k], out[k + 1]
        ms, mn = lex.mentions_simple(cl), lex.mentions_simple(nxt)
        if not ms or not mn:
            continue
        rest = _WORD.findall(cl[:ms[0].start].lower()) + _WORD.findall(cl[ms[-1].end:].lower())
        lead = _WORD.findall(nxt[:mn[0].start].lower())
        if all(w in gs._DETS for w in rest) and all(w in gs._DETS for w in lead) and \
                _WORD.search(nxt[mn[0].end:]):
            out[k] = cl.rstrip(" ,;") + nxt[mn[0].end:]
    return tuple(out)

def clause_goal(gs: "GoalSearcher", instruction: str, clauses, cands, full_scores, emb, owner,
                 bonus=None, lex: Optional[Lexicon] = None, view: Optional[SceneView] = None) -> Optional[GoalCandidate]:
    chosen: list[int] = []
    fetched: set[int] = set()  # atoms of "get the milk" steps (``fetch_steps``)
    agents = {c.atom.args[-1] for c in cands if c.frame.endswith(("human", "robot"))}
    states = gs.options.rule("state_verbs") and lex is not None
    for k, cl in enumerate(clauses):
        sb = np.zeros(len(cands))
        if len(clauses) == 1:
            s = full_scores
        else:
            s, _, _, _ = scoring.base_scores(gs, cl, cands, emb, owner)
            s = s + gs.options.weights.clause_context * full_scores
            if bonus is not None:
                s = s + np.minimum(bonus, 0.0)  # excluded objects stay out of every clause
            sb = cues.state_bonus(gs, cl, cands, lex, pronoun_refs=cues.refs(chosen, cands, cl, agents,
                                                                 gs.options.rule("heat_contents"))) \
                if states else np.zeros(len(cands))
            s = s + sb
            if gs.options.rule("multistep_refs") and lex is not None:
                s = s + cues.clause_refs(gs, cl, chosen, cands, lex)
            if gs.options.rule("clause_objects") and lex is not None:
                s = s + cues.clause_focus(gs, cl, cands, lex)
            if gs.options.rule("water_plant") and lex is not None and view is not None:  #  "give the plant a water"
                w = need_cues.watered(gs, cl, cands, view, lex)
                s = s + w
                sb = sb + w
            if gs.options.rule("destinations") and lex is not None and not sb.any():
                # ("chop it on the board": the state; its placement comes as its companion)
                s = s + cues.dest_bonus(gs, cl, cands, lex)
            if gs.options.rule("clause_fetch") and not sb.any():
                #  "take my glass to the sink and fetch the milk": the milk is brought to
                # the person, not taken to the sink the clause before named
                s = s + cues.hand_me(gs, _COURTESY_TAIL.sub("", cl), cands)
        i = int(np.argmax(s))
        if gs.options.rule("state_clauses") and len(clauses) > 1 and sb.max() > 0:
            #  "boil the kettle": the kettle's water warmed, not the kettle moved
            i = max(np.nonzero(sb > 0)[0], key=lambda j: s[j])
        lid = cues.lid(gs, cl, chosen, cands, lex) if states and gs.options.rule("multistep_refs") else None
        added = cues.added(cl, chosen, cands, lex, s) if gs.options.rule("add_to") and chosen else None
        if lid is not None:
            i = lid
        elif added is not None:  #  "pour milk into the bowl, add the cereal": into the bowl
            i = added
        elif gs.options.rule("multistep_refs") and _SOURCE_PRONOUN.search(cl) and not _PRONOUN.search(
                _SOURCE_PRONOUN.sub(" ", cl)):
            pass  # "fill a cup from it": the pronoun is where the thing comes from, not the thing
        elif gs.options.rule("instruments") and _WITH_PRONOUN.search(cl) and not _PRONOUN.search(
                _WITH_PRONOUN.sub(" ", cl)):
            pass  # "give the remote a wipe with it": the pronoun is the tool
        elif gs.options.rule("plural_refs") and _PLURAL_PRONOUN.search(cl) and not _CLOSE.search(cl) and \
                len(taken := cues.taken(clauses[:k], chosen, cands, lex, agents)) >= 2:
            # "take the bucket and the hose out of the cabinet and put them both on the shelf"
            same = [j for j in range(len(cands)) if cands[j].focus in taken]
            i = max(same, key=lambda j: s[j])
            pat = pattern(cands[i])
            for o in sorted(taken - {cands[i].focus}):
                j = next((j for j in same if cands[j].focus == o and pattern(cands[j]) == pat), None)
                if j is not None:
                    chosen.append(j)
        elif _PRONOUN.search(cl) and chosen and not (gs.options.rule("closing_steps") and completions.closes_named(cl, cands, lex)):
            # "... and move it to the trash": the pronoun's object is the previous clause's;
            # "put it in the fridge and close it": the place, when the clause opens / closes
            prev = cands[chosen[-1]].atom
            refs = {prev.args[0] if prev.predicate != "at" else prev.args[-1]}
            opens = re.search(r"\b(close|shut|open)\b", cl, re.IGNORECASE)
            if opens and prev.predicate in ("in", "on"):
                refs = {prev.args[1]}
            elif gs.options.rule("carried_vessel") and prev.predicate in ("in", "on") and _HAND_OVER.search(cl) and any(
                    c.frame == "inhand/?/human" and c.focus == prev.args[1] for c in cands):
                #  "tip the cereal into the bowl and bring it to me": the bowl, cereal and all
                refs = {prev.args[1]}
            elif prev.predicate == "liquid_in":
                # "pour water in the cup and hand it to me": the cup; "... and warm it up": either
                refs = {prev.args[1], prev.args[0]} if gs.options.rule("multistep_refs") and \
                    _HEAT.search(cl) else {prev.args[1]}
            elif gs.options.rule("vessel_contents") and prev.predicate in _LIQUID_STATES:
                # "pour milk into a mug, heat it up and bring it to me": the milk's vessel too
                refs |= {cands[j].atom.args[1] for j in chosen if cands[j].atom.predicate == "liquid_in"
                         and cands[j].atom.args[0] == prev.args[0]}
            if gs.options.rule("heat_contents") and _HEAT.search(cl):
                #  "... set the pot on the stove and get it heating": the water in the pot
                refs |= cues.poured_into(refs, chosen, cands)
            if states and opens and k > 0:
                # "get the X out of the fridge and close it": the last thing the previous
                # clause names that opens and closes
                shut = {c.atom.args[0] for c in cands if c.atom.predicate in ("opened", "closed")}
                named = [o for m in lex.mentions(clauses[k - 1]) if not m.category for o in sorted(m.objects)
                         if o in shut]
                if named:
                    refs = {named[-1]}
                if gs.options.rule("open_taken") and opens.group(1).lower() == "open" and len(named) > 1 and \
                        _TAKE_OUT.search(clauses[k - 1]):
                    #  "get the packet out of the fridge, open it": the packet
                    refs = {prev.args[0]} if prev.args and prev.args[0] in named[:-1] else {named[0]}
            refs -= agents
            over = r"|over" if gs.options.rule("multistep_refs") else ""
            into = states and re.search(r"\b(?:in|into|inside|on|onto" + over + r")\s+(?:it|them)\b", cl,
                                        re.IGNORECASE)
            if into:
                # "open the fridge and put the juice in it": the pronoun is the destination;
                # "tip the cereal into the bowl and pour milk over it": where the cereal is
                preds = ("in", "on", "liquid_in") if gs.options.rule("multistep_refs") else ("in", "on")
                same = []
                for dest in ({prev.args[0]}, {prev.args[-1]} if len(prev.args) == 2 else set()):
                    dest = dest - agents
                    same = [j for j in range(len(cands)) if cands[j].atom.predicate in preds
                            and cands[j].atom.args[1] in dest and not cands[j].holds]
                    if same or not gs.options.rule("multistep_refs"):
                        break
            else:
                same = [j for j in range(len(cands)) if cands[j].focus in refs]
                if gs.options.rule("multistep_refs") and _FILL.search(cl):
                    # "fill it from the jug": the pronoun is the container the liquid goes into
                    same += [j for j in range(len(cands)) if cands[j].atom.predicate == "liquid_in"
                             and cands[j].atom.args[1] in refs and not cands[j].holds]
            if same and gs.options.rule("pronoun_states") and any(sb[j] > 0 for j in same):
                same = [j for j in same if sb[j] > 0]  #  "cut it up on the board": the cutting
            if same:
                i = max(same, key=lambda j: s[j])
        if gs.options.rule("liquid_carried") and cands[i].atom.predicate not in ("on", "in", "inhand") and \
                sb[i] <= 0 and (_CARRIED.match(cl) or (gs.options.rule("clause_fetch") and k == len(clauses) - 1
                                                      and _FETCHES.match(cl))) \
                and not _POURED.search(cl):
            #  "take the milk out", "put it on the tray": the carton the milk is in
            vessels = {c.atom.args[1] for c in cands if c.atom.predicate == "liquid_in" and c.holds
                       and c.atom.args[0] == cands[i].focus}
            alt = [j for j in range(len(cands)) if cands[j].focus in vessels
                   and cands[j].atom.predicate in ("on", "in", "inhand")]
            if alt:
                i = max(alt, key=lambda j: s[j])
        chosen.append(i)
        if k < len(clauses) - 1 and _FETCH_STEP.match(cl):
            fetched.add(i)
        if states and cands[i].atom.predicate in _STATE_PREDICATES and not (
                gs.options.rule("instruments") and cands[i].atom.predicate in ("clean", "wet")):
            j = cues.companion(cl, cands[i], cands, lex)
            if j is not None:
                chosen.insert(len(chosen) - 1, j)  # the placement first: the state is the later word
    # one atom per object: a later clause overrides an earlier one about the same object (with
    # state verbs: per object and kind of fact, so "put it on the board and slice it" keeps both)
    by_focus: dict[Any, int] = {}
    for i in chosen:
        key = (cands[i].focus, _kind(cands[i].atom.predicate)) if states else cands[i].focus
        by_focus.pop(key, None)
        by_focus[key] = i
    picked = list(by_focus.values())
    if gs.options.rule("fetch_steps") and len(picked) >= 2:
        #  "get the milk, pour some into the bowl ...": fetching is a step on the way; a
        # state its clause chose for a thing a later atom also names is dropped
        picked = [i for i in picked if not (i in fetched and len(cands[i].atom.args) == 1 and any(
            cands[i].focus in cands[j].atom.args for j in picked if j != i))]
    if len(picked) == 1 and len(clauses) >= 2 and gs.options.rule("one_atom_clauses"):
        return GoalCandidate((cands[picked[0]].atom,), float(full_scores[picked[0]]), "clauses-one")
    if len(picked) < 2:
        return None
    return GoalCandidate(tuple(cands[i].atom for i in picked), float(np.mean([full_scores[i] for i in picked])),
                         "clauses")

def but_one(gs: "GoalSearcher", multi: GoalCandidate, cands) -> GoalCandidate:
    """(``all_but_one``): "put them on the table, all but one": the group's last
    member (the least likely) stays where it is."""
    pats = {c.atom: pattern(c) for c in cands if c.atom in multi.atoms}
    pat = pats.get(multi.atoms[0])
    members = [a for a in multi.atoms if pats.get(a) == pat]
    if len(members) < 2:
        return multi
    return GoalCandidate(tuple(a for a in multi.atoms if a != members[-1]), multi.score, multi.source,
                         multi.lm_logprob)


def compose(gs: GoalSearcher, req: Request, sc: Scored, cands: Sequence[CandidateAtom], emb: np.ndarray,
            owner: np.ndarray, view: SceneView, lex: Lexicon) -> tuple[list[GoalCandidate], str, tuple[str, ...]]:
    """Stage 4, enumerate structured goals: the goal of several atoms the request's structure
    asks for (a group, a count, clauses), if any, as ``(goals, structure, clauses)``."""
    opts = gs.options
    instruction, text, an, need, spill = req.instruction, req.text, req.analysis, req.need, req.spill
    scores, order, bonus = sc.scores, sc.order, sc.bonus
    goals: list[GoalCandidate] = []
    structure = "single"
    clauses: tuple[str, ...] = ()
    if opts.decomposition:
        words = _WORD.findall((quantifier_text(text, opts.rule("cue_words"), opts.rule("adverb_all")) if opts.rule("multistep_refs") else text).lower())
        multi: Optional[GoalCandidate] = None
        if opts.rule("open_ones") and an is not None:
            #  "shut whatever's been left open": each thing open now, of the kinds said
            multi = open_ones(instruction, an, cands, view, lex)
        if multi is None and an is not None and an.group and not (need and spill and opts.rule("spill_needs")) and not (need and any(
                _DONE_TO.search(instruction[max(0, m.start - 40):m.start]) and not wanted(instruction, m.start, opts.rule("have_any"), opts.rule("want_modifiers"))
                for m in an.mentions if m.objects & an.group)) and not (
                need and opts.rule("cause_context") and _caused(instruction, an) & an.group):
            # (a need's group, unless the person does something to it: "I'd like to chop some
            # vegetables" asks for a knife; "there are no plates on the table" for the plates)
            multi = group_goal(gs, an, cands, scores, order)
            if opts.rule("multistep_refs"):
                multi = group_and_clauses(gs, text, an, multi, cands, scores, emb, owner, bonus, lex)
        # no group from the mentions (a noun the scene's classes do not spell): issue 10's
        # word-level groups ("visit all the locations", "bring me two colas")
        fallback = an is None or not an.group
        if multi is None and fallback and any(w in ALL_WORDS for w in words):
            multi = all_group(gs, text, words, cands, scores, order, view, require_place=opts.rule("mention_groups"),
                                    lex=lex if opts.rule("synonyms") else None)
            if opts.rule("multistep_refs"):
                multi = group_and_clauses(gs, text, None, multi, cands, scores, emb, owner, bonus, lex)
        if multi is None and fallback and (an is None or len(an.named) < 2):
            k = max((NUMBER_WORDS[w] for w in words if w in NUMBER_WORDS), default=0)
            if k >= 2:
                multi = count_group(gs, k, cands, scores, order)
        if multi is None and not need:  # a need is met by one thing
            clauses = tuple(c for c in _CLAUSE_SPLIT.split(text) if c and _WORD.search(c))
            if opts.rule("verbless_clauses") or opts.rule("drop_context_clauses"):
                clauses = rewrite_clauses(gs, clauses, lex)
            if opts.rule("statement_clauses") and len(clauses) >= 2:  # "I'm parched, pour me some water"
                requests = tuple(c for c in clauses if not _statement(c))
                clauses = requests if len(requests) == 1 else clauses
            if opts.rule("keep_reasons") and len(clauses) >= 2 and an is not None and (an.excluded or an.kept):
                #  "..., but leave the capper out, I need it next": the reason for the kept one
                clauses = tuple(c for c in clauses if not _KEEP_REASON.match(c.replace("’", "'"))) or clauses
            if len(clauses) >= 2 or (opts.rule("state_verbs") and len(clauses) == 1):
                multi = clause_goal(gs, text, clauses, cands, scores, emb, owner, bonus, lex, view)
        if multi is not None and opts.rule("all_but_one") and multi.source in ("all", "count") and \
                _ALL_BUT_ONE.search(instruction.lower().replace("’", "'")):
            multi = but_one(gs, multi, cands)
        if multi is not None and opts.rule("group_conjuncts") and an is not None and multi.source in ("all", "count"):
            multi = group_conjuncts(gs, text, an, multi, cands, scores, lex)
        if multi is not None and multi.source == "clauses-one":
            #  the clauses' one atom first; the structure stays "single"
            goals.append(replace(multi, source="clauses"))
        elif multi is not None and len(multi.atoms) >= 2:
            goals.append(multi)
            structure = multi.source
    return goals, structure, clauses
