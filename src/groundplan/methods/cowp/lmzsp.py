"""``cowp_lmzsp``: Language Models as Zero-Shot Planners (Huang et al. 2022) as COWP's paper
uses it: the LLM writes the whole plan in steps from the task name and one example, with no
domain action knowledge and no grounding to the scene, and the robot runs it open loop
(no feedback). Each step is handed to the robot's skill layer (``grounding.Grounder``); a
step the robot cannot do, or that fails, ends the trial."""

from __future__ import annotations

import re
from typing import ClassVar, Optional

from groundplan.core.task import Task
from groundplan.llm.types import UsageMeter
from groundplan.methods.base import RunContext, TraceRecorder, register_method
from groundplan.prompts.cowp import render, template_text

from .common import CowpFamilyMethod, Ending, LLMCaller
from .grounding import Grounder
from .world import SituationWorld, Trial

MAX_PLAN_STEPS = 25


def parse_steps(text: str) -> list[str]:
    """``Step 1: walk to kitchen`` lines (the first line is the continuation of "Step 1:")."""
    steps: list[str] = []
    for i, line in enumerate(text.splitlines()):
        line = line.strip()
        if not line:
            if steps:
                break
            continue
        if line.lower().startswith("task:"):
            break
        m = re.match(r"^(?:step\s*\d+\s*[:.)-]|\d+\s*[:.)-])\s*(.*)$", line, re.I)
        if m:
            steps.append(m.group(1).strip())
        elif i == 0:
            steps.append(line)
        else:
            break
    return [s for s in steps if s][:MAX_PLAN_STEPS]


@register_method("cowp_lmzsp")
class LMZSP(CowpFamilyMethod):
    needs_llm = True
    description = "COWP baseline LMZSP: the LLM writes the whole plan from the task name, run open loop"
    prompt_package: ClassVar[Optional[str]] = "groundplan.prompts.cowp"

    def attempt(self, task: Task, ctx: RunContext, trial: Trial, world: SituationWorld, rec: TraceRecorder,
                meter: UsageMeter) -> Ending:
        caller = LLMCaller(ctx.llm, meter, rec)
        text = caller.ask_format("plan", render("lmzsp.txt", task=trial.spec.paper),
                                 template_text("lmzsp.gbnf.txt"), max_tokens=200)
        steps = parse_steps(text)
        rec.event("plan", steps=steps, source="LLM")
        grounder = Grounder(trial)
        error = None if steps else "the LLM wrote no plan"
        for s in steps:
            g = grounder.ground(s, world)
            if g.step is None:
                rec.event("step", action=s, ok=False, reason=g.reason)
                error = g.reason
                break
            r = world.apply(g.step)
            rec.event("step", action=r.step, text=s, ok=r.ok, reason=r.reason or None)
            if not r.ok:
                error = r.reason
                break
        return Ending(error, metrics={"llm_steps": steps, "tool_calls": 0}, plan=steps)
