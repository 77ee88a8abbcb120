"""``oracle``: plan the task's gold goal with the planner and execute it. No LLM. It proves
the pipeline (dataset -> scene -> domain/problem -> planner -> executor -> metrics) and
gives the ceiling every LLM method is compared against."""

from __future__ import annotations

import time

from groundplan.core.config import NoSettings
from groundplan.core.task import Task
from groundplan.errors import GroundplanError
from groundplan.methods.base import (
    Episode,
    EpisodeStatus,
    Method,
    RunContext,
    TraceRecorder,
    execute_and_score,
    failed_episode,
    register_method,
)
from groundplan.sim.pipeline import build, plan_and_check

_PLANNER_STATUS = {
    "unsolvable": EpisodeStatus.UNSOLVABLE,
    "timeout": EpisodeStatus.TIMEOUT,
    "invalid": EpisodeStatus.INVALID,
    "error": EpisodeStatus.ERROR,
}


@register_method("oracle")
class Oracle(Method):
    needs_llm = False
    config_class = NoSettings
    description = "plans the dataset's gold goal (no LLM): the pipeline's ceiling"
    needs_goal = True
    requirement = "the oracle plans that goal itself"

    def run(self, task: Task, ctx: RunContext) -> Episode:
        t0 = time.perf_counter()
        rec = TraceRecorder()
        if not task.goal:
            return failed_episode(task, self.name, EpisodeStatus.UNSUPPORTED, "task has no gold goal", seed=ctx.seed)
        if ctx.planner is None:
            return failed_episode(task, self.name, EpisodeStatus.ERROR, "no planner in the run context", seed=ctx.seed)
        try:
            pt = build(task.scene_file, skillset=task.skillset, oam_file=task.oam_file, strict=False)
            rec.event("goal", text=task.goal, source="gold")
            out = plan_and_check(pt, task.goal, ctx.planner, typecheck=False, timeout=ctx.planner_timeout)
            rec.event("plan", status=out.status, steps=out.plan, cost=out.cost, seconds=round(out.seconds, 4),
                      error=out.error)
            if out.status != "solved":
                status = _PLANNER_STATUS.get(out.status, EpisodeStatus.ERROR)
                return Episode(task.id, self.name, status.value, False, goal=task.goal, error=out.error,
                               wall_time=time.perf_counter() - t0, trace=rec.freeze(), seed=ctx.seed)
            score = execute_and_score(pt, out.plan, task, rec)
        except GroundplanError as exc:
            return failed_episode(task, self.name, EpisodeStatus.ERROR, str(exc), seed=ctx.seed,
                                  wall_time=time.perf_counter() - t0, trace=rec.freeze())
        ok = bool(score.success)
        status = EpisodeStatus.SUCCESS if ok else EpisodeStatus.FAILURE
        rec.event("result", success=ok, cost=score.cost)
        return Episode(task.id, self.name, status.value, ok, goal=task.goal, plan=out.plan,
                       metrics={**score.metrics(), "tool_calls": 1},
                       wall_time=time.perf_counter() - t0, trace=rec.freeze(),
                       error=None if ok else (score.failure or "goal not reached"), seed=ctx.seed)
