"""RobLM's metrics (Sec. 4.2.1): action / argument / full-plan accuracy (Fig. 5), per-action
accuracies (Table 3), sub-task success in simulation (Table 2)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

from groundplan.core.datasets.alfred_text import ACTIONS, PlanStep
from groundplan.methods.roblm.grounding import GroundedRun


@dataclass(frozen=True)
class Accuracy:
    actions: bool  # the count and names of all actions are right
    arguments: bool  # the count and names of all arguments are right
    full: bool  # both


def accuracy(pred: Sequence[PlanStep], gold: Sequence[PlanStep]) -> Accuracy:
    acts = [s.action for s in pred] == [s.action for s in gold]
    args = [s.args for s in pred] == [s.args for s in gold]
    return Accuracy(acts, args, acts and args)


def per_action(pred: Sequence[PlanStep], gold: Sequence[PlanStep]) -> dict[str, tuple[int, int, int]]:
    """Per gold action name: (gold steps, position-aligned predicted step has that action,
    ... and the same arguments)."""
    out: dict[str, list[int]] = {}
    for i, g in enumerate(gold):
        p = pred[i] if i < len(pred) else None
        row = out.setdefault(g.action, [0, 0, 0])
        row[0] += 1
        if p is not None and p.action == g.action:
            row[1] += 1
            if p.args == g.args:
                row[2] += 1
    return {k: (v[0], v[1], v[2]) for k, v in out.items()}


def subtask_success(gold: Sequence[PlanStep], run: GroundedRun) -> dict[str, tuple[int, int]]:
    """Per action name: (gold sub-tasks, sub-tasks completed). A gold sub-task is completed when
    the executed plan has a step with the same action and arguments that succeeded in the
    simulator (each executed step completes at most one gold sub-task)."""
    done = Counter(o.step for o in run.outcomes if o.ok)
    out: dict[str, list[int]] = {}
    for g in gold:
        row = out.setdefault(g.action, [0, 0])
        row[0] += 1
        if done[g] > 0:
            done[g] -= 1
            row[1] += 1
    return {k: (v[0], v[1]) for k, v in out.items()}


def merge(rows: Iterable[dict[str, tuple[int, ...]]]) -> dict[str, tuple[int, ...]]:
    total: dict[str, list[int]] = {}
    for r in rows:
        for k, v in r.items():
            t = total.setdefault(k, [0] * len(v))
            for i, x in enumerate(v):
                t[i] += x
    return {k: tuple(v) for k, v in total.items() if k in ACTIONS}
