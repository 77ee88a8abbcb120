"""``cowp_im``: Inner Monologue-style closed-loop planning (Huang et al. 2022) as COWP's
paper runs it: the LLM proposes one action at a time, with textual feedback in the prompt -
passive scene description (the objects present, and a situation when the robot perceives
one: "Scene: the cup is dirty.") and success detection after each action ("Success: yes" /
"no"); active scene description (asking a human) is off. The episode ends when the LLM says
"done" or after a step budget."""

from __future__ import annotations

from typing import ClassVar, Optional

from groundplan.core.task import Task
from groundplan.llm.types import UsageMeter
from groundplan.methods.base import RunContext, TraceRecorder, register_method
from groundplan.prompts.cowp import render, template_text

from .common import CowpFamilyMethod, Ending, LLMCaller
from .grounding import Grounder
from .world import SituationWorld, Trial

STEP_FACTOR = 2  # step budget: twice the task's number of skills, plus a few
STEP_SLACK = 4
MAX_MISSES = 3  # consecutive actions that cannot be done or fail: the robot gives up


@register_method("cowp_im")
class InnerMonologueStyle(CowpFamilyMethod):
    needs_llm = True
    description = "COWP baseline Inner Monologue-style: next action from the LLM with scene and success feedback"
    prompt_package: ClassVar[Optional[str]] = "groundplan.prompts.cowp"

    def attempt(self, task: Task, ctx: RunContext, trial: Trial, world: SituationWorld, rec: TraceRecorder,
                meter: UsageMeter) -> Ending:
        caller = LLMCaller(ctx.llm, meter, rec)
        grounder = Grounder(trial)
        scene = ", ".join(trial.word(o) for o in trial.problem.objects if o != trial.robot)
        budget = STEP_FACTOR * len(trial.spec.capabilities) + STEP_SLACK
        history: list[str] = []
        described: set[str] = set()
        error: Optional[str] = None
        done = False
        misses = 0
        for _ in range(budget):
            if misses >= MAX_MISSES:
                error = f"{MAX_MISSES} actions in a row could not be done: {error}"
                break
            prompt = render("inner_monologue.txt", instruction=trial.spec.instruction, scene=scene,
                            history="".join(h + "\n" for h in history))
            action = caller.ask_format("next action", prompt, template_text("inner_monologue.gbnf.txt"),
                                       max_tokens=24).strip().rstrip(".")
            if not action or action.lower().startswith("done"):
                done = True
                break
            g = grounder.ground(action, world)
            if g.step is None:
                history += [f"Robot action: {action}", "Success: no"]
                rec.event("step", action=action, ok=False, reason=g.reason)
                error = g.reason
                misses += 1
                continue
            obs = [o for o in world.observe(g.step) if o.text not in described]
            if obs:  # passive scene description, then the LLM decides again
                described |= {o.text for o in obs}
                history += [f"Robot action: {action}", f"Scene: {obs[0].text}"]
                rec.event("feedback", scene=obs[0].text)
                continue
            r = world.apply(g.step)
            rec.event("step", action=r.step, text=action, ok=r.ok, reason=r.reason or None)
            history += [f"Robot action: {action}", f"Success: {'yes' if r.ok else 'no'}"]
            if not r.ok:
                error = r.reason
                misses += 1
            else:
                misses = 0
        if not done and error is None:
            error = "step budget used up"
        return Ending(error, metrics={"llm_steps": len(history) // 2, "said_done": done, "tool_calls": 0})
