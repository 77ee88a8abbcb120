"""`groundplan bench list | runs | run | report | show`. Errors print one line and exit 2."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from groundplan.cli.console import HELP_MARKUP, fail_line, make_console, styled
from groundplan.cli.run_cmds import trace_line
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
            refusals = _refusal_counts(store, [r["run_id"] for r in runs])
        out.print(f"{len(runs)} runs in {_db(db)}", highlight=False)
        for r in runs:
            refused = "".join(f", {n} {k}" for k, n in refusals.get(r["run_id"], {}).items() if n)
            off = ", safety check off" if _allows_unsafe(r.get("config")) else ""
            out.print(f"{r['run_id']}: {r['method']} on {r['dataset']}@{r['dataset_version']}, {r['backend']}"
                      f"{' ' + r['model'] if r['model'] else ''}, prompt {r['prompt_hash'] or '-'}{off}: "
                      f"{r['episodes']} episodes, {r['successes']} successes, {r['errors']} errors{refused} "
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
    model: Optional[str] = typer.Option(None, "--model", help="embedded: a model name (groundplan llm models) or a GGUF "
                                                           "file; openai: the endpoint's model name"),
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
    allow_unsafe: bool = typer.Option(False, "--allow-unsafe",
                                      help="skip the safety check of goals and steps (experiments only; "
                                           "docs/safety.md); recorded in the run, whose default id ends "
                                           "+allow-unsafe"),
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
                       limit, run_id, on_bad_row, planner, timeout, {}, retry_errors, tuple(task) or None,
                       allow_unsafe=allow_unsafe)
        if allow_unsafe:
            err.print(fail_line("warning", "--allow-unsafe: the safety check of goals and steps is off for this "
                                           "run (recorded in its configuration)"))
        ex = make_executor(executor, **opts)
        with ResultStore(db_path, timeout=db_timeout) as store:
            try:
                summary = run_benchmark(spec, store, ex, on_start=on_start, on_result=on_result)
            finally:
                prog.stop()
            m = summary.metrics
            refusals = _refusal_counts(store, [summary.run_id])[summary.run_id]
            out.print(f"run {summary.run_id}: {summary.total} episodes ({summary.already_done} already done, "
                      f"{summary.ran} run now) in {summary.wall_time:.1f} s on {ex.describe()}; "
                      f"success {m.get('success') or 0:.3f}, minimal "
                      f"{'-' if m.get('minimal') is None else format(m['minimal'], '.3f')}, "
                      f"invalid {m.get('invalid', 0)}, errors {m.get('errors', 0)}"
                      + "".join(f", {k} {n}" for k, n in refusals.items() if n) + f"; results in {db_path}",
                      highlight=False)
            if any(refusals.values()):
                out.print(f"refusals ({', '.join(f'{n} {k}' for k, n in refusals.items() if n)}) are answers, "
                          f"not failures: `groundplan bench show {summary.run_id}` lists them with their "
                          f"reasons", highlight=False)
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


def _allows_unsafe(config: object) -> bool:
    """Whether a run's stored configuration (JSON text as ``store.runs()`` gives it) had the safety check off."""
    from groundplan.bench.runner import run_allows_unsafe

    try:
        return run_allows_unsafe(json.loads(config) if isinstance(config, str) else config)  # type: ignore[arg-type]
    except (ValueError, AttributeError):
        return False


def _refusal_counts(store, run_ids: List[str]) -> dict[str, dict[str, int]]:  # noqa: ANN001 - a ResultStore
    """run id -> ``{"unsafe": n, "abstained": n}`` over the runs' stored episodes."""
    from groundplan.bench.show import REFUSAL_KINDS
    from groundplan.core.verdict import verdict_kind

    counts: dict[str, Counter] = {rid: Counter() for rid in run_ids}
    for r in store.episodes(run_ids):
        counts[r.run_id][verdict_kind(r.status, r.success, r.metrics)] += 1
    return {rid: {k.value: c[k] for k in REFUSAL_KINDS} for rid, c in counts.items()}


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
    from groundplan.bench.show import FAILURE_KINDS
    from groundplan.bench.store import ResultStore
    from groundplan.core.verdict import Verdict, verdict_kind

    FAILURE = Verdict.FAILURE  # failure and no plan, counted together
    try:
        with ResultStore(_db(db), must_exist=True) as store:
            rep = write_report(store, runs, out_dir, plots=plots)
            tally = {rid: Counter(FAILURE if k in FAILURE_KINDS else k for k in
                                  (verdict_kind(r.status, r.success, r.metrics) for r in store.episodes([rid])))
                     for rid in store.match_runs(runs)}
    except GroundplanError as exc:
        _fail(_one_line(exc))
        return
    if show:
        out.print(rep.markdown, highlight=False, markup=False)
    for f in rep.files:
        out.print(f"wrote {f}", highlight=False)
    for rid, c in tally.items():
        refused = "".join(f", {c[k]} {k.value}" for k in (Verdict.UNSAFE, Verdict.ABSTAINED) if c[k])
        if c[FAILURE] or c[Verdict.ERROR] or refused:
            out.print(f"{rid}: {c[FAILURE]} failed, {c[Verdict.ERROR]} errors{refused}; `groundplan bench show {rid}` "
                      f"prints them with their traces" + (" and the refusals with their reasons" if refused else ""),
                      highlight=False)


# ----------------------------------------------------------------------------- show

#: verdict kind -> style on a terminal (plain text in a pipe)
_KIND_STYLE = {"success": "bold green", "goal holds (unverified)": "bold yellow", "failure": "bold red",
               "no plan": "bold red", "error": "bold red", "unsafe": "bold magenta", "abstained": "bold cyan"}
#: how ``bench show RUN`` introduces each list of refusals
_REFUSAL_HEADS = {"unsafe": ("unsafe", "the safety check refused a goal or step; not failures"),
                  "abstained": ("abstained", "the method answered that the scene cannot meet the request; "
                                             "not failures")}


def _field(name: str, value: object, style: str = "") -> object:
    label = f"{name + ':':<13}"
    label += "" if label.endswith(" ") else " "  # a long name ("also refused") keeps a space before its value
    return styled((label, "bold"), (str(value), style) if style else str(value))


def _trace_line(ev: dict) -> object:
    """``groundplan run``'s trace line, and the refusals readably: the safety check's event
    with its reason and what it refused, goalsearch's abstain note with its reason."""
    if ev.get("type") == "check" and ev.get("against") == "safety":
        what = next((f"{k} {ev[k]}" for k in ("goal", "step", "action") if ev.get(k)), "")
        if ev.get("success") is False:
            return styled(("safety check refused", _KIND_STYLE["unsafe"]), f" {what}: {ev.get('reason') or ''}".rstrip(": "))
        return styled(("safety check passed", "green"), f" {what}" if what else "")
    if ev.get("type") == "note" and ev.get("what") == "abstain":
        return styled(("abstained", _KIND_STYLE["abstained"]), f": {ev.get('reason') or ev.get('wanted') or ''}")
    return trace_line(ev)


def _print_episode(shown, *, full: bool) -> None:  # noqa: ANN001 - a bench.show.ShownEpisode
    r = shown.row
    where = f", {r.subset}" if r.subset else ""
    out.print(styled((f"== {r.task_id}", "bold"), f" (seed {r.seed}{where})", (" ==", "bold")))
    looked_up = " (from the dataset)" if shown.from_dataset else ""
    out.print(_field("instruction", (r.instruction or "(not stored)") + looked_up))
    out.print(_field("goal", shown.goal or "(none)"))
    out.print(_field("gold goal", (r.gold_goal or "(none)") + (looked_up if r.gold_goal else "")))
    out.print(_field("verdict", shown.verdict, _KIND_STYLE.get(shown.kind.value, "bold")))
    if r.error and shown.kind.value not in ("error", "unsafe", "abstained"):  # a refusal's verdict says why
        out.print(_field("why", " ".join(r.error.split())))
    for label, text in shown.refusal:
        out.print(_field(label, text))
    cost = r.metrics.get("cost")
    out.print(_field("plan", f"{len(r.plan)} steps" + (f", cost {float(cost):g}" if cost is not None else "")
                     + f"; LLM {r.llm_calls} calls, {r.prompt_tokens}+{r.completion_tokens} tokens; "
                       f"{r.wall_time:.2f} s"))
    if not any(e.get("type") == "step" for e in r.trace):  # the trace does not list the steps: list them
        for step in r.plan:
            out.print(f"  {step}")
    lines = [(ev, line) for ev in r.trace if (line := _trace_line(ev)) is not None]
    hidden = len(r.trace) - len(lines)
    count = f"{len(lines)} event{'' if len(lines) == 1 else 's'}" + (f"; {hidden} more in --json" if hidden else "")
    out.print(styled(("trace", "bold"), f" ({count})" if r.trace else " (none stored)"))
    for ev, line in lines:
        out.print(styled((f"  {float(ev.get('t') or 0):7.2f}s ", "dim"), line))
        if full and ev.get("type") == "llm_call":
            for label, text in (("prompt", ev.get("prompt")), ("answer", ev.get("text"))):
                if text:
                    body = text if isinstance(text, str) else json.dumps(text, indent=1)
                    out.print(f"           {label}:")
                    for ln in body.splitlines():
                        out.print(f"             {ln}")
    out.print("")


@bench_app.command("show")
def show_cmd(
    run: str = typer.Argument(..., help="run id as `groundplan bench runs` lists it (a glob naming one run works)"),
    task: Optional[str] = typer.Argument(None, help="task id; without it: the run's failures (errors apart)"),
    db: Optional[Path] = typer.Option(None, "--db", help=f"results file (default ${DB_ENV} or {DEFAULT_DB})"),
    seed: Optional[int] = typer.Option(None, "--seed", help="only this seed"),
    every: bool = typer.Option(False, "--all", help="every episode of the run, not only its failures"),
    limit: Optional[int] = typer.Option(None, "--limit", min=0, help="show at most N episodes"),
    full: bool = typer.Option(False, "--full", help="LLM calls with their whole prompt and answer"),
    as_json: bool = typer.Option(False, "--json", help="one JSON object (episodes with their whole trace)"),
):
    """Show one episode (RUN TASK) or a run's failures (RUN): instruction, goal produced,
    gold goal, verdict and trace. Refusals (unsafe, abstained) and errors (the method could
    not run) are listed apart, each with its reason."""
    from groundplan.bench import datasets  # noqa: F401 - registers the datasets older results files are filled from
    from groundplan.bench.show import select_episodes
    from groundplan.bench.store import ResultStore

    try:
        with ResultStore(_db(db), must_exist=True) as store:
            sel = select_episodes(store, run, task, seed=seed, every=every, limit=limit)
    except GroundplanError as exc:
        _fail(_one_line(exc))
        return
    if as_json:
        typer.echo(json.dumps(sel.to_json(), indent=1))  # verbatim, however long the traces
        return
    info = sel.run
    c = sel.counts
    n_all = sum(c.values())
    scope = (f"task {task}" if task is not None else "") + (f" seed {seed}" if seed is not None else "")
    out.print(f"run {info['run_id']}: {info['method']} on {info['dataset']}@{info['dataset_version']}, "
              f"{info['backend']}{' ' + info['model'] if info['model'] else ''}; {scope.strip() + ', ' if scope else ''}"
              f"{n_all} episode{'' if n_all == 1 else 's'}: " + ", ".join(f"{n} {k}" for k, n in c.items() if n),
              highlight=False)
    if task is None:
        n = len(sel.episodes) + sel.more
        what = ("episode" if every else "failure") + ("" if n == 1 else "s")
        out.print(f"{n or 'no'} {what}" + (f" ({len(sel.episodes)} shown; --limit)"
                                                            if sel.more else "") + "\n", highlight=False)
    for shown in sel.episodes:
        _print_episode(shown, full=full)
    from groundplan.bench.show import refusal_line

    for kind, shown_list in (("unsafe", sel.unsafe), ("abstained", sel.abstained)):
        if shown_list:
            word, why = _REFUSAL_HEADS[kind]
            out.print(styled((f"{len(shown_list)} {word}", _KIND_STYLE[kind]),
                             f" ({why}; `bench show RUN TASK` shows one):"))
            for shown in shown_list:
                out.print(f"  {shown.row.task_id} (seed {shown.row.seed}): {refusal_line(shown)}", highlight=False)
                for label, text in shown.refusal:
                    out.print(f"      {label}: {text}", highlight=False)
    if sel.errors:
        out.print(styled((f"{len(sel.errors)} error{'' if len(sel.errors) == 1 else 's'}", "bold red"),
                         " (the method could not run; not failures; `bench show RUN TASK` shows one):"))
        for shown in sel.errors:
            out.print(f"  {shown.row.task_id} (seed {shown.row.seed}): {shown.verdict}", highlight=False)


__all__ = ["bench_app"]
