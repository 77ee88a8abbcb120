"""The ONE vocabulary of verdicts, the same in the CLI, episode JSON, reports and the web
console (issue 19, DESIGN.md "verdict: success only if a check goal holds after execution").

- ``success``: a check goal (the user's ``--check`` or a dataset's gold goal, ``Task.goal``)
  held on the state after the plan was executed;
- ``goal holds (unverified)``: there was no check goal, and the goal the method wrote for
  itself held after execution (whether it is what the user meant was not checked);
- ``failure``: the episode produced a plan (or ran) but no goal was shown to hold;
- ``no plan``: the method ended without a plan (statuses ``no_plan``, ``unsolvable``, ``timeout``);
- ``error: <reason>``: the run broke (an endpoint error after retries, a crash, a refusal);
- ``abstained: <reason>``: the method answered that the scene cannot meet the request (a thing
  it lacks, a need nothing meets), with the nearest alternative: "abstained: no wrench in the
  scene; nearest: screwdriver0". An answer, not an error: nothing was planned;
- ``unsafe: <reason>``: a goal or step was refused by the safety check (``core/safety.py``)
  before planning or execution: "unsafe: ethanol0 is flammable and toxic; not a drink".

An episode records what was checked in its metrics: ``checked`` (a check goal existed) and
``own_goal_held`` (the method's own goal held on the final state; None when not evaluated).
Episodes written before these fields existed had every success judged on a gold goal, so a
missing ``checked`` reads as True.

The episode record's ``status``, ``success`` and ``error`` are derived from the verdict
(``record_fields``; docs/formats.md "Episode record"), so they never contradict it:

- success: status ``success``, success true, error null, exit code 0;
- goal holds (unverified): status ``unverified``, success false, error null, exit 0;
- failure: status ``failure`` (``invalid`` for a malformed dataset row), success false, error null, exit 1;
- no plan: status ``no_plan``, ``unsolvable`` or ``timeout``, success false, error null, exit 1;
- error: status ``error`` or ``crash``, success false, error the reason, exit 3; a refusal is
  status ``unsupported``, error ``refused: <why>``, exit 2;
- abstained: status ``abstained``, success false, error null, reason the refusal, exit 4;
- unsafe: status ``unsafe``, success false, error null, reason the safety check's, exit 5.

``reason`` says why an episode is not a success (a failed step, the planner's answer, the
error); it is null for success and unverified.
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
    ABSTAINED = "abstained"
    UNSAFE = "unsafe"

    def __str__(self) -> str:  # "success", not "Verdict.SUCCESS"
        return self.value


#: episode statuses that mean "ended without a plan"
NO_PLAN_STATUSES = frozenset({"no_plan", "unsolvable", "timeout"})
#: episode statuses that mean "the run broke"
ERROR_STATUSES = frozenset({"error", "crash", "unsupported"})
#: the status of an episode whose own goal held when there was no check goal
UNVERIFIED_STATUS = "unverified"
#: the status of an episode the method refused (it lacks what the method needs)
REFUSED_STATUS = "unsupported"
#: the status of an answer that the scene cannot meet the request (``Verdict.ABSTAINED``)
ABSTAINED_STATUS = "abstained"
#: the status of an episode whose goal or step the safety check refused (``Verdict.UNSAFE``)
UNSAFE_STATUS = "unsafe"

#: verdict kind -> the exit code of ``groundplan run`` (a refusal, status ``unsupported``: 2)
EXIT_CODES = {Verdict.SUCCESS: 0, Verdict.UNVERIFIED: 0, Verdict.FAILURE: 1, Verdict.NO_PLAN: 1, Verdict.ERROR: 3,
              Verdict.ABSTAINED: 4, Verdict.UNSAFE: 5}
REFUSED_EXIT = 2


def verdict_kind(status: str, success: bool, metrics: Optional[Mapping[str, Any]] = None) -> Verdict:
    """The verdict's kind from an episode's (or a stored row's) status, success and metrics."""
    m = metrics or {}
    if status in ERROR_STATUSES:
        return Verdict.ERROR
    if status == UNVERIFIED_STATUS:
        return Verdict.UNVERIFIED
    if status == ABSTAINED_STATUS:
        return Verdict.ABSTAINED
    if status == UNSAFE_STATUS:
        return Verdict.UNSAFE
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
    if kind in (Verdict.ERROR, Verdict.ABSTAINED, Verdict.UNSAFE):
        reason = " ".join(str(error or status).split())
        if kind is not Verdict.ERROR and reason.startswith(f"{kind.value}: "):
            reason = reason[len(kind.value) + 2:]  # the safety check's reason says "unsafe: " itself
        return f"{kind.value}: {reason}"
    return kind.value


def record_status(status: str, success: bool, metrics: Optional[Mapping[str, Any]] = None) -> str:
    """The episode record's ``status``, in step with its verdict: ``success``, ``unverified``,
    the method's own status for a failure (``failure``, ``invalid``), a missing plan
    (``no_plan``, ``unsolvable``, ``timeout``) or an error (``error``, ``crash``, ``unsupported``)."""
    kind = verdict_kind(status, success, metrics)
    if kind is Verdict.SUCCESS:
        return "success"
    if kind is Verdict.UNVERIFIED:
        return UNVERIFIED_STATUS
    if kind is Verdict.FAILURE:
        return status if status in ("failure", "invalid") else "failure"
    if kind is Verdict.NO_PLAN:
        return status if status in NO_PLAN_STATUSES else "no_plan"
    return status  # error, crash, unsupported, abstained, unsafe


def _one_line(text: Any) -> Optional[str]:
    s = " ".join(str(text).split()) if text is not None else ""
    return s or None


def record_fields(status: str, success: bool, metrics: Optional[Mapping[str, Any]] = None,
                  error: Optional[str] = None, reason: Optional[str] = None) -> dict[str, Any]:
    """``status``, ``success``, ``error``, ``reason``, ``verdict`` and ``verdict_kind`` of an
    episode record, all derived from one verdict (the table in this module's docstring).
    ``error`` and ``reason`` are what the method said (``Episode.error`` holds the method's
    reason for any outcome; a settled episode keeps it in ``reason``)."""
    kind = verdict_kind(status, success, metrics)
    why = _one_line(reason) or _one_line(error)
    if kind in (Verdict.SUCCESS, Verdict.UNVERIFIED):
        why = None
    elif why is None:
        why = {Verdict.FAILURE: "the goal does not hold after execution", Verdict.NO_PLAN: "no plan"}.get(kind, status)
    return {"status": record_status(status, success, metrics), "success": kind is Verdict.SUCCESS,
            "error": why if kind is Verdict.ERROR else None, "reason": why,
            "verdict": verdict_text(status, success, metrics, why), "verdict_kind": kind.value}


def exit_code(status: str, success: bool, metrics: Optional[Mapping[str, Any]] = None) -> int:
    """The exit code of ``groundplan run`` for an episode: 0 success or unverified, 1 failure
    or no plan, 2 refused (status ``unsupported``), 3 error, 4 abstained, 5 unsafe."""
    if status == REFUSED_STATUS:
        return REFUSED_EXIT
    return EXIT_CODES[verdict_kind(status, success, metrics)]


def verdict(episode: Any) -> str:
    """The verdict of an ``Episode`` (anything with status, success, metrics, error)."""
    return verdict_text(episode.status, bool(episode.success), getattr(episode, "metrics", None),
                        getattr(episode, "error", None) or getattr(episode, "reason", None))


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
           "NO_PLAN_STATUSES", "ERROR_STATUSES", "UNVERIFIED_STATUS", "REFUSED_STATUS", "ABSTAINED_STATUS", "UNSAFE_STATUS", "EXIT_CODES", "REFUSED_EXIT",
           "record_status", "record_fields", "exit_code"]
