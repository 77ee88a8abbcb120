"""`groundplan bench list | runs | run | report`. Errors print one line and exit 2."""

from __future__ import annotations

import os
from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from groundplan.cli.console import HELP_MARKUP, fail_line, make_console
from groundplan.errors import GroundplanError

bench_app = typer.Typer(rich_markup_mode=HELP_MARKUP, no_args_is_help=True,
                        help="Run methods on datasets; store, resume and report results.")
out = make_console()
err = make_console(stderr=True)

DB_ENV = "GROUNDPLAN_BENCH_DB"
DEFAULT_DB = Path("results") / "bench.sqlite"


def _db(path: Optional[Path]) -> Path:
    return path or Path(os.environ.get(DB_ENV) or DEFAULT_DB)


def _fail(msg: str, code: int = 2) -> None:
    err.print(fail_line("error", str(msg)))
    raise typer.Exit(code)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


@bench_app.command("list")
def list_cmd(count: bool = typer.Option(False, "--count", help="load each dataset and count its tasks")):
    """List datasets, methods and executors."""
    try:
        from groundplan.bench.datasets import DATASETS
        from groundplan.bench.executors import EXECUTORS
        from groundplan.methods import available_methods, method_class

        t = Table(title="datasets")
        for c in ("name", "version", "tasks", "description"):
            t.add_column(c)
        for name, spec in sorted(DATASETS.items()):
            n = "-"
            if count:
                try:
                    n = str(len(spec.loader()))
                except GroundplanError as exc:
                    n = f"error: {_one_line(exc)[:60]}"
            t.add_row(name, spec.version, n, spec.description)
        out.print(t)
        m = Table(title="methods")
        for c in ("name", "needs LLM", "description"):
            m.add_column(c)
        for name in available_methods():
            cls = method_class(name)
            m.add_row(name, "yes" if cls.needs_llm else "no", cls.description)
        out.print(m)
        out.print(f"executors: {', '.join(sorted(EXECUTORS))}", highlight=False)
    except GroundplanError as exc:
        _fail(_one_line(exc))


@bench_app.command("runs")
def runs_cmd(db: Optional[Path] = typer.Option(None, "--db", help=f"results file (default ${DB_ENV} or {DEFAULT_DB})")):
    """List the runs in a results file."""
    from groundplan.bench.store import ResultStore

    try:
        with ResultStore(_db(db), must_exist=True) as store:
            runs = store.runs()
        out.print(f"{len(runs)} runs in {_db(db)}", highlight=False)
        for r in runs:
            out.print(f"{r['run_id']}: {r['method']} on {r['dataset']}@{r['dataset_version']}, {r['backend']}"
                      f"{' ' + r['model'] if r['model'] else ''}, prompt {r['prompt_hash'] or '-'}: "
                      f"{r['episodes']} episodes, {r['successes']} successes, {r['errors']} errors "
                      f"(created {r['created']})")
    except GroundplanError as exc:
        _fail(_one_line(exc))


def _llm_config(llm: str, model: Optional[str], base_url: Optional[str], replay: List[Path], no_cache: bool,
                seed_script: List[str], threads: Optional[int] = None):
    if llm == "none":
        return None
    from groundplan.llm import LLMConfig, resolve_config

    return resolve_config(LLMConfig(backend=llm, model=model, base_url=base_url, replay=tuple(replay),
                                    cache=not no_cache, script=tuple(seed_script), n_threads=threads))


@bench_app.command("run")
def run_cmd(
    dataset: str = typer.Argument(..., help="dataset name (see `groundplan bench list`)"),
    method: str = typer.Option(..., "--method", "-m", help="method name"),
    llm: str = typer.Option("none", "--llm", "--backend", help="LLM backend: none, embedded, openai, replay, scripted"),
    model: Optional[str] = typer.Option(None, "--model", help="model id (GGUF path for embedded, name for openai)"),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="OpenAI-compatible base URL"),
    replay: List[Path] = typer.Option([], "--replay", help="transcript(s) for the replay backend"),
    script: List[str] = typer.Option([], "--script", help="answers for the scripted backend (tests)"),
    no_cache: bool = typer.Option(False, "--no-cache", help="bypass the LLM disk cache"),
    workers: int = typer.Option(1, "--workers", "-w", help="worker processes (local) or Ray actors"),
    threads: Optional[int] = typer.Option(None, "--threads", min=1,
                                          help="embedded: CPU threads per worker (default: all cores; with "
                                               "--workers N on a small machine, 1 uses the cores better)"),
    executor: str = typer.Option("local", "--executor", help="local or ray"),
    address: Optional[str] = typer.Option(None, "--address", help="Ray cluster address host:port (ray executor)"),
    seed: List[int] = typer.Option([0], "--seed", help="seed (repeat for several)"),
    limit: Optional[int] = typer.Option(None, "--limit", help="only the first K tasks"),
    task: List[str] = typer.Option([], "--task", help="only these task ids (repeatable)"),
    db: Optional[Path] = typer.Option(None, "--db", help=f"results file (default ${DB_ENV} or {DEFAULT_DB})"),
    run_id: Optional[str] = typer.Option(None, "--run-id", help="default: METHOD@DATASET@BACKEND[:MODEL]"),
    on_bad_row: str = typer.Option("skip", "--on-bad-row", help="skip (record as invalid) or fail"),
    planner: str = typer.Option("fast-downward", "--planner"),
    timeout: float = typer.Option(120.0, "--timeout", help="planner seconds per plan"),
    retry_errors: bool = typer.Option(False, "--retry-errors", help="re-run episodes that ended in error/crash"),
    progress: bool = typer.Option(True, "--progress/--no-progress"),
    db_timeout: float = typer.Option(30.0, "--db-timeout", help="seconds to wait for a locked results file"),
    report: Optional[Path] = typer.Option(None, "--report", help="write the report to this folder afterwards"),
):
    """Run METHOD on every task of DATASET; resumable (re-run the same command to continue)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    from groundplan.bench.executors import make_executor
    from groundplan.bench.runner import RunSpec, run_benchmark
    from groundplan.bench.store import ResultStore

    class RateColumn(ProgressColumn):
        def render(self, task) -> Text:  # noqa: ANN001 - rich's Task
            speed = task.finished_speed or task.speed
            return Text("-- ep/s" if speed is None else f"{speed:.2f} ep/s")

    db_path = _db(db)
    if executor == "local" and address:
        _fail("--address is for --executor ray")
    opts = {"workers": workers} if executor == "local" else {"workers": workers if workers > 1 else None,
                                                              "address": address}
    state = {"done": 0, "ok": 0}
    prog = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), RateColumn(),
                    TextColumn("ok {task.fields[ok]}"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                    console=err, disable=not progress, transient=False)
    bar = None

    def on_start(plan) -> None:  # noqa: ANN001
        nonlocal bar
        if plan.done:
            err.print(f"run {plan.record.run_id}: {plan.done} episodes already in {db_path}, {len(plan.units)} to go",
                      highlight=False)
        prog.start()
        bar = prog.add_task(plan.record.run_id, total=len(plan.units), ok=0)

    def on_result(res, row) -> None:  # noqa: ANN001
        state["done"] += 1
        state["ok"] += int(row.success)
        if res.problem is not None:
            prog.console.print(fail_line("invalid row", str(res.problem)))
        if bar is not None:
            prog.update(bar, advance=1, ok=state["ok"])

    try:
        from groundplan.bench.datasets import get_dataset
        from groundplan.methods import method_class

        get_dataset(dataset)
        method_class(method)
        spec = RunSpec(dataset, method, _llm_config(llm, model, base_url, replay, no_cache, script, threads), tuple(seed),
                       limit, run_id, on_bad_row, planner, timeout, {}, retry_errors, tuple(task) or None)
        ex = make_executor(executor, **opts)
        with ResultStore(db_path, timeout=db_timeout) as store:
            try:
                summary = run_benchmark(spec, store, ex, on_start=on_start, on_result=on_result)
            finally:
                prog.stop()
            m = summary.metrics
            out.print(f"run {summary.run_id}: {summary.total} episodes ({summary.already_done} already done, "
                      f"{summary.ran} run now) in {summary.wall_time:.1f} s on {ex.describe()}; "
                      f"success {m.get('success') or 0:.3f}, minimal "
                      f"{'-' if m.get('minimal') is None else format(m['minimal'], '.3f')}, "
                      f"invalid {m.get('invalid', 0)}, errors {m.get('errors', 0)}; results in {db_path}",
                      highlight=False)
            if m.get("errors"):
                err.print(fail_line("warning", f"{m['errors']} of {m.get('n', 0)} episodes ended in an error, not "
                                               f"a failure (the method could not run; e.g. the LLM endpoint "
                                               f"failed): see `groundplan bench report {summary.run_id}`; "
                                               f"--retry-errors re-runs them"))
            for p in summary.invalid:
                err.print(fail_line("invalid row (counted as a failure)", str(p)))
            if report is not None:
                from groundplan.bench.report import write_report

                rep = write_report(store, [summary.run_id], report)
                out.print(f"report: {rep.files[0]}", highlight=False)
    except GroundplanError as exc:
        _fail(_one_line(exc))
    except KeyboardInterrupt:
        err.print(f"interrupted after {state['done']} episodes; they are saved in {db_path}: "
                  "re-run the same command to resume", highlight=False)
        raise typer.Exit(130) from None


@bench_app.command("report")
def report_cmd(
    runs: List[str] = typer.Argument(..., help="run ids (globs allowed, e.g. 'oracle@*')"),
    out_dir: Path = typer.Option(Path("results") / "report", "--out", help="folder for report.md, summary.json, PNGs"),
    db: Optional[Path] = typer.Option(None, "--db", help=f"results file (default ${DB_ENV} or {DEFAULT_DB})"),
    plots: bool = typer.Option(True, "--plots/--no-plots"),
    show: bool = typer.Option(False, "--show", help="also print the markdown"),
):
    """Write markdown tables shaped like the papers' tables, and plots, for RUNS."""
    from groundplan.bench.report import write_report
    from groundplan.bench.store import ResultStore

    try:
        with ResultStore(_db(db), must_exist=True) as store:
            rep = write_report(store, runs, out_dir, plots=plots)
    except GroundplanError as exc:
        _fail(_one_line(exc))
        return
    if show:
        out.print(rep.markdown, highlight=False, markup=False)
    for f in rep.files:
        out.print(f"wrote {f}", highlight=False)


__all__ = ["bench_app"]
