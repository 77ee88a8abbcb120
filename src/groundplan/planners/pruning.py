"""Goal-relevant object pruning for large scenes.

The affordance domain grounds actions over every combination of typed objects (pour alone
gives carry x pour x contain x location operators), so translation time grows steeply
with scene size. For scenes above a threshold this wrapper plans in a reduced problem:
the goal's objects, the agents, every location, what the kept objects stand on or in
(transitively), what stands on or in them, the liquids in kept containers, and the tools
the goal's achieving actions need. If the reduced task has no plan it widens to the full
task, so pruning never turns a solvable task into an unsolvable one. Plans from a reduced
task are valid in the full task (the kept facts are unchanged and the removed objects do
not occur in them); they may be costlier than a plan that uses a removed object. A
quantified goal ranges over every object of its variables' types: those are all kept (a
forall over a pruned problem would otherwise hold vacuously)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from groundplan.pddl.formula import And, Exists, Forall, Imply, Literal, Not, Or, atoms
from groundplan.pddl.model import Domain, Problem
from groundplan.planners.base import Planner, PlanResult, PlanStatus

LOCATING = ("on", "in", "liquid_in", "inhand", "at")
STRUCTURAL_TYPES = frozenset({"object", "carry", "support", "contain", "location", "actor", "liquid",
                              "liquid-contain", "consumable", "stack", "open", "close", "pour", "grasp"})


@dataclass(frozen=True)
class PruneReport:
    kept: int
    total: int
    widened: bool


def quantified_types(f) -> set[str]:
    """Types of the variables of every forall / exists in a formula."""
    if isinstance(f, (Forall, Exists)):
        return {v.type for v in f.vars} | quantified_types(f.body)
    if isinstance(f, (And, Or)):
        return set().union(*(quantified_types(a) for a in f.args)) if f.args else set()
    if isinstance(f, Not):
        return quantified_types(f.arg)
    if isinstance(f, Imply):
        return quantified_types(f.left) | quantified_types(f.right)
    return set()


def relevant_objects(domain: Domain, problem: Problem) -> set[str]:
    goal = problem.goal
    keep: set[str] = {o for a in atoms(goal) for o in a.args if not o.startswith("?")} if goal else set()
    keep &= set(problem.objects) | set(domain.constants)
    for t in quantified_types(goal) if goal else ():
        keep |= set(problem.objects_of_type(domain, t))
    goal_objs = set(keep)
    # agents and locations
    for o, t in problem.objects.items():
        if domain.types.is_subtype(t, "actor") or domain.types.is_subtype(t, "location"):
            keep.add(o)
    # tools of the actions that achieve the goal's predicates
    goal_preds = {a.predicate for a in atoms(goal)} if goal else set()
    for act in domain.actions:
        adds = {e.atom.predicate for e in act.effects if isinstance(e, Literal) and e.positive}
        if adds & goal_preds:
            for p in act.parameters:
                if p.type not in STRUCTURAL_TYPES and not domain.types.is_subtype(p.type, "actor"):
                    keep |= set(problem.objects_of_type(domain, p.type))
    # structural closure over the initial facts
    facts = [f for f in problem.init if f.predicate in LOCATING and len(f.args) == 2]
    changed = True
    while changed:
        changed = False
        for f in facts:
            x, y = f.args
            # upward: what a kept object stands on / is in / where an agent is
            if x in keep and y not in keep:
                keep.add(y)
                changed = True
            # downward one level from goal objects and kept non-location containers: blockers, contents, liquids
            if y in keep and x not in keep and (y in goal_objs or f.predicate == "liquid_in"):
                if not domain.types.is_subtype(problem.objects.get(y, "object"), "location") or y in goal_objs:
                    keep.add(x)
                    changed = True
    return keep


def reduce_problem(problem: Problem, keep: set[str]) -> Problem:
    objs = {o: t for o, t in problem.objects.items() if o in keep}
    init = frozenset(f for f in problem.init if all(a in keep for a in f.args))
    numeric = {k: v for k, v in problem.numeric_init.items() if all(a in keep for a in k.args)}
    return Problem(problem.name, problem.domain_name, objs, init, problem.goal, numeric, problem.metric)


class PruningPlanner:
    """Wraps a planner; prunes objects when the problem has more than ``threshold``."""

    def __init__(self, inner: Planner, threshold: int = 40):
        self.inner = inner
        self.threshold = threshold
        self.name = f"{inner.name}+prune"
        self.last_report: PruneReport | None = None

    def plan(self, domain: Domain, problem: Problem, *, timeout: float | None = None) -> PlanResult:
        if problem.goal is not None:  # a goal too large in DNF is refused before any translation
            from groundplan.errors import GoalError
            from groundplan.pddl.goal import to_dnf

            try:
                to_dnf(problem.goal, objects_of_type=lambda t: problem.objects_of_type(domain, t))
            except GoalError as exc:
                return PlanResult(PlanStatus.INVALID, error=str(exc))
        if len(problem.objects) <= self.threshold or problem.goal is None:
            self.last_report = PruneReport(len(problem.objects), len(problem.objects), False)
            return self.inner.plan(domain, problem, timeout=timeout)
        t0 = time.perf_counter()
        keep = relevant_objects(domain, problem)
        res = self.inner.plan(domain, reduce_problem(problem, keep), timeout=timeout)
        if res.status in (PlanStatus.UNSOLVABLE, PlanStatus.INVALID):
            self.last_report = PruneReport(len(problem.objects), len(problem.objects), True)
            remaining = None if timeout is None else max(0.1, timeout - (time.perf_counter() - t0))
            return self.inner.plan(domain, problem, timeout=remaining)
        self.last_report = PruneReport(len(keep), len(problem.objects), False)
        timings = dict(res.timings)
        timings["pruned_to"] = len(keep)
        return PlanResult(res.status, res.plan, res.cost, time.perf_counter() - t0, res.log, res.error, timings)
