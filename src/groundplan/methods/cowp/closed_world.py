"""``cowp_cw``: COWP's Closed World baseline - "classical task planning developed for closed-world
scenarios ... implemented by repeatedly activating the closed-world task planner and updating
the current world state after executing each action" (paper Sec. 4.2).

The robot plans with its action knowledge, never changes it, and replans from the state it
believes whenever an action fails (replanning after every successful action as well would
give the same actions: the knowledge and the believed state evolve exactly as planned). A situation disables an action the plan
needs (that is what makes it a situation), and nothing the robot knows changes, so the same
plan is made again and fails again: it handles no situation, by construction."""

from __future__ import annotations

from typing import ClassVar, Optional

from groundplan.core.task import Task
from groundplan.llm.types import UsageMeter
from groundplan.methods.base import EpisodeStatus, RunContext, TraceRecorder, register_method

from .common import CowpFamilyMethod, Ending
from .cowp import MAX_FAILURES
from .knowledge import Knowledge
from .world import SituationWorld, Trial


@register_method("cowp_cw")
class ClosedWorld(CowpFamilyMethod):
    needs_llm = False
    needs_planner = True
    description = "COWP baseline CW: Fast Downward on the closed-world domain, replanning after each action"
    prompt_package: ClassVar[Optional[str]] = None

    def attempt(self, task: Task, ctx: RunContext, trial: Trial, world: SituationWorld, rec: TraceRecorder,
                meter: UsageMeter) -> Ending:
        k = Knowledge.from_trial(trial)
        failures, plans, error = 0, 0, None
        status = None
        plan: list[str] = []
        while len(world.executed) + len(world.failures) < ctx.limits.episode_max_steps:
            if not plan:
                res = k.plan(ctx.planner, ctx.planner_timeout)
                plans += 1
                rec.event("plan", status=res.status.value, steps=list(res.plan))
                if not res.solved:
                    status, error = EpisodeStatus.NO_PLAN, "the closed-world planner found no plan"
                    break
                if not res.plan:
                    break  # the goal holds as far as the robot knows
                plan = list(res.plan)
            step = plan.pop(0)
            r = world.apply(k.to_base(step))
            rec.event("step", action=r.step, ok=r.ok, reason=r.reason or None)
            if r.ok:
                k = k.apply(step)
                if not plan and k.goal_holds():
                    break
                continue
            plan = []
            failures += 1
            if failures > MAX_FAILURES:
                error = r.reason
                break
        return Ending(error, status, {"plans": plans, "tool_calls": plans}, world.executed)
