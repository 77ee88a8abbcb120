"""Reports: markdown tables shaped like each paper's tables, and matplotlib plots.

``write_report(store, ["run-a", "run-b*"], out_dir)`` writes ``report.md``, ``summary.json``
and PNGs. Each dataset gets the table of the paper it comes from (a layout registry):
rows are the paper's families / subsets, column groups are method x model (each run is one
group), sub-columns the paper's metrics; the last row averages over all tasks, as the
papers do. Invalid dataset rows are counted as failures and listed under the table.
Episodes apart from failures are listed under it too, each in its own list with its reason:
errors (the method could not run), ``unsafe`` (the safety check refused a goal or step) and
``abstained`` (the method answered that the scene cannot meet the request). They are not
successes in any rate; the Runs table counts each, and marks a run whose safety check was off
(``bench run --allow-unsafe``).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from groundplan.bench.metrics import aggregate
from groundplan.bench.show import FAILURE_KINDS, ShownEpisode, essentials, refusal_line
from groundplan.bench.store import EpisodeRow, ResultStore
from groundplan.core.verdict import ERROR_STATUSES, Verdict, verdict_kind, verdict_text


@dataclass(frozen=True)
class TableLayout:
    title: str
    row_header: str
    subsets: tuple[tuple[str, str], ...]  # (subset key, row label), in the paper's order
    metrics: tuple[tuple[str, str], ...]  # (aggregate key, column label)
    average_label: str = "Average"


SAYCAN_FAMILIES = (
    ("saycan_a_nl_primitive", "NL Primitive"), ("saycan_b_nl_verb", "NL Verb"), ("saycan_c_nl_noun", "NL Noun"),
    ("saycan_d_structured_language", "Structured Language"), ("saycan_e_embodiment", "Embodiment"),
    ("saycan_f_crowd_sourced", "Crowd Sourced"), ("saycan_g_long_horizon", "Long Horizon"),
    ("saycan_x_drawer", "Drawer"),
)

LAYOUTS: dict[str, TableLayout] = {}


def register_layout(dataset: str, layout: TableLayout) -> None:
    LAYOUTS[dataset] = layout


register_layout("autogptp-saycan", TableLayout(
    "AutoGPT+P Table IV: success rates on the SayCan instruction set, per instruction family",
    "Instruction Family", SAYCAN_FAMILIES, (("success", "success"), ("minimal", "minimal"))))
register_layout("saycan-101", TableLayout(
    "SayCan's 101 instructions, per instruction family (no PDDL goals: success as judged by the method)",
    "Instruction Family", SAYCAN_FAMILIES[:-1], (("success", "success"), ("exec", "EXEC"))))
register_layout("autogptp-plan-tool", TableLayout(
    "AutoGPT+P Table VI: Plan Tool success and minimal-plan rates per subset", "Subset",
    (("simple_task", "Simple Task"), ("simple_goal", "Simple Goal"), ("complex_goal", "Complex Goal"),
     ("knowledge", "Knowledge"), ("implicit", "Implicit")),
    (("success", "success"), ("minimal", "min"))))
register_layout("autogptp-scenarios", TableLayout(
    "AutoGPT+P Table VII: success, minimal plan and minimal tool usage per scenario set", "Subset",
    (("plan", "Plan"), ("partial", "Partial Plan"), ("exploration", "Explore"),
     ("alternative", "Suggest Alternative"), ("complex", "Combined")),
    (("success", "success"), ("minimal", "minimal"), ("minimal_tools", "minimal tools"))))
register_layout("autogptp-substitution", TableLayout(
    "AutoGPT+P Table III: Suggest Alternative success rate per scene size", "Scene",
    (("simple", "Simple"), ("medium", "Medium"), ("complex", "Complex")), (("success", "success"),)))

DEFAULT_METRICS = (("success", "success"), ("minimal", "minimal"), ("gcr", "GCR"), ("exec", "EXEC"))


def layout_for(dataset: str, subsets: Sequence[str]) -> TableLayout:
    if dataset in LAYOUTS:
        lay = LAYOUTS[dataset]
        known = {k for k, _ in lay.subsets}
        extra = tuple((s, s) for s in sorted(set(subsets) - known))
        return TableLayout(lay.title, lay.row_header, lay.subsets + extra, lay.metrics, lay.average_label)
    return TableLayout(f"{dataset}: results per subset", "Subset", tuple((s, s or "(all)") for s in sorted(set(subsets))),
                       DEFAULT_METRICS)


@dataclass(frozen=True)
class Group:
    """One column group: a run (method x dataset x backend x model)."""

    run_id: str
    method: str
    backend: str
    model: str
    rows: tuple[EpisodeRow, ...] = field(repr=False)
    #: the run had the safety check off (``bench run --allow-unsafe``)
    allow_unsafe: bool = False

    @property
    def label(self) -> str:
        who = self.model if self.model and self.model != "default" else ("" if self.backend == "none" else self.backend)
        base = f"{self.method} ({who})" if who else self.method
        return base + (" +allow-unsafe" if self.allow_unsafe else "")


def verdict_counts(rows: Sequence[EpisodeRow]) -> Counter:
    """Episodes per verdict kind."""
    return Counter(verdict_kind(r.status, r.success, r.metrics) for r in rows)


def _fmt(v: Any, digits: int = 2) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def _code(text: str) -> str:
    """A goal as inline markdown code (its parentheses, underscores and stars kept as they are)."""
    return f"`{text.replace('`', chr(39))}`"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _labels(groups: Sequence[Group]) -> list[str]:
    labels = [g.label for g in groups]
    dup = {x for x in labels if labels.count(x) > 1}
    return [g.run_id if g.label in dup else g.label for g in groups]


def dataset_table(dataset: str, groups: Sequence[Group]) -> tuple[str, dict[str, Any]]:
    """The paper-shaped table for one dataset: markdown and the numbers behind it."""
    labels = _labels(groups)
    subsets = sorted({r.subset for g in groups for r in g.rows})
    lay = layout_for(dataset, subsets)
    present = {r.subset for g in groups for r in g.rows}
    row_keys = [(k, label) for k, label in lay.subsets if k in present]
    # header: the paper prints the group names over their metric columns; markdown has one
    # header row, so the first header row names groups and the first body row names metrics
    header = [lay.row_header, "n"]
    sub = ["", ""]
    for label in labels:
        for i, (_, mlabel) in enumerate(lay.metrics):
            header.append(label if i == 0 else "")
            sub.append(mlabel)
    body = [sub] if len(lay.metrics) > 1 or len(groups) > 1 else []
    numbers: dict[str, Any] = {}
    all_keys = row_keys + [(None, lay.average_label)]
    for key, label in all_keys:
        cells = [label]
        ns: list[int] = []
        vals: list[Optional[float]] = []
        for g in groups:
            rs = [r for r in g.rows if key is None or r.subset == key]
            agg = aggregate(r.metrics for r in rs)
            numbers.setdefault(g.run_id, {})[label] = agg
            ns.append(len(rs))
            for mkey, _ in lay.metrics:
                vals.append(agg.get(mkey))
        cells.append(str(ns[0]) if len(set(ns)) == 1 else " / ".join(map(str, ns)))
        # bold the best value of each metric across groups, as the papers do
        width = len(lay.metrics)
        for gi in range(len(groups)):
            for mi in range(width):
                v = vals[gi * width + mi]
                col = [vals[gj * width + mi] for gj in range(len(groups))]
                nums = [c for c in col if c is not None]
                best = len(groups) > 1 and v is not None and nums and v == max(nums)
                cells.append(f"**{_fmt(v)}**" if best else _fmt(v))
        body.append(cells)
    return _table(header, body), numbers


def summary_table(groups: Sequence[Group]) -> str:
    header = ["run", "method", "dataset", "backend", "model", "prompt", "episodes", "invalid", "errors", "unsafe",
              "abstained", "success", "minimal",
              "GCR", "SR", "EXEC", "completion %", "situation %", "LLM calls", "tokens", "s/episode", "statuses"]
    rows = []
    for g in groups:
        a = aggregate(r.metrics for r in g.rows)
        st = Counter(r.status for r in g.rows)
        ds = sorted({f"{r.dataset}@{r.dataset_version}" for r in g.rows})
        kinds = verdict_counts(g.rows)
        rows.append([g.run_id + (" (safety check off)" if g.allow_unsafe else ""), g.method, ", ".join(ds), g.backend,
                     g.model or "-",
                     (g.rows[0].prompt_hash if g.rows else "") or "-", str(a.get("n", 0)), str(a.get("invalid", 0)),
                     str(sum(1 for r in g.rows if r.status in ERROR_STATUSES)), str(kinds[Verdict.UNSAFE]),
                     str(kinds[Verdict.ABSTAINED]), _fmt(a.get("success")),
                     _fmt(a.get("minimal")), _fmt(a.get("gcr")), _fmt(a.get("sr")),
                     _fmt(a.get("exec")),
                     _fmt(None if a.get("task_completion") is None else 100 * a["task_completion"], 1),
                     _fmt(None if a.get("situation_handling") is None else 100 * a["situation_handling"], 1),
                     _fmt(a.get("llm_calls"), 1), _fmt(a.get("tokens"), 0), _fmt(a.get("wall_time"), 3),
                     ", ".join(f"{k} {v}" for k, v in sorted(st.items()))])
    return _table(header, rows)


@dataclass(frozen=True)
class Report:
    markdown: str
    files: tuple[Path, ...]
    numbers: Mapping[str, Any]


def load_groups(store: ResultStore, patterns: Sequence[str]) -> list[Group]:
    # imported here: the runner imports the datasets, which import this module
    from groundplan.bench.runner import run_allows_unsafe

    run_ids = store.match_runs(patterns)
    groups = []
    for rid in run_ids:
        run = store.get_run(rid)
        rows = tuple(store.episodes([rid]))
        # the report's failure lines name the goal the method wrote, which only the trace tells
        # for methods that store the gold goal as the episode's goal: read the failures' traces
        failed = {r.task_id for r in rows if verdict_kind(r.status, r.success, r.metrics) in FAILURE_KINDS}
        if failed:
            traced = {(r.task_id, r.seed): r for r in store.episodes([rid], with_trace=True, task_ids=failed)}
            rows = tuple(traced.get((r.task_id, r.seed), r) for r in rows)
        groups.append(Group(rid, run.method if run else "?", run.backend if run else "?", run.model if run else "",
                            rows, run_allows_unsafe(run.config) if run else False))
    return groups


def build_report(groups: Sequence[Group]) -> tuple[str, dict[str, Any]]:
    parts = ["# groundplan benchmark report", ""]
    numbers: dict[str, Any] = {"datasets": {}}
    parts += ["## Runs", "", summary_table(groups), ""]
    off = [g.run_id for g in groups if g.allow_unsafe]
    if off:
        parts += [f"The safety check of goals and steps was off (`--allow-unsafe`) in {len(off)} of these runs: "
                  f"{', '.join(off)}. Their numbers are not comparable with runs that had it on.", ""]
    datasets = sorted({r.dataset for g in groups for r in g.rows})
    for ds in datasets:
        dgroups = [Group(g.run_id, g.method, g.backend, g.model, tuple(r for r in g.rows if r.dataset == ds),
                         g.allow_unsafe) for g in groups]
        dgroups = [g for g in dgroups if g.rows]
        lay = layout_for(ds, [r.subset for g in dgroups for r in g.rows])
        table, nums = dataset_table(ds, dgroups)
        numbers["datasets"][ds] = nums
        parts += [f"## {ds}", "", f"{lay.title}.", "", table, ""]
        bad = [(g, r) for g in dgroups for r in g.rows if r.status == "invalid"]
        if bad:
            parts.append(f"{len(bad)} invalid dataset rows, counted as failed episodes:")
            parts.append("")
            parts += [f"- {g.run_id}: {r.error or r.source}" for g, r in bad]
            parts.append("")
        errors = [(g, r) for g in dgroups for r in g.rows if r.status in ERROR_STATUSES]
        if errors:
            parts.append(f"{len(errors)} episodes ended in an error (the method could not run: endpoint errors, "
                         f"crashes), counted apart from failures:")
            parts.append("")
            parts += [f"- {g.run_id} {r.task_id} (seed {r.seed}): {verdict_text(r.status, r.success, None, r.error)}"
                      [:240] for g, r in errors]
            parts.append("")
        for kind, intro in REFUSAL_INTROS:
            refused = [(g, r) for g in dgroups for r in g.rows if verdict_kind(r.status, r.success, r.metrics) is kind]
            if refused:
                parts.append(intro.format(n=len(refused), s="" if len(refused) == 1 else "s"))
                parts.append("")
                parts += [f"- {g.run_id} {r.task_id} (seed {r.seed}): {refusal_line(ShownEpisode(r))}"
                          .replace("<", "&lt;")[:400] for g, r in refused]
                parts.append("")
        failed = [(g, r) for g in dgroups for r in g.rows
                  if r.status != "invalid" and verdict_kind(r.status, r.success, r.metrics) in FAILURE_KINDS]
        if failed:
            # one line each: what was asked, what the method wrote, what was checked, the verdict
            # (`groundplan bench show RUN TASK` prints the trace)
            parts.append(f"<details><summary>{len(failed)} unsuccessful episodes</summary>")
            parts.append("")
            parts += [f"- {g.run_id} {r.task_id} (seed {r.seed}): {essentials(r, code=_code).replace('<', '&lt;')}" for g, r in failed]
            parts += ["", "</details>", ""]
    return "\n".join(parts), numbers


#: the line before each list of refusals in a dataset's section
REFUSAL_INTROS = (
    (Verdict.UNSAFE, "{n} episode{s} refused by the safety check (unsafe: a goal or step would give a person a "
                     "hazard), not successes, listed apart from failures:"),
    (Verdict.ABSTAINED, "{n} episode{s} abstained (the method answered that the scene cannot meet the request), "
                        "not successes, listed apart from failures:"),
)


def _plots(groups: Sequence[Group], out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    files: list[Path] = []
    datasets = sorted({r.dataset for g in groups for r in g.rows})
    for ds in datasets:
        dgroups = [(g, [r for r in g.rows if r.dataset == ds]) for g in groups]
        dgroups = [(g, rs) for g, rs in dgroups if rs]
        lay = layout_for(ds, [r.subset for _, rs in dgroups for r in rs])
        present = {r.subset for _, rs in dgroups for r in rs}
        keys = [(k, label) for k, label in lay.subsets if k in present]
        # success by subset and method
        fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(keys) + 2), 4))
        width = 0.8 / max(len(dgroups), 1)
        glabels = _labels([g for g, _ in dgroups])
        for gi, (_, rs) in enumerate(dgroups):
            ys = [aggregate(r.metrics for r in rs if r.subset == k).get("success") or 0.0 for k, _ in keys]
            xs = [i + gi * width - 0.4 + width / 2 for i in range(len(keys))]
            ax.bar(xs, ys, width=width, label=glabels[gi])
        ax.set_xticks(range(len(keys)))
        ax.set_xticklabels([label for _, label in keys], rotation=30, ha="right")
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("success rate")
        ax.set_title(f"{ds}: success by subset")
        ax.legend(fontsize="small")
        fig.tight_layout()
        p = out / f"success_by_subset_{ds}.png"
        fig.savefig(p, dpi=110)
        plt.close(fig)
        files.append(p)
        # cost / time growth: wall time and achieved cost against the task's minimal cost
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
        any_cost = False
        for g, rs in dgroups:
            by_cost: dict[float, list[float]] = {}
            for r in rs:
                mc = r.metrics.get("min_costs")
                if mc is None:
                    mc = r.metrics.get("cost")
                if mc is None:
                    continue
                by_cost.setdefault(float(mc), []).append(float(r.wall_time))
            if by_cost:
                any_cost = True
                xs = sorted(by_cost)
                a1.plot(xs, [sum(by_cost[x]) / len(by_cost[x]) for x in xs], marker="o", label=g.label)
            pts = [(r.metrics["min_costs"], r.metrics["cost"]) for r in rs
                   if r.metrics.get("min_costs") is not None and r.metrics.get("cost") is not None]
            if pts:
                a2.scatter([p_[0] for p_ in pts], [p_[1] for p_ in pts], s=12, alpha=0.6, label=g.label)
        a1.set_xlabel("minimal plan cost of the task")
        a1.set_ylabel("mean wall time per episode (s)")
        a1.set_title("time growth")
        a2.set_xlabel("minimal plan cost")
        a2.set_ylabel("cost of the executed plan")
        a2.set_title("cost growth")
        if any_cost:
            a1.legend(fontsize="small")
            lim = max([1.0] + [float(r.metrics.get("cost") or 0) for _, rs in dgroups for r in rs])
            a2.plot([0, lim], [0, lim], color="grey", lw=0.8, ls="--")
        fig.suptitle(ds)
        fig.tight_layout()
        p = out / f"cost_time_{ds}.png"
        fig.savefig(p, dpi=110)
        plt.close(fig)
        files.append(p)
    return files


def _run_numbers(g: Group) -> dict[str, Any]:
    """A run's aggregate metrics with its refusals counted (``unsafe``, ``abstained``) and
    whether its safety check was off."""
    kinds = verdict_counts(g.rows)
    out = {**aggregate(r.metrics for r in g.rows), "unsafe": kinds[Verdict.UNSAFE],
           "abstained": kinds[Verdict.ABSTAINED]}
    if g.allow_unsafe:
        out["allow_unsafe"] = True
    return out


def write_report(store: ResultStore, patterns: Sequence[str], out_dir: str | Path, *, plots: bool = True) -> Report:
    groups = load_groups(store, patterns)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    md, numbers = build_report(groups)
    files = [out / "report.md", out / "summary.json"]
    files[0].write_text(md + "\n", encoding="utf-8")
    summary = {"runs": {g.run_id: _run_numbers(g) for g in groups}, **numbers}
    files[1].write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if plots:
        files += _plots(groups, out)
    return Report(md, tuple(files), summary)


__all__ = ["TableLayout", "LAYOUTS", "register_layout", "layout_for", "Group", "dataset_table", "summary_table",
           "verdict_counts", "REFUSAL_INTROS",
           "build_report", "write_report", "load_groups", "Report"]
