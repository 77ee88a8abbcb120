"""``wake_prompts``: Wake et al., "ChatGPT Empowered Long-Step Robot Control in Various
Environments: A Case Application".

The algorithm, per task (one scene, one or more instructions given one after another):

1. The environment dictionary (assets / objects / states) is built from the task's scene
   (or VirtualHome graph), keeping the entities the task involves and what they stand on or in.
2. For each instruction: the six-turn conversation (role, robot actions, environment
   format, output format, examples, then the instruction with the current environment and
   the nine rules), plus as much earlier conversation as the token budget allows, newest
   first. The model answers with a JSON dictionary: task_cohesion (task_sequence,
   step_instructions, object_name), environment_before, environment_after,
   instruction_summary, question - decoded under a JSON schema where the backend allows.
   A question is surfaced (trace event ``question``).
3. The task sequence is executed by the skill set's executor (``lfo`` or ``virtualhome``):
   executable when every step runs; correct when the dataset's goal holds afterwards.
4. With ``feedback: auto`` the automatic feedback system (Sec. III-C) sends a message for a
   wrong answer and the model revises it, up to ``max_feedback`` rounds; the rounds needed
   are counted (Table III).
5. The answer's environment_after becomes the next instruction's environment (or, with
   ``env_source: executor``, the executor's state); the model's environment_after is
   compared with the executor's state at every step.

Configuration (``RunContext.config``): prompts (project | original), constrained (bool),
temperature, max_tokens, context_tokens, history_tokens, feedback (none | auto),
max_feedback, env_source (llm | executor), pin_environment_before (bool), constraint
(grammar | json_schema), units (bool: LfO task sequences as grasp-manipulation-release units
under the grammar).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Mapping, Optional

from groundplan.core.config import config_from
from groundplan.core.metrics import step_metrics
from groundplan.core.task import Task
from groundplan.errors import ConfigError
from groundplan.methods.base import (
    Attempt,
    EpisodeRecorder,
    Method,
    RunContext,
    TraceRecorder,
    register_method,
)
from groundplan.methods.wake_prompts.feedback import Affordances, AutoFeedback
from groundplan.methods.wake_prompts.judge import Judgement, WakeWorld, execute_answer, lfo_world
from groundplan.methods.wake_prompts.prompts import PromptSet, load_prompts
from groundplan.methods.wake_prompts.session import Answer, WakeOptions, WakeSession
from groundplan.methods.wake_prompts.vh import virtualhome_world
from groundplan.pddl.goal import parse_goal
from groundplan.sim.pipeline import build
from groundplan.world.wake_actions import ACTION_SETS, ActionSet, action_set
from groundplan.world.wake_env import environment_problems, environments_equal

FEEDBACK_MODES = ("none", "auto")
ENV_SOURCES = ("llm", "executor")


_OPT = WakeOptions()


@dataclass(frozen=True)
class WakeSettings:
    """The settings a run gives ``wake_prompts`` (``RunContext.config``), checked by
    ``config_from``; ``WakeConfig.from_mapping`` turns them into the method's configuration."""

    prompts: str = "project"
    feedback: Literal["none", "auto"] = "none"
    max_feedback: int = 5
    env_source: Literal["llm", "executor"] = "llm"
    constrained: bool = _OPT.constrained
    temperature: float = _OPT.temperature
    max_tokens: int = _OPT.max_tokens
    context_tokens: int = _OPT.context_tokens
    history_tokens: Optional[int] = _OPT.history_tokens
    pin_environment_before: bool = _OPT.pin_environment_before
    constraint: Literal["grammar", "json_schema"] = "grammar"
    units: bool = _OPT.units


@dataclass(frozen=True)
class WakeConfig:
    prompts: str = "project"
    feedback: str = "none"
    max_feedback: int = 5
    env_source: str = "llm"
    options: WakeOptions = WakeOptions()

    @classmethod
    def from_mapping(cls, cfg: Mapping[str, Any], *, seed: Optional[int] = 0) -> "WakeConfig":
        st = config_from(WakeSettings, cfg, owner="wake_prompts")
        opts = WakeOptions(constrained=st.constrained, temperature=st.temperature, seed=seed, max_tokens=st.max_tokens,
                           context_tokens=st.context_tokens, history_tokens=st.history_tokens,
                           pin_environment_before=st.pin_environment_before, constraint=st.constraint,
                           units=st.units)
        return cls(st.prompts, st.feedback, st.max_feedback, st.env_source, opts)


def make_world(task: Task) -> tuple[WakeWorld, Affordances | None]:
    """The task's world for its skill set (lfo scenes, VirtualHome graphs)."""
    if task.skillset == "lfo":
        pt = build(task.scene_file, skillset="lfo", strict=True)
        keep = task.extras.get("keep")
        return lfo_world(pt, keep=list(keep) if keep else None), None
    if task.skillset == "virtualhome":
        return virtualhome_world(task)
    raise ConfigError(f"wake_prompts: skill set '{task.skillset}' has no Wake et al. action set "
                      f"(available: {', '.join(ACTION_SETS)})")


def instructions_of(task: Task) -> list[str]:
    seq = task.extras.get("instructions")
    if seq:
        return [str(s) for s in seq]
    return [task.instruction]


@dataclass
class InstructionResult:
    instruction: str
    answer: Answer
    judgement: Judgement
    rounds: int  # feedback rounds used
    solved: bool  # executable and correct (when a goal is known)
    env_given: Mapping[str, Any]
    env_before_ok: Optional[bool]  # the answer's environment_before equals the environment given
    questions: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"instruction": self.instruction, "rounds": self.rounds, "solved": self.solved,
                "env_before_ok": self.env_before_ok, "questions": list(self.questions),
                **self.judgement.to_dict()}


class WakePlanner:
    """The method's loop over one task's instructions; shared by the benchmark method and
    by tests and benchmarks that need the per-instruction results."""

    def __init__(self, llm, world: WakeWorld, actions: ActionSet, prompts: PromptSet, config: WakeConfig, *,
                 affordances: Affordances | None = None, recorder: TraceRecorder | None = None, meter=None):
        self.world = world
        self.actions = actions
        self.prompts = prompts
        self.config = config
        self.recorder = recorder
        self.feedback = AutoFeedback(world, actions, affordances)
        self.session = WakeSession(llm, prompts, actions, world.environment(), options=config.options, meter=meter,
                                   on_call=self._on_call)
        self.facts = world.initial_facts

    def _on_call(self, purpose, msgs, completion) -> None:
        if self.recorder is not None:
            self.recorder.llm_call(purpose, {"messages": len(msgs), "last": msgs[-1].content}, completion)

    def _event(self, type_: str, **data: Any) -> None:
        if self.recorder is not None:
            self.recorder.event(type_, **data)

    def run_instruction(self, instruction: str, goal=None, required: tuple[str, ...] = ()) -> InstructionResult:
        env_given = self.session.environment
        answer = self.session.instruct(instruction)
        questions: list[str] = []
        rounds = 0
        while True:
            if answer.question:
                questions.append(answer.question)
                self._event("question", text=answer.question, round=rounds)
            j = execute_answer(self.world, self.actions, answer, self.facts, goal=goal, argless=self.prompts.argless,
                               required=required)
            self._event("plan", round=rounds, items=list(j.items), problems=list(answer.problems),
                        summary=answer.view.summary)
            for s in j.steps:
                self._event("step", index=s.index, action=s.step or s.item, ok=s.ok, reason=s.reason or None)
            fb = self.feedback.check(answer, j) if self.config.feedback == "auto" else None
            if fb is None or rounds >= self.config.max_feedback:
                break
            rounds += 1
            self._event("feedback", round=rounds, kind=fb.kind, text=fb.text)
            answer = self.session.correct(fb.text)
        before = answer.view.environment_before
        before_ok = environments_equal(before, env_given) if before is not None else None
        solved = j.executable and j.correct is not False
        self.facts = j.facts
        after = answer.view.environment_after
        if self.config.env_source == "executor" or after is None or environment_problems(after):
            next_env = j.env_after
        else:
            next_env = None  # the answer's environment_after (the paper)
        new_env = self.session.accept(next_env)
        self._event("environment", source="executor" if next_env is not None else "llm",
                    matches_executor=environments_equal(new_env, j.env_after) if j.env_after else None)
        return InstructionResult(instruction, answer, j, rounds, solved, env_given, before_ok, tuple(questions))


@register_method("wake_prompts")
class WakePrompts(Method):
    trace_types = ("question", "environment")
    skillsets = frozenset({"lfo", "virtualhome"})
    requirement = "Wake et al.'s prompts exist for the learning-from-observation and VirtualHome action sets"
    config_class = WakeSettings
    description = ("Wake et al.: six-turn JSON task planning with environment chaining and automatic feedback "
                   "(lfo and virtualhome action sets)")

    def _run(self, task: Task, ctx: RunContext, settings: Any, rec: EpisodeRecorder, pt: None) -> Attempt:
        cfg = WakeConfig.from_mapping(ctx.config, seed=ctx.seed)
        actions = action_set(task.skillset if task.skillset in ACTION_SETS else "")
        prompts = load_prompts(actions.name, cfg.prompts)
        world, aff = make_world(task)
        planner = WakePlanner(ctx.llm, world, actions, prompts, cfg, affordances=aff, recorder=rec, meter=rec.usage)
        goals = task.extras.get("step_goals") or []

        # one planning session per instruction, the environment chained from one to the next
        results: list[InstructionResult] = []
        seq = instructions_of(task)
        for i, ins in enumerate(seq):
            g = goals[i] if i < len(goals) and goals[i] else (task.goal if i == len(seq) - 1 else None)
            last = i == len(seq) - 1
            required = tuple(task.extras.get("required_actions") or ()) if last else ()
            results.append(planner.run_instruction(ins, parse_goal(g) if g else None, required))
        final = results[-1].judgement
        executable = all(r.judgement.executable for r in results)
        correct = final.correct
        success = executable and correct is not False
        planned = sum(r.judgement.planned for r in results)
        executed = sum(r.judgement.executed for r in results)
        env_matches = [r.judgement.env_match for r in results if r.judgement.env_match is not None]
        metrics = {
            "executable": executable, "correct": correct, "feedback_rounds": sum(r.rounds for r in results),
            "rounds": [r.rounds for r in results], "solved": [r.solved for r in results],
            **step_metrics(executed, planned, success), "gcr": final.goal.gcr if final.goal else None,
            "cost": float(executed),
            "env_match": sum(env_matches) / len(env_matches) if env_matches else None,
            "env_before_ok": all(r.env_before_ok is not False for r in results),
            "questions": sum(len(r.questions) for r in results), "instructions": len(results),
            "history_used": list(planner.session.history_used), "prompts": prompts.name,
        }
        rec.event("result", success=success, executable=executable, correct=correct,
                  **{k: v for k, v in metrics.items() if k not in ("executable", "correct")})
        err = None
        if not success:
            f = next((r.judgement.failed for r in results if r.judgement.failed), None)
            err = f"{f.item}: {f.reason}" if f else ("goal not reached" if correct is False else "no executable plan")
        return Attempt.executed(success, tuple(i for r in results for i in r.judgement.items), goal=task.goal,
                                metrics=metrics, error=err)


__all__ = ["WakePrompts", "WakePlanner", "WakeConfig", "InstructionResult", "make_world", "instructions_of"]
