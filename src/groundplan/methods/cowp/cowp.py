"""``cowp``: Algorithm 1 of Ding et al. - classical planning whose action knowledge is
augmented at run time by a plan monitor and a knowledge acquirer.

    compute a plan with the task planner (Fast Downward)
    for each action: if a situation is perceived, the plan monitor asks, for the remaining
        actions in order, "is it suitable ... if [situation]?"; at the first "no":
        add the negated situation predicate to that action's precondition, update the
        state, replan;
        if there is no plan: the knowledge acquirer asks which available objects can take
        the disabled object's part (prompt 2 for each of its actions, prompt 3 to choose
        among several) and which appliance can undo the situation, adds the new action
        effect and replans; "no solution" when nothing is left
    otherwise execute the action

Registered variants (same algorithm, other sources of common sense):

* ``cowp``: the run's LLM (``--llm embedded`` / ``openai``);
* ``cowp_gpt3``: GPT-3's answers logged by GPT-Planner (replay), the run's LLM - or fixed
  defaults without ``--llm`` - for prompts the log does not hold;
* ``cowp_oracle``: the acceptability table (an oracle LLM): handles every situation the
  robot's skills allow.

As in GPT-Planner, both acquisition routes (another object, an appliance) are asked; when
both give a plan one is chosen at random (seeded)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, ClassVar, Optional

from groundplan.core.task import Task
from groundplan.limits import current as current_limits
from groundplan.llm.types import UsageMeter
from groundplan.methods.base import EpisodeStatus, RunContext, TraceRecorder, register_method

from .advisor import Advisor, LLMAdvisor, OracleAdvisor
from .common import CowpFamilyMethod, Ending, LLMCaller, replace_word, sentence, words_in
from .knowledge import Knowledge
from .replay import CowpDefaultLLM, CowpReplayLLM
from .world import Observation, SituationWorld, Trial, parse_step

MAX_FAILURES = 3
MAX_HANDLINGS = 3


@dataclass(frozen=True)
class CowpLimits:
    """How long one COWP episode may go on (steps, failed actions, situations handled); not
    the process-wide resource bounds of ``groundplan.limits``."""

    #: the run's episode_max_steps (``RunContext.limits``; default: the limit in force)
    max_steps: int = field(default_factory=lambda: current_limits().episode_max_steps)
    max_failures: int = MAX_FAILURES
    max_handlings: int = MAX_HANDLINGS


@dataclass(frozen=True)
class Handling:
    """What COWP did about an observation: carried on, replanned (new knowledge, new plan), or
    found no solution."""

    kind: str  # continue | replanned | no_solution
    knowledge: Optional[Knowledge] = None
    plan: tuple[str, ...] = ()
    route: Optional[str] = None


@dataclass
class CowpRun:
    """One COWP episode in the hidden world."""

    trial: Trial
    world: SituationWorld
    advisor: Advisor
    planner: Any
    rec: TraceRecorder
    rng: random.Random
    timeout: Optional[float] = None
    limits: CowpLimits = field(default_factory=CowpLimits)
    monitor_questions: int = 0
    constraints: int = 0
    routes: list[str] = field(default_factory=list)
    no_solution: bool = False
    plans: int = 0
    _predicates: dict[str, str] = field(default_factory=dict)

    def plan(self, k: Knowledge, why: str) -> Optional[tuple[str, ...]]:
        res = k.plan(self.planner, self.timeout)
        self.plans += 1
        self.rec.event("plan", why=why, status=res.status.value, steps=list(res.plan), seconds=round(res.seconds, 4))
        return tuple(res.plan) if res.solved else None

    # ------------------------------------------------------------------ Algorithm 1
    def run(self) -> tuple[Knowledge, Optional[str]]:
        k = Knowledge.from_trial(self.trial)
        plan = self.plan(k, "initial")
        if plan is None:
            return k, "the closed-world planner found no plan"
        i, version, failures, handlings, steps = 0, 0, 0, 0, 0
        monitored: set[tuple[str, int]] = set()
        while i < len(plan) and steps < self.limits.max_steps:
            step = plan[i]
            base = k.to_base(step)
            for obs in self.world.observe(base):
                if (obs.situation.key, version) in monitored or handlings >= self.limits.max_handlings:
                    continue
                monitored.add((obs.situation.key, version))
                self.rec.event("situation", text=obs.text, step=base, new=obs.new)
                out = self.handle(obs, k, plan, i)
                if out.kind == "continue":
                    continue
                handlings += 1
                if out.kind == "no_solution":
                    self.no_solution = True
                    self.rec.event("note", text="no solution")
                    return k, f"no solution for '{obs.text.rstrip('.')}'"
                k, plan, i, version = out.knowledge, out.plan, 0, version + 1  # type: ignore[assignment]
                break
            else:
                r = self.world.apply(base)
                steps += 1
                self.rec.event("step", index=len(self.world.executed) - (1 if r.ok else 0), action=r.step,
                               ok=r.ok, reason=r.reason or None)
                if r.ok:
                    k = k.apply(step)
                    i += 1
                    continue
                failures += 1
                if failures > self.limits.max_failures:
                    return k, r.reason
                again = self.plan(k, f"after failure: {r.reason}")
                if again is None:
                    return k, r.reason
                plan, i, version = again, 0, version + 1
                continue
        return k, None

    # ------------------------------------------------------------------ plan monitor
    def handle(self, obs: Observation, k: Knowledge, plan: tuple[str, ...], i: int) -> Handling:
        flagged = None
        for step in plan[i:]:
            base = k.to_base(step)
            if parse_step(base)[0] in ("walk", "operate"):  # GPT-Planner checks only object actions
                continue
            self.monitor_questions += 1
            ok = self.advisor.suitable(sentence(self.trial, base), base, obs)
            self.rec.event("monitor", action=base, suitable=ok)
            if not ok:
                flagged = step
                break
        if flagged is None:
            return Handling("continue")
        target = self.advisor.locate(obs, [k.to_base(s) for s in plan])
        if target is None:  # something the task does not model (water, power): a new object of a new type
            word = obs.object.replace(" ", "_")
            target = f"{word}_sit"
            if target not in k.objects:
                k = k.with_object(target, word)
        pred = self._predicates.get(obs.situation.key)
        if pred is None:
            pred = self.advisor.predicate(obs)
            self._predicates[obs.situation.key] = pred
        k2, pred = k.with_precondition(flagged, pred, target)
        self.constraints += 1
        self.rec.event("knowledge", change="precondition", action=parse_step(flagged)[0],
                       pddl=k2.action_pddl(parse_step(flagged)[0]), belief=f"({pred} {target})")
        new = self.plan(k2, "constraint added")
        if new is not None:
            self.routes.append("replan")
            return Handling("replanned", k2, new, "replan")
        # ------------------------------------------------------------ knowledge acquirer
        options = [o for o in (self.acquire_object(k2, pred, target, obs, plan),
                               self.acquire_appliance(k2, pred, target, obs)) if o is not None]
        if not options:
            return Handling("no_solution")
        pick = options[0] if len(options) == 1 else self.rng.choice(options)
        self.routes.append(pick.route or "?")
        return pick

    def acquire_object(self, k: Knowledge, pred: str, target: str, obs: Observation,
                       plan: tuple[str, ...]) -> Optional[Handling]:
        if target == self.trial.robot or not self.trial.spawned:
            return None
        word = self.trial.word(target) if target in self.trial.problem.objects else obs.object
        sentences = []
        for s in plan:
            base = k.to_base(s)
            if parse_step(base)[0].startswith("find"):
                continue
            text = sentence(self.trial, base)
            if words_in(text, word) and text not in sentences:
                sentences.append(text)
        if not sentences:
            self.rec.event("acquire", route="object", capable=[], note=f"no plan action names the {word}")
            return None
        capable = [w for w in self.trial.spawned.values()
                   if self.advisor.object_ok([replace_word(s, word, w) for s in sentences], w, obs)]
        chosen = capable[0] if len(capable) == 1 else (self.advisor.pick_object(capable, word, obs) if capable else None)
        self.rec.event("acquire", route="object", capable=capable, chosen=chosen)
        if chosen is None:
            return None
        obj = next(o for o, w in self.trial.spawned.items() if w == chosen)
        k3 = k.with_role(obj, like=target, exclude=pred)
        self.rec.event("knowledge", change="effect", object=obj, role=k.type_of(target),
                       facts=list(k3.changes[-1]["facts"]))
        new = self.plan(k3, f"{chosen} can be a {word}")
        return Handling("replanned", k3, new, "object") if new is not None else None

    def acquire_appliance(self, k: Knowledge, pred: str, target: str, obs: Observation) -> Optional[Handling]:
        if not self.trial.appliances:
            return None
        capable = [w for w in self.trial.appliances.values() if self.advisor.appliance_ok(w, obs)]
        chosen = capable[0] if len(capable) == 1 else (self.advisor.pick_appliance(capable, obs) if capable else None)
        self.rec.event("acquire", route="appliance", capable=capable, chosen=chosen)
        if chosen is None:
            return None
        app = next(o for o, w in self.trial.appliances.items() if w == chosen)
        k4 = k.with_fixer(app, pred, target)
        self.rec.event("knowledge", change="appliance effect", appliance=app,
                       pddl=k4.action_pddl(f"operate_{pred}") if f"operate_{pred}" in k4.domain.action_map else None)
        new = self.plan(k4, f"a {chosen} can make {obs.opposite.rstrip('.')}")
        return Handling("replanned", k4, new, "appliance") if new is not None else None


class CowpBase(CowpFamilyMethod):
    """COWP with common sense from ``advisor()``."""

    description = "COWP (Ding et al.): plan monitor + knowledge acquirer around Fast Downward"
    needs_planner = True
    prompt_package: ClassVar[Optional[str]] = "groundplan.prompts.cowp"

    def advisor(self, trial: Trial, world: SituationWorld, caller: Optional[LLMCaller]) -> Advisor:
        assert caller is not None
        return LLMAdvisor(trial, caller)

    def llm_for(self, task: Task, ctx: RunContext) -> Any:
        return ctx.llm

    def attempt(self, task: Task, ctx: RunContext, trial: Trial, world: SituationWorld, rec: TraceRecorder,
                meter: UsageMeter) -> Ending:
        llm = self.llm_for(task, ctx)
        caller = LLMCaller(llm, meter, rec) if llm is not None else None
        run = CowpRun(trial, world, self.advisor(trial, world, caller), ctx.planner, rec,
                      random.Random(f"cowp-route:{trial.setup.seed}:{ctx.seed}"), ctx.planner_timeout,
                      CowpLimits(max_steps=ctx.limits.episode_max_steps))
        k, error = run.run()
        metrics = {"monitor_questions": run.monitor_questions, "constraints": run.constraints,
                   "llm_sources": caller.sources if caller else {},
                   "llm_coverage": caller.coverage() if caller else None,
                   "routes": run.routes, "no_solution": run.no_solution, "plans": run.plans,
                   "knowledge_changes": list(k.changes), "tool_calls": run.plans}
        return Ending(error, EpisodeStatus.NO_PLAN if run.no_solution else None, metrics, world.executed)


@register_method("cowp")
class Cowp(CowpBase):
    needs_llm = True
    description = "COWP (Ding et al.): plan monitor + knowledge acquirer around Fast Downward, the run's LLM"


@register_method("cowp_gpt3")
class CowpGPT3(CowpBase):
    needs_llm = False
    description = ("COWP answering from GPT-3's logged answers (GPT-Planner experience files); the run's LLM, "
                   "or fixed defaults, where the log has no answer")
    def __init__(self) -> None:
        self._replay: Any = None  # the experience tables, read once per worker

    def llm_for(self, task: Task, ctx: RunContext) -> Any:
        if self._replay is None:
            self._replay = CowpReplayLLM()
        return self._replay.for_task(int(task.extras["cowp_task"]),
                                         fallback=ctx.llm if ctx.llm is not None else CowpDefaultLLM())


@register_method("cowp_oracle")
class CowpOracle(CowpBase):
    needs_llm = False
    description = "COWP with an oracle for common sense (the project's acceptability table)"

    def advisor(self, trial: Trial, world: SituationWorld, caller: Optional[LLMCaller]) -> Advisor:
        return OracleAdvisor(trial)

    def llm_for(self, task: Task, ctx: RunContext) -> Any:
        return None


__all__ = ["CowpRun", "CowpBase", "Cowp", "CowpGPT3", "CowpOracle", "CowpLimits"]
