"""goalsearch's last stage: answer or abstain, and how sure the answer is.

After the candidate goals are ranked, ``abstention`` asks ``knowledge.abstain`` whether the
scene holds what the request names or needs; when it does not, the episode is a refusal with
its reason and the nearest alternative (the object goalsearch's first candidate would have
used instead), never a silent substitute. ``confidence`` gives every answer a number in [0, 1]:
the first candidate's share of a softmax over the first five candidates' scores (a ranking
margin, not a calibrated probability); a refusal's confidence is one minus that share (a
search that was sure of its substitute makes the refusal less sure).
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable, Mapping, Optional, Sequence

from groundplan.knowledge.abstain import (
    Abstention,
    Vocabulary,
    absent_thing,
    asks_for_a_present_thing,
    nearest_object,
    need_specs,
    unmet_need,
)
from groundplan.knowledge.wordnet import WordNet
from groundplan.methods.small_model.candidates import scene_view
from groundplan.methods.small_model.needs import paraphrase_needs
from groundplan.methods.small_model.scene_lexicon import categories, synonyms
from groundplan.pddl.formula import atoms
from groundplan.pddl.goal import parse_goal

_WORDS = re.compile(r"[a-z0-9]+(?:[-'][a-z]+)*")
#: softmax temperature of ``confidence`` over candidate scores (their spread is about 0.1-1)
TEMPERATURE = 0.1

_VOCAB: dict[int, Vocabulary] = {}


def _vocabulary() -> Optional[Vocabulary]:
    wn = WordNet.load()
    if wn is None:
        return None
    v = _VOCAB.get(id(wn))
    if v is None:
        v = _VOCAB[id(wn)] = Vocabulary(wn)
    return v


def confidence(scores: Sequence[float]) -> Optional[float]:
    """The first score's share of a softmax over the first five (None without candidates)."""
    top = list(scores[:5])
    if not top:
        return None
    m = max(top)
    exps = [math.exp((s - m) / TEMPERATURE) for s in top]
    return round(exps[0] / sum(exps), 4)


def _known_words(classes: Sequence[str]) -> Callable[[str], bool]:
    """The scene's synonyms, and the category words (goalsearch's lexicon) of the categories
    one of the scene's classes belongs to, as a word test."""
    syn = synonyms()
    names = {c.replace("_", " ").replace("-", " ") for c in classes}
    alias = {o for n in names for o in syn.get(n, ())} | {n for n, others in syn.items() if names & set(others)}
    present = set(classes)
    cats = {f for k, v in categories().items() if present & set(v.get("classes") or ())
            for f in [k.replace("_", " "), *(v.get("forms") or ())]}
    words = alias | cats

    def known(w: str) -> bool:
        return w in words or w.rstrip("s") in words

    return known


def _goal_atoms(goal: Optional[str]) -> list:
    """The atoms of a candidate goal ([] when there is none or it does not parse)."""
    if not goal:
        return []
    try:
        return list(atoms(parse_goal(goal)))
    except Exception:  # noqa: BLE001 - a candidate that does not parse names nothing
        return []


def _substitute(goal: Optional[str], agents: Sequence[str]) -> Optional[str]:
    """The first object of ``goal`` that is no agent: what would have been handed or moved."""
    for a in _goal_atoms(goal):
        for arg in a.args:
            if arg not in agents:
                return arg
    return None


def abstention(instruction: str, domain: Any, problem: Any, first_goal: Optional[str]) -> Optional[Abstention]:
    """Why the scene cannot meet ``instruction`` (a thing it lacks, a need nothing meets), or None."""
    vocab = _vocabulary()
    view = scene_view(domain, problem)
    agents = (*view.humans, *view.robots)
    things = {o: c for o, c in view.objects.items() if o not in agents}
    types = domain.types

    def has(o: str, affordance: str) -> bool:
        if affordance not in types:
            return True  # a skill set without that affordance: no judging the need by it
        t = problem.type_of(domain, o)
        return t is not None and types.is_subtype(t, affordance)

    init = {(a.predicate, *a.args) for a in problem.init}

    def holds(pred: str, o: str) -> bool:
        return (pred, o) in init

    classes = sorted(set(things.values()))
    known = _known_words(classes)
    kinds_of = vocab.covered if vocab is not None else (lambda c: ())
    stated = paraphrase_needs(instruction, more=True)
    need = unmet_need(stated, things, has, instruction, kinds_of, holds)
    if need is not None and not (vocab is not None and asks_for_a_present_thing(instruction, classes, vocab, known)):
        return Abstention("need", need, _substitute(first_goal, agents))
    if vocab is None:
        return None
    wanted = absent_thing(instruction, classes, vocab, known=known)
    if wanted is None:
        return None
    nearest = _substitute(first_goal, agents) or nearest_object(wanted, things, vocab)
    return Abstention("absent", wanted, nearest)




def meets_need(instruction: str, goal: str, domain: Any, problem: Any) -> bool:
    """Whether what ``goal`` hands a person has an affordance the instruction's stated need
    takes (a drink for thirst: ``drinkable`` or ``drink``); False when no such need is stated.
    After the safety check refused a candidate, goalsearch tries only candidates that still
    meet the need: a hazard refused is never silently swapped for the goggles."""
    specs = [s for s in need_specs(paraphrase_needs(instruction), instruction)
             if s.affordances and not s.kinds and not s.states]  # the consumption needs: a drink, food
    if not specs:
        return False
    found = _goal_atoms(goal)
    humans = set(scene_view(domain, problem).humans)
    given = [a.args[0] for a in found if a.predicate == "inhand" and len(a.args) == 2 and a.args[1] in humans]
    if not given:
        return False

    def has(o: str, aff: str) -> bool:
        t = problem.type_of(domain, o)
        return aff in domain.types and t is not None and domain.types.is_subtype(t, aff)

    return all(any(has(o, a) for spec in specs for a in spec.affordances) for o in given)


_ON_ATOM = re.compile(r"\(on\s+([^\s()]+)\s+([^\s()]+)\)")


def containment_said(instruction: str, goal: str, classes: Mapping[str, str],
                     is_container: Callable[[str], bool]) -> str:
    """``goal`` with ``(on X D)`` read as ``(in X D)`` where the instruction puts things
    "in", "into" or "inside" D and D holds things (the map's or the inference's ``contain``):
    "put the drill into the toolbox" asks for the drill inside, and a tool already in the
    toolbox then stays there."""
    low = " " + " ".join(_WORDS.findall(instruction.lower())) + " "

    def inside(m: re.Match) -> str:
        x, d = m.group(1), m.group(2)
        noun = classes.get(d, "").replace("_", " ").replace("-", " ")
        if noun and is_container(d) and re.search(
                r"\b(?:in|into|inside)\s+(?:(?:the|a|an|my|your|our|that|this|his|her)\s+)?(?:\w+\s+)?"
                + re.escape(noun) + r"\b", low):
            return f"(in {x} {d})"
        return m.group(0)

    return _ON_ATOM.sub(inside, goal)


_INHAND_ATOM = re.compile(r"\(inhand\s+([^\s()]+)\s+([^\s()]+)\)")


def recipient_said(instruction: str, goal: str, humans: Sequence[str]) -> str:
    """``goal`` with what it hands a person handed to the person the instruction names by
    name ("give kid0 the pruning shears": to kid0, not to human0), when it names exactly one;
    the safety check then judges the gift for that person (a child among them)."""
    said = set(_WORDS.findall(instruction.lower())) & set(humans)
    if len(said) != 1:
        return goal
    (who,) = said

    def to_them(m: re.Match) -> str:
        return f"(inhand {m.group(1)} {who})" if m.group(2) in humans and m.group(2) != who else m.group(0)

    return _INHAND_ATOM.sub(to_them, goal)


__all__ = ["abstention", "confidence", "containment_said", "meets_need", "recipient_said", "TEMPERATURE"]
