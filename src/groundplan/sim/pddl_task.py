"""Planning on any PDDL domain and problem: read and check the two files, plan with a
registered planner under the configured limits, then validate the plan by executing it with
groundplan's executor on the problem (every precondition, in order, and the goal at the end).

The path ``groundplan plan --domain D --problem P`` and the Python API share::

    from groundplan.sim.pddl_task import plan_files
    out = plan_files("domain.pddl", "p01.pddl")          # FilePlanOutcome
    out.status, out.plan, out.valid, out.validation

``validate_plan`` checks any plan (a planner's, an LLM's) against a domain and problem and
says which step's which precondition failed."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from groundplan.errors import GroundplanError
from groundplan.pddl.model import Domain, Problem
from groundplan.pddl.parser import PDDLTask, load_task
from groundplan.pddl.state import evaluate_goal
from groundplan.planners.base import Planner, PlanResult, PlanStatus
from groundplan.sim.executor import Executor


@dataclass(frozen=True)
class PlanValidation:
    """A plan executed on a problem: valid = every step applicable and the goal holds at the end."""

    valid: bool
    executed: int
    planned: int
    goal_reached: bool
    cost: float
    failed_index: Optional[int] = None  # 0-based index of the first inapplicable step
    failed_step: Optional[str] = None
    reason: Optional[str] = None  # in words: the step, and which precondition failed
    unsatisfied: tuple[str, ...] = ()  # goal literals that do not hold at the end
    gcr: float = 0.0  # goal-condition recall on the state reached (after the last applicable step)

    def message(self) -> str:
        if self.valid:
            return f"valid: {self.planned} steps executed, goal reached, cost {self.cost:g}"
        if self.failed_index is not None:
            return f"step {self.failed_index + 1} ({self.failed_step}) is not applicable: {self.reason}"
        return (f"all {self.planned} steps execute but the goal does not hold: "
                f"{', '.join(self.unsatisfied[:5]) or 'goal false'}"
                + (f" (+{len(self.unsatisfied) - 5} more)" if len(self.unsatisfied) > 5 else ""))

    def to_json(self) -> dict:
        return {"valid": self.valid, "executed": self.executed, "planned": self.planned,
                "goal_reached": self.goal_reached, "cost": self.cost, "failed_step": self.failed_step,
                "failed_index": self.failed_index, "reason": self.reason, "unsatisfied": list(self.unsatisfied),
                "gcr": self.gcr, "message": self.message()}


def validate_plan(domain: Domain, problem: Problem, plan: Sequence[str]) -> PlanValidation:
    """Execute ``plan`` (steps ``"name arg ..."``) from the problem's initial state; stop at
    the first inapplicable step; evaluate the problem's goal on the final state."""
    ex = Executor(domain, problem)
    unit = not uses_action_costs(domain, problem)
    if problem.goal is None:
        return PlanValidation(False, 0, len(plan), False, 0.0, reason="the problem has no goal")
    for i, step in enumerate(plan):
        r = ex.apply(step)
        if not r.ok:
            rep = evaluate_goal(problem.goal, domain, problem, ex.facts)
            return PlanValidation(False, i, len(plan), False, float(i) if unit else ex.cost, i, r.step, r.reason,
                                  rep.unsatisfied, rep.gcr)
    cost = float(len(plan)) if unit else ex.cost
    rep = evaluate_goal(problem.goal, domain, problem, ex.facts)
    return PlanValidation(rep.success, len(plan), len(plan), rep.success, cost, unsatisfied=rep.unsatisfied,
                          gcr=rep.gcr)


def uses_action_costs(domain: Domain, problem: Problem) -> bool:
    """Action costs count only with a (total-cost) function and a metric (as in Fast
    Downward); otherwise every action costs 1."""
    return problem.metric is not None and any(f.name == "total-cost" for f in domain.functions)


@dataclass(frozen=True)
class FilePlanOutcome:
    status: str  # PlanStatus value: solved / unsolvable / timeout / invalid / error
    plan: tuple[str, ...] = ()
    cost: Optional[float] = None  # the planner's
    seconds: float = 0.0
    validation: Optional[PlanValidation] = None
    error: Optional[str] = None
    warnings: tuple[str, ...] = ()
    domain_file: Optional[str] = None
    problem_file: Optional[str] = None
    planner: str = ""
    timings: dict = field(default_factory=dict, compare=False)

    @property
    def valid(self) -> Optional[bool]:
        return None if self.validation is None else self.validation.valid

    def to_json(self) -> dict:
        v = self.validation
        return {"status": self.status, "plan": list(self.plan), "cost": self.cost, "seconds": round(self.seconds, 4),
                "goal_reached": None if v is None else v.goal_reached, "valid": self.valid,
                "validation": None if v is None else v.message(), "error": self.error,
                "warnings": list(self.warnings), "domain": self.domain_file, "problem": self.problem_file,
                "planner": self.planner,
                # seconds per stage (translate, h2, search, ...) and counts (h2_operators_removed)
                "timings": {k: round(float(v), 4) for k, v in self.timings.items()}}


def plan_task(task: PDDLTask, planner: Planner, *, timeout: Optional[float] = None) -> FilePlanOutcome:
    """Plan a checked task and validate the plan on it. A plan the executor rejects is an
    ``error`` naming the step and the precondition (never reported as solved)."""
    t0 = time.perf_counter()
    common = {"warnings": task.warnings, "domain_file": task.domain_file, "problem_file": task.problem_file,
              "planner": getattr(planner, "name", "")}
    res: PlanResult = planner.plan(task.domain, task.problem, timeout=timeout)
    if res.status != PlanStatus.SOLVED:
        return FilePlanOutcome(res.status.value, seconds=time.perf_counter() - t0, error=res.error,
                               timings=res.timings, **common)
    val = validate_plan(task.domain, task.problem, res.plan)
    status = PlanStatus.SOLVED.value if val.valid else PlanStatus.ERROR.value
    err = None if val.valid else f"the planner's plan does not validate: {val.message()}"
    return FilePlanOutcome(status, res.plan, res.cost, time.perf_counter() - t0, val, err, timings=res.timings,
                           **common)


def plan_files(domain_file: str | Path, problem_file: str | Path, *, planner: Planner | str | None = None,
               timeout: Optional[float] = None) -> FilePlanOutcome:
    """Read, check, plan and validate. Bad PDDL raises PDDLSyntaxError (``file:line: ...``);
    ``planner``: a Planner, a registered name, or None for Fast Downward under the configured
    limits (planner_timeout, planner_memory_mb)."""
    task = load_task(domain_file, problem_file)
    return plan_task(task, _planner(planner), timeout=timeout)


#: the searches a PDDL task gets, after h^2 pruning of the translated task
#: (``groundplan.planners.h2``): A* with FF for a quarter of the time bound (cheap plans on
#: small tasks), then Fast Downward's lama-first for the rest
FILE_SEARCH = "astar(ff())"
FILE_PRIMARY_SHARE = 0.25


def file_planner(name: str | None = None, timeout: Optional[float] = None) -> Planner:
    """The planner for a PDDL task: no goal-relevant pruning (that is for household scenes);
    Fast Downward under the configured limits (``timeout`` replaces planner_timeout):
    translate, prune by h^2 analysis, then A* with FF for a quarter of the bound, then
    lama-first; plain translate-then-search otherwise (no per-task translation cache)."""
    import dataclasses

    from groundplan.planners import PlannerLimits, get_planner
    from groundplan.planners.fast_downward import LAMA_FIRST

    name = name or "fast-downward"
    if name == "fast-downward":
        limits = PlannerLimits.configured()
        if timeout is not None:
            limits = dataclasses.replace(limits, timeout=timeout)
        # one goal per task: the per-task translation cache (anchored, every variable kept)
        # buys nothing and makes the search task larger; translate-then-search as the driver
        return get_planner(name, prune_above=None, limits=limits, search=FILE_SEARCH, fallback_search=LAMA_FIRST,
                           primary_share=FILE_PRIMARY_SHARE, translate_cache=False, h2=True)
    return get_planner(name, prune_above=None)


def _planner(planner: Planner | str | None) -> Planner:
    if planner is not None and not isinstance(planner, str):
        return planner
    return file_planner(planner)


__all__ = ["PlanValidation", "FilePlanOutcome", "validate_plan", "uses_action_costs", "plan_task", "plan_files", "file_planner", "FILE_SEARCH", "FILE_PRIMARY_SHARE", "GroundplanError"]
