"""What every method is: ``Method.run(task, ctx) -> Episode``, and a registry by name.

``Method.run`` is the method template, the same for every method: refusal (``supports``),
the frozen configuration (``configure``), what the run context must hold (an LLM, a
planner), the planning task (``build``), the recorder (trace and usage), then the method's
ONE hook ``_run(task, ctx, cfg, rec, pt) -> Attempt`` (its paper's algorithm), then the
shared steps: the goal check (``_check_goal``, the hook point for a safety check), planning
a goal the hook returned, execution and scoring (``execute_and_score``), the ``Episode``
(wall time, usage, trace, seed, model, prompt hash) and its verdict fields
(``core.verdict.with_checks``). A method implements ``_run`` and never overrides ``run``.

A method module registers itself with ``@register_method("name")``; ``get_method`` finds
every module in ``groundplan.methods`` on first use, so adding a method is adding a module.
The records a method works with (Task, RunContext, Episode, TraceRecorder, the shared
``execute_and_score`` step) live in ``groundplan.core`` and are re-exported here, so old
imports (``from groundplan.methods.base import Episode``) keep working.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import pkgutil
import time
from dataclasses import replace
from importlib import resources
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping, Optional, Sequence

from groundplan.core.attempt import Attempt, EpisodeRecorder
from groundplan.core.config import config_from
from groundplan.core.episode import (
    EMPTY_USAGE,
    EVENT_TYPES,
    RETRYABLE,
    Episode,
    EpisodeStatus,
    ExecutionScore,
    RunContext,
    TraceRecorder,
    canonical_hash,
    execute_and_score,
    failed_episode,
    new_meter,
    trace_listener,
)
from groundplan.core.task import Task
from groundplan.core.verdict import with_checks
from groundplan.errors import ConfigError, GroundplanError, did_you_mean
from groundplan.methods._safety import current as current_safety
from groundplan.methods._safety import guarded
from groundplan.sim.pipeline import PlanOutcome, build, plan_and_check

if TYPE_CHECKING:  # pragma: no cover - annotations only
    from groundplan.planners.base import Planner
    from groundplan.skills.builder import PlanningTask

#: how a planner's outcome ends an episode that has no plan
PLANNER_STATUS = {
    "unsolvable": EpisodeStatus.UNSOLVABLE,
    "timeout": EpisodeStatus.TIMEOUT,
    "invalid": EpisodeStatus.INVALID,
    "error": EpisodeStatus.ERROR,
}
_PROMPT_HASHES: dict[str, str] = {}


def _is_file(skillset: Optional[str]) -> bool:
    return bool(skillset) and (str(skillset).endswith((".yaml", ".yml")) or os.sep in str(skillset))


class MethodRefused(ConfigError):
    """A method cannot run on a task (its ``supports`` said why): refused before anything runs."""


class Method:
    """One published algorithm. Subclasses set ``name`` through ``@register_method`` and
    implement the hook ``_run`` (see :meth:`run`). Instances are created once per worker and
    must not keep per-episode state between calls."""

    name: ClassVar[str] = ""
    #: whether the method needs ``ctx.llm`` (``needs_llm_for``: per configuration)
    needs_llm: ClassVar[bool] = True
    #: whether the method needs ``ctx.planner``
    needs_planner: ClassVar[bool] = False
    description: ClassVar[str] = ""
    #: package holding this method's prompt templates (default ``groundplan.prompts.<name>``)
    prompt_package: ClassVar[Optional[str]] = None
    #: what the method can run on (``supports``): the skill sets (None: any), whether it needs
    #: a check goal (a dataset's gold goal or the user's ``--check``), the ``Task.extras`` keys
    #: it reads, and why (one phrase, said in the refusal)
    skillsets: ClassVar[Optional[frozenset[str]]] = None
    needs_goal: ClassVar[bool] = False
    needs_extras: ClassVar[tuple[str, ...]] = ()
    requirement: ClassVar[str] = ""
    #: the method's settings, a frozen dataclass (None: it takes none); ``configure`` builds it
    config_class: ClassVar[Optional[type]] = None
    #: this variant's defaults (an instance of ``config_class``; None: the class's own defaults)
    default_config: ClassVar[Any] = None
    #: whether ``run`` builds the task's PlanningTask (scene + skill set -> domain + problem)
    #: for the hook (its ``pt`` argument; else None); ``build`` says how
    builds_task: ClassVar[bool] = False
    #: trace event types of this method besides ``core.episode.EVENT_TYPES``
    trace_types: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def configure(cls, config: Optional[Mapping[str, Any]]) -> Any:
        """The method's frozen configuration from a run's settings (``RunContext.config``).
        An unknown key or a bad value is a ``ConfigError`` naming it (exit 2); the bench runner
        calls this before any episode runs."""
        if cls.config_class is None:
            if config:
                raise ConfigError(f"{cls.name}: takes no settings (got '{next(iter(config))}')")
            return None
        return config_from(cls.config_class, config, owner=cls.name, base=cls.default_config)

    @classmethod
    def supports(cls, task: "Task") -> Optional[str]:
        """None when the method can run on ``task``, else the reason it cannot (one line).
        Asked before anything runs (``groundplan run``, ``bench run``); cheap: it reads only the
        task's fields."""
        why = f" ({cls.requirement})" if cls.requirement else ""
        if cls.skillsets is not None and task.skillset not in cls.skillsets:
            return (f"method '{cls.name}' runs on the {' / '.join(sorted(cls.skillsets))} skill set"
                    f"{'s' if len(cls.skillsets) > 1 else ''}, not '{task.skillset}'{why}")
        if cls.needs_goal and not task.goal:
            return f"method '{cls.name}' needs a check goal (a dataset's gold goal, or --check GOAL){why}"
        missing = [k for k in cls.needs_extras if k not in (task.extras or {})]
        if missing:
            return (f"method '{cls.name}' needs the task field extras['{missing[0]}'], which "
                    f"{task.dataset or 'this task'} does not provide{why}")
        return None

    def refused(self, task: "Task", ctx: RunContext) -> Optional[Episode]:
        """The ``unsupported`` episode when :meth:`supports` refuses ``task`` (for a method
        called directly, past the runner's own check), else None. A skill set given as a
        file (the web console's upload) is the caller's own: its name is not compared with
        ``skillsets`` here (the runner, ``groundplan run`` and the Python API ask ``supports``
        before they call ``run``)."""
        if self.skillsets and task.skillset not in self.skillsets and _is_file(task.skillset):
            task = replace(task, skillset=sorted(self.skillsets)[0])
        why = self.supports(task)
        return None if why is None else failed_episode(task, self.name, EpisodeStatus.UNSUPPORTED, why,
                                                       seed=ctx.seed)

    def needs_llm_for(self, cfg: Any) -> bool:
        """Whether an episode with configuration ``cfg`` calls the LLM (default ``needs_llm``)."""
        return self.needs_llm

    # ------------------------------------------------------------------ the template

    def run(self, task: "Task", ctx: RunContext) -> Episode:
        """One episode, the same steps for every method (do not override; implement ``_run``):

        1. refusal: ``supports`` (an ``unsupported`` episode);
        2. ``configure``: the frozen configuration (a bad setting is an ``error`` episode; the
           bench runner refuses it before any episode runs);
        3. the run context: an LLM (``needs_llm_for``) and a planner (``needs_planner``), else
           an ``error`` episode;
        4. ``build``: the PlanningTask, when the method wants one (``builds_task``);
        5. the recorder: trace and usage meter (``EpisodeRecorder``);
        6. the hook ``_run(task, ctx, cfg, rec, pt) -> Attempt``: the paper's algorithm;
        7. ``_check_goal`` on the hook's goal (the hook point for a safety check), planning a
           goal the hook returned without a plan (``plan_goal``), ``_check_plan``, then
           execution and scoring on the check goal (``execute_and_score``), unless the hook
           judged the outcome itself;
        8. the ``Episode``: wall time, usage, trace, seed, metrics ``model`` (the context's
           LLM) and ``prompt_hash``; a ``GroundplanError`` anywhere in 2-7 is an ``error``
           episode with the trace so far;
        9. verdict fields (``checked``, ``own_goal_held``: ``core.verdict.with_checks``).
        """
        t0 = time.perf_counter()
        refused = self.refused(task, ctx)
        if refused is not None:
            return refused
        rec = EpisodeRecorder(extra_types=self.trace_types)
        pt = None
        with guarded(task, rec, ctx.allow_unsafe) as safety:
            try:
                cfg = self.configure(ctx.config)
                missing = self._missing(ctx, cfg)
                if missing is not None:
                    return failed_episode(task, self.name, EpisodeStatus.ERROR, missing, seed=ctx.seed)
                pt = self.build(task, cfg)
                attempt = self._run(task, ctx, cfg, rec, pt)
                ep = self._conclude(task, ctx, attempt, rec, pt)
            except GroundplanError as exc:
                ep = failed_episode(task, self.name, EpisodeStatus.ERROR, str(exc), seed=ctx.seed)
        if safety is not None and safety.refused:
            ep = _after_refusals(ep, safety.refused, safety.step_refused)
        metrics = dict(ep.metrics)
        model = getattr(ctx.llm, "model", None) if ctx.llm is not None else None
        if model:
            metrics.setdefault("model", model)
        metrics.setdefault("prompt_hash", self._prompt_hash())
        ep = replace(ep, metrics=metrics, usage=rec.usage.summary(), wall_time=time.perf_counter() - t0,
                     trace=rec.freeze(), seed=ctx.seed)
        return with_checks(ep, task, pt)

    def _missing(self, ctx: RunContext, cfg: Any) -> Optional[str]:
        if self.needs_llm_for(cfg) and ctx.llm is None:
            return "no LLM in the run context (--llm)"
        if self.needs_planner and ctx.planner is None:
            return "no planner in the run context"
        return None

    def build(self, task: "Task", cfg: Any) -> Optional["PlanningTask"]:
        """The hook's planning task: scene + skill set (+ the task's map) -> domain + problem,
        when ``builds_task``; else None. Override to build it otherwise (another map)."""
        if not self.builds_task:
            return None
        return build(task.scene_file, skillset=task.skillset, oam_file=task.oam_file, strict=False)

    def _run(self, task: "Task", ctx: RunContext, cfg: Any, rec: EpisodeRecorder,
             pt: Optional["PlanningTask"]) -> Attempt:
        """The method's algorithm: ``cfg`` is its frozen configuration, ``rec`` the recorder
        (``rec.event``, ``rec.llm_call``; ``usage=rec.usage`` on every LLM call), ``pt`` the
        planning task (``builds_task``) or None. Returns the goal and/or plan, or the outcome it
        judged itself (``Attempt``); raise a ``GroundplanError`` for an error episode."""
        raise NotImplementedError(f"method '{self.name}' implements no _run hook")

    # ------------------------------------------------------------------ checks (hook points)

    def _check_goal(self, goal: str, pt: Optional["PlanningTask"]) -> Optional[str]:
        """THE hook point for a check of a method's goal before it is planned or executed
        (a safety check joins here): None lets it through, a reason (one line) ends the
        episode as ``unsafe`` with that reason (a goal a method plans itself through
        ``plan_goal`` is the planner outcome ``invalid``: the method tries its next goal). ``run`` calls it on the hook's goal, and
        ``plan_goal`` on every goal a method plans itself. Default: the safety check
        (``core/safety.py``: no hazard handed to a person to meet a need, none to a child),
        off with ``RunContext.allow_unsafe``."""
        safety = current_safety()
        return safety.goal(goal, pt) if safety is not None else None

    def _check_plan(self, plan: Sequence[str], pt: Optional["PlanningTask"]) -> Optional[str]:
        """The hook point for a check of a plan's steps before the base executes them (as
        ``_check_goal``). Methods that execute step by step themselves call it on each
        step (``[step]``). Default: no check."""
        return None

    def plan_goal(self, goal: str, pt: "PlanningTask", ctx: RunContext, rec: Optional[EpisodeRecorder] = None, *,
                  planner: Optional["Planner"] = None, typecheck: bool = False, check: bool = True) -> PlanOutcome:
        """Plan ``goal`` in ``pt`` with the run's planner (or ``planner``), after
        ``_check_goal`` (``check``); records a ``plan`` event. A refused goal is the outcome
        ``invalid``."""
        why = self._check_goal(goal, pt) if check else None
        if why is not None:
            out = PlanOutcome("invalid", error=f"goal check: {why}")
        else:
            out = plan_and_check(pt, goal, planner or ctx.planner, typecheck=typecheck, timeout=ctx.planner_timeout)
        if rec is not None:
            rec.event("plan", status=out.status, steps=out.plan, cost=out.cost, seconds=round(out.seconds, 4),
                      error=out.error)
        return out

    def _conclude(self, task: "Task", ctx: RunContext, a: Attempt, rec: EpisodeRecorder,
                  pt: Optional["PlanningTask"]) -> Episode:
        """The hook's ``Attempt`` as an episode: plan and execute what is left, score it."""
        if a.final:
            return Episode(task.id, self.name, str(a.status), a.success, goal=a.goal, plan=tuple(a.plan or ()),
                           metrics=dict(a.metrics), error=a.error, seed=ctx.seed)
        if pt is None:
            raise GroundplanError(f"method '{self.name}': a plan to execute needs the planning task (builds_task)")
        goal, plan = a.goal, a.plan
        why = self._check_goal(goal, pt) if goal else None
        if why is None and plan is None:
            if not goal:
                return Episode(task.id, self.name, EpisodeStatus.NO_PLAN.value, False, metrics=dict(a.metrics),
                               error=a.error or "no goal", seed=ctx.seed)
            out = self.plan_goal(goal, pt, ctx, rec, check=False)  # checked above
            if out.status != "solved":
                status = PLANNER_STATUS.get(out.status, EpisodeStatus.ERROR)
                return Episode(task.id, self.name, status.value, False, goal=goal, metrics=dict(a.metrics),
                               error=out.error, seed=ctx.seed)
            plan = out.plan
        if why is None:
            why = self._check_plan(plan or (), pt)
        if why is not None:
            rec.event("check", against="method checks", success=False, reason=why)
            return Episode(task.id, self.name, EpisodeStatus.UNSAFE.value, False, goal=goal,
                           metrics=dict(a.metrics), error=why, seed=ctx.seed)
        score = execute_and_score(pt, plan, task, rec, stop_on_failure=a.stop_on_failure, own_goal=goal)
        ok = bool(score.success)
        rec.event("result", **{"success": ok, "cost": score.cost, **a.result})
        return Episode(task.id, self.name, (EpisodeStatus.SUCCESS if ok else EpisodeStatus.FAILURE).value, ok,
                       goal=goal, plan=tuple(plan), metrics={**score.metrics(), **a.metrics},
                       error=None if ok else (a.error or score.failure or "goal not reached"), seed=ctx.seed)

    def _prompt_hash(self) -> str:
        key = f"{type(self).__module__}.{type(self).__qualname__}"
        if key not in _PROMPT_HASHES:
            _PROMPT_HASHES[key] = self.prompt_hash()
        return _PROMPT_HASHES[key]

    def prompt_hash(self) -> str:
        """sha256 (12 hex) over the method's prompt templates: results record it, so a run
        made with other prompts is never mixed with this one. Empty if it has none."""
        pkg = self.prompt_package or f"groundplan.prompts.{self.name}"
        try:
            root = resources.files(pkg)
        except (ModuleNotFoundError, TypeError):
            return ""
        h = hashlib.sha256()
        files = sorted((p for p in root.iterdir() if p.is_file() and not p.name.endswith((".py", ".pyc", ".md"))),
                       key=lambda p: p.name)
        if not files:
            return ""
        for p in files:
            h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
        return h.hexdigest()[:12]


def _after_refusals(ep: Episode, refused: Sequence[str], step_refused: bool) -> Episode:
    """An episode the safety check refused something in: ``unsafe`` with the first reason
    when a step was refused or the episode ended without a plan, unless it still succeeded
    (a safe way found after the refusal); the refusals in its metrics either way."""
    metrics = {**ep.metrics, "unsafe_refused": list(refused)}
    if ep.success or ep.status in (EpisodeStatus.UNSAFE.value, EpisodeStatus.ERROR.value, EpisodeStatus.CRASH.value) \
            or (ep.plan and not step_refused):
        return replace(ep, metrics=metrics)
    return replace(ep, status=EpisodeStatus.UNSAFE.value, success=False, error=refused[0], metrics=metrics)


_REGISTRY: dict[str, type[Method]] = {}
_IMPORT_ERRORS: dict[str, str] = {}


def register_method(name: str) -> Callable[[type[Method]], type[Method]]:
    def deco(cls: type[Method]) -> type[Method]:
        if name in _REGISTRY and _REGISTRY[name] is not cls:
            raise ConfigError(f"method '{name}' registered twice ({_REGISTRY[name].__module__}, {cls.__module__})")
        cls.name = name
        _REGISTRY[name] = cls
        return cls
    return deco


def _discover() -> None:
    import groundplan.methods as pkg

    for info in pkgutil.iter_modules(pkg.__path__):
        mod = f"{pkg.__name__}.{info.name}"
        if info.name.startswith("_") or info.name == "base" or mod in _IMPORT_ERRORS:
            continue
        try:
            importlib.import_module(mod)
        except Exception as exc:  # noqa: BLE001 - one broken method must not hide the others
            _IMPORT_ERRORS[mod] = f"{type(exc).__name__}: {exc}"


def method_class(name: str) -> type[Method]:
    _discover()
    if name not in _REGISTRY:
        hint = ""
        broken = [m for m in _IMPORT_ERRORS if m.rsplit(".", 1)[-1] == name]
        if broken:
            hint = f"; module {broken[0]} failed to import: {_IMPORT_ERRORS[broken[0]]}"
        raise ConfigError(f"unknown method '{name}'{did_you_mean(name, _REGISTRY)} "
                          f"(available: {', '.join(sorted(_REGISTRY)) or 'none'}){hint}")
    return _REGISTRY[name]


def get_method(name: str) -> Method:
    return method_class(name)()


def check_supported(name: str, tasks: "Sequence[Task]", where: str = "") -> None:
    """Raise ``MethodRefused`` (exit 2) when method ``name`` cannot run on some of ``tasks``,
    naming how many, the first such task and the method's reason; before anything runs."""
    cls = method_class(name)
    refused = [(t, r) for t in tasks if (r := cls.supports(t)) is not None]
    if not refused:
        return
    t, reason = refused[0]
    n = len(tasks)
    scope = f" on {where}" if where else ""
    count = f"all {n} tasks" if len(refused) == n else f"{len(refused)} of {n} tasks, e.g. {t.id}"
    raise MethodRefused(f"refused{scope} ({count}): {reason}")


def available_methods() -> list[str]:
    _discover()
    return sorted(_REGISTRY)


__all__ = [
    "EpisodeStatus", "RETRYABLE", "EVENT_TYPES", "EMPTY_USAGE", "TraceRecorder", "trace_listener", "RunContext", "Episode",
    "failed_episode", "Method", "MethodRefused", "check_supported", "register_method", "get_method", "method_class",
    "available_methods",
    "ExecutionScore", "execute_and_score", "canonical_hash", "new_meter", "Attempt", "EpisodeRecorder",
    "PLANNER_STATUS",
]
