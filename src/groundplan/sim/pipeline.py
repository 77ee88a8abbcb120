"""Scene + goal -> plan -> execution -> verdict: the path `groundplan plan` and the oracle
method share."""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator, Optional

from groundplan.errors import GoalError, GroundplanError
from groundplan.knowledge.oam import OAM, default_oam, load_oam
from groundplan.pddl.goal import check_goal, parse_goal
from groundplan.pddl.semantics import check_semantics
from groundplan.pddl.state import evaluate_goal
from groundplan.planners.base import Planner, PlanResult, PlanStatus
from groundplan.sim.executor import ExecutionTrace, execute_plan
from groundplan.skills.builder import PlanningTask, build_task
from groundplan.skills.skillset import load_skillset
from groundplan.world import load_scene


@dataclass(frozen=True)
class PlanOutcome:
    status: str  # solved / unsolvable / timeout / invalid / error
    plan: tuple[str, ...] = ()
    cost: Optional[float] = None
    seconds: float = 0.0
    goal_reached: Optional[bool] = None  # the executed plan's final state satisfies the goal
    check: Optional[bool] = None  # ... satisfies the --check goal
    check_gcr: Optional[float] = None
    executed_cost: Optional[float] = None
    error: Optional[str] = None
    warnings: tuple[str, ...] = ()
    timings: dict = field(default_factory=dict, compare=False)
    #: the task's classes with inferred affordances (PlanningTask.inferred)
    inferred: dict = field(default_factory=dict, compare=False)

    def to_json(self) -> dict:
        d = {"status": self.status, "plan": list(self.plan), "cost": self.cost, "seconds": round(self.seconds, 4),
             "goal_reached": self.goal_reached, "check": self.check, "error": self.error}
        if self.inferred:  # only when some class was inferred: the old keys are unchanged
            d["inferred"] = {c: list(a) for c, a in self.inferred.items()}
        return d


@lru_cache(maxsize=32)
def _oam(path: Optional[str]) -> OAM:
    """One OAM file, or several joined by os.pathsep (later files override earlier ones),
    replacing the default map (None: the default map). See ``resolve_oam`` for extending."""
    if path is None:
        return default_oam()
    import os

    parts = [p for p in path.split(os.pathsep) if p]
    oam = load_oam(parts[0])
    for extra in parts[1:]:
        oam = oam.merged(load_oam(extra))
    return oam


#: how every ``build`` / ``resolve_oam`` of one run (in this thread / context) treats the map
#: when its caller does not say: (infer, oam_replace); ``groundplan run --infer --oam-replace``
_BUILD_DEFAULTS: contextvars.ContextVar[tuple[Any, bool]] = contextvars.ContextVar(
    "groundplan_build_defaults", default=("default", False))


@contextlib.contextmanager
def build_defaults(*, infer: Any = "default", oam_replace: bool = False) -> Iterator[None]:
    """Inside this block, ``build`` infers affordances with ``infer`` and ``resolve_oam``
    replaces the default map with the ``--oam`` files (``oam_replace``) unless the caller
    passes its own: a method builds its task as the user asked without knowing the options."""
    token = _BUILD_DEFAULTS.set((infer, oam_replace))
    try:
        yield
    finally:
        _BUILD_DEFAULTS.reset(token)


def resolve_oam(path: Optional[str], *, replace: Optional[bool] = None) -> OAM:
    """The map a run uses: the default map extended by the ``--oam`` file(s) (os.pathsep-joined,
    a class in a file overrides the default's entry for it), or the files alone with
    ``replace`` (None: as ``build_defaults`` says, else False)."""
    if replace is None:
        replace = _BUILD_DEFAULTS.get()[1]
    if path is None or replace:
        return _oam(path)
    return _extended(path)


@lru_cache(maxsize=32)
def _extended(path: str) -> OAM:
    m = default_oam().merged(_oam(path))
    return OAM(m.mapping, f"{default_oam().name}+{_oam(path).name}", _oam(path).source)


def build(scene_file: str | Path, *, skillset: str = "household", oam_file: Optional[str] = None,
          strict: bool = True, infer: Any = None, oam_replace: Optional[bool] = None) -> PlanningTask:
    """Scene file + skill set + map -> planning task. ``oam_file`` extends the default map
    (``oam_replace``: replaces it); a class the map lacks gets inferred affordances
    (``infer``: ``default`` | ``embedding`` | ``lexical`` | ``off`` or an inferrer of
    knowledge/infer.py, e.g. ``LLMInferrer`` with the run's LLM), listed in ``task.inferred``.
    ``infer`` / ``oam_replace`` None: as ``build_defaults`` says (default: ``default`` / False)."""
    if infer is None:
        infer = _BUILD_DEFAULTS.get()[0]
    scene = load_scene(scene_file, strict=strict)
    return build_task(load_skillset(skillset), scene, resolve_oam(oam_file, replace=oam_replace), strict=strict,
                      infer=infer)


def note_inferred(task: PlanningTask, recorder: Any) -> None:
    """Record the task's inferred affordances as a trace event (``note``, what
    ``inferred_affordances``) in an episode's ``TraceRecorder``, when there are any."""
    if task.inferred:
        recorder.event("note", what="inferred_affordances",
                       inferred={c: list(a) for c, a in task.inferred.items()})


def _affordance_hint(task: PlanningTask, exc: GoalError) -> str:
    """For a goal argument of the wrong type in an affordance-typed domain: where the object's
    class got its affordances (map or inference) and how to give it more; in a domain typed by
    declared types, how to give the object's class the type needed."""
    from groundplan.errors import GoalErrorKind

    obj = task.scene.object(exc.obj) if exc.kind == GoalErrorKind.WRONG_TYPE and exc.obj else None
    if obj is None:
        return ""
    import re

    m = re.search(r"must be an? ([\w-]+)", str(exc))
    if not task.skillset.affordance_types:
        if obj.cls in task.skillset.types or not m:
            return ""
        need = m.group(1)
        return (f" ({obj.cls} is no type of skill set '{task.skillset.name}': give {obj.name} `class: {need}` "
                f"in the scene's objects, or declare `{obj.cls}: [{need}]` under the skill set's types)")
    affs = [t for t in sorted(task.domain.types.supertypes(obj.cls)) if t in _affordance_set()]
    need = f"'{m.group(1)}'" if m else "the affordance"
    if obj.cls in task.inferred:
        has = f"{obj.cls} was inferred to have [{', '.join(affs)}]"
    elif affs:
        has = f"the map gives {obj.cls} [{', '.join(affs)}]"
    else:
        has = f"{obj.cls} is in no object-affordance map"
    return f" ({has}; give {obj.cls} {need} in an --oam file, which extends the default map)"


@lru_cache(maxsize=1)
def _affordance_set() -> frozenset[str]:
    from groundplan.knowledge.affordances import affordance_names

    return frozenset(affordance_names())


def plan_and_check(task: PlanningTask, goal_text: str, planner: Planner, *, check_text: Optional[str] = None,
                   timeout: Optional[float] = None, semantic: bool = False, typecheck: bool = True) -> PlanOutcome:
    out = _plan_and_check(task, goal_text, planner, check_text=check_text, timeout=timeout, semantic=semantic,
                          typecheck=typecheck)
    if task.inferred:
        from dataclasses import replace

        out = replace(out, inferred=dict(task.inferred))
    return out


def _plan_and_check(task: PlanningTask, goal_text: str, planner: Planner, *, check_text: Optional[str] = None,
                    timeout: Optional[float] = None, semantic: bool = False, typecheck: bool = True) -> PlanOutcome:
    import time

    t0 = time.perf_counter()
    try:
        goal = parse_goal(goal_text)
        check_goal(goal, task.domain, task.problem, typecheck=typecheck)
        if semantic:
            check_semantics(goal, task.domain, task.problem, task.skillset.semantic_conditions)
        check_f = None
        if check_text is not None:
            check_f = parse_goal(check_text)
            check_goal(check_f, task.domain, task.problem, typecheck=typecheck)
    except GoalError as exc:
        return PlanOutcome("invalid", seconds=time.perf_counter() - t0, error=str(exc) + _affordance_hint(task, exc),
                           warnings=task.warnings)
    res: PlanResult = planner.plan(task.domain, task.problem.with_goal(goal), timeout=timeout)
    if res.status != PlanStatus.SOLVED:
        chk = None
        if check_f is not None and res.status == PlanStatus.UNSOLVABLE:
            chk = False
        return PlanOutcome(res.status.value, seconds=time.perf_counter() - t0, error=res.error, check=chk,
                           warnings=task.warnings, timings=res.timings)
    trace: ExecutionTrace = execute_plan(task.domain, task.problem, res.plan)
    if trace.failed is not None:
        return PlanOutcome("error", res.plan, res.cost, time.perf_counter() - t0,
                           error=f"plan does not execute: {trace.failed.reason}", warnings=task.warnings)
    reached = evaluate_goal(goal, task.domain, task.problem, trace.final_facts).success
    chk = gcr = None
    if check_f is not None:
        rep = evaluate_goal(check_f, task.domain, task.problem, trace.final_facts)
        chk, gcr = rep.success, rep.gcr
    return PlanOutcome("solved", res.plan, trace.cost, time.perf_counter() - t0, reached, chk, gcr, trace.cost,
                       warnings=task.warnings, timings=res.timings)


__all__ = ["build_defaults", "PlanOutcome", "build", "resolve_oam", "note_inferred", "plan_and_check", "GroundplanError"]
