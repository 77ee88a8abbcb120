"""``base_llm``: BrainBody-LLM's Base-LLM baseline - one LLM, prompted with task-to-program
examples from the same training set, writes the low-level commands straight from the task
instruction; they are executed in order, a failing command is skipped, and nothing is fed
back (no Body, no intermediate natural-language plan, no feedback)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from groundplan.core.datasets.progprompt import train_tasks
from groundplan.core.task import Task
from groundplan.errors import ConfigError
from groundplan.limits import current as current_limits
from groundplan.methods.base import Attempt, EpisodeRecorder, Method, RunContext, register_method
from groundplan.methods.brainbody import DEFAULT_PLANNING_EXAMPLES, environment_refusal, vh_command_text
from groundplan.methods.brainbody.algorithm import LoopResult, loop_metrics
from groundplan.methods.brainbody.envs import make_env
from groundplan.prompts.brainbody import load


def vh_program_examples(n: int = 3) -> str:
    by_name = {t.name: t for t in train_tasks()}
    out = []
    for name in [x for x in DEFAULT_PLANNING_EXAMPLES if x in by_name][:n]:
        cmds = [vh_command_text(c) for c in by_name[name].script]
        out.append(f"High-level Instruction: {name}\nProgram:\n" + "\n".join(cmds))
    return "\n\n".join(out)


def read_commands(text: str, max_commands: Optional[int] = None) -> list[str]:
    """The script lines of an answer, at most ``max_commands`` (default: the limit
    plan_max_steps in force)."""
    if max_commands is None:
        max_commands = current_limits().plan_max_steps
    out = []
    for line in (text or "").splitlines():
        if re.match(r"^\s*(High-level Instruction|Program)\s*:", line):
            if out:
                break
            continue
        m = re.search(r"(<(?:char\d+|rob\d+)>\s*)?\[\w+\][^\n]*", line)
        if m:
            out.append(m.group(0).strip())
        if len(out) >= max_commands:
            break
    return out


@dataclass(frozen=True)
class BaseLLMConfig:
    #: example programs in the prompt
    examples: int = 2
    #: environment triplets shown
    env_limit: int = 25
    temperature: float = 0.0

    def __post_init__(self) -> None:
        for name in ("examples", "env_limit"):
            if getattr(self, name) < 0:
                raise ConfigError(f"setting '{name}' must be at least 0, not {getattr(self, name)}")


@register_method("base_llm")
class BaseLLM(Method):
    description = "Base-LLM: one LLM writes the commands directly from the task (no Body, no feedback)"
    prompt_package = "groundplan.prompts.brainbody"
    config_class = BaseLLMConfig

    @classmethod
    def supports(cls, task: Task) -> Optional[str]:
        return environment_refusal(cls.name, task)

    def _run(self, task: Task, ctx: RunContext, cfg: BaseLLMConfig, rec: EpisodeRecorder, pt: None) -> Attempt:
        env = make_env(task)
        spec = env.prompt_spec() if hasattr(env, "prompt_spec") else None
        prompt = load("base_llm.txt").substitute(
            agent=getattr(env, "agent", "a virtual agent"),
            syntax=spec["syntax"] if spec else "<char0> [action] <object> <object>",
            examples=spec["program_examples"] if spec else vh_program_examples(cfg.examples),
            objects=", ".join(env.object_list()), actions=", ".join(env.actions),
            environment=env.environment_info(task.instruction, cfg.env_limit), task=task.instruction)
        c = ctx.llm.chat(prompt, max_tokens=240, temperature=cfg.temperature, seed=ctx.seed,
                         stop=("High-level Instruction", "\n\n\n"), usage=rec.usage)
        rec.llm_call("program", prompt, c)
        commands = read_commands(c.text, ctx.limits.plan_max_steps)
        rec.event("plan", source="llm", steps=commands)
        # executed in order; a failing command is skipped, nothing is fed back
        res = LoopResult(commands)
        for i, cmd in enumerate(commands):
            out = env.execute(cmd)
            res.commands.append(out.command or cmd)
            res.executed += int(out.ok)
            rec.event("step", index=i, command=out.command or cmd, ok=out.ok, reason=out.message or None)
        score = env.score()
        rec.event("result", success=score.success, gcr=score.gcr)
        return Attempt.executed(bool(score.success), tuple(res.commands), goal=task.goal,
                                metrics=loop_metrics(res, score),
                                error="; ".join(map(str, score.detail.get("unsatisfied", [])))[:500])


__all__ = ["BaseLLM", "read_commands", "vh_program_examples"]
