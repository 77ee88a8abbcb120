"""``oracle``: plan the task's gold goal with the planner and execute it. No LLM. It proves
the pipeline (dataset -> scene -> domain/problem -> planner -> executor -> metrics) and
gives the ceiling every LLM method is compared against."""

from __future__ import annotations

from typing import Any, Optional

from groundplan.core.config import NoSettings
from groundplan.core.task import Task
from groundplan.methods.base import Attempt, EpisodeRecorder, Method, RunContext, register_method
from groundplan.skills.builder import PlanningTask


@register_method("oracle")
class Oracle(Method):
    needs_llm = False
    needs_planner = True
    builds_task = True
    config_class = NoSettings
    description = "plans the dataset's gold goal (no LLM): the pipeline's ceiling"
    needs_goal = True
    requirement = "the oracle plans that goal itself"

    def _run(self, task: Task, ctx: RunContext, cfg: Any, rec: EpisodeRecorder,
             pt: Optional[PlanningTask]) -> Attempt:
        rec.event("goal", text=task.goal, source="gold")
        return Attempt.to_plan(task.goal or "", metrics={"tool_calls": 1})
