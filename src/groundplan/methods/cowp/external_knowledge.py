"""``cowp_ek``: COWP's External Knowledge baseline (after Jiang et al. 2019): a closed-world
planner that acquires knowledge from an external source, "in our implementation, this
external source provides information about a half of the domain objects" (paper Sec. 4.2).

The robot plans and executes like Closed World. When an action fails, it takes the
situation it perceives as the cause: the object the situation names (found by word, as
COWP's code does) gets a rule-made predicate, negated in the failed action's precondition
(``(not (cup_is_dirty ?c))``), and the robot replans. If there is no plan it looks the
disabled object up in its knowledge base: which available objects can take its part, which
appliance can undo the situation. The knowledge base is the acceptability table, but only
for a random half of the objects and appliances (drawn per trial); it has no common sense
about anything else and no plan monitor - it learns of a situation only from a failure."""

from __future__ import annotations

import random
from typing import ClassVar, Optional, Sequence

from groundplan.core.datasets.cowp.spec import APPLIANCES_FILE, word_list
from groundplan.core.task import Task
from groundplan.llm.types import UsageMeter
from groundplan.methods.base import EpisodeStatus, RunContext, TraceRecorder, register_method

from .advisor import locate_by_word
from .common import CowpFamilyMethod, Ending
from .cowp import MAX_FAILURES, CowpLimits, CowpRun
from .knowledge import Knowledge
from .replay import rule_predicate
from .world import Observation, SituationWorld, Trial


class KnowledgeBase:
    """The acceptability table, restricted to the objects it covers."""

    name = "external knowledge"

    def __init__(self, trial: Trial, covered: set[str]):
        self.trial = trial
        self.covered = covered

    def object_ok(self, sentences: Sequence[str], word: str, obs: Observation) -> bool:
        role = obs.situation.target
        return word in self.covered and role is not None and word in self.trial.spec.accepted(role)

    def pick_object(self, words: Sequence[str], role: str, obs: Observation) -> Optional[str]:
        return words[0] if words else None

    def appliance_ok(self, word: str, obs: Observation) -> bool:
        return word in self.covered and word in obs.situation.fixers

    def pick_appliance(self, words: Sequence[str], obs: Observation) -> Optional[str]:
        return words[0] if words else None


def covered_half(trial: Trial, seed: int) -> set[str]:
    words = sorted(set(word_list(trial.spec.candidates_file)) | set(word_list(APPLIANCES_FILE)))
    rng = random.Random(f"cowp-ek:{trial.setup.seed}:{seed}")
    return set(rng.sample(words, len(words) // 2))


@register_method("cowp_ek")
class ExternalKnowledge(CowpFamilyMethod):
    needs_llm = False
    needs_planner = True
    description = "COWP baseline EK: closed-world planning + a knowledge base covering half of the objects"
    prompt_package: ClassVar[Optional[str]] = None

    def attempt(self, task: Task, ctx: RunContext, trial: Trial, world: SituationWorld, rec: TraceRecorder,
                meter: UsageMeter) -> Ending:
        kb = KnowledgeBase(trial, covered_half(trial, ctx.seed))
        helper = CowpRun(trial, world, kb, ctx.planner, rec,  # type: ignore[arg-type]
                         random.Random(f"cowp-ek-route:{trial.setup.seed}:{ctx.seed}"), ctx.planner_timeout,
                         CowpLimits(max_steps=ctx.limits.episode_max_steps))
        k = Knowledge.from_trial(trial)
        failures, error, status = 0, None, None
        plan: list[str] = []
        repaired: set[str] = set()
        while len(world.executed) + len(world.failures) < ctx.limits.episode_max_steps:
            if not plan:
                new = helper.plan(k, "replan")
                if new is None:
                    status, error = EpisodeStatus.NO_PLAN, error or "no plan"
                    break
                if not new:
                    break
                plan = list(new)
            step = plan.pop(0)
            base = k.to_base(step)
            seen = world.observe(base)
            r = world.apply(base)
            rec.event("step", action=r.step, ok=r.ok, reason=r.reason or None)
            if r.ok:
                k = k.apply(step)
                if not plan and k.goal_holds():
                    break
                continue
            remaining = (step, *plan)
            plan = []
            failures += 1
            if failures > MAX_FAILURES:
                error = r.reason
                break
            obs = seen[0] if seen else None
            if obs is None or obs.situation.key in repaired:
                continue
            repaired.add(obs.situation.key)
            k, outcome = self.repair(helper, trial, k, remaining, obs)
            rec.event("note", text=f"external knowledge: {outcome}")
            if outcome == "no solution":
                status, error = EpisodeStatus.NO_PLAN, f"no solution for '{obs.text.rstrip('.')}'"
                break
        return Ending(error, status, {"plans": helper.plans, "routes": helper.routes,
                                      "knowledge_changes": list(k.changes), "kb_covered": len(kb.covered),
                                      "tool_calls": helper.plans}, world.executed)

    @staticmethod
    def repair(helper: CowpRun, trial: Trial, k: Knowledge, remaining: tuple[str, ...],
               obs: Observation) -> tuple[Knowledge, str]:
        failed = remaining[0]
        target = locate_by_word(trial, obs, [k.to_base(s) for s in remaining])
        if target is None:
            word = obs.object.replace(" ", "_")
            target = f"{word}_sit"
            if target not in k.objects:
                k = k.with_object(target, word)
        k2, pred = k.with_precondition(failed, rule_predicate(obs.text), target)
        if helper.plan(k2, "constraint added") is not None:
            return k2, "constraint"
        options = [o for o in (helper.acquire_object(k2, pred, target, obs, remaining),
                               helper.acquire_appliance(k2, pred, target, obs)) if o is not None]
        if not options:
            return k2, "no solution"
        pick = options[0] if len(options) == 1 else helper.rng.choice(options)
        return pick.knowledge or k2, pick.route or "?"
