"""Stage 6b, ask a language model (optional, ``GoalSearchConfig.need_model``): for a stated
need ("I'm parched", "this cut won't stop bleeding"), which of the things the rules rank first
meets it. Rules know a class's uses from word lists and WordNet; a model knows that a flask of
tea quenches thirst and a watering can does not.

Scored SayCan-style, by pointwise mutual information: the log-probability of each thing's
name after the person's words and "the robot hands them the", against the same name after
the neutral words alone (a long or common name is not preferred for being likely anyway).
The handing-over candidates among the first ``TOP`` are reordered by it; the others keep their
places. One scoring pass per candidate, on any backend that scores (the embedded model by its
batched path, ``llm.goal_search``)."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from groundplan.llm.goal_search import score_continuations

#: how many of the ranked goals the model may reorder
TOP = 6
_NEEDY = "A person at home says: \"{instruction}\"\nTo help them, the robot hands them the"
_NEUTRAL = "To help them, the robot hands them the"


def _handed(goal_text: str, humans: Sequence[str]) -> Optional[str]:
    """The object a one-atom goal hands a person, or None."""
    inner = goal_text.strip()
    if not (inner.startswith("(and (inhand ") and inner.count("(") == 2):
        return None
    parts = inner[len("(and (inhand "):].rstrip(")").split()
    return parts[0] if len(parts) == 2 and parts[1] in humans else None


def _name(obj: str, classes: dict[str, str]) -> str:
    return " " + classes.get(obj, obj.rstrip("0123456789")).replace("_", " ")


def rerank(instruction: str, goals: list, classes: dict[str, str], humans: Sequence[str], llm: Any,
           usage: Any = None) -> tuple[list, Optional[dict]]:
    """``goals`` with the handing-over candidates among the first ``TOP`` in the order of the
    model's PMI, and a record of the scores (None when fewer than two such candidates)."""
    head = list(goals[:TOP])
    slots = [(i, _handed(g.text, humans)) for i, g in enumerate(head)]
    slots = [(i, o) for i, o in slots if o is not None]
    if len(slots) < 2:
        return goals, None
    names = [_name(o, classes) for _, o in slots]
    needy = score_continuations(llm, _NEEDY.format(instruction=instruction.strip()), names, usage=usage)
    plain = score_continuations(llm, _NEUTRAL, names, usage=usage)
    pmi = [a - b for a, b in zip(needy.logprobs, plain.logprobs)]
    order = sorted(range(len(slots)), key=lambda k: -pmi[k])
    new = list(head)
    for (i, _), k in zip(slots, order):
        new[i] = head[slots[k][0]]
    record = {"objects": [o for _, o in slots], "pmi": [round(x, 3) for x in pmi],
              "first": slots[order[0]][1]}
    return new + list(goals[TOP:]), record


__all__ = ["TOP", "rerank"]
