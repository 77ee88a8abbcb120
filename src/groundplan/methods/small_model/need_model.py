"""Stage 6b, ask a language model (optional, ``GoalSearchConfig.need_model``): for a stated
need ("I'm parched", "this cut won't stop bleeding"), which of the things the rules rank first
meets it. Rules know a class's uses from word lists and WordNet; a model knows that a flask of
tea quenches thirst and a watering can does not.

Scored SayCan-style, by pointwise mutual information: the log-probability of each thing's
name as the answer to "a person says ...; which one of these (the candidates' names) should a
helpful robot hand them?", against the same name as the answer to the question without the
person's words (a long, common or first-listed name is not preferred for being likely anyway).
The model's choice among the handing-over candidates of the first ``TOP`` goes first when it
beats the rules' first one by ``MARGIN``; otherwise the rules' order stands. One scoring pass per candidate, on any backend that scores (the embedded model by its
batched path, ``llm.goal_search``)."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from groundplan.errors import GoalError
from groundplan.llm.goal_search import score_continuations
from groundplan.pddl.formula import And, Atom
from groundplan.pddl.goal import parse_goal

#: how many of the ranked goals the model may choose from
TOP = 6
#: the model's choice goes first only when it is at least e times likelier (in PMI) than the
#: rules' first handing-over candidate: the rules keep close calls
MARGIN = 1.0
_NEEDY = ("Question: A person says: \"{instruction}\" Which one of these should a helpful robot hand them: "
          "{options}?\nAnswer: The")
_NEUTRAL = "Question: Which one of these should a helpful robot hand someone: {options}?\nAnswer: The"


def _handed(goal_text: str, humans: Sequence[str]) -> Optional[str]:
    """The object a one-atom goal hands a person, or None."""
    try:
        f = parse_goal(goal_text)
    except GoalError:
        return None
    atoms = f.args if isinstance(f, And) else (f,)
    if len(atoms) != 1 or not isinstance(atoms[0], Atom):
        return None
    a = atoms[0]
    return a.args[0] if a.predicate == "inhand" and len(a.args) == 2 and a.args[1] in humans else None


def _name(obj: str, classes: dict[str, str]) -> str:
    return " " + classes.get(obj, obj.rstrip("0123456789")).replace("_", " ")


def rerank(instruction: str, goals: list, classes: dict[str, str], humans: Sequence[str], llm: Any,
           usage: Any = None) -> tuple[list, Optional[dict]]:
    """``goals`` with the model's choice first (when it beats the rules' first handing-over
    candidate by ``MARGIN``), and a record of the scores (None when fewer than two candidates
    hand something over)."""
    head = list(goals[:TOP])
    slots = [(i, _handed(g.text, humans)) for i, g in enumerate(head)]
    slots = [(i, o) for i, o in slots if o is not None]
    if len(slots) < 2:
        return goals, None
    names = [_name(o, classes) for _, o in slots]
    options = ", ".join(dict.fromkeys(n.strip() for n in names))
    needy = score_continuations(llm, _NEEDY.format(instruction=instruction.strip(), options=options), names,
                                usage=usage)
    plain = score_continuations(llm, _NEUTRAL.format(options=options), names, usage=usage)
    pmi = [a - b for a, b in zip(needy.logprobs, plain.logprobs)]
    best = max(range(len(slots)), key=lambda k: pmi[k])
    moved = best != 0 and pmi[best] - pmi[0] >= MARGIN
    record = {"objects": [o for _, o in slots], "pmi": [round(x, 3) for x in pmi],
              "first": slots[best if moved else 0][1], "moved": moved}
    if not moved:
        return goals, record
    i = slots[best][0]
    return [head[i]] + [g for j, g in enumerate(goals) if j != i], record


__all__ = ["MARGIN", "TOP", "rerank"]
