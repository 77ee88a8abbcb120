"""``autogpt_p`` and its variants as harness methods.

What an episode runs depends on the task, as in the paper's evaluation:
- a task with a missing object and allowed alternatives (the substitution sets) runs the
  Suggest Alternative tool alone (Table III);
- a tool-selection scenario (``min_tool_calls`` / ``explored`` in its extras: the five
  autogptp_* sets) runs the full feedback loop (Alg. 1, Table VII);
- any other task with a goal (the SayCan set, the plan-tool sets, your own tasks) runs the
  Plan tool alone (Alg. 3, Tables IV-VI), all objects known.

Variants: ``autogpt_p_no_correction`` (Alg. 3 without the correction rounds) and
``autogpt_p_naive_alternative`` (the paper's naive alternative suggestion). The run's method
configuration (``RunContext.config``) overrides any ``AutoGPTPConfig`` field.

With the ``autogptp-replay`` LLM backend each episode first selects its recorded case
(by task), and the episode's metrics say whether the recorded run was replayed faithfully."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar, Optional

from groundplan.core.metrics import step_metrics
from groundplan.core.task import Task
from groundplan.errors import GoalError, GroundplanError
from groundplan.llm.errors import LLMEndpointError, LLMError, ReplayMissError
from groundplan.llm.types import UsageMeter
from groundplan.methods.autogpt_p.alternative import alternative_suggestion, naive_alternative
from groundplan.methods.autogpt_p.config import AutoGPTPConfig
from groundplan.methods.autogpt_p.dialogue import Dialogue, backend_context
from groundplan.methods.autogpt_p.loop import FeedbackLoop, initial_memory
from groundplan.methods.autogpt_p.memory import Memory, SimulatedUser
from groundplan.methods.autogpt_p.plan_tool import original_conditions, planning_with_self_correction
from groundplan.methods.autogpt_p.replay import find_replay
from groundplan.methods.base import (
    Attempt,
    EpisodeRecorder,
    EpisodeStatus,
    Method,
    RunContext,
    TraceRecorder,
    execute_and_score,
    register_method,
)
from groundplan.pddl.goal import parse_goal
from groundplan.pddl.state import evaluate_goal
from groundplan.sim.pipeline import _oam, build
from groundplan.skills.skillset import load_skillset
from groundplan.world import load_scene

MODES = ("plan", "loop", "alternative")


def task_mode(task: Task) -> str:
    """Which part of AutoGPT+P a task exercises (see the module docstring)."""
    ex = task.extras or {}
    if ex.get("missing_object") and "alternatives" in ex:
        return "alternative"
    if "min_tool_calls" in ex or "explored" in ex:
        return "loop"
    return "plan"


def gold_goal(text: str):
    """The task's goal; a row with surplus closing parentheses (autogptp_partial row 2:
    ``and (inhand apple0 human0))``) is read without them."""
    try:
        return parse_goal(text)
    except GoalError:
        t = text.strip()
        while t.endswith(")") and t.count(")") > t.count("("):
            t = t[:-1].rstrip()
        return parse_goal(t)


class AutoGPTPBase(Method):
    needs_llm: ClassVar[bool] = True
    needs_planner: ClassVar[bool] = True
    skillsets: ClassVar[Optional[frozenset[str]]] = frozenset({"household"})
    requirement: ClassVar[str] = "AutoGPT+P plans over its household capabilities and an object-affordance map"
    prompt_package: ClassVar[Optional[str]] = "groundplan.prompts.autogpt_p"
    config_class = AutoGPTPConfig
    default_config: ClassVar[AutoGPTPConfig] = AutoGPTPConfig()

    def config(self, ctx: RunContext) -> AutoGPTPConfig:
        return self.configure(ctx.config)

    def dialogue(self, ctx: RunContext, cfg: AutoGPTPConfig, meter: UsageMeter, rec: TraceRecorder) -> Dialogue:
        assert ctx.llm is not None
        # "auto": constrained wherever the grammar reaches the decoder (embedded, llama.cpp / vLLM
        # servers, a transcript recorded with grammars), so every route sends the same request
        constrained = cfg.goal_mode == "constrained" or (cfg.goal_mode == "auto"
                                                          and bool(getattr(ctx.llm, "supports_grammar", False)))
        context = cfg.context_tokens or backend_context(ctx.llm)
        return Dialogue(ctx.llm, meter, rec, constrained, context, cfg.max_tokens, ctx.seed)

    # ------------------------------------------------------------------ run

    def _run(self, task: Task, ctx: RunContext, cfg: AutoGPTPConfig, rec: EpisodeRecorder, pt: None) -> Attempt:
        mode = task_mode(task)
        replay = find_replay(ctx.llm)
        try:
            if replay is not None:
                self._begin_replay(replay, task, mode, cfg)
            d = self.dialogue(ctx, cfg, rec.usage, rec)
            if mode == "alternative":
                attempt = self.run_alternative(task, ctx, cfg, d)
            elif mode == "loop":
                attempt = self.run_loop(task, ctx, cfg, d)
            else:
                attempt = self.run_plan_tool(task, ctx, cfg, d)
        except ReplayMissError as exc:
            attempt = Attempt.ended(EpisodeStatus.ERROR, f"replay: {exc}")
        except GroundplanError as exc:
            attempt = Attempt.ended(EpisodeStatus.ERROR, str(exc))
        metrics = dict(attempt.metrics)
        metrics["mode"] = mode
        if replay is not None:
            report = replay.end_case()
            if report is not None:
                metrics["replay"] = report.to_dict()
                metrics["replay_faithful"] = report.faithful
        # the harness stores its own metric columns; the method's own (mode, replay report,
        # the original's minimal definitions, tools) travel in the trace's last event
        rec.event("note", what="autogpt_p", **{k: v for k, v in metrics.items() if k not in ("gcr",)})
        return replace(attempt, metrics=metrics)

    def _begin_replay(self, replay, task: Task, mode: str, cfg: AutoGPTPConfig) -> None:
        objects: list[str] = []
        facts: list[str] = []
        missing = None
        if mode == "plan":
            pt = build(task.scene_file, skillset=task.skillset, oam_file=cfg.oam_file or task.oam_file, strict=False)
            objects = list(pt.problem.objects)
            facts = [" ".join((f.predicate, *f.args)) for f in pt.problem.init]
        elif mode == "loop":
            mem = self._memory(task)
            objects, facts = mem.object_names(), mem.relations()
        else:
            missing = task.extras.get("missing_object")
        line = None
        tail = (task.source or "").rsplit(":", 1)[-1]
        if tail.isdigit():
            line = int(tail)
        replay.begin_case(mode, task.subset, task.instruction, objects=objects, facts=facts, missing=missing,
                          variant=cfg.alternative, line=line)

    # ------------------------------------------------------------------ the Plan tool (Tables IV-VI)

    def run_plan_tool(self, task: Task, ctx: RunContext, cfg: AutoGPTPConfig, d: Dialogue) -> Attempt:
        assert ctx.planner is not None and d.recorder is not None
        pt = build(task.scene_file, skillset=task.skillset, oam_file=cfg.oam_file or task.oam_file, strict=False)
        try:
            out = planning_with_self_correction(
                d, pt, task.instruction, ctx.planner, max_rounds=cfg.rounds(in_loop=False),
                self_correction=cfg.self_correction, allow_hidden=cfg.allow_hidden_predicates,
                timeout=ctx.planner_timeout, robot=cfg.robot_name, example=cfg.goal_example,
                conditions=original_conditions() if cfg.semantic_conditions == "original" else None)
        except LLMEndpointError:
            raise  # the endpoint failed (HTTP error, timeout, context too long): an error episode, not "no plan"
        except LLMError as exc:
            out = None
            llm_error: Optional[str] = str(exc)
        else:
            llm_error = None
        metrics: dict[str, Any] = {"tool_calls": 1}
        plan: tuple[str, ...] = ()
        if out is not None:
            metrics.update(rounds=out.rounds, corrections=len(out.feedback), plan_status=out.status)
        if out is not None and out.solved:
            score = execute_and_score(pt, out.plan, task, d.recorder, own_goal=out.goal_text)
            plan = out.plan
            metrics.update(score.metrics())
            success = bool(score.success)
            status = EpisodeStatus.SUCCESS if success else EpisodeStatus.FAILURE
            error = None if success else (score.failure or "goal not reached")
        else:
            # no plan: the initial state is the final state (an already-true goal passes)
            success = bool(task.goal) and evaluate_goal(gold_goal(task.goal), pt.domain, pt.problem,
                                                        pt.problem.init).success
            metrics.update(cost=0.0, **step_metrics(0, 0, success), checked=bool(task.goal))
            status = EpisodeStatus.SUCCESS if success else {
                "unsolvable": EpisodeStatus.UNSOLVABLE, "timeout": EpisodeStatus.TIMEOUT,
                "error": EpisodeStatus.ERROR}.get(out.status if out else "", EpisodeStatus.NO_PLAN)
            error = None if success else (llm_error or (out.error if out else None) or "no plan")
        min_costs = task.extras.get("min_costs")
        metrics["minimal_original"] = bool(success and min_costs is not None
                                           and float(metrics.get("cost") or 0.0) <= float(min_costs))
        d.recorder.event("result", success=success, goal=out.goal_text if out else None)
        return Attempt.executed(success, plan, goal=out.goal_text if out else None, metrics=metrics, error=error,
                                status=status)

    # ------------------------------------------------------------------ Suggest Alternative (Table III)

    def run_alternative(self, task: Task, ctx: RunContext, cfg: AutoGPTPConfig, d: Dialogue) -> Attempt:
        assert d.recorder is not None
        scene = load_scene(task.scene_file, strict=False)
        mem = Memory(world=scene, explored=None, request=task.instruction)
        classes = mem.classes()
        missing = str(task.extras["missing_object"])
        try:
            if cfg.alternative == "naive":
                res = naive_alternative(d, missing, classes, task.instruction)
            else:
                res = alternative_suggestion(d, missing, classes, task.instruction, self._oam(task, cfg))
        except LLMEndpointError:
            raise
        except LLMError as exc:
            return Attempt.ended(EpisodeStatus.NO_PLAN, f"LLM: {exc}")
        allowed = list(task.extras.get("alternatives") or ())
        ok = res.alternative in allowed
        d.recorder.event("result", success=ok, alternative=res.alternative, allowed=allowed, path=res.path)
        return Attempt.executed(ok, metrics={"alternative": res.alternative, "path": res.path,
                                             "relevant": list(res.relevant), "rarest": res.rarest,
                                             "candidates": list(res.candidates), "tool_calls": 1},
                                error=f"suggested {res.alternative!r}, allowed {allowed}")

    # ------------------------------------------------------------------ the loop (Table VII)

    @staticmethod
    def _oam(task: Task, cfg: Optional[AutoGPTPConfig] = None):
        return _oam(cfg.oam_file if cfg is not None and cfg.oam_file else task.oam_file)

    @staticmethod
    def _memory(task: Task) -> Memory:
        world = load_scene(task.scene_file, strict=False)
        explored_list = [e for e in (task.extras.get("explored") or []) if e]
        explored = None if (not explored_list or "all" in explored_list) else frozenset(explored_list)
        return initial_memory(world, explored, task.instruction)

    def run_loop(self, task: Task, ctx: RunContext, cfg: AutoGPTPConfig, d: Dialogue) -> Attempt:
        assert ctx.planner is not None and d.recorder is not None
        skillset = load_skillset(task.skillset)
        oam = self._oam(task, cfg)
        user = SimulatedUser.from_file(task.extras.get("substitutions_file"))
        loop = FeedbackLoop(d, skillset, oam, ctx.planner, user, cfg, ctx.planner_timeout)
        out = loop.run(self._memory(task))
        mem = out.memory
        wt = mem.world_task(skillset, oam)
        success = False
        gcr = None
        if task.goal:
            rep = evaluate_goal(gold_goal(task.goal), wt.domain, wt.problem, mem.world.facts)
            success, gcr = rep.success, rep.gcr
        # without a check goal: whether the goal of the loop's last full Plan holds (verdict
        # "goal holds (unverified)")
        own_goal = next((e.get("goal") for e in reversed(d.recorder.events) if e.get("type") == "result"
                         and e.get("status") == "executed" and e.get("goal")), None) \
            if out.ended_by == "plan" else None
        own_held = None
        if not task.goal and own_goal:
            own_held = evaluate_goal(gold_goal(own_goal), wt.domain, wt.problem, mem.world.facts).success
        d.recorder.event("result", success=success, ended_by=out.ended_by, tools=[t.tool for t in out.tools],
                         cost=mem.cost)
        min_costs = task.extras.get("min_costs")
        min_tools = task.extras.get("min_tool_calls")
        metrics = {
            "tool_calls": len(out.tools), "tools": [f"{t.tool} {t.parameter}".strip() for t in out.tools],
            "ended_by": out.ended_by, "cost": mem.cost, "last_plan_cost": mem.last_plan_cost, "gcr": gcr,
            **step_metrics(len(mem.executed), len(mem.executed), success),
            "alternatives": [f"{a}->{b}" for a, b in mem.alternatives], "request": mem.request,
            # the original's own definitions (its logs): plan costs minimal = last plan's cost
            # <= min_costs; tool costs minimal = tool calls <= min_tool_calls
            "minimal_original": bool(success and min_costs is not None and mem.last_plan_cost <= float(min_costs)),
            "minimal_tools_original": bool(success and min_tools is not None and len(out.tools) <= int(min_tools)),
            "checked": bool(task.goal), "own_goal_held": own_held,
        }
        if success:
            status = EpisodeStatus.SUCCESS
        elif mem.executed:
            status = EpisodeStatus.FAILURE
        else:
            status = EpisodeStatus.NO_PLAN
        return Attempt.executed(success, mem.executed, goal=task.goal or own_goal, metrics=metrics,
                                error=out.error or f"goal not reached (loop ended by {out.ended_by})", status=status)


@register_method("autogpt_p")
class AutoGPTP(AutoGPTPBase):
    description = ("AutoGPT+P (Birr et al.): OAM scene, LLM goal + Fast Downward with self-correction, "
                   "Partial Plan / Explore / Suggest Alternative, tool-selection loop")


@register_method("autogpt_p_no_correction")
class AutoGPTPNoCorrection(AutoGPTPBase):
    description = "AutoGPT+P without self-correction (one goal per Plan-tool call; Tables V/VI)"
    default_config = AutoGPTPConfig(self_correction=False)


@register_method("autogpt_p_naive_alternative")
class AutoGPTPNaiveAlternative(AutoGPTPBase):
    description = "AutoGPT+P with the paper's naive alternative suggestion (Table III baseline)"
    default_config = AutoGPTPConfig(alternative="naive")


__all__ = ["AutoGPTP", "AutoGPTPNoCorrection", "AutoGPTPNaiveAlternative", "AutoGPTPBase", "task_mode", "MODES"]
