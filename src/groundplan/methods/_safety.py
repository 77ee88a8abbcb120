"""The safety check inside the method template (issue 50): every method's goal and every step
a method executes go through ``core.safety`` before they are planned or applied.

``Method.run`` opens an ``EpisodeSafety`` for each episode (unless ``RunContext.allow_unsafe``):

- ``goal``: the default ``Method._check_goal`` asks it about every goal the hook returns or plans
  (``core.safety.check_goal`` with the task's instruction);
- ``step``: installed as the executor's step guard (``sim.executor.step_guard``), so a step
  that hands a person a hazard is refused before it is applied, also for methods that execute
  step by step themselves (BrainBody, Inner Monologue, COWP, Wake et al., AutoGPT+P's tool
  loop): the step fails with the reason, which feedback-driven methods read as feedback.

Every refusal is recorded (a ``check`` trace event and ``refused``); an episode that did not
succeed after a refusal ends with status ``unsafe`` and the first reason as its verdict
("unsafe: ethanol0 is flammable and toxic; not a drink"). One that recovered and succeeded
keeps its success and lists the refusals in its metrics (``unsafe_refused``).
"""

from __future__ import annotations

import contextlib
import contextvars
from types import SimpleNamespace
from typing import Any, Iterator, Optional

from groundplan.core.safety import check_goal, check_step
from groundplan.core.task import Task
from groundplan.errors import GroundplanError
from groundplan.sim.executor import step_guard
from groundplan.world import load_scene


class EpisodeSafety:
    """One episode's safety check: the task's words and scene, and what it refused."""

    def __init__(self, task: Task, rec: Any):
        self.instruction = task.instruction
        self.scene_file = task.scene_file
        self.rec = rec
        self.refused: list[str] = []
        #: whether a step was refused during execution (not only a goal before planning)
        self.step_refused = False
        self._scene: Any = None
        self._loaded = False

    def scene(self, pt: Any = None) -> Any:
        """The episode's scene (its people and children): the planning task's, else loaded
        from the task's scene file once (None for a scene groundplan cannot read, e.g. a
        VirtualHome graph: no people, nothing to judge)."""
        sc = getattr(pt, "scene", None)
        if sc is not None:
            return sc
        if not self._loaded:
            self._loaded = True
            try:
                self._scene = load_scene(self.scene_file, strict=False) if self.scene_file else None
            except (GroundplanError, OSError, ValueError):
                self._scene = None
        return self._scene

    def _refuse(self, reason: str, what: str, item: str) -> str:
        """Record a refusal once (a plan's step is checked again when the plan is executed)."""
        if reason not in self.refused:
            self.refused.append(reason)
            self.rec.event("check", against="safety", success=False, reason=reason, **{what: item})
        return reason

    def goal(self, goal: str, pt: Any) -> Optional[str]:
        if pt is None or not goal:
            return None
        try:
            res = check_goal(goal, pt, self.scene(pt), instruction=self.instruction)
        except GroundplanError:
            return None  # a goal that does not parse is the method's own failure, not a hazard
        return None if res is None else self._refuse(res.reason, "goal", goal)

    def step(self, executor: Any, step: str) -> Optional[str]:
        sc = self.scene()
        if sc is None:
            return None
        view = SimpleNamespace(domain=executor.domain, problem=executor.problem, scene=sc)
        res = check_step(step, view, executor.facts, instruction=self.instruction)
        if res is None:
            return None
        self.step_refused = True
        return self._refuse(res.reason, "step", step)


_CURRENT: contextvars.ContextVar[Optional[EpisodeSafety]] = contextvars.ContextVar(
    "groundplan_episode_safety", default=None)


@contextlib.contextmanager
def guarded(task: Task, rec: Any, allow_unsafe: bool) -> Iterator[Optional[EpisodeSafety]]:
    """The episode's safety check in force in this block (None with ``allow_unsafe``)."""
    if allow_unsafe:
        yield None
        return
    safety = EpisodeSafety(task, rec)
    token = _CURRENT.set(safety)
    try:
        with step_guard(safety.step):
            yield safety
    finally:
        _CURRENT.reset(token)


def current() -> Optional[EpisodeSafety]:
    """The running episode's safety check (None outside an episode or with ``allow_unsafe``)."""
    return _CURRENT.get()


__all__ = ["EpisodeSafety", "guarded", "current"]
