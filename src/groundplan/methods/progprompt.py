"""``progprompt``: ProgPrompt (Singh et al.) as BrainBody-LLM compares against it. The LLM
completes a pythonic program (``def microwave_salmon():`` after an ``from actions import ...``
header, the scene's ``objects = [...]`` and three example programs with ``# step`` comments
and ``assert(...)`` / ``else:`` recovery). The program is parsed, never run as Python:

- ``# comment`` lines open a sub-goal; at most 10 actions are tried per sub-goal;
- ``assert('close' to 'mug')`` asks the LLM whether it holds, given what the agent sees
  (states and relations of the objects it is close to, what it holds) - the original's
  state-check prompt; an ``else: action`` line after it runs only when the answer is False;
- ``find('mug')`` / ``walk('kitchen')`` pick one node of the class (at random, seeded; the
  pick is remembered), other actions take the only node of the class, else the one found,
  else one at random; ``putin('mug', 'sink')`` needs the first object in the hands.

Executability is executed actions / attempted actions, as in the original's run_execution.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from groundplan.core.datasets.progprompt import pythonic_plans, split_graphs
from groundplan.core.metrics import step_metrics
from groundplan.core.task import Task
from groundplan.errors import ConfigError
from groundplan.limits import Limits
from groundplan.limits import current as current_limits
from groundplan.methods.base import (
    Attempt,
    EpisodeRecorder,
    Method,
    RunContext,
    TraceRecorder,
    register_method,
)
from groundplan.methods.brainbody.algorithm import LoopResult, loop_metrics
from groundplan.methods.brainbody.envs import VHEnv
from groundplan.methods.pythonic import parse_call
from groundplan.prompts.progprompt import load

DEFAULT_EXAMPLES = ("put_the_wine_glass_in_the_kitchen_cabinet", "throw_away_the_lime", "wash_mug",
                    "refrigerate_the_salmon", "bring_me_some_fruit", "wash_clothes", "put_apple_in_fridge")
MAX_PER_SUBGOAL = 10
_WORD = re.compile(r"\b[a-z][a-z0-9_]*")
#: one call of the program: ``name('a', 'b')`` (quotes optional), a trailing ``;`` or comment allowed
#: ProgPrompt's dialect of a call line: a lower-case skill name, at most two plain object names
_VERB = re.compile(r"[a-z][a-z0-9_]*")
_OBJECT = re.compile(r"[A-Za-z0-9_]+(?: +[A-Za-z0-9_]+)*")


def env0_objects() -> list[str]:
    """The class names of environment 0 (the examples' environment), as the prompt header lists them."""
    _, inits, _ = split_graphs("test_unseen")
    return sorted({n.class_name for n in inits[0].nodes})


def program_prompt(objects: list[str], task: str, n_examples: int = 3, *, new_env: bool = False) -> str:
    """run_eval.py's prompt: the header with environment 0's objects, the example programs,
    then (in another environment) that environment's ``objects = [...]``, then ``def task():``."""
    plans = pythonic_plans()
    parts = [load("header.txt").substitute(objects=repr(env0_objects() if new_env else objects))]
    parts += [plans[k] for k in DEFAULT_EXAMPLES[:n_examples] if k in plans]
    prompt = "\n\n".join(parts)
    if new_env:
        prompt += f"\n\n\nobjects = {objects!r}"
    fn = "_".join(task.split(" "))
    return prompt + f"\n\ndef {fn}():\n\t"


#: where the program answer ends (see ProgPrompt.run)
PROGRAM_STOP = ("\n\ndef ", "\n```\n", "\n\n\n")


def extract_program(text: str) -> str:
    """The completion as program lines. A chat model may wrap the body in a code fence or
    repeat ``def task():``; then only the fenced lines after the ``def`` line are kept."""
    if "```" in text:
        parts = text.split("```")
        if len(parts) >= 2:
            body = parts[1]
            text = body[len("python"):] if body.startswith("python") else body
    lines = text.split("\n")
    defs = [i for i, ln in enumerate(lines) if ln.strip().startswith("def ") and ln.rstrip().endswith(":")]
    if defs:
        # the body of the first function; a second one (the next example a few-shot model
        # starts) ends it, as the stop sequence "def " ends a completion model's answer
        end = defs[1] if len(defs) > 1 else len(lines)
        lines = lines[defs[0] + 1:end]
    return "\n".join(lines)


def parse_step(action: str, actions: Sequence[str]) -> Optional[list[str]]:
    """The words of one program line (``putin('mug', 'sink')`` -> ``['putin', 'mug', 'sink']``),
    or None when the line is not a call of one of ``actions`` with at most two object names
    (``__import__('os').system(...)``, attribute access, expressions): an invalid step,
    counted as attempted and never sent to the environment. The program is never run."""
    call = parse_call(action)
    if (call is None or not _VERB.fullmatch(call.verb) or call.verb not in {a.lower() for a in actions}
            or len(call.args) > 2 or not all(_OBJECT.fullmatch(a) for a in call.args)):
        return None
    return [call.verb, *(a.lower() for a in call.args)]


def subgoals(program: str, max_lines: Optional[int] = None) -> list[tuple[str, list[str]]]:
    """(sub-goal comment, lines) in order; lines before the first comment go to '0'. At most
    ``max_lines`` lines are read (default: the limit program_max_lines in force)."""
    if max_lines is None:
        max_lines = current_limits().program_max_lines
    out: list[tuple[str, list[str]]] = [("0", [])]
    for raw in program.split("\n")[:max_lines]:
        line = raw.strip()
        if not line:
            continue
        if "#" in line:
            out.append((line.split("#", 1)[1].strip(), []))
        else:
            out[-1][1].append(line)
    return [(g, ls) for g, ls in out if ls]


class _Agent:
    """The original's execution loop state (found ids, what the agent sees)."""

    def __init__(self, env: VHEnv, rng: random.Random):
        self.env = env
        self.rng = rng
        self.found: Optional[int] = None

    def graph(self):
        return self.env.graph()

    def held(self) -> list[int]:
        g = self.graph()
        return [t for f, r, t in g.edges if f == self.env.char.id and r.startswith("HOLDS")]

    def sees(self) -> str:
        """States of the objects the agent is close to, relations among them, what it holds."""
        g = self.graph()
        close = [t for f, r, t in g.edges if f == self.env.char.id and r == "CLOSE"]
        cls = {n.id: n.class_name for n in g.nodes}
        names = {cls[i] for i in close if i in cls}
        items = []
        for n in g.nodes:
            if n.class_name in names:
                items.append(n.class_name + (" is " + " and ".join(n.states) if n.states else ""))
        for f, r, t in g.edges:
            if f in close and t in close and r not in ("CLOSE", "FACING"):
                items.append(f"{cls[f]} {r} {cls[t]}")
        text = ", ".join(dict.fromkeys(items))
        held = [cls[i] for i in self.held() if i in cls]
        if held:
            text += f". You have {', '.join(held)}. "
        return text

    def ids(self, name: str) -> list[int]:
        return sorted(n.id for n in self.graph().nodes if n.class_name == name)

    def script(self, words: list[str]) -> Optional[str]:
        """The original's translation of a parsed action into a script line (None: skipped)."""
        if len(words) == 3 and "put" in words[0]:
            held = set(self.held())
            id1 = [i for i in self.ids(words[1]) if i in held]
            id2 = self.ids(words[2])
            if not id1 or not id2:
                return None
            a = id1[0] if len(id1) == 1 else self.rng.choice(id1)
            b = id2[0] if len(id2) == 1 else (self.found if self.found in id2 else self.rng.choice(id2))
            return f"<char0> [{words[0]}] <{words[1]}> ({a}) <{words[2]}> ({b})"
        if len(words) == 2 and words[0] not in ("find", "walk"):
            ids = self.ids(words[1])
            if not ids:
                return None
            a = ids[0] if len(ids) == 1 else (self.found if self.found in ids else self.rng.choice(ids))
            return f"<char0> [{words[0]}] <{words[1]}> ({a})"
        if len(words) == 2:
            ids = self.ids(words[1])
            if not ids:
                return None
            self.found = self.rng.choice(ids)
            return f"<char0> [{words[0]}] <{words[1]}> ({self.found})"
        if len(words) == 1:
            return f"<char0> [{words[0]}]"
        return None


def execute_program(program: str, env: VHEnv, agent: "_Agent", ask: Callable[[str], str],
                    rec: TraceRecorder, limits: Optional[Limits] = None) -> tuple[LoopResult, int]:
    """The original's execution loop over a program's sub-goals: ``assert`` lines ask
    ``ask`` (the state-check prompt), ``else:`` lines run on a False answer, other lines
    are steps (invalid ones are counted and reported, not executed). Returns the loop
    result and the number of attempted steps."""
    skills = tuple(env.world.domain.action_map)
    max_lines = (limits or current_limits()).program_max_lines
    res = LoopResult(program.split("\n")[:max_lines])
    total = 0
    check = ""
    last_assert = None
    for goal, lines in subgoals(program, max_lines):
        step = 1
        for action in lines:
            if step > MAX_PER_SUBGOAL:
                break
            if "grab('wallphone')" in action:
                continue
            if "assert" in action:
                last_assert = action
                objs = _WORD.findall(action)[1::2]
                seen = [x.strip() for x in agent.sees().split(",") if any(o in x for o in objs)]
                check = ask(load("state_check.txt").substitute(state="You see: " + ", ".join(seen),
                                                               assertion=action[:200]))
                continue
            if last_assert is not None and "else:" in action:
                if "False" in check:
                    action = action.split(": ")[-1].strip()
                else:
                    continue
            total += 1
            words = parse_step(action, skills)
            if words is None:
                step += 1  # attempted, as the original counted a line the simulator refused
                rec.event("step", subgoal=goal, code=action[:200], ok=False,
                          reason="invalid step: not a call of one of the skill set's actions with object names")
                continue
            line = agent.script(words)
            if line is None:
                rec.event("step", subgoal=goal, code=action, ok=False, reason="object not found or not in hand")
                continue
            out = env.execute(line)
            res.commands.append(out.command)
            res.executed += int(out.ok)
            step += 1
            rec.event("step", subgoal=goal, code=action, command=out.command, ok=out.ok,
                      reason=out.message or None)
    return res, total


@dataclass(frozen=True)
class ProgPromptConfig:
    #: example programs in the prompt (the paper's default: 3)
    examples: int = 3
    temperature: float = 0.0

    def __post_init__(self) -> None:
        if self.examples < 0:
            raise ConfigError(f"setting 'examples' must be at least 0, not {self.examples}")


@register_method("progprompt")
class ProgPrompt(Method):
    description = "ProgPrompt: pythonic program with assert/else recovery, parsed and executed step by step"
    prompt_package = "groundplan.prompts.progprompt"
    skillsets = frozenset({"virtualhome"})
    needs_goal = True
    requirement = "ProgPrompt writes VirtualHome programs over a VirtualHome graph"
    config_class = ProgPromptConfig

    def _run(self, task: Task, ctx: RunContext, cfg: ProgPromptConfig, rec: EpisodeRecorder, pt: None) -> Attempt:
        env = VHEnv(task)
        prompt = program_prompt(sorted({n.class_name for n in env.initial.nodes}), task.instruction,
                                cfg.examples, new_env=task.extras.get("split") in ("env1", "env2"))
        # The original (a completion model) stops at "def ", the next example's header. A chat
        # model often opens its answer by repeating the task's "def task():" line (bare or in a
        # code fence): that stop would end the answer before its body. So the answer ends at
        # a blank-line-separated next "def " or the fence's end, and extract_program keeps
        # the first function's body only.
        c = ctx.llm.chat(prompt, max_tokens=600, temperature=cfg.temperature,
                         stop=PROGRAM_STOP, seed=ctx.seed, usage=rec.usage)
        rec.llm_call("program", prompt, c)
        program = extract_program(c.text)
        rec.event("plan", source="llm", steps=program.split("\n"))
        agent = _Agent(env, random.Random(ctx.seed))

        def ask(q: str) -> str:
            a = ctx.llm.chat(q, max_tokens=2, stop=("\n",), seed=ctx.seed, usage=rec.usage)
            rec.llm_call("state-check", q, a)
            return a.text

        res, total = execute_program(program, env, agent, ask, rec, ctx.limits)
        score = env.score()
        rec.event("result", success=score.success, gcr=score.gcr)
        metrics = loop_metrics(res, score)
        metrics.update(step_metrics(res.executed, total, score.success))  # steps: the program's lines
        return Attempt.executed(bool(score.success), tuple(res.commands), goal=task.goal, metrics=metrics,
                                error="; ".join(map(str, score.detail.get("unsatisfied", [])))[:500])


__all__ = ["ProgPrompt", "PROGRAM_STOP", "program_prompt", "subgoals", "extract_program", "parse_step", "execute_program"]
