"""What every COWP-family method shares: the trial and its hidden world from a task row,
COWP's action sentences, LLM calls with their trace, yes/no parsing, and the episode."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Optional, Sequence

from groundplan.core.config import NoSettings
from groundplan.core.datasets.cowp.spec import nl_word
from groundplan.core.task import Task
from groundplan.llm.errors import LLMUnsupportedError
from groundplan.llm.types import UsageMeter
from groundplan.methods.base import Attempt, EpisodeRecorder, EpisodeStatus, Method, RunContext, TraceRecorder
from groundplan.prompts.cowp import actions_data

from .world import SituationWorld, Trial, parse_step, trial_for

#: trace event types the COWP methods add
EXTRA_EVENTS = ("knowledge", "monitor", "acquire")


def sentence(trial: Trial, step: str) -> str:
    """COWP's words for a (base) action: ``fill_cup cup1 faucet0 kitchen robot0`` ->
    ``a robot fills a cup with water from faucet.``"""
    name, args = parse_step(step)
    templates = actions_data()["sentences"][trial.spec.id]
    tmpl = templates.get(name)
    act = trial.domain.action_map.get(name)
    if tmpl is None or act is None:
        return f"a robot does {name.replace('_', ' ')} " + " ".join(trial.word(a) for a in args) + "."
    slots = {p.name.lstrip("?"): trial.word(a) for p, a in zip(act.parameters, args)}
    try:
        return tmpl.format(**slots)
    except (KeyError, IndexError):
        return tmpl


def yes_no(text: str) -> Optional[bool]:
    """A yes/no answer: True, False, or None when it says neither."""
    t = text.strip().lower()
    if t.startswith("yes"):
        return True
    if t.startswith("no"):
        return False
    if re.search(r"\b(no|not|cannot|can't|isn't|shouldn't|unsuitable|never)\b", t):
        return False
    if re.search(r"\b(yes|suitable|can|should)\b", t):
        return True
    return None


@dataclass
class LLMCaller:
    """One episode's LLM access: every call is metered and traced."""

    llm: Any
    meter: UsageMeter
    rec: TraceRecorder
    max_tokens: int = 32
    stop: tuple[str, ...] = ("\n",)
    calls: list[str] = field(default_factory=list)
    sources: dict[str, dict[str, int]] = field(default_factory=dict)  # purpose -> answer source -> n

    def ask(self, purpose: str, prompt: str, *, max_tokens: Optional[int] = None,
            stop: Optional[Sequence[str]] = None) -> str:
        c = self.llm.chat(prompt, max_tokens=max_tokens or self.max_tokens, temperature=0.0,
                          stop=tuple(self.stop if stop is None else stop), usage=self.meter)
        self.rec.llm_call(purpose, prompt, c)
        self.calls.append(purpose)
        src = c.usage.source if c.finish_reason != "replay-approximate" else "replay-approximate"
        by = self.sources.setdefault(purpose, {})
        by[src] = by.get(src, 0) + 1
        return c.text.strip()

    def ask_format(self, purpose: str, prompt: str, grammar: str, *, max_tokens: int) -> str:
        """A completion held to an output format (a GBNF grammar of the format only - no
        objects or actions of the scene): a chat-tuned model does not continue a
        completion-style prompt (LMZSP's "Step 1:", ProgPrompt's function body) the way
        GPT-3 did. Backends without grammars get the plain prompt."""
        try:
            c = self.llm.constrained(prompt, grammar=grammar, max_tokens=max_tokens, temperature=0.0,
                                     usage=self.meter, validate=False)
        except LLMUnsupportedError:
            return self.ask(purpose, prompt, max_tokens=max_tokens, stop=())
        self.rec.llm_call(purpose, prompt, c)
        self.calls.append(purpose)
        by = self.sources.setdefault(purpose, {})
        by[c.usage.source] = by.get(c.usage.source, 0) + 1
        return c.text.strip("\n")

    def coverage(self) -> dict[str, int]:
        """Calls answered from a replay exactly / approximately / otherwise, predicate
        generator apart (its prompts were never logged)."""
        out = {"replay": 0, "replay-approximate": 0, "other": 0}
        for purpose, by in self.sources.items():
            if purpose == "predicate generator":
                continue
            for src, n in by.items():
                out[src if src in out else "other"] += n
        return out


def start(task: Task, ctx: RunContext) -> tuple[Trial, SituationWorld]:
    trial = trial_for(task.extras)
    forced = task.extras.get("force_situation")
    world = SituationWorld(trial, run_seed=ctx.seed, planner=ctx.planner, planner_timeout=ctx.planner_timeout,
                           forced=tuple(forced) if forced else None)
    return trial, world


def finish(world: SituationWorld, rec: TraceRecorder, meter: UsageMeter, *, plan: Sequence[str] = (),
           status: Optional[EpisodeStatus] = None, error: Optional[str] = None,
           metrics: Optional[dict[str, Any]] = None) -> Attempt:
    """The judged outcome: the goal test in the true (hidden) world decides success."""
    ok = world.goal_holds()
    st = EpisodeStatus.SUCCESS if ok else (status if status not in (None, EpisodeStatus.SUCCESS)
                                           else EpisodeStatus.FAILURE)
    m = {**world.metrics(), **(metrics or {})}
    m.setdefault("planned_steps", len(plan))
    usage = meter.summary()
    m["replayed_calls"] = usage.replayed_calls
    m["model_calls"] = usage.model_calls + usage.cached_calls
    if not ok and error is None:
        error = world.failures[-1][1] if world.failures else "goal not reached"
    a = world.active
    rec.event("result", success=ok, situation=a.situation.text if a else None,
              handled=(ok if a else None), solvable=a.solvable if a else None)
    return Attempt(goal=world.trial.spec.goal_text, plan=tuple(world.executed), status=st.value, success=ok,
                   metrics=m, error=None if ok else error)


@dataclass
class Ending:
    """How a COWP-family episode ended, as its method's ``attempt`` reports it; the goal
    test in the true world (``finish``) decides success."""

    error: Optional[str] = None
    status: Optional[EpisodeStatus] = None
    metrics: dict[str, Any] = field(default_factory=dict)
    plan: Sequence[str] = ()


class CowpFamilyMethod(Method):
    """What the COWP-family methods share around their own loop (``attempt``, each paper's
    algorithm): the trial and its hidden world, and the judged outcome at the end (the
    template's ``_run``); the trace, usage meter and error episodes come from ``Method.run``."""

    needs_planner: ClassVar[bool] = False
    trace_types: ClassVar[tuple[str, ...]] = EXTRA_EVENTS
    config_class: ClassVar[Optional[type]] = NoSettings
    prompt_package: ClassVar[Optional[str]] = "groundplan.prompts.cowp"
    skillsets: ClassVar[Optional[frozenset[str]]] = frozenset({"dining"})
    needs_extras: ClassVar[tuple[str, ...]] = ("cowp_task", "trial", "trial_seed", "spawned", "appliances")
    requirement: ClassVar[str] = ("a COWP trial: the dining domain, its spawned objects and the hidden situations "
                                  "the cowp dataset draws")

    def attempt(self, task: Task, ctx: RunContext, trial: Trial, world: SituationWorld, rec: TraceRecorder,
                meter: UsageMeter) -> Ending:
        raise NotImplementedError

    def _run(self, task: Task, ctx: RunContext, cfg: Any, rec: EpisodeRecorder, pt: None) -> Attempt:
        trial, world = start(task, ctx)
        end = self.attempt(task, ctx, trial, world, rec, rec.usage)
        return finish(world, rec, rec.usage, plan=end.plan, status=end.status, error=end.error, metrics=end.metrics)


def words_in(text: str, word: str) -> bool:
    return re.search(rf"\b{re.escape(word)}\b", text) is not None


def replace_word(text: str, word: str, new: str) -> str:
    return re.sub(rf"\b{re.escape(word)}\b", new, text)


__all__ = ["EXTRA_EVENTS", "Ending", "CowpFamilyMethod", "sentence", "yes_no", "LLMCaller", "start", "finish", "words_in", "replace_word",
           "nl_word"]
