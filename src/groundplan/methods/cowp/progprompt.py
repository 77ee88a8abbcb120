"""``cowp_progprompt``: ProgPrompt-style planning (Singh et al. 2023) as COWP's paper
describes it: a "PROMPT for Planning" - an import of the robot's actions, the objects
present, two example programs with ``assert(...)`` / ``else:`` recovery - and the task as a
function header the LLM completes; a "PROMPT for State Feedback" that decides each
assertion from what the robot perceives.

The program is parsed, never executed as Python: calls ``grab('mug')`` become steps for the
robot's skill layer; ``assert('cup' is 'clean')`` followed by ``else: find('drinking_glass')``
is a guard on the object. A guard is checked where it stands in the program and again
whenever the robot perceives a situation just before an action on its object; when the state
feedback says it does not hold, the else-actions run, and the program's later actions on the
guarded object use the object the recovery found instead (so "find a drinking glass" leads
to filling the drinking glass). A step the robot cannot do, or that fails, ends the trial."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar, Optional

from groundplan.core.task import Task
from groundplan.llm.types import UsageMeter
from groundplan.methods.base import RunContext, TraceRecorder, register_method
from groundplan.methods.pythonic import parse_assert, parse_call
from groundplan.prompts.cowp import render, template_text

from .common import CowpFamilyMethod, Ending, LLMCaller
from .grounding import Grounder
from .world import SituationWorld, Trial, parse_step

MAX_CALLS = 30


@dataclass
class Call:
    verb: str
    args: list[str]

    def text(self, subst: dict[str, str]) -> str:
        return " ".join([self.verb.replace("_", " "), *(subst.get(a, a) for a in self.args)])


@dataclass
class Guard:
    obj: str
    condition: str
    recovery: list[Call] = field(default_factory=list)
    last_state: Optional[str] = None


def _call(line: str) -> Optional[Call]:
    """A call line in COWP's dialect (underscores read as spaces), or None."""
    c = parse_call(line)
    return None if c is None else Call(c.verb.lower(), [a.replace("_", " ").strip() for a in c.args])


def parse_program(text: str) -> list[Call | Guard]:
    """Calls and guards of a ProgPrompt-style function body (comments and junk ignored)."""
    items: list[Call | Guard] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("def "):
            break
        else_part = None
        if line.startswith("else"):
            else_part = line.split(":", 1)[1].strip() if ":" in line else ""
            if items and isinstance(items[-1], Guard) and else_part:
                call = _call(else_part)
                if call:
                    items[-1].recovery.append(call)
            continue
        guard = parse_assert(line)
        if guard:
            items.append(Guard(guard[0].replace("_", " ").strip(), guard[1].replace("_", " ").strip()))
            continue
        call = _call(line)
        if call and call.verb not in ("print", "assert", "def", "return"):
            items.append(call)
        if len(items) > MAX_CALLS:
            break
    return items


@register_method("cowp_progprompt")
class ProgPromptStyle(CowpFamilyMethod):
    needs_llm = True
    description = "COWP baseline ProgPrompt-style: a pythonic plan with asserts (parsed, never executed as Python)"
    prompt_package: ClassVar[Optional[str]] = "groundplan.prompts.cowp"

    def attempt(self, task: Task, ctx: RunContext, trial: Trial, world: SituationWorld, rec: TraceRecorder,
                meter: UsageMeter) -> Ending:
        caller = LLMCaller(ctx.llm, meter, rec)
        objects = ", ".join(f"'{trial.word(o).replace(' ', '_')}'" for o in trial.problem.objects
                            if o != trial.robot)
        fn = re.sub(r"[^a-z0-9]+", "_", trial.spec.paper.lower()).strip("_")
        text = caller.ask_format("plan", render("progprompt.txt", objects=objects, function=fn),
                                 template_text("progprompt.gbnf.txt"), max_tokens=320)
        program = parse_program(text)
        rec.event("plan", program=text, items=len(program), source="LLM")
        error = self.execute(program, trial, world, Grounder(trial), caller, rec) if program else \
            "the LLM wrote no program"
        return Ending(error, metrics={"program_items": len(program) if text else 0, "tool_calls": 0})

    def execute(self, program, trial, world, grounder: Grounder, caller: LLMCaller, rec) -> Optional[str]:
        subst: dict[str, str] = {}
        guards = [g for g in program if isinstance(g, Guard)]
        seen: list[str] = []

        def state() -> str:
            return " ".join(seen) or "nothing unusual is observed."

        def check(g: Guard) -> tuple[bool, Optional[str]]:
            """State feedback on one guard (once per state); run its recovery if it fails.
            Returns (recovered, error)."""
            st = state()
            if g.last_state == st:
                return False, None
            g.last_state = st
            answer = caller.ask_format("state feedback", render("progprompt_state.txt", state=st,
                                                                object=g.obj.replace(" ", "_"), condition=g.condition),
                                       template_text("progprompt_state.gbnf.txt"), max_tokens=4)
            holds = not answer.strip().lower().startswith("f")
            rec.event("feedback", guard=f"{g.obj} is {g.condition}", state=st, holds=holds)
            if holds or not g.recovery:
                return False, None
            for c in g.recovery:
                err = run_call(c, recovering=True)
                if err:
                    return False, err
            if g.recovery[0].args:
                subst[g.obj] = g.recovery[0].args[0]
            return True, None

        def run_call(c: Call, recovering: bool = False, depth: int = 0) -> Optional[str]:
            text = c.text(subst)
            gr = grounder.ground(text, world)
            if gr.step is None:
                rec.event("step", action=text, ok=False, reason=gr.reason)
                return gr.reason
            obs = world.observe(gr.step)
            if obs and not recovering and depth < 2:
                for o in obs:
                    if o.text not in seen:
                        seen.append(o.text)
                words = [trial.word(a) for a in parse_step(gr.step)[1]]
                for g in guards:
                    if any(g.obj == w or g.obj in w or w in g.obj for w in words):
                        recovered, err = check(g)
                        if err:
                            return err
                        if recovered:
                            return run_call(c, depth=depth + 1)  # the action again, on the recovered object
            r = world.apply(gr.step)
            rec.event("step", action=r.step, text=text, ok=r.ok, reason=r.reason or None)
            return None if r.ok else r.reason

        for item in program:
            err = check(item)[1] if isinstance(item, Guard) else run_call(item)
            if err:
                return err
        return None
