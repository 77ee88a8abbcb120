"""What ``groundplan bench show`` and the report's failure lists print about an episode.

``select_episodes(store, "goalsearch@autogptp-saycan@none")`` picks a run's failures (and,
apart from them, its refusals - episodes the safety check refused (``unsafe``) and answers
that the scene cannot meet the request (``abstained``) - and its errors); ``select_episodes(store, RUN, "saycan_a_nl_primitive:6")`` picks
one task's episodes (one per seed). Each becomes a ``ShownEpisode``: the instruction, the
goal the method produced, the gold (check) goal, the verdict (``core.verdict``, the one
vocabulary) and the trace. An unknown run or task is a ``ConfigError`` with a did-you-mean.

Results files written before the store kept instructions and gold goals read them as empty;
``fill_from_dataset`` looks them up in the dataset the run used (same name and version), when
that dataset is registered (``import groundplan.bench.datasets`` registers the shipped ones;
this module does not, as those datasets import the report, which imports this).
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass, field, replace
from difflib import get_close_matches
from typing import Any, Callable, Mapping, Optional, Sequence

from groundplan.bench.store import EpisodeRow, ResultStore
from groundplan.core.datasets import DATASETS
from groundplan.core.verdict import Verdict, verdict_kind, verdict_text
from groundplan.errors import ConfigError, GroundplanError

#: verdict kinds that make an episode a failure (errors are listed apart; unverified is not a failure)
FAILURE_KINDS = frozenset({Verdict.FAILURE, Verdict.NO_PLAN})
#: verdict kinds of a refusal: listed apart from failures and errors, each in its own section
REFUSAL_KINDS = (Verdict.UNSAFE, Verdict.ABSTAINED)


def _did_you_mean(word: str, known: Sequence[str]) -> str:
    close = get_close_matches(word, list(known), n=1, cutoff=0.5)
    if not close:  # a typed fragment of a long id ("saycan_a:6") is not "close" to difflib
        low = word.lower()
        close = [k for k in known if low in k.lower()][:1]
    return f"; did you mean '{close[0]}'?" if close else ""


def _listing(names: Sequence[str], limit: int = 6) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f", ... ({len(names)} in all)" if len(names) > limit else "") if names else "none"


def resolve_run(store: ResultStore, name: str) -> str:
    """The run id ``name`` names: the id itself, or a glob matching exactly one run."""
    ids = [r["run_id"] for r in store.runs()]
    if name in ids:
        return name
    if any(c in name for c in "*?["):
        hits = [i for i in ids if fnmatch.fnmatchcase(i, name)]
        if len(hits) == 1:
            return hits[0]
        if hits:
            raise ConfigError(f"{store.path}: '{name}' matches {len(hits)} runs ({_listing(hits)}); name one")
    raise ConfigError(f"{store.path}: no run '{name}'{_did_you_mean(name, ids)} (runs: {_listing(ids)}; "
                      f"see `groundplan bench runs`)")


def resolve_task(store: ResultStore, run_id: str, task: str) -> str:
    ids = store.task_ids(run_id)
    if task in ids:
        return task
    raise ConfigError(f"run '{run_id}' has no task '{task}'{_did_you_mean(task, ids)} ({len(ids)} tasks: "
                      f"{_listing(ids, 4)})")


@dataclass(frozen=True)
class ShownEpisode:
    row: EpisodeRow
    #: the instruction and gold goal were looked up in the dataset (not stored with the episode)
    from_dataset: bool = False

    @property
    def kind(self) -> Verdict:
        return verdict_kind(self.row.status, self.row.success, self.row.metrics)

    @property
    def verdict(self) -> str:
        return verdict_text(self.row.status, self.row.success, self.row.metrics, self.row.error)

    @property
    def refusal(self) -> list[tuple[str, str]]:
        """What a refusal adds to its verdict, as (label, text) pairs: for ``unsafe``, every
        goal or step the safety check refused (``metrics.unsafe_refused``) beyond the one the
        verdict names; for ``abstained``, the nearest alternative (unless the reason names
        it); for both, the method's confidence when it gave one."""
        return refusal_details(self.row)

    @property
    def goal(self) -> Optional[str]:
        """The goal the method produced: the last goal its trace records, else the episode's
        goal unless that is only the gold goal (methods that write no goal, e.g. BrainBody,
        store the gold goal there)."""
        goals = [e.get("text") or e.get("goal") for e in self.row.trace if e.get("type") == "goal"]
        goals = [g for g in goals if g]
        if goals:
            return str(goals[-1])
        if self.row.goal and self.row.goal != self.row.gold_goal:
            return self.row.goal
        if self.row.goal and not self.row.trace and not self.row.gold_goal:
            return self.row.goal  # no trace read (a report) and nothing to tell it from
        return None

    def to_json(self) -> dict[str, Any]:
        r = self.row
        return {"run_id": r.run_id, "task_id": r.task_id, "seed": r.seed, "dataset": r.dataset, "subset": r.subset,
                "instruction": r.instruction, "goal": self.goal, "gold_goal": r.gold_goal,
                "verdict": self.verdict, "verdict_kind": self.kind.value, "status": r.status, "success": r.success,
                "reason": _reason(r),
                "error": r.error, "plan": list(r.plan), "metrics": dict(r.metrics),
                "usage": {"calls": r.llm_calls, "prompt_tokens": r.prompt_tokens,
                          "completion_tokens": r.completion_tokens},
                "wall_time": r.wall_time, "source": r.source, "from_dataset": self.from_dataset,
                "trace": list(r.trace)}


@dataclass(frozen=True)
class Selection:
    run: Mapping[str, Any]  # the run as ``store.runs()`` lists it
    task: Optional[str]
    episodes: tuple[ShownEpisode, ...]  # the task's episodes, or the run's failures
    errors: tuple[ShownEpisode, ...] = ()  # (failures mode) the run's errors, listed apart
    counts: Mapping[str, int] = field(default_factory=dict)  # verdict kind -> episodes of the run
    more: int = 0  # failures left out by ``limit``
    unsafe: tuple[ShownEpisode, ...] = ()  # (failures mode) refused by the safety check, listed apart
    abstained: tuple[ShownEpisode, ...] = ()  # (failures mode) answered "the scene cannot", listed apart

    def to_json(self) -> dict[str, Any]:
        run = dict(self.run)
        if isinstance(run.get("config"), str):  # stored as JSON text
            run["config"] = json.loads(run["config"])
        return {"run": run, "task": self.task, "counts": dict(self.counts),
                "episodes": [e.to_json() for e in self.episodes], "errors": [e.to_json() for e in self.errors],
                "unsafe": [e.to_json() for e in self.unsafe], "abstained": [e.to_json() for e in self.abstained],
                "more": self.more}


def fill_from_dataset(rows: Sequence[EpisodeRow]) -> list[ShownEpisode]:
    """Rows without a stored instruction get it (and the gold goal) from their dataset when
    the registered dataset has the same version; others are returned as they are."""
    out: list[ShownEpisode] = []
    cache: dict[tuple[str, str], Optional[dict[str, Any]]] = {}
    for r in rows:
        if r.instruction:
            out.append(ShownEpisode(r))
            continue
        key = (r.dataset, r.dataset_version)
        if key not in cache:
            spec = DATASETS.get(r.dataset)
            tasks = None
            if spec is not None and spec.version == r.dataset_version:
                try:
                    tasks = {t.id: t for t in spec.loader()}
                except GroundplanError:
                    tasks = None
            cache[key] = tasks
        t = (cache[key] or {}).get(r.task_id)
        out.append(ShownEpisode(replace(r, instruction=t.instruction, gold_goal=t.goal), True) if t is not None
                   else ShownEpisode(r))
    return out


def select_episodes(store: ResultStore, run: str, task: Optional[str] = None, *, seed: Optional[int] = None,
                    every: bool = False, limit: Optional[int] = None, lookup: bool = True) -> Selection:
    """One task's episodes (``task``), else the run's failures and, apart, its errors
    (``every``: all of the run's episodes instead). ``lookup``: fill what an older results
    file lacks from the dataset."""
    run_id = resolve_run(store, run)
    info = next(r for r in store.runs() if r["run_id"] == run_id)
    if task is not None:
        task = resolve_task(store, run_id, task)
    rows = [r for r in store.episodes([run_id], task_ids=None if task is None else [task])
            if seed is None or r.seed == seed]
    if task is not None and seed is not None and not rows:
        seeds = sorted({r.seed for r in store.episodes([run_id], task_ids=[task])})
        raise ConfigError(f"run '{run_id}' has no episode of task '{task}' with seed {seed} "
                          f"(seeds: {', '.join(map(str, seeds))})")
    counts: dict[str, int] = {k.value: 0 for k in Verdict}
    for r in rows:
        counts[verdict_kind(r.status, r.success, r.metrics).value] += 1
    if task is not None or every:
        picked, errors, unsafe, abstained = rows, [], [], []
    else:
        kinds = [(r, verdict_kind(r.status, r.success, r.metrics)) for r in rows]
        picked = [r for r, k in kinds if k in FAILURE_KINDS]
        errors = [r for r, k in kinds if k is Verdict.ERROR]
        unsafe = [r for r, k in kinds if k is Verdict.UNSAFE]
        abstained = [r for r, k in kinds if k is Verdict.ABSTAINED]
    more = 0
    if limit is not None and len(picked) > limit:
        more, picked = len(picked) - limit, picked[:max(limit, 0)]
    # traces only for the episodes shown (a run's other traces can be large); errors and
    # refusals are listed one line each and need none
    wanted = {(r.task_id, r.seed) for r in (*picked, *errors)}
    traced = {(r.task_id, r.seed): r for r in store.episodes([run_id], with_trace=True,
                                                             task_ids={k[0] for k in wanted})} if wanted else {}
    picked, errors = ([traced.get((r.task_id, r.seed), r) for r in rs] for rs in (picked, errors))
    fill = fill_from_dataset if lookup else (lambda rs: [ShownEpisode(r) for r in rs])
    return Selection(info, task, tuple(fill(picked)), tuple(fill(errors)), counts, more,
                     tuple(fill(unsafe)), tuple(fill(abstained)))


def _reason(row: EpisodeRow) -> Optional[str]:
    """Why the episode is not a success, without the verdict's own "unsafe: " prefix."""
    kind = verdict_kind(row.status, row.success, row.metrics)
    if kind in (Verdict.SUCCESS, Verdict.UNVERIFIED) or not row.error:
        return None
    text = " ".join(str(row.error).split())
    prefix = f"{kind.value}: "
    return text[len(prefix):] if kind in REFUSAL_KINDS and text.startswith(prefix) else text


def refusal_details(row: EpisodeRow) -> list[tuple[str, str]]:
    """(label, text) pairs a refusal adds to its verdict line (``ShownEpisode.refusal``)."""
    kind = verdict_kind(row.status, row.success, row.metrics)
    m = row.metrics or {}
    out: list[tuple[str, str]] = []
    if kind is Verdict.UNSAFE:
        said = " ".join(str(row.error or "").split())
        refused = m.get("unsafe_refused") or []
        if isinstance(refused, str):
            refused = [refused]
        for r in refused:
            text = " ".join(str(r).split())
            if text and text != said and text.removeprefix("unsafe: ") != said.removeprefix("unsafe: "):
                out.append(("also refused", text))
    elif kind is Verdict.ABSTAINED:
        if m.get("nearest") and f"nearest: {m['nearest']}" not in str(row.error or ""):
            out.append(("nearest", str(m["nearest"])))
    else:
        return out
    if m.get("confidence") is not None:
        try:
            out.append(("confidence", f"{float(m['confidence']):.2f}"))
        except (TypeError, ValueError):
            pass
    return out


def refusal_line(shown: "ShownEpisode", *, width: int = 200) -> str:
    """One line for a refusal in a list: verdict; "instruction"; the refused goal."""
    r = shown.row
    parts = [_clip(shown.verdict, width)]
    if r.instruction:
        parts.append(f'"{_clip(r.instruction, width)}"')
    if shown.kind is Verdict.UNSAFE and shown.goal:
        parts.append(f"goal {_clip(shown.goal, width)}")
    return "; ".join(parts)


def _clip(text: Any, n: int) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= n else s[: n - 3] + "..."


def essentials(row: EpisodeRow, *, width: int = 160, code: Callable[[str], str] = str) -> str:
    """One compact line: verdict; "instruction"; goal; gold goal; why (for reports).
    ``code`` formats a goal (the report: as markdown code)."""
    shown = ShownEpisode(row)
    parts = [_clip(shown.verdict, width)]
    if row.instruction:
        parts.append(f'"{_clip(row.instruction, width)}"')
    parts.append(f"goal {code(_clip(shown.goal, width)) if shown.goal else '(none)'}")
    if row.gold_goal:
        parts.append(f"gold {code(_clip(row.gold_goal, width))}")
    if row.error and shown.kind is not Verdict.ERROR and shown.kind not in REFUSAL_KINDS:
        parts.append(f"why: {_clip(row.error, width)}")
    return "; ".join(parts)


__all__ = ["FAILURE_KINDS", "REFUSAL_KINDS", "refusal_details", "refusal_line", "ShownEpisode", "Selection", "select_episodes", "resolve_run", "resolve_task",
           "fill_from_dataset", "essentials"]
