"""The cross-table: every method on every benchmark it can be adapted to (issue 23).

    .venv/bin/python benchmarks/cross_table.py                 # run missing cells, then write the report
    .venv/bin/python benchmarks/cross_table.py --kinds oracle,replay   # only the cheap rows
    .venv/bin/python benchmarks/cross_table.py --report-only

Rows and columns, and the adapter (or the reason there is none) for each pair, come from
``groundplan.bench.adapters``. Each adapted cell runs a seeded sample of the dataset's tasks
(``--n`` for oracle and replay rows, ``--n-embedded`` for the embedded model, which is slow
on this 2-core machine); a cell stops starting new tasks after ``--cell-budget`` seconds.
Episodes are appended to ``benchmarks/results/cross/episodes.jsonl`` (resumable: a task
already recorded for a row is not run again); the report is
``benchmarks/results/cross/README.md`` and the heat map ``cross_table.png``."""

from __future__ import annotations

import argparse
import json
import random
import shlex
import signal
import sys
import time
import traceback
from collections import defaultdict
from pathlib import Path
from typing import Any, Optional, Sequence

OUT = Path(__file__).resolve().parent / "results" / "cross"
COMMANDS = "commands.txt"
EPISODES = OUT / "episodes.jsonl"


class TaskTimeout(Exception):
    """One task ran past ``--task-timeout`` (raised by SIGALRM in the main thread)."""


def _alarm(signum, frame):  # noqa: ARG001 - signal handler signature
    raise TaskTimeout


def sample(tasks: Sequence[Any], n: int, seed: int, dataset: str) -> list[Any]:
    if n <= 0 or n >= len(tasks):
        return list(tasks)
    idx = sorted(random.Random(f"{seed}:{dataset}").sample(range(len(tasks)), n))
    return [tasks[i] for i in idx]


def load_records() -> list[dict]:
    if not EPISODES.exists():
        return []
    out: dict[tuple[str, str, str], dict] = {}
    for line in EPISODES.read_text(encoding="utf-8").splitlines():
        if line.strip():
            r = json.loads(line)
            out[(r["row"], r["dataset"], r["task_id"])] = r  # one record per task (the last, if run twice)
    return list(out.values())


class LLMs:
    """One LLM per row kind, built on first use."""

    def __init__(self, threads: int, model: str = ""):
        self.threads = threads
        self.model = model  # the embedded rows' model ("" = the bundled default)
        self._made: dict[str, Any] = {}
        self.workaround = False

    def get(self, spec: str) -> Optional[Any]:
        if spec == "none":
            return None
        if spec not in self._made:
            if spec == "embedded" and self.model:
                from groundplan.llm import LLMConfig, build_llm

                self._made[spec] = build_llm(LLMConfig(backend="embedded", model=self.model, n_threads=self.threads,
                                                       cache=True))
            elif spec == "embedded":
                from saycan_llm import embedded_llm

                self._made[spec], self.workaround = embedded_llm(self.threads, cache=True)
            else:
                import groundplan.methods.autogpt_p.replay  # noqa: F401  (registers autogptp-replay)
                from groundplan.llm import LLMConfig, build_llm

                backend, _, model = spec.partition(":")
                self._made[spec] = build_llm(LLMConfig(backend=backend, model=model or None, cache=False))
        return self._made[spec]


def model_label(label: str, model: str) -> str:
    """The row of an embedded-model method on a model other than the default."""
    return f"{label} [{model}]" if model else label


def rows_for(model: str) -> list[Any]:
    """ROWS, with the embedded rows on ``model`` (their labels name it) when one is given."""
    from dataclasses import replace

    from groundplan.bench.adapters import ROWS

    return [replace(r, label=model_label(r.label, model)) if model and r.kind == "embedded" else r for r in ROWS]


def report_rows(recs: list[dict]) -> list[Any]:
    """ROWS, each embedded row followed by its rows on the local models that have records."""
    from dataclasses import replace

    from groundplan.bench.adapters import ROWS

    models = sorted({r["model"] for r in recs if r.get("model")})
    out = []
    for r in ROWS:
        out.append(r)
        if r.kind == "embedded":
            out += [replace(r, label=model_label(r.label, m)) for m in models
                    if any(x["row"] == model_label(r.label, m) for x in recs)]
    return out


def import_methods(args: argparse.Namespace) -> None:
    """Copy the episodes of benchmarks/local_models_methods.py (each method on its own benchmark,
    per local model) into the cross-table as the rows on ``--model``: the first ``--n-embedded``
    tasks of that run's seeded sample in every cell it ran (a method's own benchmark only)."""
    import results_archive

    from groundplan.bench.adapters import ROWS

    path = OUT.parent / "llm" / "methods" / "episodes.jsonl"
    rows = [json.loads(x) for x in results_archive.read_text(path).splitlines() if x.strip()]
    have = {(r["row"], r["dataset"], r["task_id"]) for r in load_records()}
    by_method = {r.method: r for r in ROWS if r.kind == "embedded"}
    added = 0
    per_cell: dict[tuple[str, str], int] = defaultdict(int)
    with EPISODES.open("a", encoding="utf-8") as fh:
        for e in rows:
            row = by_method.get(e["method"])
            if row is None or e["model"] != args.model:
                continue
            label = model_label(row.label, args.model)
            if per_cell[(label, e["dataset"])] >= args.n_embedded or (label, e["dataset"], e["task_id"]) in have:
                continue
            per_cell[(label, e["dataset"])] += 1
            err = e.get("error") if e["status"] in ("error", "crash", "task_timeout", "invalid", "unsupported") else None
            rec = {"row": label, "method": e["method"], "llm": "embedded", "kind": "embedded", "model": args.model,
                   "dataset": e["dataset"], "task_id": e["task_id"], "seconds": e["seconds"], "workaround": False,
                   "status": "timeout" if e["status"] == "task_timeout" else e["status"], "success": e["success"],
                   "gcr": e.get("gcr"), "calls": e.get("calls") or 0,
                   "tokens": (e.get("prompt_tokens") or 0) + (e.get("completion_tokens") or 0), "error": err,
                   "source": "local_models_methods.py"}
            fh.write(json.dumps(rec) + "\n")
            added += 1
    print(f"--import-methods: {added} episodes of {args.model} copied from {path.relative_to(OUT.parent.parent.parent)}",
          flush=True)


def row_labels(arg: str, labels: list[str]) -> set[str]:
    """``--rows`` as row labels: comma-separated, where a label may hold a comma itself
    ("LLM+P, oracle" is one row, not "LLM+P" and "oracle")."""
    parts, out, i = arg.split(","), set(), 0
    while i < len(parts):
        for j in range(len(parts), i, -1):  # the longest run of parts that is a label
            if ",".join(parts[i:j]).strip() in labels:
                out.add(",".join(parts[i:j]).strip())
                i = j
                break
        else:
            out.add(parts[i].strip())
            i += 1
    return out


def redo(args: argparse.Namespace) -> None:
    """Remove the selected cells' records from episodes.jsonl (``--rows`` / ``--datasets`` /
    ``--kinds`` / ``--model`` select them, as for a run)."""

    kinds = set(args.kinds.split(","))
    ROWS = rows_for(args.model)  # noqa: N806
    wanted = row_labels(args.rows, [r.label for r in ROWS]) if args.rows else None
    labels = {r.label for r in ROWS if r.kind in kinds and (wanted is None or r.label in wanted)}
    datasets = set(args.datasets.split(",")) if args.datasets else None
    keep = [r for r in load_records() if not (r["row"] in labels and (datasets is None or r["dataset"] in datasets))]
    dropped = len(load_records()) - len(keep)
    EPISODES.write_text("".join(json.dumps(r) + "\n" for r in keep), encoding="utf-8")
    print(f"--redo: {dropped} recorded episodes dropped", flush=True)


def run_cells(args: argparse.Namespace) -> None:
    from groundplan.bench.adapters import DATASETS, Adapter, cell
    from groundplan.bench.datasets import load_tasks
    from groundplan.methods import RunContext, get_method
    from groundplan.planners import get_planner

    kinds = set(args.kinds.split(","))
    datasets = [d for d in DATASETS if not args.datasets or d in args.datasets.split(",")]
    ROWS = rows_for(args.model)  # noqa: N806 - the embedded rows on --model
    wanted = row_labels(args.rows, [r.label for r in ROWS]) if args.rows else None
    done = {(r["row"], r["dataset"], r["task_id"]) for r in load_records()}
    llms = LLMs(args.threads, args.model)
    planner = get_planner()
    signal.signal(signal.SIGALRM, _alarm)
    task_cache: dict[str, list[Any]] = {}
    OUT.mkdir(parents=True, exist_ok=True)
    for row in ROWS:
        if row.kind not in kinds or (wanted is not None and row.label not in wanted):
            continue
        for d in datasets:
            if d not in task_cache:
                task_cache[d] = load_tasks(d)
            tasks = task_cache[d]
            c = cell(row, d, tasks[0])
            if not isinstance(c, Adapter):
                continue
            n = args.n_embedded if row.kind == "embedded" else args.n
            todo = [t for t in sample(tasks, n, args.seed, d) if (row.label, d, t.id) not in done]
            if not todo:
                continue
            method = get_method(row.method)
            t_cell = time.perf_counter()
            for t in todo:
                if time.perf_counter() - t_cell > args.cell_budget:
                    print(f"  {row.label} @ {d}: cell budget used, {t.id} not started", flush=True)
                    break
                t0 = time.perf_counter()
                try:
                    ctx = RunContext(llm=llms.get(row.llm), planner=planner, seed=args.seed, config=dict(c.config))
                    signal.setitimer(signal.ITIMER_REAL, args.task_timeout)
                    try:
                        ep = method.run(c.prepare(t), ctx)
                    finally:
                        signal.setitimer(signal.ITIMER_REAL, 0)
                    rec = {"status": ep.status, "success": bool(ep.success), "gcr": ep.metrics.get("gcr"),
                           "calls": ep.usage.calls, "tokens": ep.usage.prompt_tokens + ep.usage.completion_tokens,
                           "error": (ep.error or "")[:300] or None}
                except TaskTimeout:
                    rec = {"status": "timeout", "success": False, "gcr": None, "calls": 0, "tokens": 0,
                           "error": f"stopped after {args.task_timeout:.0f} s (cross-table task timeout)"}
                except Exception as exc:  # noqa: BLE001 - a crash is recorded as the cell's result
                    rec = {"status": "crash", "success": False, "gcr": None, "calls": 0, "tokens": 0,
                           "error": f"{type(exc).__name__}: {exc}"[:300],
                           "where": traceback.format_exc(limit=3)[-400:]}
                dt = time.perf_counter() - t0
                full = {"row": row.label, "method": row.method, "llm": row.llm, "kind": row.kind,
                        **({"model": args.model} if args.model and row.kind == "embedded" else {}), "dataset": d,
                        "task_id": t.id, "seconds": round(dt, 2), "workaround": llms.workaround, **rec}
                with EPISODES.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(full) + "\n")
                print(f"{row.label:36s} {d:24s} {t.id:32s} {rec['status']:10s} {dt:6.1f}s", flush=True)


def report(args: argparse.Namespace) -> None:
    from groundplan.bench.adapters import DATASETS, Adapter, cell
    from groundplan.bench.datasets import load_tasks

    if args.datasets:
        DATASETS = tuple(d for d in DATASETS if d in args.datasets.split(","))  # noqa: N806
    recs = load_records()
    ROWS = report_rows(recs)  # noqa: N806 - with the embedded rows on each local model that has records
    by: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in recs:
        by[(r["row"], r["dataset"])].append(r)
    samples = {d: load_tasks(d)[0] for d in DATASETS}
    reasons: list[str] = []
    matrix: list[list[Optional[float]]] = []
    status_grid: list[list[str]] = []
    md = ["| method (LLM) | " + " | ".join(DATASETS) + " |", "|---|" + "---|" * len(DATASETS)]
    details = ["| row | dataset | adapter | n | success | GCR | errors | LLM calls / task | tokens / task | "
               "s / task |", "|---|---|---|---|---|---|---|---|---|---|"]
    for row in ROWS:
        cells_md, mrow, srow = [], [], []
        for d in DATASETS:
            c = cell(row, d, samples[d])
            rs = by.get((row.label, d), [])
            if not isinstance(c, Adapter):
                if c.reason not in reasons:
                    reasons.append(c.reason)
                cells_md.append(f"n/a [{reasons.index(c.reason) + 1}]")
                mrow.append(None)
                srow.append("na")
                continue
            if not rs:
                cells_md.append("not run")
                mrow.append(None)
                srow.append("notrun")
                continue
            n = len(rs)
            succ = sum(r["success"] for r in rs) / n
            gcrs = [r["gcr"] for r in rs if r.get("gcr") is not None]
            errs = sum(r["status"] in ("error", "crash", "timeout") for r in rs)
            gcr_txt = f"{sum(gcrs) / len(gcrs):.2f}" if gcrs else "-"
            cells_md.append(f"{succ:.2f} / {gcr_txt} ({n}{f', {errs} err' if errs else ''})")
            mrow.append(succ)
            srow.append("err" if errs == n else "ok")
            calls = sum(r["calls"] for r in rs) / n
            tok = sum(r["tokens"] for r in rs) / n
            sec = sum(r["seconds"] for r in rs) / n
            first_err = next((r["error"] for r in rs if r["status"] in ("error", "crash", "timeout") and r.get("error")),
                             "")
            details.append(f"| {row.label} | {d} | {c.how} | {n} | {succ:.2f} | {gcr_txt} | {errs}"
                           f"{(': ' + first_err[:120].replace('|', '/')) if first_err else ''} | {calls:.1f} | "
                           f"{tok:.0f} | {sec:.1f} |")
        md.append(f"| {row.label} | " + " | ".join(cells_md) + " |")
        matrix.append(mrow)
        status_grid.append(srow)
    workaround = any(r.get("workaround") for r in recs)
    runs = (OUT / COMMANDS).read_text().strip().splitlines() if (OUT / COMMANDS).is_file() else []
    head = ("# Cross-table: every method on every benchmark it can be adapted to (issue 23)\n\n"
            "Command (regenerates everything: runs the cells not yet in `episodes.jsonl`, then writes this file "
            "and `cross_table.png`):\n\n"
            f"    .venv/bin/python benchmarks/cross_table.py --n {args.n} --n-embedded {args.n_embedded} "
            f"--seed {args.seed} --cell-budget {args.cell_budget:.0f} --task-timeout {args.task_timeout:.0f}\n\n"
            + (f"The runs that recorded the episodes in `episodes.jsonl`, in order (`{COMMANDS}`; later runs "
               "with `--redo` replaced the cells they name):\n\n" + "".join(f"    {r}\n" for r in runs) + "\n"
               if runs else "") +
            f"**Seeded samples per cell** (seed {args.seed}): {args.n} tasks for oracle and replay rows, "
            f"{args.n_embedded} for embedded-model rows (SmolLM2-135M, one thread"
            f"{', one-token micro-batches: host workaround in benchmarks/saycan_llm.py' if workaround else ''}), "
            f"and a cell starts no new task after {args.cell_budget:.0f} s, a task is stopped after "
            f"{args.task_timeout:.0f} s (counted as an error); `n` in a cell is how many ran (the last embedded "
            "rows were run with one task per cell, `--n-embedded 1 --cell-budget 120 --task-timeout 150`, when "
            "the CPU time ran out). These are "
            "samples on a shared, heavily loaded 2-core machine, not the benchmarks' full results (those are in "
            "each method's own results folder).\n\n"
            "Each cell: success / GCR (n[, errors]). Success = the dataset's own check after execution (gold goal, "
            "goal conditions, or checker); an error (endpoint, planner, crash) counts as not a success and is "
            "listed. `n/a [k]`: the pair cannot be adapted, reason k below (the method's own `supports(task)` "
            "refusal where it has one). `not run`: adapted, but no episode recorded yet (CPU budget).\n\n"
            "Rows: each method on the embedded model; its oracle where it has one (SayCan with a plan for the "
            "gold goal as scorer, Inner Monologue answering the gold commands, BrainBody's oracle Brain and Body, "
            "COWP's acceptability table, LLM+P on the gold problem, and the planner on the gold goal); recorded "
            "answers where a method's paper published them and they run through the method's loop (AutoGPT+P's "
            "GPT-4 logs, COWP's GPT-3 logs). Wake et al.'s recorded GPT-3.5 answers are judged by "
            "`benchmarks/wake_replay.py` on that paper's own tables, not through the method's loop, so they have "
            "no row here.\n\n")
    local = sorted({r["model"] for r in recs if r.get("model")})
    if local:
        imported = sum(r.get("source") == "local_models_methods.py" for r in recs)
        head += (f"**Rows on local models** ({', '.join(local)}): `METHOD [MODEL]` is the embedded row's method on "
                 "that model (one thread, `--model`). "
                 + (f"{imported} of their episodes were copied from `benchmarks/local_models_methods.py` "
                    "(`--import-methods`: each method on its own benchmark, the first tasks of that run's seeded "
                    "sample, results in `benchmarks/results/llm/methods.md`), so those cells hold that run's sample, "
                    "not this table's; "
                    if imported else "")
                 + f"{sum(bool(r.get('model')) for r in recs) - imported} were run here. A local-model cell left "
                 "`not run` was not measured (CPU time); one with fewer than 10 tasks was cut by that run's time "
                 "budget.\n\n")
    notes = "\n".join(f"{i + 1}. {r}" for i, r in enumerate(reasons))
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "README.md").write_text(head + "\n".join(md) + "\n\nReasons a pair is not adapted:\n\n" + notes +
                                   "\n\n## Per cell: adapter, calls, tokens, time\n\n" + "\n".join(details) + "\n",
                                   encoding="utf-8")
    plot(matrix, status_grid, [r.label for r in ROWS], list(DATASETS), OUT / "cross_table.png")
    print("\n".join(md))


def plot(matrix, status, rows, cols, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    data = np.array([[np.nan if v is None else v for v in r] for r in matrix], dtype=float)
    fig, ax = plt.subplots(figsize=(1.05 * len(cols) + 4, 0.42 * len(rows) + 2))
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="#dddddd")
    im = ax.imshow(np.ma.masked_invalid(data), cmap=cmap, vmin=0, vmax=1, aspect="auto")
    for i in range(len(rows)):
        for j in range(len(cols)):
            s = status[i][j]
            text = {"na": "n/a", "notrun": "not run"}.get(s)
            if text is None:
                text = f"{data[i, j]:.2f}" + ("\nerr" if s == "err" else "")
            ax.text(j, i, text, ha="center", va="center", fontsize=7,
                    color="white" if s in ("ok", "err") and data[i, j] < 0.5 else "black")
    ax.set_xticks(range(len(cols)), cols, rotation=35, ha="right", fontsize=8)
    ax.set_yticks(range(len(rows)), rows, fontsize=8)
    ax.set_title("success per (method, benchmark), seeded samples; grey: not adapted / not run", fontsize=9)
    fig.colorbar(im, ax=ax, fraction=0.03, label="success")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10, help="tasks per cell for oracle and replay rows")
    ap.add_argument("--n-embedded", type=int, default=2, help="tasks per cell for embedded-model rows")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cell-budget", type=float, default=300.0, help="seconds after which a cell starts no task")
    ap.add_argument("--task-timeout", type=float, default=300.0, help="seconds after which one task is stopped")
    ap.add_argument("--kinds", default="oracle,replay,embedded")
    ap.add_argument("--rows", default="", help="only these row labels (comma-separated)")
    ap.add_argument("--datasets", default="", help="only these datasets (comma-separated)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--model", default="",
                    help="run the embedded rows on this local model (groundplan llm models); their rows are "
                         "labelled 'METHOD [MODEL]' and shown beside the default model's")
    ap.add_argument("--import-methods", action="store_true",
                    help="with --model: copy that model's episodes from benchmarks/local_models_methods.py (each "
                         "method on its own benchmark, first --n-embedded tasks of its seeded sample) and run "
                         "nothing")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--redo", action="store_true",
                    help="drop the recorded episodes of the selected rows x datasets first and run them again "
                         "(after a fix that changes those cells)")
    args = ap.parse_args(argv)
    if args.redo and not args.report_only:
        redo(args)
    if not args.report_only:
        with (OUT / COMMANDS).open("a") as fh:  # provenance: which command recorded which cells
            fh.write(time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()) + ": .venv/bin/python benchmarks/cross_table.py "
                     + shlex.join(sys.argv[1:] if argv is None else list(argv)) + "\n")
        if args.import_methods:  # copies episodes only: runs nothing
            if not args.model:
                ap.error("--import-methods needs --model")
            import_methods(args)
        else:
            run_cells(args)
    report(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
