"""Algorithm 1 of BrainBody-LLM, as written in the paper:

    k <- 0; f <- none; hlp <- phi(T, f); i <- 0
    while i != len(hlp):
        delta <- theta(hlp[i])
        if delta != <pass>:
            result <- pi(delta)
            if result != success:
                if k != K: f <- rho(result); hlp <- phi(T, f); k <- k + 1   # replan from step i
                else: i <- i + 1
            else: i <- i + 1
        else: i <- i + 1

The replanned ``hlp`` keeps the steps before the error step and continues with the Brain's
new steps (the feedback prompt asks for a plan numbered from the error step).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from groundplan.core.metrics import step_metrics
from groundplan.limits import Limits
from groundplan.limits import current as current_limits
from groundplan.methods.brainbody.agents import PASS, Body, Brain, BrainContext


@dataclass
class LoopResult:
    plan: list[str]  # the final high-level plan
    commands: list[str] = field(default_factory=list)  # every non-pass command sent to the actuator
    executed: int = 0  # how many of them succeeded
    feedback_loops: int = 0
    passes: int = 0
    initial_plan: list[str] = field(default_factory=list)


def brainbody_loop(task: str, brain: Brain, body: Body, env, *, K: int, recorder=None,
                   agent: str = "a virtual agent", env_limit: int = 60, limits: Optional[Limits] = None) -> LoopResult:
    """Algorithm 1. ``limits``: the run's bounds (``RunContext.limits``; default: those in force)."""
    ctx = BrainContext(task, env.object_list(), env.actions, lambda: env.environment_info(task, env_limit), agent)
    hlp = brain.plan(ctx)
    if recorder is not None:
        recorder.event("plan", source="brain", steps=hlp)
    res = LoopResult(list(hlp), initial_plan=list(hlp))
    k, i, guard = 0, 0, 0
    max_steps = (limits or current_limits()).episode_max_steps
    while i != len(hlp) and guard < max_steps:
        guard += 1
        step = hlp[i]
        delta = body.act(step, i)
        if delta == PASS:
            res.passes += 1
            if recorder is not None:
                recorder.event("step", index=i, nl=step, command=PASS, ok=None)
            i += 1
            continue
        out = env.execute(delta)
        res.commands.append(out.command or delta)
        if recorder is not None:
            recorder.event("step", index=i, nl=step, command=out.command or delta, ok=out.ok,
                           reason=out.message or None)
        if out.ok:
            res.executed += 1
            i += 1
            continue
        if k != K:
            new = brain.replan(ctx, hlp, i, out.message)
            k += 1
            hlp = list(hlp[:i]) + list(new)
            if recorder is not None:
                recorder.event("feedback", index=i, message=out.message, loop=k)
                recorder.event("replan", from_step=i, steps=new)
        else:
            i += 1
    res.plan = hlp
    res.feedback_loops = k
    return res


def loop_metrics(res: LoopResult, score, extra: Optional[dict] = None) -> dict:
    """The loop's record: steps = commands sent to the actuator (EXEC and GCR by
    ``core.metrics``), feedback loops, passes."""
    return {**step_metrics(res.executed, len(res.commands), score.success, score.gcr),
            "feedback_loops": res.feedback_loops, "passes": res.passes, "plan_steps": len(res.plan), **(extra or {})}


__all__ = ["LoopResult", "brainbody_loop", "loop_metrics", "PASS"]
