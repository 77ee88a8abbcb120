"""The two roles of BrainBody-LLM and their stand-ins.

Brain (``phi(task, feedback)``): ``LLMBrain`` prompts with the planning prompt (Fig. 2) and,
after an error, the feedback prompt (Fig. 4); ``OracleBrain`` returns the dataset's gold
plan (one step per gold command, the annotators' step text where a step maps to exactly one
command; steps without a command kept, for the Body to pass).

Body (``theta(step)``): ``LLMBody`` prompts with the execution prompt (Fig. 3) and reads one
command or ``<pass>``; ``EmbeddingBody`` is the paper's embedding-matching ablation (MiniLM
sentence embeddings; the action and the object(s) with the highest cosine similarity to
the step); ``OracleBody`` returns the gold command of a gold step.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from groundplan.limits import current as current_limits
from groundplan.llm.minilm import shared_minilm
from groundplan.prompts.brainbody import load

PASS = "<pass>"
_STEP_RE = re.compile(r"^\s*(?:step\s*)?(\d+)\s*[:.)]\s*(.*?)\s*$", re.IGNORECASE)


def parse_plan(text: str, *, start: int = 0, max_steps: Optional[int] = None) -> list[str]:
    """Numbered steps (``0: walk to kitchen``) up to ``Done``, at most ``max_steps`` (default:
    the limit plan_max_steps in force); unnumbered lines after the first step are ignored.
    Numbers are not checked (a replan restarts at the error step)."""
    if max_steps is None:
        max_steps = current_limits().plan_max_steps
    steps: list[str] = []
    for line in (text or "").splitlines():
        m = _STEP_RE.match(line)
        if not m:
            continue
        body = m.group(2).strip()
        if not body:
            continue
        if re.match(r"(?i)done\b", body):
            break
        steps.append(body)
        if len(steps) >= max_steps:
            break
    return steps


def render_plan(steps: Sequence[str], start: int = 0) -> str:
    return "\n".join(f"{i}: {s}" for i, s in enumerate(steps, start=start))


@dataclass
class BrainContext:
    task: str
    objects: Sequence[str]
    actions: Sequence[str]
    environment: Callable[[], str]
    agent: str = "a virtual agent"


class Brain:
    def plan(self, ctx: BrainContext) -> list[str]:
        raise NotImplementedError

    def replan(self, ctx: BrainContext, plan: Sequence[str], error_step: int, feedback: str) -> list[str]:
        """New steps from ``error_step`` on (the steps before it stay)."""
        raise NotImplementedError


class Body:
    def act(self, step: str, index: int) -> str:
        raise NotImplementedError


# ------------------------------------------------------------------------------------ LLM roles


@dataclass
class LLMBrain(Brain):
    llm: object
    planning_examples: str
    feedback_examples: str
    meter: object = None
    recorder: object = None
    max_tokens: int = 160
    temperature: float = 0.0
    seed: int = 0
    env_limit: int = 60
    #: the run's plan_max_steps (``RunContext.limits``); None: the limit in force
    max_steps: Optional[int] = None

    def _ask(self, prompt: str, purpose: str) -> str:
        # stop where a few-shot model would start the next example
        c = self.llm.chat(prompt, max_tokens=self.max_tokens, temperature=self.temperature, seed=self.seed,
                          stop=("High-level Instruction", "\n\n\n"), usage=self.meter)
        if self.recorder is not None:
            self.recorder.llm_call(purpose, prompt, c)
        return c.text

    def plan(self, ctx: BrainContext) -> list[str]:
        prompt = load("planning.txt").substitute(
            agent=ctx.agent, examples=self.planning_examples, objects=", ".join(ctx.objects),
            actions=", ".join(ctx.actions), environment=ctx.environment(), task=ctx.task)
        return parse_plan(self._ask(prompt, "brain-plan"), max_steps=self.max_steps)

    def replan(self, ctx: BrainContext, plan: Sequence[str], error_step: int, feedback: str) -> list[str]:
        prompt = load("feedback.txt").substitute(
            agent=ctx.agent, examples=self.feedback_examples, task=ctx.task, plan=render_plan(plan),
            error_step=error_step, feedback=feedback, objects=", ".join(ctx.objects), actions=", ".join(ctx.actions),
            environment=ctx.environment())
        text = self._ask(prompt, "brain-feedback")
        tail = text.split("New Plan:", 1)[1] if "New Plan:" in text else text
        return parse_plan(tail, max_steps=self.max_steps)


@dataclass
class LLMBody(Body):
    llm: object
    examples: str
    objects: Sequence[str]
    actions: Sequence[str]
    syntax: str
    agent: str = "a virtual agent"
    meter: object = None
    recorder: object = None
    max_tokens: int = 48
    seed: int = 0
    temperature: float = 0.0
    #: a GBNF grammar the answer must match (``body_grammar``): a groundplan option for small
    #: models, not in the paper
    grammar: Optional[str] = None

    def act(self, step: str, index: int) -> str:
        prompt = load("execution.txt").substitute(
            agent=self.agent, syntax=self.syntax, examples=self.examples, objects=", ".join(self.objects),
            actions=", ".join(self.actions), step=step)
        if self.grammar is not None:
            c = self.llm.constrained(prompt, grammar=self.grammar, max_tokens=self.max_tokens,
                                     temperature=self.temperature, seed=self.seed, usage=self.meter)
        else:
            c = self.llm.chat(prompt, max_tokens=self.max_tokens, temperature=self.temperature, seed=self.seed,
                              stop=("Explanation", "Description", "\n\n"), usage=self.meter)
        if self.recorder is not None:
            self.recorder.llm_call("body", prompt, c)
        return read_command(c.text)


def body_grammar(actions: Sequence[str], objects: Sequence[str], agent: str = "<char0>") -> str:
    """GBNF for one Body answer: ``<pass>`` or ``<agent> [action] <object> [<object>]``."""
    def alt(xs: Sequence[str]) -> str:
        return " | ".join('"' + x.replace('"', "") + '"' for x in dict.fromkeys(xs))

    return (f'root ::= "<pass>" | "{agent} [" act "]" (" <" obj ">")? (" <" obj ">")?\n'
            f"act ::= {alt(actions)}\nobj ::= {alt(objects)}\n")


def read_command(text: str) -> str:
    """The Body's answer: ``<pass>`` or the first ``[action] ...`` command in it (a code
    fence or an "Action Plan:" prefix around it is ignored)."""
    t = (text or "").replace("```python", "").replace("```", "").replace("Action Plan:", "").strip()
    if not t or "<pass>" in t.lower()[:40] or t.lower().startswith("pass"):
        return PASS
    m = re.search(r"(<(?:char\d+|rob\d+)>\s*)?\[\w+\][^\n]*", t)
    return m.group(0).strip() if m else PASS


# ------------------------------------------------------------------------------------ oracles


@dataclass
class GoldPlan:
    """Gold steps and commands: ``steps[i]`` is executed by ``commands[i]`` (None: pass)."""

    steps: list[str]
    commands: list[Optional[str]]

    @staticmethod
    def from_annotation(gold_steps: Sequence[dict], verbalise: Callable[[str], str]) -> "GoldPlan":
        steps, cmds = [], []
        for s in gold_steps:
            script = list(s.get("script") or [])
            text = str(s.get("step", "")).strip()
            nl = text and text.strip("0") != "" and not re.fullmatch(r"(?i)done\.?", text)
            if not script:
                if nl:
                    steps.append(text)
                    cmds.append(None)
                continue
            if len(script) == 1 and nl:
                steps.append(text)
                cmds.append(script[0])
                continue
            for c in script:
                steps.append(verbalise(c))
                cmds.append(c)
        return GoldPlan(steps, cmds)


@dataclass
class OracleBrain(Brain):
    gold: GoldPlan

    def plan(self, ctx: BrainContext) -> list[str]:
        return list(self.gold.steps)

    def replan(self, ctx: BrainContext, plan: Sequence[str], error_step: int, feedback: str) -> list[str]:
        # the gold plan from the failed step on (what a perfect planner that trusts the gold would say)
        return list(self.gold.steps[error_step:]) if error_step < len(self.gold.steps) else []


@dataclass
class OracleBody(Body):
    gold: GoldPlan
    table: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for s, c in zip(self.gold.steps, self.gold.commands):
            self.table.setdefault(s, c)

    def act(self, step: str, index: int) -> str:
        if index < len(self.gold.steps) and self.gold.steps[index] == step:  # the gold step at its place
            c = self.gold.commands[index]
        else:
            c = self.table.get(step)
        return c if c else PASS


@dataclass
class EmbeddingBody(Body):
    """Cosine similarity of the step with each action and each object (MiniLM); the best
    action with the best object (two objects for put / putin)."""

    actions: Sequence[str]
    objects: Sequence[str]
    render: Callable[[str, Sequence[str]], str]
    two_object_actions: Sequence[str] = ("put", "putin", "putback", "move")
    encoder: object = None

    def __post_init__(self) -> None:
        if self.encoder is None:
            self.encoder = shared_minilm()
        self._a = self.encoder.encode([a for a in self.actions])
        self._o = self.encoder.encode([o.replace("_", " ") for o in self.objects])

    def act(self, step: str, index: int) -> str:
        v = self.encoder.encode([step])[0]
        a = self.actions[int((self._a @ v).argmax())]
        order = list((self._o @ v).argsort()[::-1])
        objs = [self.objects[order[0]]]
        if a in self.two_object_actions and len(order) > 1:
            objs.append(self.objects[order[1]])
        return self.render(a, objs)


def verbalise_vh(command: str) -> str:
    """``<char0> [putin] <salmon> (327) <fridge> (305)`` -> ``putin salmon fridge``."""
    m = re.search(r"\[(\w+)\]", command)
    objs = re.findall(r"<([^<>]+)>\s*\(", command)
    return " ".join([m.group(1).lower() if m else command] + [o for o in objs if not o.startswith("char")])


__all__ = ["PASS", "parse_plan", "render_plan", "BrainContext", "Brain", "Body", "LLMBrain", "LLMBody",
           "read_command", "body_grammar", "GoldPlan", "OracleBrain", "OracleBody", "EmbeddingBody", "verbalise_vh"]
