"""``goalsearch``: small-model planning by structure (issue 10).

Per episode: build the domain and problem from the scene, rank candidate goals for the
instruction (``search.GoalSearcher``: enumerated atoms, sentence embeddings, retrieved
examples, decomposition, LM scoring), then plan them in rank order with the planner until
one is valid and solvable (syntax and semantic checks, then the planner: the plan tool's
self-correction without a second model call), execute the plan and score the final state
on the task's gold goal. The gold goal is read only by ``execute_and_score``.

Options come from ``ctx.config`` (keys of ``SearchOptions``, plus ``self_correction``
and ``minilm_dir``); the ablation benchmark switches techniques off through them. Without an
LLM in the context (or with ``lm_scoring: false``) it is the embedding-and-structure path
alone."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Mapping, Optional

from groundplan.core.config import config_from
from groundplan.core.task import Task
from groundplan.errors import ConfigError, GoalError, did_you_mean
from groundplan.llm.minilm import shared_minilm
from groundplan.methods.base import (
    Attempt,
    EpisodeRecorder,
    EpisodeStatus,
    Method,
    RunContext,
    TraceRecorder,
    register_method,
)
from groundplan.methods.small_model import need_model
from groundplan.methods.small_model.answer import (
    abstention,
    confidence,
    containment_said,
    meets_need,
    recipient_said,
)
from groundplan.methods.small_model.candidates import scene_view
from groundplan.methods.small_model.focus import focus
from groundplan.methods.small_model.options import SearchOptions, known_names
from groundplan.methods.small_model.search import OPTIMAL_SEARCH_S, GoalSearcher
from groundplan.pddl.goal import check_goal, parse_goal
from groundplan.pddl.semantics import check_semantics
from groundplan.planners import with_primary_bound
from groundplan.skills.builder import PlanningTask


@dataclass(frozen=True)
class GoalSearchConfig:
    """goalsearch's settings: every field of ``SearchOptions`` (the ablation's switches and
    weights), given flat, plus its own two."""

    search: SearchOptions = SearchOptions()
    #: plan the next-ranked goal when one fails the checks or the planner (else only the first)
    self_correction: bool = True
    #: a MiniLM model directory (default: the bundled one)
    minilm_dir: Optional[str] = None
    #:  the goal adapter (``adapter.py``): "off"; "first": its generated goal is
    #: planned first, goalsearch's candidates after it; "confident": the same when the
    #: generated goal's mean log-probability per token is at least ``adapter_min_logprob``;
    #: "rerank": goalsearch's first ``adapter_k`` candidates in the order of the adapter's
    #: likelihood
    adapter: str = "off"
    #: the adapter's directory (default: the one the package ships)
    adapter_path: Optional[str] = None
    adapter_k: int = 5
    adapter_min_logprob: float = -0.05
    #: seconds the planner's optimal search gets on a candidate goal before its greedy search
    #: takes over (None: the planner's own split, half the time bound)
    optimal_search_s: Optional[float] = OPTIMAL_SEARCH_S
    #: refuse a request the scene cannot meet (a thing it lacks, a need nothing meets) with
    #: the reason and the nearest alternative (``answer.py``); false (``--best-effort``): plan
    #: the best substitute, as before
    abstain: bool = True
    #: for a stated need, the language model of the run (``--model``) reorders the things the
    #: rules would hand over (``need_model.py``); off unless a blind ablation keeps it
    need_model: bool = False


_OWN_SETTINGS = ("self_correction", "minilm_dir", "adapter", "adapter_path", "adapter_k", "adapter_min_logprob",
                 "optimal_search_s", "abstain", "need_model")
_ADAPTER_MODES = ("off", "first", "confident", "rerank")


@dataclass(frozen=True)
class _TextGoal:
    """A candidate given by its text: the adapter's goal, or a candidate rewritten
    (``answer.containment_said``, ``answer.recipient_said``) with its rank's score."""

    text: str
    score: float = 0.0
    source: str = "adapter"
    lm_logprob: Optional[float] = None


def options_from(config: Mapping[str, Any]) -> SearchOptions:
    return GoalSearch.configure(config).search


@register_method("goalsearch")
class GoalSearch(Method):
    needs_llm = False
    needs_planner = True
    builds_task = True
    description = ("small-model planning: enumerated candidate goals scored by MiniLM embeddings, retrieved examples "
                   "and LM log-probabilities; decomposition; self-correction by planning (issue 10)")
    prompt_package = "groundplan.prompts.small_model"
    config_class = GoalSearchConfig

    @classmethod
    def configure(cls, config: Optional[Mapping[str, Any]]) -> GoalSearchConfig:
        values = dict(config or {})
        names = set(known_names())
        unknown = [k for k in values if k not in names and k not in _OWN_SETTINGS]
        if unknown:
            own = sorted({f.name for f in fields(SearchOptions)} - {"rules", "weights"} | set(_OWN_SETTINGS))
            raise ConfigError(f"{cls.name}: unknown setting '{unknown[0]}'"
                              f"{did_you_mean(unknown[0], names | set(_OWN_SETTINGS))} (known: {', '.join(own)}, "
                              f"a rule of methods/small_model/rules.py, or a weight w_*)")
        search = SearchOptions.of(owner=cls.name, **{k: v for k, v in values.items() if k in names})
        cfg = config_from(GoalSearchConfig, {k: v for k, v in values.items() if k not in names}, owner=cls.name,
                          search=search)
        if cfg.adapter not in _ADAPTER_MODES:
            raise ConfigError(f"{cls.name}: adapter '{cfg.adapter}'{did_you_mean(cfg.adapter, _ADAPTER_MODES)} "
                              f"(one of: {', '.join(_ADAPTER_MODES)})")
        if cfg.adapter != "off":  # refused up front, not as an error of every episode
            from groundplan.methods.small_model.adapter import SHIPPED

            where = Path(cfg.adapter_path) if cfg.adapter_path else SHIPPED
            if not (where / "adapter.json").is_file():
                raise ConfigError(f"{cls.name}: adapter '{cfg.adapter}' needs a trained goal adapter, and {where} holds "
                                  "none (adapter_path=DIR; train one: benchmarks/small_model_adapter.py train)")
        return cfg

    def needs_llm_for(self, cfg: GoalSearchConfig) -> bool:
        """The need stage asks the run's model; the rest of goalsearch calls none."""
        return cfg.need_model

    def __init__(self) -> None:
        self._searchers: dict[Any, GoalSearcher] = {}
        self._lock = threading.Lock()

    def searcher(self, config: Mapping[str, Any] | GoalSearchConfig) -> GoalSearcher:
        cfg = config if isinstance(config, GoalSearchConfig) else self.configure(config)
        opts = cfg.search
        key = (opts, cfg.minilm_dir)
        with self._lock:
            s = self._searchers.get(key)
            if s is None:
                encoder = None
                if opts.embeddings or opts.retrieval:
                    encoder = shared_minilm(cfg.minilm_dir)
                s = self._searchers[key] = GoalSearcher(encoder, options=opts)
            return s

    def _run(self, task: Task, ctx: RunContext, cfg: GoalSearchConfig, rec: EpisodeRecorder,
             pt: Optional[PlanningTask]) -> Attempt:
        assert pt is not None
        searcher = self.searcher(cfg)
        problem = focus(task.instruction, pt.domain, pt.problem, searcher.encoder) or pt.problem
        if problem is not pt.problem:
            rec.event("note", what="focus", objects=len(problem.objects), of=len(pt.problem.objects))
        res = searcher.search(task.instruction, pt.domain, problem,
                              llm=ctx.llm if searcher.options.lm_scoring else None, usage=rec.usage)
        rec.event("note", what="goal search", structure=res.structure, clauses=list(res.clauses),
                  examples=[list(e) for e in res.examples], timings={k: round(v, 4) for k, v in res.timings.items()},
                  candidates=[{"goal": g.text, "score": round(g.score, 4), "source": g.source,
                               "lm_logprob": None if g.lm_logprob is None else round(g.lm_logprob, 4)}
                              for g in res.goals])
        goals = _with_adapter(cfg, res.goals, pt.problem, task.instruction, rec)
        goals = _contained(task.instruction, goals, pt)
        req = res.request
        if cfg.need_model and ctx.llm is not None and req is not None and (req.need or req.plain) \
                and res.structure == "single":
            goals, asked = need_model.rerank(task.instruction, goals, dict(pt.problem.objects),
                                             scene_view(pt.domain, pt.problem).humans, ctx.llm, rec.usage)
            if asked is not None:
                rec.event("note", what="need model", **asked)
        sure = confidence([g.score for g in goals])
        if cfg.abstain:
            why = abstention(task.instruction, pt.domain, pt.problem, goals[0].text if goals else None)
            if why is not None:
                rec.event("note", what="abstain", **why.to_dict())
                return Attempt.ended(EpisodeStatus.ABSTAINED, why.reason, metrics={
                    "tool_calls": 0, "confidence": None if sure is None else round(1 - sure, 4),
                    "abstained": why.kind, "nearest": why.nearest})
        planner = with_primary_bound(ctx.planner, cfg.optimal_search_s)
        # self-correction by planning: the next-ranked goal when one fails the checks or the planner
        tries = goals if cfg.self_correction else goals[:1]
        out = None
        goal_text: Optional[str] = None
        last_error = "no candidate goal"
        unsafe_seen = False
        for g in tries:
            if unsafe_seen and not meets_need(task.instruction, g.text, pt.domain, pt.problem):
                continue  # after a hazard refused, only a candidate that still meets the need
            goal_text = g.text
            rec.event("goal", text=goal_text, source=g.source, score=round(g.score, 4))
            try:
                f = parse_goal(goal_text)
                check_goal(f, pt.domain, pt.problem, typecheck=False)
                check_semantics(f, pt.domain, pt.problem, pt.skillset.semantic_conditions)
            except GoalError as exc:
                last_error = str(exc)
                rec.event("feedback", kind="semantic", message=exc.feedback or str(exc))
                out = None
                continue
            why = self._check_goal(goal_text, pt)  # the template's goal check: safety
            if why is not None:
                unsafe_seen, last_error, out = True, why, None
                rec.event("feedback", kind="goal check", message=why)
                continue
            out = self.plan_goal(goal_text, pt, ctx, rec, planner=planner, check=False)
            if out.status == "solved":
                return Attempt.to_execute(out.plan, goal=goal_text, metrics={"tool_calls": 1, "confidence": sure})
            last_error = out.error or out.status
            rec.event("feedback", kind="planner", message=last_error)
        status = EpisodeStatus.UNSOLVABLE if out is not None and out.status == "unsolvable" else EpisodeStatus.NO_PLAN
        return Attempt.ended(status, last_error, goal=goal_text, metrics={"tool_calls": 1, "confidence": sure})


def _contained(instruction: str, goals: list, pt: PlanningTask) -> list:
    """The candidates with "in"/"into" a container read as ``in`` (``answer.containment_said``)
    and a person named by name as the one handed things (``answer.recipient_said``), each goal
    once, in rank order."""
    domain, problem = pt.domain, pt.problem
    classes = {o: t for o, t in problem.objects.items()}

    def is_container(o: str) -> bool:
        t = problem.type_of(domain, o)
        return t is not None and "contain" in domain.types and domain.types.is_subtype(t, "contain")

    humans = scene_view(domain, problem).humans
    out, seen = [], set()
    for g in goals:
        text = recipient_said(instruction, containment_said(instruction, g.text, classes, is_container), humans)
        if text != g.text:
            g = _TextGoal(text, g.score, g.source, g.lm_logprob)
        if text not in seen:
            seen.add(text)
            out.append(g)
    return out


def _with_adapter(config: GoalSearchConfig, goals: list, problem: Any, instruction: str, rec: TraceRecorder) -> list:
    """goalsearch's candidates with the goal adapter's say (``GoalSearchConfig.adapter``)."""
    if config.adapter == "off":
        return list(goals)
    from groundplan.methods.small_model.adapter import prompt_text, scene_text, shared_adapter

    t0 = time.perf_counter()
    adapter = shared_adapter(config.adapter_path)
    if config.adapter in ("first", "confident"):
        text, mean_lp = adapter.generate(prompt_text(scene_text(problem), instruction))
        used = config.adapter == "first" or mean_lp >= config.adapter_min_logprob
        rec.event("note", what="goal adapter", goal=text, mean_logprob=round(mean_lp, 4), used=used,
                  seconds=round(time.perf_counter() - t0, 4))
        if not used:
            return list(goals)
        return [_TextGoal(text, lm_logprob=mean_lp)] + [g for g in goals if g.text != text]
    head, tail = list(goals[: config.adapter_k]), list(goals[config.adapter_k:])
    if len(head) < 2:
        return head + tail
    lps = adapter.logprobs(problem, instruction, [g.text for g in head])
    order = sorted(range(len(head)), key=lambda i: -lps[i])
    rec.event("note", what="goal adapter rerank", logprobs=[round(x, 3) for x in lps],
              seconds=round(time.perf_counter() - t0, 4))
    return [head[i] for i in order] + tail
