"""The episode record and what builds it: how an episode ended (``EpisodeStatus``), its trace
(``TraceRecorder``, live ``trace_listener``), what a method gets besides the task
(``RunContext``), the ``Episode`` itself, and the shared step most methods end with
(``execute_and_score``: execute a plan step by step into the trace, score the final state
against the task's gold goal).

Below ``methods`` and ``bench``: methods produce these records, the bench runner stores and
reports them. ``groundplan.methods.base`` re-exports every name for old imports.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import time
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Optional, Sequence

from groundplan.core.metrics import exec_rate, step_metrics
from groundplan.core.task import Task
from groundplan.core.verdict import record_fields
from groundplan.limits import Limits
from groundplan.limits import current as current_limits
from groundplan.limits import use as use_limits
from groundplan.llm.types import UsageMeter, UsageSummary
from groundplan.pddl.goal import parse_goal
from groundplan.pddl.state import evaluate_goal
from groundplan.sim.executor import Executor

if TYPE_CHECKING:  # pragma: no cover - annotations only (importing the LLM package is slow)
    from groundplan.llm import LLM
    from groundplan.planners.base import Planner
    from groundplan.skills.builder import PlanningTask


class EpisodeStatus(str, Enum):
    """How an episode ended. ``success`` is separate (a bool); these say why."""

    SUCCESS = "success"  # the final state satisfies the task's goal
    #: no check goal, and the method's own goal holds on the final state (set by ``settle_episode``)
    UNVERIFIED = "unverified"
    FAILURE = "failure"  # a plan was produced (and executed) but the goal does not hold
    UNSOLVABLE = "unsolvable"  # the planner proved the (generated) goal unreachable
    TIMEOUT = "timeout"
    NO_PLAN = "no_plan"  # the method gave up without a plan (e.g. no valid goal after K corrections)
    INVALID = "invalid"  # the dataset row is malformed: counted as a failure, listed in reports
    UNSUPPORTED = "unsupported"  # the task lacks what the method needs (e.g. no gold goal)
    ERROR = "error"  # a groundplan error (LLM unreachable, planner failed, bad scene)
    CRASH = "crash"  # an unexpected exception in the method or the worker process
    #: the method answered that the scene cannot meet the request (a thing it lacks, a need
    #: nothing meets); ``error`` holds the reason with the nearest alternative
    ABSTAINED = "abstained"
    #: the safety check refused the method's goal or a step before planning or execution
    UNSAFE = "unsafe"


#: statuses that a re-run re-attempts only when asked (``--retry-errors``)
RETRYABLE = frozenset({EpisodeStatus.ERROR.value, EpisodeStatus.CRASH.value})

#: kinds of trace events; methods may add their own through ``TraceRecorder(extra_types=...)``
EVENT_TYPES = frozenset({
    "llm_call", "tool_call", "goal", "check", "plan", "step", "replan", "feedback", "explore", "situation",
    "result", "note",
})

EMPTY_USAGE = UsageSummary(0, 0, 0, 0, 0, 0, 0.0)


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, float):
        return value if value == value else None  # NaN -> null
    if value is None or isinstance(value, (str, int, bool)):
        return value
    if hasattr(value, "to_dict"):
        return _jsonable(value.to_dict())
    return str(value)


#: who is told of each trace event as it is recorded (the web console's live view); set for
#: one thread's run with ``trace_listener``, never a module-wide setting
_TRACE_LISTENER: contextvars.ContextVar[Optional[Callable[[dict[str, Any]], None]]] = contextvars.ContextVar(
    "groundplan_trace_listener", default=None)


@contextlib.contextmanager
def trace_listener(callback: Callable[[dict[str, Any]], None]) -> Iterator[None]:
    """Every ``TraceRecorder`` created inside this block (in this thread / context) calls
    ``callback(event)`` the moment an event is recorded: a method's episode can be watched
    live without changing the method."""
    token = _TRACE_LISTENER.set(callback)
    try:
        yield
    finally:
        _TRACE_LISTENER.reset(token)


class TraceRecorder:
    """Collects an episode's events in order. Each event is a JSON-able dict with ``type``
    and ``t`` (seconds since the episode started)."""

    def __init__(self, *, extra_types: Sequence[str] = (), clock: Callable[[], float] = time.perf_counter):
        self._clock = clock
        self._t0 = clock()
        self._types = EVENT_TYPES | frozenset(extra_types)
        self.events: list[dict[str, Any]] = []
        self._listener = _TRACE_LISTENER.get()

    def event(self, type: str, **data: Any) -> dict[str, Any]:  # noqa: A002 - the field is called type
        if type not in self._types:
            raise ValueError(f"unknown trace event type '{type}' (known: {', '.join(sorted(self._types))})")
        ev = {"type": type, "t": round(self._clock() - self._t0, 4), **_jsonable(data)}
        self.events.append(ev)
        if self._listener is not None:
            self._listener(ev)
        return ev

    def llm_call(self, purpose: str, prompt: Any, completion: Any) -> dict[str, Any]:
        """Record one LLM exchange (prompt messages or text; a Completion or ScoreResult)."""
        data: dict[str, Any] = {"purpose": purpose, "prompt": prompt}
        if hasattr(completion, "text"):
            data["text"] = completion.text
            data["finish_reason"] = getattr(completion, "finish_reason", None)
        elif hasattr(completion, "logprobs"):
            data["continuations"] = list(completion.continuations)
            data["logprobs"] = list(completion.logprobs)
        else:
            data["text"] = completion
        usage = getattr(completion, "usage", None)
        if usage is not None:
            data["usage"] = usage.to_dict()
        return self.event("llm_call", **data)

    @property
    def elapsed(self) -> float:
        return self._clock() - self._t0

    def freeze(self) -> tuple[dict[str, Any], ...]:
        return tuple(self.events)


@dataclass(frozen=True)
class RunContext:
    """What a method gets besides the task. Built once per worker process and reused for
    every episode it runs (the LLM and planner are expensive to create)."""

    llm: Optional["LLM"] = None
    planner: Optional["Planner"] = None
    seed: int = 0
    config: Mapping[str, Any] = field(default_factory=dict)
    planner_timeout: Optional[float] = None
    #: the resource bounds of this run (episode steps, plan steps, program lines, ...): they
    #: travel with the context, so runs on threads (the web console) never swap a global;
    #: default: the process's bounds when the context is built (``groundplan.limits.current``)
    limits: Limits = field(default_factory=current_limits)
    #: skip the safety check (``core/safety.py``) of goals and executed steps, for
    #: experiments (``--allow-unsafe``); the check is on by default for every method
    allow_unsafe: bool = False

    def with_seed(self, seed: int) -> "RunContext":
        return replace(self, seed=seed)


def run_method(method: Any, task: "Task", ctx: RunContext) -> "Episode":
    """``method.run(task, ctx)`` with the run's bounds (``ctx.limits``) in force for
    everything it calls (goal parsing, answer schemas, planners), in this thread only: how the
    runner, the Python API and the web console start an episode."""
    with use_limits(ctx.limits):
        return method.run(task, ctx)


@dataclass(frozen=True)
class Episode:
    """One episode. A method fills ``status``, ``success`` and ``error`` as it sees them
    (``error``: its reason for any outcome short of success); ``to_json`` and
    ``settle_episode`` derive the record's fields from the one verdict
    (``groundplan.core.verdict.record_fields``, docs/formats.md "Episode record")."""

    task_id: str
    method: str
    status: str
    success: bool
    goal: Optional[str] = None
    plan: tuple[str, ...] = ()
    #: what the method measured: cost, gcr, executed/planned steps, tool_calls, situation_met, objects_used, ...
    metrics: Mapping[str, Any] = field(default_factory=dict)
    usage: UsageSummary = EMPTY_USAGE
    wall_time: float = 0.0
    trace: tuple[Mapping[str, Any], ...] = ()
    error: Optional[str] = None
    seed: int = 0
    #: why the episode is not a success (a failed step, the planner's answer); set by
    #: ``settle_episode``, which keeps ``error`` for a run that broke
    reason: Optional[str] = None

    def record(self) -> dict[str, Any]:
        """``status``, ``success``, ``error``, ``reason``, ``verdict`` and ``verdict_kind``,
        derived from the verdict (the same for a settled and an unsettled episode)."""
        return record_fields(self.status, bool(self.success), self.metrics, self.error, self.reason)

    def to_json(self) -> dict[str, Any]:
        rec = self.record()
        return {"task_id": self.task_id, "method": self.method, "status": rec["status"], "success": rec["success"],
                "goal": self.goal, "plan": list(self.plan), "metrics": _jsonable(self.metrics),
                "usage": self.usage.to_dict(), "wall_time": self.wall_time, "trace": _jsonable(self.trace),
                "error": rec["error"], "reason": rec["reason"], "seed": self.seed, "verdict": rec["verdict"],
                "verdict_kind": rec["verdict_kind"]}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Episode":
        return cls(task_id=d["task_id"], method=d["method"], status=d["status"], success=bool(d["success"]),
                   goal=d.get("goal"), plan=tuple(d.get("plan") or ()), metrics=dict(d.get("metrics") or {}),
                   usage=UsageSummary(**d["usage"]) if d.get("usage") else EMPTY_USAGE,
                   wall_time=float(d.get("wall_time") or 0.0), trace=tuple(d.get("trace") or ()),
                   error=d.get("error"), seed=int(d.get("seed") or 0), reason=d.get("reason"))


def settle_episode(episode: Episode) -> Episode:
    """``episode`` with ``status``, ``success``, ``error`` and ``reason`` as its record has
    them (``Episode.record``): an unverified run has status ``unverified`` and no error, a
    failure keeps its why in ``reason`` only. What ``groundplan.run`` returns."""
    rec = episode.record()
    return replace(episode, status=rec["status"], success=rec["success"], error=rec["error"], reason=rec["reason"])


def failed_episode(task: "Task", method: str, status: EpisodeStatus | str, error: str, *, seed: int = 0,
                   wall_time: float = 0.0, trace: Sequence[Mapping[str, Any]] = (),
                   usage: UsageSummary = EMPTY_USAGE) -> Episode:
    st = status.value if isinstance(status, EpisodeStatus) else status
    return Episode(task.id, method, st, False, error=error, seed=seed, wall_time=wall_time, trace=tuple(trace),
                   usage=usage)



# --------------------------------------------------------------------------- shared steps


@dataclass(frozen=True)
class ExecutionScore:
    """A plan executed step by step from the task's initial state, scored on the gold goal."""

    executed: int
    planned: int
    cost: float
    failed_step: Optional[str]
    failure: Optional[str]
    success: Optional[bool]  # None when the task has no gold goal
    gcr: Optional[float]
    final_facts: frozenset = field(default=frozenset(), compare=False, repr=False)
    #: whether a check goal (the task's gold goal / the user's --check) was evaluated
    checked: bool = False
    #: whether the method's own goal held on the final state (None: not given or not evaluated)
    own_goal_held: Optional[bool] = None

    @property
    def exec_rate(self) -> float:
        """EXEC by the one rule (``core.metrics.exec_rate``: an empty plan is 1.0 only when
        the check goal held)."""
        return exec_rate(self.executed, self.planned, self.success)

    def metrics(self) -> dict[str, Any]:
        return {"cost": self.cost, **step_metrics(self.executed, self.planned, self.success), "gcr": self.gcr,
                "checked": self.checked, "own_goal_held": self.own_goal_held}


def execute_and_score(planning_task: "PlanningTask", plan: Sequence[str], task: "Task",
                      recorder: Optional[TraceRecorder] = None, *, stop_on_failure: bool = True,
                      own_goal: Optional[str] = None) -> ExecutionScore:
    """Apply ``plan`` with the executor, recording a ``step`` event per action (changed
    facts or the failure reason), then evaluate the task's gold goal on the final state.
    When the task has no gold goal, the method's ``own_goal`` (if given) is evaluated instead
    and reported as ``own_goal_held`` (the verdict "goal holds (unverified)")."""
    ex = Executor(planning_task.domain, planning_task.problem)
    executed, failed_step, failure = 0, None, None
    for i, step in enumerate(plan):
        r = ex.apply(step)
        if recorder is not None:
            if r.ok:
                recorder.event("step", index=i, action=r.step, ok=True, added=r.added, deleted=r.deleted, cost=r.cost)
            else:
                recorder.event("step", index=i, action=r.step, ok=False, reason=r.reason)
        if r.ok:
            executed += 1
        elif failed_step is None:
            failed_step, failure = r.step, r.reason
            if stop_on_failure:
                break
    success = gcr = None
    if task.goal:
        rep = evaluate_goal(parse_goal(task.goal), planning_task.domain, planning_task.problem, ex.facts)
        success, gcr = rep.success, rep.gcr
        if recorder is not None:
            recorder.event("check", against="gold goal", success=rep.success, gcr=rep.gcr,
                           unsatisfied=rep.unsatisfied)
    own_held: Optional[bool] = None
    if not task.goal and own_goal:
        own = evaluate_goal(parse_goal(own_goal), planning_task.domain, planning_task.problem, ex.facts)
        own_held = own.success
        if recorder is not None:
            recorder.event("check", against="own goal", success=own.success, gcr=own.gcr,
                           unsatisfied=own.unsatisfied)
    return ExecutionScore(executed, len(plan), ex.cost, failed_step, failure, success, gcr, ex.facts,
                          checked=bool(task.goal), own_goal_held=own_held)


def canonical_hash(obj: Any, n: int = 12) -> str:
    return hashlib.sha256(json.dumps(_jsonable(obj), sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:n]


def new_meter() -> UsageMeter:
    return UsageMeter()


__all__ = [
    "EpisodeStatus", "RETRYABLE", "EVENT_TYPES", "EMPTY_USAGE", "TraceRecorder", "trace_listener", "RunContext",
    "Episode", "settle_episode", "failed_episode", "ExecutionScore", "execute_and_score", "canonical_hash", "new_meter",
]
