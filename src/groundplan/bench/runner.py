"""The benchmark runner: method x dataset x LLM backend x seed.

``run_benchmark(spec, store, executor)`` loads the dataset, checks every row, skips the
episodes the store already holds, hands the rest to an executor (in-process, a local process
pool, or Ray) and writes each episode the moment it comes back, in its own transaction.
A ``Worker`` (method, planner, LLM) is built once per worker process and reused for every
episode it runs.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Optional, Sequence

from groundplan.bench.datasets import DatasetSpec, get_dataset
from groundplan.bench.metrics import aggregate, episode_metrics
from groundplan.bench.store import EpisodeRow, ResultStore, RunRecord
from groundplan.bench.validate import RowProblem, check_task, quick_check
from groundplan.core.episode import run_method
from groundplan.core.task import Task
from groundplan.errors import ConfigError, DatasetError, GroundplanError
from groundplan.methods.base import (
    RETRYABLE,
    Episode,
    EpisodeStatus,
    RunContext,
    check_supported,
    failed_episode,
    method_class,
)

if TYPE_CHECKING:  # pragma: no cover
    from groundplan.bench.executors import RunExecutor
    from groundplan.llm import LLMConfig

BAD_ROW_POLICIES = ("skip", "fail")


@dataclass(frozen=True)
class WorkerSpec:
    """Everything a worker process needs to build its method, planner and LLM (picklable)."""

    method: str
    llm: Optional["LLMConfig"] = None
    planner: str = "fast-downward"
    planner_timeout: float = 120.0
    method_config: Mapping[str, Any] = field(default_factory=dict)
    has_goals: bool = True
    has_scenes: bool = True
    #: skip the safety check of goals and steps (``RunContext.allow_unsafe``; ``bench run --allow-unsafe``)
    allow_unsafe: bool = False


@dataclass(frozen=True)
class WorkUnit:
    index: int
    task: Task
    seed: int


@dataclass(frozen=True)
class UnitResult:
    index: int
    episode: Episode
    problem: Optional[RowProblem] = None


class Worker:
    """One per worker process: builds the method, planner and LLM once."""

    def __init__(self, spec: WorkerSpec):
        from groundplan.planners import PlannerLimits, get_planner

        self.spec = spec
        self.method = method_class(spec.method)()
        kwargs = {"limits": PlannerLimits(timeout=spec.planner_timeout)} if spec.planner == "fast-downward" else {}
        planner = get_planner(spec.planner, **kwargs)
        llm = None
        if spec.llm is not None and spec.llm.backend != "none":
            from groundplan.llm import build_llm

            llm = build_llm(spec.llm)
        elif self.method.needs_llm:
            raise ConfigError(f"method '{spec.method}' needs an LLM: pass --llm embedded|openai|replay|scripted")
        self.ctx = RunContext(llm=llm, planner=planner, config=dict(spec.method_config),
                              planner_timeout=spec.planner_timeout, allow_unsafe=spec.allow_unsafe)

    def run(self, unit: WorkUnit) -> UnitResult:
        """Never raises: every failure becomes an episode."""
        task, seed = unit.task, unit.seed
        t0 = time.perf_counter()
        name = self.spec.method
        try:
            problem = check_task(task, has_goals=self.spec.has_goals, has_scenes=self.spec.has_scenes)
            if problem is not None:
                ep = failed_episode(task, name, EpisodeStatus.INVALID, str(problem), seed=seed,
                                    wall_time=time.perf_counter() - t0)
                return UnitResult(unit.index, ep, problem)
            ep = run_method(self.method, task, self.ctx.with_seed(seed))
            if ep.seed != seed or ep.task_id != task.id:
                ep = replace(ep, seed=seed, task_id=task.id)
        except GroundplanError as exc:
            ep = failed_episode(task, name, EpisodeStatus.ERROR, str(exc), seed=seed,
                                wall_time=time.perf_counter() - t0)
        except Exception as exc:  # noqa: BLE001 - a method bug must not stop the benchmark
            ep = failed_episode(task, name, EpisodeStatus.CRASH, f"{type(exc).__name__}: {exc}", seed=seed,
                                wall_time=time.perf_counter() - t0)
        return UnitResult(unit.index, ep)

    def close(self) -> None:
        if self.ctx.llm is not None:
            self.ctx.llm.close()


# --------------------------------------------------------------------------- runs


@dataclass(frozen=True)
class RunSpec:
    dataset: str
    method: str
    llm: Optional["LLMConfig"] = None
    seeds: tuple[int, ...] = (0,)
    limit: Optional[int] = None
    run_id: Optional[str] = None
    on_bad_row: str = "skip"
    planner: str = "fast-downward"
    planner_timeout: float = 120.0
    method_config: Mapping[str, Any] = field(default_factory=dict)
    retry_errors: bool = False
    task_ids: Optional[tuple[str, ...]] = None
    #: the safety check off (for experiments): recorded in the run's configuration and run id,
    #: so such a run is never mixed with one that had the check on
    allow_unsafe: bool = False


@dataclass(frozen=True)
class RunPlan:
    record: RunRecord
    dataset: DatasetSpec
    tasks: tuple[Task, ...]
    units: tuple[WorkUnit, ...]  # still to run
    done: int  # episodes already in the store
    worker: WorkerSpec


@dataclass(frozen=True)
class RunSummary:
    run_id: str
    total: int
    already_done: int
    ran: int
    invalid: tuple[RowProblem, ...]
    wall_time: float
    metrics: Mapping[str, Any]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._@:+-]+", "-", text).strip("-") or "x"


def llm_identity(llm: Optional["LLMConfig"]) -> tuple[str, str]:
    if llm is None or llm.backend == "none":
        return "none", ""
    return llm.backend, llm.model or "default"


#: the suffix of a default run id whose safety check was off (``RunSpec.allow_unsafe``)
UNSAFE_SUFFIX = "+allow-unsafe"


def default_run_id(spec: RunSpec) -> str:
    """METHOD@DATASET@BACKEND[:MODEL], and ``+allow-unsafe`` when the safety check was off
    (a run with the check on keeps the id it always had)."""
    backend, model = llm_identity(spec.llm)
    rid = f"{spec.method}@{spec.dataset}@{backend}"
    rid += f":{model}" if model and model != "default" else ""
    return _slug(rid + (UNSAFE_SUFFIX if spec.allow_unsafe else ""))


def run_allows_unsafe(config: Optional[Mapping[str, Any]]) -> bool:
    """Whether a stored run's configuration (``RunRecord.config``) had the safety check off."""
    return bool((config or {}).get("allow_unsafe"))


def _run_config(spec: RunSpec) -> dict[str, Any]:
    cfg: dict[str, Any] = {"planner": spec.planner, "planner_timeout": spec.planner_timeout,
                           "method_config": dict(spec.method_config)}
    if spec.llm is not None and spec.llm.backend != "none":
        cfg["llm"] = {"base_url": spec.llm.base_url, "constraint_style": spec.llm.constraint_style,
                      "api_version": spec.llm.api_version, "n_ctx": spec.llm.n_ctx,
                      "replay": [str(p) for p in spec.llm.replay]}
    if spec.allow_unsafe:  # only when on: the configuration of every run with the check on stays as it was
        cfg["allow_unsafe"] = True
    return cfg


def prepare_run(spec: RunSpec, store: ResultStore) -> tuple[RunPlan, list[RowProblem]]:
    if spec.on_bad_row not in BAD_ROW_POLICIES:
        raise ConfigError(f"--on-bad-row must be one of {', '.join(BAD_ROW_POLICIES)}, not '{spec.on_bad_row}'")
    if not spec.seeds:
        raise ConfigError("no seeds given")
    ds = get_dataset(spec.dataset)
    mcls = method_class(spec.method)
    mcls.configure(spec.method_config)  # an unknown setting or a bad value: exit 2 before anything runs
    if mcls.needs_llm and (spec.llm is None or spec.llm.backend == "none"):
        raise ConfigError(f"method '{spec.method}' needs an LLM: pass --llm embedded|openai|replay|scripted")
    tasks = ds.loader()
    if spec.task_ids:
        wanted = set(spec.task_ids)
        unknown = sorted(wanted - {t.id for t in tasks})
        if unknown:
            raise ConfigError(f"dataset {ds.name} has no task '{unknown[0]}'"
                              + (f" (and {len(unknown) - 1} more unknown ids)" if len(unknown) > 1 else ""))
        tasks = [t for t in tasks if t.id in wanted]
    if spec.limit is not None:
        tasks = tasks[: max(spec.limit, 0)]
    seen: set[str] = set()
    for t in tasks:
        if t.id in seen:
            raise DatasetError(f"dataset {ds.name}: task id '{t.id}' appears twice", file=t.source or None)
        seen.add(t.id)
    problems = [RowProblem(t.dataset, t.id, t.source, r) for t in tasks
                if (r := quick_check(t, has_goals=ds.has_goals, has_scenes=ds.has_scenes)) is not None]
    if problems and spec.on_bad_row == "fail":
        more = f" (and {len(problems) - 1} more bad rows)" if len(problems) > 1 else ""
        raise DatasetError(f"{problems[0]}{more}")
    # a method that cannot run on the dataset is refused before any episode (issue 19)
    bad_ids = {p.task_id for p in problems}
    check_supported(spec.method, [t for t in tasks if t.id not in bad_ids], f"dataset {ds.name}")
    backend, model = llm_identity(spec.llm)
    record = store.ensure_run(RunRecord(spec.run_id or default_run_id(spec), spec.method, ds.name, ds.version,
                                        backend, model, mcls().prompt_hash(), _run_config(spec)))
    redo = {EpisodeStatus.INVALID.value} | (set(RETRYABLE) if spec.retry_errors else set())
    finished = store.finished_keys(record.run_id, redo_statuses=redo)
    units = []
    done = 0
    for t in tasks:
        for s in spec.seeds:
            if (t.id, s) in finished:
                done += 1
            else:
                units.append(WorkUnit(len(units), t, s))
    worker = WorkerSpec(spec.method, spec.llm, spec.planner, spec.planner_timeout, dict(spec.method_config),
                        ds.has_goals, ds.has_scenes, spec.allow_unsafe)
    return RunPlan(record, ds, tuple(tasks), tuple(units), done, worker), problems


def _dataset_version(record: RunRecord, task: Task) -> str:
    if task.dataset == record.dataset:
        return record.dataset_version
    from groundplan.bench.datasets import DATASETS

    spec = DATASETS.get(task.dataset)
    return spec.version if spec is not None else record.dataset_version


#: what a method recorded about a refusal, stored beside the metrics for `bench show` and
#: reports: the safety check's refusals, an abstention's kind and nearest alternative, and
#: the confidence of the answer
REFUSAL_METRICS = ("unsafe_refused", "abstained", "nearest", "confidence")


def episode_row(record: RunRecord, task: Task, ep: Episode) -> EpisodeRow:
    """The stored row. ``dataset`` is the task's own dataset (a joined run keeps its parts apart)."""
    m = episode_metrics(ep, task).to_dict()
    m.update({k: ep.metrics[k] for k in REFUSAL_METRICS if (ep.metrics or {}).get(k) is not None})
    u = ep.usage
    return EpisodeRow(record.run_id, task.id, ep.seed, record.method, task.dataset, _dataset_version(record, task),
                      task.subset, record.backend, record.model, record.prompt_hash, ep.status, ep.success, m,
                      u.calls, u.prompt_tokens, u.completion_tokens, ep.wall_time, ep.goal, tuple(ep.plan),
                      ep.error, task.source, tuple(ep.trace), instruction=task.instruction, gold_goal=task.goal)


ResultCallback = Callable[[UnitResult, EpisodeRow], None]


def run_benchmark(spec: RunSpec, store: ResultStore, executor: "RunExecutor", *,
                  on_start: Optional[Callable[[RunPlan], None]] = None,
                  on_result: Optional[ResultCallback] = None) -> RunSummary:
    t0 = time.perf_counter()
    plan, problems = prepare_run(spec, store)
    if on_start is not None:
        on_start(plan)
    bad_quick = {p.task_id for p in problems}
    invalid: list[RowProblem] = list(problems)
    to_execute: list[WorkUnit] = []
    # rows that fail the quick check never reach a worker: record them as invalid right away
    for u in plan.units:
        if u.task.id in bad_quick:
            prob = next(p for p in problems if p.task_id == u.task.id)
            ep = failed_episode(u.task, spec.method, EpisodeStatus.INVALID, str(prob), seed=u.seed)
            row = episode_row(plan.record, u.task, ep)
            store.write_episode(row)
            if on_result is not None:
                on_result(UnitResult(u.index, ep, prob), row)
        else:
            to_execute.append(u)
    by_index = {u.index: u for u in to_execute}
    ran = 0
    if to_execute:
        results: Iterator[UnitResult] = executor.map(plan.worker, to_execute)
        try:
            for res in results:
                unit = by_index[res.index]
                if res.problem is not None:
                    if spec.on_bad_row == "fail":
                        raise DatasetError(str(res.problem))
                    if all(p.task_id != res.problem.task_id for p in invalid):
                        invalid.append(res.problem)
                row = episode_row(plan.record, unit.task, res.episode)
                store.write_episode(row)
                ran += 1
                if on_result is not None:
                    on_result(res, row)
        finally:
            close = getattr(results, "close", None)
            if close is not None:
                close()
    ids = {t.id for t in plan.tasks}
    rows = [r.metrics for r in store.episodes([plan.record.run_id]) if r.task_id in ids and r.seed in spec.seeds]
    return RunSummary(plan.record.run_id, len(plan.tasks) * len(spec.seeds), plan.done,
                      ran + len(plan.units) - len(to_execute), tuple(invalid), time.perf_counter() - t0,
                      aggregate(rows))


def run_units_inline(spec: WorkerSpec, units: Sequence[WorkUnit]) -> Iterator[UnitResult]:
    worker = Worker(spec)
    try:
        for u in units:
            yield worker.run(u)
    finally:
        worker.close()


__all__ = ["WorkerSpec", "WorkUnit", "UnitResult", "Worker", "RunSpec", "RunPlan", "RunSummary", "prepare_run",
           "run_benchmark", "default_run_id", "episode_row", "run_units_inline", "BAD_ROW_POLICIES", "UNSAFE_SUFFIX", "REFUSAL_METRICS",
           "run_allows_unsafe"]
