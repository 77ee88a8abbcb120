"""The ONE vocabulary of verdicts, the same in the CLI, episode JSON, reports and the web
console (issue 19, DESIGN.md "verdict: success only if a check goal holds after execution").

- ``success``: a check goal (the user's ``--check`` or a dataset's gold goal, ``Task.goal``)
  held on the state after the plan was executed;
- ``goal holds (unverified)``: there was no check goal, and the goal the method wrote for
  itself held after execution (whether it is what the user meant was not checked);
- ``failure``: the episode produced a plan (or ran) but no goal was shown to hold;
- ``no plan``: the method ended without a plan (statuses ``no_plan``, ``unsolvable``, ``timeout``);
- ``error: <reason>``: the run broke (an endpoint error after retries, a crash, a refusal).

An episode records what was checked in its metrics: ``checked`` (a check goal existed) and
``own_goal_held`` (the method's own goal held on the final state; None when not evaluated).
Episodes written before these fields existed had every success judged on a gold goal, so a
missing ``checked`` reads as True.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Mapping, Optional


class Verdict(str, Enum):
    """The kind of a verdict; ``str(v)`` / ``v.value`` is its text (``ERROR`` takes a reason)."""

    SUCCESS = "success"
    UNVERIFIED = "goal holds (unverified)"
    FAILURE = "failure"
    NO_PLAN = "no plan"
    ERROR = "error"

    def __str__(self) -> str:  # "success", not "Verdict.SUCCESS"
        return self.value


#: episode statuses that mean "ended without a plan"
NO_PLAN_STATUSES = frozenset({"no_plan", "unsolvable", "timeout"})
#: episode statuses that mean "the run broke"
ERROR_STATUSES = frozenset({"error", "crash", "unsupported"})


def verdict_kind(status: str, success: bool, metrics: Optional[Mapping[str, Any]] = None) -> Verdict:
    """The verdict's kind from an episode's (or a stored row's) status, success and metrics."""
    m = metrics or {}
    if status in ERROR_STATUSES:
        return Verdict.ERROR
    checked = m.get("checked")
    checked = True if checked is None else bool(checked)
    if checked:
        if success and status != "invalid":
            return Verdict.SUCCESS
    elif m.get("own_goal_held") is True:
        return Verdict.UNVERIFIED
    if status in NO_PLAN_STATUSES:
        return Verdict.NO_PLAN
    return Verdict.FAILURE


def verdict_text(status: str, success: bool, metrics: Optional[Mapping[str, Any]] = None,
                 error: Optional[str] = None) -> str:
    kind = verdict_kind(status, success, metrics)
    if kind is Verdict.ERROR:
        reason = " ".join(str(error or status).split())
        return f"error: {reason}"
    return kind.value


def verdict(episode: Any) -> str:
    """The verdict of an ``Episode`` (anything with status, success, metrics, error)."""
    return verdict_text(episode.status, bool(episode.success), getattr(episode, "metrics", None),
                        getattr(episode, "error", None))


def episode_verdict_kind(episode: Any) -> Verdict:
    return verdict_kind(episode.status, bool(episode.success), getattr(episode, "metrics", None))


def count_verdicts(kinds: "list[Verdict] | tuple[Verdict, ...]") -> dict[str, int]:
    """How many of each kind, every kind present (0 when none): for summaries that count
    errors apart from failures."""
    out = {k.value: 0 for k in Verdict}
    for k in kinds:
        out[Verdict(k).value] += 1
    return out


__all__ = ["Verdict", "verdict", "verdict_kind", "verdict_text", "episode_verdict_kind", "count_verdicts",
           "NO_PLAN_STATUSES", "ERROR_STATUSES"]
