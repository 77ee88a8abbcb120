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


def with_checks(episode: Any, task: Any, planning_task: Any = None) -> Any:
    """``episode`` with ``checked`` and ``own_goal_held`` in its metrics, for a method that did
    not record them: ``checked`` is whether ``task`` has a check goal; without one, the
    method's own goal (``episode.goal``) is evaluated on the state its plan leads to from the
    task's initial state (``planning_task``, else built from the task's files). Episodes that
    already say are returned as they are."""
    from dataclasses import replace

    m = dict(episode.metrics or {})
    if "checked" in m:
        return episode
    m["checked"] = bool(task.goal)
    if not task.goal and episode.goal and episode.plan and episode.status not in ERROR_STATUSES:
        m["own_goal_held"] = _own_goal_held(episode, task, planning_task)
    return replace(episode, metrics=m)


def _own_goal_held(episode: Any, task: Any, pt: Any) -> Optional[bool]:
    from groundplan.errors import GroundplanError
    from groundplan.pddl.goal import parse_goal
    from groundplan.pddl.state import evaluate_goal
    from groundplan.sim.executor import Executor

    try:
        if pt is None:
            from groundplan.sim.pipeline import build

            pt = build(task.scene_file, skillset=task.skillset, oam_file=task.oam_file, strict=False)
        ex = Executor(pt.domain, pt.problem)
        for step in episode.plan:
            if not ex.apply(step).ok:
                break
        return evaluate_goal(parse_goal(episode.goal), pt.domain, pt.problem, ex.facts).success
    except GroundplanError:
        return None


__all__ = ["with_checks", "Verdict", "verdict", "verdict_kind", "verdict_text", "episode_verdict_kind", "count_verdicts",
           "NO_PLAN_STATUSES", "ERROR_STATUSES"]
