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
forall over a pruned problem would otherwise hold vacuously).

Domains with negated or counting conditions over whole relations (VirtualHome's skill set:
a free hand, "inside something closed", "too many things on it", a node's unique room)
can accept a plan in the reduced task that fails in the full one. A plan from a reduced
task is therefore checked against the full task by a registered plan check (the executor
registers one: ``register_plan_check``) and, if it does not execute or does not reach the
goal there, the full task is planned instead. For such domains the kept set also has every
object of a type the domain quantifies over (VirtualHome's rooms, "a knife in hand"), what
kept objects are ``inside`` (their rooms, transitively), and nothing inside a kept room
unless the goal names it: a VirtualHome home graph has 300-450 nodes, and Fast Downward's
translator grounds the skill set's derived predicates over every pair or more of them
(minutes to hours), where the reduced task has a few dozen."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from groundplan.pddl.formula import And, Exists, Forall, ForallEffect, Imply, Literal, Not, Or, When, atoms
from groundplan.pddl.model import Domain, Problem
from groundplan.planners.base import Planner, PlanResult, PlanStatus

LOCATING = ("on", "in", "liquid_in", "inhand", "at", "inside")
STRUCTURAL_TYPES = frozenset({"object", "carry", "support", "contain", "location", "actor", "liquid",
                              "liquid-contain", "consumable", "stack", "open", "close", "pour", "grasp"})


#: checks a plan against a problem: None when it executes and reaches the problem's goal,
#: else the reason in words (registered by the layer that executes plans, groundplan.sim)
PlanCheck = Callable[[Domain, Problem, Sequence[str]], Optional[str]]
_PLAN_CHECKS: list[PlanCheck] = []


def register_plan_check(check: PlanCheck) -> None:
    """The check a plan from a reduced task must pass in the full task (the last registered)."""
    if check not in _PLAN_CHECKS:
        _PLAN_CHECKS.append(check)


def registered_plan_check() -> Optional[PlanCheck]:
    return _PLAN_CHECKS[-1] if _PLAN_CHECKS else None


#: in a domain with region types, a goal's quantified type with more objects than this keeps
#: them but not what stands on or in each (the plan check guards the rest)
MANY = 3
#: with more locations than this, a household-style task is first planned with only the
#: locations it needs (``relevant_objects(all_locations=False)``), then with every location
MANY_LOCATIONS = 40


@dataclass(frozen=True)
class PruneReport:
    kept: int
    total: int
    widened: bool
    rejected: str | None = None  # why the reduced task's plan failed in the full task


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


def _effect_quantified_types(effects) -> set[str]:
    out: set[str] = set()
    for e in effects:
        if isinstance(e, ForallEffect):
            out |= {v.type for v in e.vars} | _effect_quantified_types(e.effects)
        elif isinstance(e, When):
            out |= quantified_types(e.condition) | _effect_quantified_types(e.effects)
    return out


def region_types(domain: Domain) -> set[str]:
    """Types the domain's conditions and effects quantify over other than the structural
    ones and ``object`` (VirtualHome: its rooms, ``knife_like``); every object of them is
    kept, since a condition over them (a node's room, "holding a knife") can need any."""
    found: set[str] = set()
    for act in domain.actions:
        found |= quantified_types(act.precondition) | _effect_quantified_types(act.effects)
        for cond, _ in act.checks:
            found |= quantified_types(cond)
    for d in domain.derived:
        found |= quantified_types(d.condition)
    return {t for t in found if t != "object" and t not in STRUCTURAL_TYPES
            and not domain.types.is_subtype(t, "actor") and not domain.types.is_subtype(t, "location")}


def existential_types(f, positive: bool = True) -> tuple[set[str], set[str]]:
    """(types only an ``exists`` in a positive place quantifies, every other quantified type)."""
    if isinstance(f, (Forall, Exists)):
        ex, other = existential_types(f.body, positive)
        mine = {v.type for v in f.vars}
        return (ex | mine, other) if isinstance(f, Exists) and positive else (ex, other | mine)
    if isinstance(f, (And, Or)):
        parts = [existential_types(a, positive) for a in f.args]
        return set().union(*(p[0] for p in parts)), set().union(*(p[1] for p in parts))
    if isinstance(f, Not):
        return existential_types(f.arg, not positive)
    if isinstance(f, Imply):
        a, b = existential_types(f.left, not positive), existential_types(f.right, positive)
        return a[0] | b[0], a[1] | b[1]
    return set(), set()


def relevant_objects(domain: Domain, problem: Problem, few: int | None = None,
                     all_locations: bool = True) -> set[str]:
    """``few``: of a type only a positive ``exists`` of the goal ranges over, keep the first
    ``few`` objects (by name) instead of all (a first, smaller try: VirtualHome's "a plate"
    has 8 candidates, each with its containers). ``all_locations=False``: of the locations,
    only those the closure reaches (where kept things and the agents are, the goal's own):
    a first, smaller try in a home with many (moving is between any two locations, so the
    others only matter as detours; the plan check and the wider stage guard the rest)."""
    goal = problem.goal
    keep: set[str] = {o for a in atoms(goal) for o in a.args if not o.startswith("?")} if goal else set()
    keep &= set(problem.objects) | set(domain.constants)
    many: set[str] = set()  # objects of a type the goal quantifies over that has many objects
    ex_only: set[str] = set()
    if goal is not None and few is not None:
        ex, other = existential_types(goal)
        ex_only = ex - other
    for t in quantified_types(goal) if goal else ():
        objs = set(problem.objects_of_type(domain, t))
        if t in ex_only and len(objs) > few:
            objs = set(sorted(objs)[:few])
        keep |= objs
        if len(objs) > MANY:
            many |= objs
    goal_objs = set(keep)
    # agents and locations, and every object of a type the domain quantifies over
    regions = region_types(domain)
    if not regions:  # the household-style domains: blockers on every goal object matter
        many = set()
    region_objs: set[str] = set()
    for o, t in problem.objects.items():
        if domain.types.is_subtype(t, "actor") or (all_locations and domain.types.is_subtype(t, "location")):
            keep.add(o)
        if any(domain.types.is_subtype(t, r) for r in regions):
            keep.add(o)
            region_objs.add(o)
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
                if y in region_objs or y in many:  # what is in a room, or on every floor a goal
                    continue                          # ranges over (VirtualHome: 30), is not kept
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
    """Wraps a planner; prunes objects when the problem has more than ``threshold``. A plan
    from the reduced task must pass ``check`` (default: the registered plan check) in the
    full task; if it does not, or the reduced task has no plan, the full task is planned."""

    def __init__(self, inner: Planner, threshold: int = 40, check: Optional[PlanCheck] = None):
        self.inner = inner
        self.threshold = threshold
        self.check = check
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
        if len(keep) >= len(problem.objects):
            self.last_report = PruneReport(len(problem.objects), len(problem.objects), False)
            return self.inner.plan(domain, problem, timeout=timeout)
        check = self.check or registered_plan_check()
        stages = [keep]
        n_locations = sum(1 for t in problem.objects.values() if domain.types.is_subtype(t, "location"))
        if n_locations > MANY_LOCATIONS and not region_types(domain):
            few_places = relevant_objects(domain, problem, all_locations=False)
            if len(few_places) < len(keep):
                stages.insert(0, few_places)
        if region_types(domain):  # VirtualHome-like: first a few of each "exists" goal type's objects
            first = relevant_objects(domain, problem, few=MANY)
            if len(first) < len(keep):
                stages.insert(0, first)
        for keep in stages:
            left = None if timeout is None else max(0.1, timeout - (time.perf_counter() - t0))
            res = self.inner.plan(domain, reduce_problem(problem, keep), timeout=left)
            rejected = None
            if res.status == PlanStatus.SOLVED:
                rejected = check(domain, problem, res.plan) if check is not None else None
            if res.status not in (PlanStatus.UNSOLVABLE, PlanStatus.INVALID) and rejected is None:
                break
        if res.status in (PlanStatus.UNSOLVABLE, PlanStatus.INVALID) or rejected is not None:
            self.last_report = PruneReport(len(problem.objects), len(problem.objects), True, rejected)
            remaining = None if timeout is None else max(0.1, timeout - (time.perf_counter() - t0))
            full = self.inner.plan(domain, problem, timeout=remaining)
            timings = {**full.timings, "pruned_to": float(len(keep)), "widened": 1.0}
            note = (f"the plan of the task reduced to {len(keep)} of {len(problem.objects)} objects failed in the "
                    f"full task ({rejected}); planned on the full task\n" if rejected else "")
            return PlanResult(full.status, full.plan, full.cost, time.perf_counter() - t0, note + full.log,
                              full.error, timings)
        self.last_report = PruneReport(len(keep), len(problem.objects), False)
        timings = dict(res.timings)
        timings["pruned_to"] = len(keep)
        return PlanResult(res.status, res.plan, res.cost, time.perf_counter() - t0, res.log, res.error, timings)
