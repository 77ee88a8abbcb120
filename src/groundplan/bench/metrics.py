"""Metrics aggregated over episodes, for reports. The per-episode definitions (success,
minimal, minimal tools, GCR, SR, EXEC, task completion, situation handling, OAM P/R/F1) are
in ``groundplan.core.metrics``, the one module every method and report uses; its names are
re-exported here so old imports keep working.

An invalid dataset row (status ``invalid``) counts as a failed episode in every rate.
An episode that ended in an error (``error``: an endpoint error after retries, a broken
input; ``crash``) is not a failure of the method: it still counts in the rates' denominators
(so a rate never looks better for errors) but is counted apart (``errors``), so a summary
says "0 successes, 584 errors", never just "success 0.000".
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Optional

from groundplan.core.metrics import COST_EPS, EpisodeMetrics, episode_metrics

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


__all__ = ["EpisodeMetrics", "episode_metrics", "aggregate", "deterministic_view", "DETERMINISTIC", "COST_EPS"]
