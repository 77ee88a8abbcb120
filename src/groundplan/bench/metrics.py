"""Metrics (DESIGN.md, Metrics): per episode from (Episode, Task), and aggregated over
episodes. Definitions:

- success: the final state satisfies some disjunct of the gold goal's DNF (the method says so
  in ``Episode.success``, having evaluated the goal on the executed state).
- minimal: success and plan cost == ``task.extras["min_costs"]`` (None when not recorded).
- minimal_tools: success and tool calls == ``task.extras["min_tool_calls"]`` (None when not recorded).
- gcr: goal-condition recall of the best disjunct; sr: 1 iff gcr == 1; exec: executed / planned steps.
- completed (COWP task completion): the goal holds at the end (== success).
- situation_handled (COWP): the trial met a situation and still completed using only objects
  the dataset accepts (``task.extras["accepted_objects"]``, when given); None if no situation.
- llm_calls, prompt_tokens, completion_tokens, tokens, wall_time.

An invalid dataset row (status ``invalid``) counts as a failed episode in every rate.
An episode that ended in an error (``error``: an endpoint error after retries, a broken
input; ``crash``) is not a failure of the method: it still counts in the rates' denominators
(so a rate never looks better for errors) but is counted apart (``errors``), so a summary
says "0 successes, 584 errors", never just "success 0.000".
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Iterable, Mapping, Optional

from groundplan.core.task import Task
from groundplan.core.verdict import ERROR_STATUSES
from groundplan.methods.base import Episode, EpisodeStatus

COST_EPS = 1e-6


@dataclass(frozen=True)
class EpisodeMetrics:
    success: bool
    minimal: Optional[bool]
    minimal_tools: Optional[bool]
    gcr: float
    sr: bool
    exec: float
    completed: bool
    situation_met: bool
    situation_handled: Optional[bool]
    cost: Optional[float]
    min_costs: Optional[float]
    tool_calls: Optional[int]
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    tokens: int
    wall_time: float
    invalid: bool
    #: the episode ended in an error, a crash or a refusal (the method did not fail: it could not run)
    error: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _num(v: Any) -> Optional[float]:
    try:
        return None if v is None or v == "" else float(v)
    except (TypeError, ValueError):
        return None


def episode_metrics(ep: Episode, task: Task) -> EpisodeMetrics:
    m = ep.metrics or {}
    invalid = ep.status == EpisodeStatus.INVALID.value
    success = bool(ep.success) and not invalid
    cost = _num(m.get("cost"))
    min_costs = _num(task.extras.get("min_costs"))
    minimal = None if min_costs is None else (success and cost is not None and abs(cost - min_costs) < COST_EPS)
    tool_calls = m.get("tool_calls")
    min_tools = task.extras.get("min_tool_calls")
    minimal_tools = None if min_tools is None else (success and tool_calls is not None
                                                    and int(tool_calls) == int(min_tools))
    gcr = _num(m.get("gcr"))
    if gcr is None or invalid:
        gcr = 1.0 if success else 0.0
    planned = m.get("planned_steps")
    if m.get("exec") is not None and not invalid:
        exec_rate = float(m["exec"])
    elif planned:
        exec_rate = float(m.get("executed_steps", 0)) / float(planned)
    else:
        exec_rate = 0.0
    met = bool(m.get("situation_met", False))
    handled: Optional[bool] = None
    if met:
        accepted = task.extras.get("accepted_objects")
        used = m.get("objects_used")
        ok_objects = accepted is None or used is None or set(used) <= set(accepted)
        handled = success and ok_objects
    u = ep.usage
    return EpisodeMetrics(
        success=success, minimal=minimal, minimal_tools=minimal_tools, gcr=gcr, sr=gcr >= 1.0 - 1e-9,
        exec=exec_rate, completed=success, situation_met=met, situation_handled=handled, cost=cost,
        min_costs=min_costs, tool_calls=None if tool_calls is None else int(tool_calls), llm_calls=u.calls,
        prompt_tokens=u.prompt_tokens, completion_tokens=u.completion_tokens, tokens=u.total_tokens,
        wall_time=round(float(ep.wall_time), 6), invalid=invalid,
        error=ep.status in ERROR_STATUSES)


#: metrics that do not depend on timing: equal across executors, worker counts and resumes
DETERMINISTIC = ("n", "invalid", "errors", "success", "minimal", "minimal_tools", "gcr", "sr", "exec",
                 "task_completion",
                 "situation_handling", "llm_calls", "tokens")


def _rate(values: list[Optional[bool]]) -> Optional[float]:
    vals = [bool(v) for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def _mean(values: Iterable[Optional[float]]) -> Optional[float]:
    vals = [float(v) for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def aggregate(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Aggregate per-episode metric dicts (as stored). Rates are fractions in [0, 1]
    (task completion and situation handling too; reports print them as %)."""
    rows = list(rows)
    n = len(rows)
    if n == 0:
        return {"n": 0}

    def col(key: str) -> list[Any]:
        return [r.get(key) for r in rows]

    minimal = [False if r.get("invalid") else r.get("minimal") for r in rows]
    minimal_tools = [False if r.get("invalid") else r.get("minimal_tools") for r in rows]
    met = [r for r in rows if r.get("situation_met")]
    return {
        "n": n,
        "invalid": sum(1 for r in rows if r.get("invalid")),
        "errors": sum(1 for r in rows if r.get("error")),
        "success": _rate(col("success")),
        "minimal": _rate(minimal),
        "minimal_tools": _rate(minimal_tools),
        "gcr": _mean(col("gcr")),
        "sr": _rate(col("sr")),
        "exec": _mean(col("exec")),
        "task_completion": _rate(col("completed")),
        "situation_handling": _rate([r.get("situation_handled") for r in met]) if met else None,
        "llm_calls": _mean(col("llm_calls")),
        "tokens": _mean(col("tokens")),
        "prompt_tokens": _mean(col("prompt_tokens")),
        "completion_tokens": _mean(col("completion_tokens")),
        "wall_time": _mean(col("wall_time")),
        "total_wall_time": sum(float(r.get("wall_time") or 0.0) for r in rows),
        "cost": _mean(r.get("cost") for r in rows if r.get("success")),
    }


def deterministic_view(agg: Mapping[str, Any], digits: int = 9) -> dict[str, Any]:
    """The timing-free part of an aggregate, rounded: what must match across executors."""
    return {k: (round(agg[k], digits) if isinstance(agg.get(k), float) else agg.get(k)) for k in DETERMINISTIC}


__all__ = ["EpisodeMetrics", "episode_metrics", "aggregate", "deterministic_view", "DETERMINISTIC"]
