"""``saycan``: SayCan (Ahn et al. 2022, "Do As I Can, Not As I Say").

At each step every ground skill the robot could take is described in words ("pick up the
coke"); its score is p_LLM(description | few-shot prompt, instruction, steps so far) times
its affordance value, here the executor's precondition check on the current state (1 or 0,
groundplan's stand-in for SayCan's learned value functions). The best skill is executed
and appended to the dialogue ("Robot: 1. go to the table, 2. "); the episode ends when
"done" wins, or at the step bound (``groundplan.limits``: ``plan_max_steps``). The LLM
only scores fixed continuations, it never writes free text.

Variants: ``saycan`` (the LLM scores), ``saycan_oracle`` (no LLM: the scorer prefers the
next step of a plan for the task's gold goal; it shows the loop completes when the scores
are right).

Config keys (``RunContext.config``): ``examples`` (few-shot pairs, default 6), ``normalise``
(``sum``: summed log-probability, as SayCan's released code; ``mean``: per token),
``max_steps`` (at most the configured limit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Optional, Protocol, Sequence

from groundplan.core.task import Task
from groundplan.errors import GroundplanError
from groundplan.llm.types import UsageMeter
from groundplan.methods.base import Attempt, EpisodeRecorder, Method, RunContext, register_method
from groundplan.methods.saycan.examples import few_shot, numbered
from groundplan.methods.saycan.skills import Skill, SkillSpace
from groundplan.prompts.saycan import render
from groundplan.sim.executor import Executor
from groundplan.skills.builder import PlanningTask


@dataclass(frozen=True)
class SayCanConfig:
    #: few-shot instruction-plan pairs in the prompt
    examples: int = 6
    #: ``sum``: summed token log-probabilities (SayCan's released code); ``mean``: per token
    normalise: Literal["sum", "mean"] = "sum"
    #: skills executed at most (None: the configured limit ``plan_max_steps``; never above it)
    max_steps: Optional[int] = None
    #: best candidates recorded per step in the trace
    top_k_trace: int = 5

    def __post_init__(self) -> None:
        if self.examples < 0 or self.top_k_trace < 1 or (self.max_steps is not None and self.max_steps < 1):
            raise ValueError("examples must be >= 0, top_k_trace and max_steps >= 1")


class Scorer(Protocol):
    """Log-score of each candidate description after the prompt (higher is better)."""

    def __call__(self, prompt: str, skills: Sequence[Skill], done_text: str) -> list[float]: ...


class LLMScorer:
    """p_LLM of each description: summed (or mean per token) log-probability."""

    def __init__(self, llm: Any, meter: UsageMeter, normalise: str):
        from groundplan.llm.goal_search import score_continuations

        self._score = score_continuations
        self.llm, self.meter, self.normalise = llm, meter, normalise

    def __call__(self, prompt: str, skills: Sequence[Skill], done_text: str) -> list[float]:
        texts = [s.text for s in skills] + [done_text]
        res = self._score(self.llm, prompt, texts, usage=self.meter)
        vals = res.mean_logprobs() if self.normalise == "mean" else res.logprobs
        return [float(v) for v in vals]


class PlanScorer:
    """The oracle: 0 for the next step of a given plan (or "done" once it is used up), -inf
    for everything else."""

    def __init__(self, plan: Sequence[str]):
        self.plan = [" ".join(s.lower().split()) for s in plan]
        self.i = 0

    def __call__(self, prompt: str, skills: Sequence[Skill], done_text: str) -> list[float]:
        want = self.plan[self.i] if self.i < len(self.plan) else None
        out = [0.0 if want is not None and s.step == want else -math.inf for s in skills]
        out.append(0.0 if want is None else -math.inf)
        if want is not None and 0.0 in out:
            self.i += 1
        return out


def _robot_and_persons(pt) -> tuple[str, list[str]]:
    agents = getattr(pt.scene, "agents", ()) or ()
    robots = [a.name for a in agents if a.kind == "robot"]
    persons = [a.name for a in agents if a.kind == "human"]
    if not robots:
        raise GroundplanError(f"saycan: the scene {pt.scene.name or ''} has no robot agent to act")
    return robots[0], persons


class SayCanBase(Method):
    prompt_package: ClassVar[Optional[str]] = "groundplan.prompts.saycan"
    builds_task: ClassVar[bool] = True
    skillsets: ClassVar[Optional[frozenset[str]]] = frozenset({"household"})
    #: SayCan writes no goal of its own: without a check goal nothing could judge its steps
    needs_goal: ClassVar[bool] = True
    requirement = "SayCan's skills are the household skill set's actions, described in words; it writes no goal"
    config_class = SayCanConfig

    def make_scorer(self, task: Task, ctx: RunContext, pt, meter: UsageMeter, cfg: SayCanConfig) -> Scorer:
        raise NotImplementedError

    def _run(self, task: Task, ctx: RunContext, cfg: SayCanConfig, rec: EpisodeRecorder,
             pt: Optional[PlanningTask]) -> Attempt:
        assert pt is not None
        limit = ctx.limits.plan_max_steps
        max_steps = min(cfg.max_steps or limit, limit)
        robot, persons = _robot_and_persons(pt)
        space = SkillSpace(pt, robot, persons, (task.extras or {}).get("saycan_names"))
        scorer = self.make_scorer(task, ctx, pt, rec.usage, cfg)
        examples = "\n".join(render("example.txt", instruction=e.instruction, steps=e.render() + ".")
                             for e in few_shot(task.instruction, cfg.examples))
        ex = Executor(pt.domain, pt.problem)
        chosen: list[Skill] = []
        said_done = False
        for n in range(1, max_steps + 1):
            # "say" (the LLM's likelihood of each skill's description) x "can" (affordance:
            # only skills whose preconditions hold now are offered), greedy
            afforded = space.afforded(ex)
            steps_text = numbered([s.text for s in chosen])
            prompt = render("prompt.txt", examples=examples, instruction=task.instruction,
                            steps=(steps_text + ", " if steps_text else "") + f"{n}. ")
            scores = scorer(prompt, afforded, space.describer.done)
            best = max(range(len(scores)), key=scores.__getitem__)
            ranked = sorted(range(len(scores)), key=lambda i: -scores[i])[: cfg.top_k_trace]
            names = [s.text for s in afforded] + [space.describer.done]
            rec.event("llm_call", purpose=f"saycan step {n}", prompt=prompt if n == 1 else prompt[-160:],
                      candidates=len(scores), continuations=[names[i] for i in ranked],
                      logprobs=[scores[i] if math.isfinite(scores[i]) else None for i in ranked])
            if best == len(afforded):
                said_done = True
                break
            skill = afforded[best]
            r = ex.apply(skill.step)
            if not r.ok:  # cannot happen: afforded skills passed the same check
                raise GroundplanError(f"saycan: afforded skill '{skill.step}' failed: {r.reason}")
            chosen.append(skill)
        plan = tuple(s.step for s in chosen)
        return Attempt.to_execute(plan, metrics={"said_done": said_done, "skills": [s.text for s in chosen],
                                                 "tool_calls": 0},
                                  error=None if said_done else "step bound reached without 'done'",
                                  result={"said_done": said_done, "steps": len(plan)})


@register_method("saycan")
class SayCan(SayCanBase):
    description = "SayCan: LLM likelihood of each skill's description x affordance (executor check), greedy"

    def make_scorer(self, task: Task, ctx: RunContext, pt, meter: UsageMeter, cfg: SayCanConfig) -> Scorer:
        if ctx.llm is None:
            raise GroundplanError("no LLM in the run context (--llm)")
        return LLMScorer(ctx.llm, meter, cfg.normalise)


@register_method("saycan_oracle")
class SayCanOracle(SayCanBase):
    needs_llm = False
    needs_planner = True
    needs_goal = True
    description = "SayCan's loop with an oracle scorer (the next step of a plan for the gold goal): no LLM"

    def make_scorer(self, task: Task, ctx: RunContext, pt, meter: UsageMeter, cfg: SayCanConfig) -> Scorer:
        from groundplan.sim.pipeline import plan_and_check

        if ctx.planner is None:
            raise GroundplanError("no planner in the run context")
        out = plan_and_check(pt, task.goal or "", ctx.planner, typecheck=False, timeout=ctx.planner_timeout)
        if out.status != "solved":
            raise GroundplanError(f"saycan_oracle: the gold goal is {out.status}: {out.error or ''}".strip())
        return PlanScorer(out.plan)


__all__ = ["SayCan", "SayCanOracle", "SayCanConfig", "LLMScorer", "PlanScorer"]
