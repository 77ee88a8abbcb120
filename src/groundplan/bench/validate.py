"""Row checks run before a method sees a task. A malformed row (a missing column or value,
a missing scene file, a goal naming an unknown object or predicate) becomes a ``RowProblem``
naming the dataset, the task and its ``file:row``; the runner either stops on it or records
it as a failed episode with status ``invalid`` (never dropped from the denominator)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from groundplan.core.task import Task
from groundplan.errors import GroundplanError, SceneError


@dataclass(frozen=True)
class RowProblem:
    dataset: str
    task_id: str
    source: str
    reason: str

    def __str__(self) -> str:
        return f"{self.source or self.task_id}: dataset {self.dataset}, row {self.task_id}: {self.reason}"


def quick_check(task: Task, *, has_goals: bool = True, has_scenes: bool = True) -> Optional[str]:
    """Field and file checks (no parsing): cheap enough to run on every row up front."""
    missing = task.extras.get("missing_columns") if hasattr(task.extras, "get") else None
    if missing:
        return f"missing column '{missing[0]}'"
    if not (task.instruction or "").strip():
        return "missing value for the instruction column"
    if has_goals and not (task.goal or "").strip():
        return "missing value for the goal column"
    if has_scenes:
        if not (task.scene_file or "").strip():
            return "missing value for the scene column"
        p = Path(task.scene_file)
        if not p.is_file():
            return f"scene file not found: {p}"
    if task.oam_file:
        for part in task.oam_file.split(os.pathsep):
            if part and not Path(part).is_file():
                return f"object-affordance map not found: {part}"
    return None


def deep_check(task: Task) -> Optional[str]:
    """Load the scene and check the gold goal against the domain and problem (unknown
    object, unknown predicate, wrong arity, syntax). Types are not checked (AutoGPT+P's own
    goals swap a few arguments; the original accepted them)."""
    if not task.scene_file:
        return None
    from groundplan.pddl.goal import check_goal, parse_goal
    from groundplan.sim.pipeline import build

    try:
        pt = build(task.scene_file, skillset=task.skillset, oam_file=task.oam_file, strict=False)
    except SceneError as exc:  # the row's scene is bad; a broken skill set or OAM is not the row's fault
        return f"scene: {exc}"
    if task.goal:
        try:
            check_goal(parse_goal(task.goal), pt.domain, pt.problem, typecheck=False)
        except GroundplanError as exc:
            return f"goal: {exc}"
    return None


def check_task(task: Task, *, has_goals: bool = True, has_scenes: bool = True, deep: bool = True) -> Optional[RowProblem]:
    reason = quick_check(task, has_goals=has_goals, has_scenes=has_scenes)
    if reason is None and deep:
        reason = deep_check(task)
    return None if reason is None else RowProblem(task.dataset, task.id, task.source, reason)


__all__ = ["RowProblem", "quick_check", "deep_check", "check_task"]
