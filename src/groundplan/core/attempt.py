"""What a method's one hook returns, and what it records into.

``Method.run`` (``groundplan.methods.base``) is the same for every method: refusal, frozen
configuration, the planning task, the recorder, then the method's hook ``_run``, then
execution and scoring, the ``Episode`` and its verdict fields. The hook returns an
``Attempt``, in one of three shapes:

- a plan for the base to execute and score (``Attempt.to_execute``): methods that write a
  goal and plan it, or choose a plan (oracle, goalsearch, SayCan, AutoGPT+P's Plan tool);
- a goal for the base to plan, execute and score (``Attempt.to_plan``);
- an outcome the method judged itself (``Attempt.executed``, ``Attempt.ended``): methods whose
  paper executes step by step and feeds the result back (BrainBody, Inner Monologue, COWP,
  Wake et al.), or that end without a plan (no valid goal, unsolvable, an input error).

``EpisodeRecorder`` is the episode's ``TraceRecorder`` plus its LLM usage meter
(``rec.usage``), so a hook gets one object to record into.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

from groundplan.core.episode import EpisodeStatus, TraceRecorder
from groundplan.llm.types import UsageMeter


class EpisodeRecorder(TraceRecorder):
    """An episode's trace (``TraceRecorder``) and its LLM usage meter (``usage``: pass it as
    ``usage=rec.usage`` to every LLM call; the episode's ``usage`` is its summary)."""

    def __init__(self, *, extra_types: Sequence[str] = ()) -> None:
        super().__init__(extra_types=extra_types)
        self.usage = UsageMeter()


def _status(value: "EpisodeStatus | str | None") -> Optional[str]:
    return value.value if isinstance(value, EpisodeStatus) else value


@dataclass(frozen=True)
class Attempt:
    """What a method's ``_run`` hook returns. ``status`` None: the base still has work to do
    (plan ``goal`` when ``plan`` is None, execute ``plan``, score it on the check goal);
    else the outcome is final and the base only wraps it into the ``Episode``."""

    #: the goal the method wrote (or planned; the task's gold goal for methods that write none)
    goal: Optional[str] = None
    #: the plan (ground actions or the method's commands); None: none yet
    plan: Optional[tuple[str, ...]] = None
    #: how the episode ended (an ``EpisodeStatus`` value), when the method decided it
    status: Optional[str] = None
    success: bool = False
    #: what the method measured; merged over the base's execution metrics
    metrics: Mapping[str, Any] = field(default_factory=dict)
    #: why it failed (None: the base's reason: the failed step, else "goal not reached")
    error: Optional[str] = None
    #: for the base's execution: stop at the first failing step (else skip it and go on)
    stop_on_failure: bool = True
    #: extra fields of the ``result`` trace event the base records after scoring
    result: Mapping[str, Any] = field(default_factory=dict)

    @property
    def final(self) -> bool:
        """Whether the method decided the outcome itself (the base executes nothing)."""
        return self.status is not None

    @classmethod
    def to_execute(cls, plan: Sequence[str], *, goal: Optional[str] = None,
                   metrics: Optional[Mapping[str, Any]] = None, error: Optional[str] = None,
                   stop_on_failure: bool = True, result: Optional[Mapping[str, Any]] = None) -> "Attempt":
        """A plan for the base to execute from the task's initial state and score; ``goal``
        (the method's own) is evaluated when the task has no check goal."""
        return cls(goal=goal, plan=tuple(plan), metrics=dict(metrics or {}), error=error,
                   stop_on_failure=stop_on_failure, result=dict(result or {}))

    @classmethod
    def to_plan(cls, goal: str, *, metrics: Optional[Mapping[str, Any]] = None,
                result: Optional[Mapping[str, Any]] = None) -> "Attempt":
        """A goal for the base to check (``Method._check_goal``), plan, execute and score."""
        return cls(goal=goal, plan=None, metrics=dict(metrics or {}), result=dict(result or {}))

    @classmethod
    def executed(cls, success: bool, plan: Sequence[str] = (), *, goal: Optional[str] = None,
                 metrics: Optional[Mapping[str, Any]] = None, error: Optional[str] = None,
                 status: "EpisodeStatus | str | None" = None) -> "Attempt":
        """An outcome the method executed and judged itself (status: success / failure unless
        given)."""
        st = _status(status) or (EpisodeStatus.SUCCESS.value if success else EpisodeStatus.FAILURE.value)
        return cls(goal=goal, plan=tuple(plan), status=st, success=bool(success), metrics=dict(metrics or {}),
                   error=None if success else error)

    @classmethod
    def ended(cls, status: "EpisodeStatus | str", error: Optional[str], *, goal: Optional[str] = None,
              plan: Sequence[str] = (), metrics: Optional[Mapping[str, Any]] = None) -> "Attempt":
        """An episode that ended without success: no plan, unsolvable, timeout, an error."""
        return cls(goal=goal, plan=tuple(plan), status=_status(status), success=False,
                   metrics=dict(metrics or {}), error=error)


__all__ = ["Attempt", "EpisodeRecorder"]
