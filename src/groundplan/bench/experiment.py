"""Experiments declared as data, run by one launcher (issue 22).

An experiment is one TOML file under ``experiments/``: what it reproduces, then its steps in
order. A ``[[run]]`` step is one method x dataset x LLM x seeds x options, run through the
benchmark runner into a results file and reported; a ``[[script]]`` step runs one measuring
script of ``benchmarks/`` (for measurements that are not method x dataset runs: gold goals,
planner speed, fuzzing, ...) with its output written into the experiment's folder::

    name = "small_model_saycan"
    reproduces = "README Results: small-model planning"
    out = "benchmarks/results/small_model/launcher"

    [[run]]
    dataset = "autogptp-saycan"
    method = "goalsearch"
    llm = "embedded"
    sample = 0.25          # a seeded sample of the tasks (default: all)

    [[script]]
    path = "benchmarks/planning_speed.py"
    args = ["--out", "{out}/planning_speed.md"]
    stdout = "planning_speed.log"

Every key is checked: an unknown key or a bad value is one ``ConfigError`` naming the file
and the key (with a did-you-mean), exit 2, before anything runs. ``{out}``, ``{data}`` and
``{db}`` in script arguments and replay paths are replaced by the experiment's folder, the
data directory and the results file; nothing else is interpolated and scripts run without a
shell.
"""

from __future__ import annotations

import difflib
import random
import subprocess
import sys
import time
import tomllib
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

from groundplan.errors import ConfigError


def _did_you_mean(word: str, options: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, list(options), n=1)
    return f" (did you mean {close[0]}?)" if close else ""


@dataclass(frozen=True)
class RunStep:
    """One method x dataset x LLM x seeds x options."""

    dataset: str
    method: str
    llm: str = "none"
    model: Optional[str] = None
    base_url: Optional[str] = None
    replay: tuple[str, ...] = ()
    seeds: tuple[int, ...] = (0,)
    limit: Optional[int] = None
    #: a seeded sample of this fraction of the dataset's tasks (None: every task)
    sample: Optional[float] = None
    sample_seed: int = 0
    tasks: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    planner_timeout: float = 120.0
    threads: Optional[int] = None
    run_id: Optional[str] = None


@dataclass(frozen=True)
class ScriptStep:
    """One measuring script of ``benchmarks/`` with its arguments."""

    path: str
    args: tuple[str, ...] = ()
    #: file (in the experiment's folder) that receives the script's standard output
    stdout: Optional[str] = None


@dataclass(frozen=True)
class Experiment:
    name: str
    file: str
    reproduces: str = ""
    description: str = ""
    #: folder for the report and the scripts' outputs (relative to the repository)
    out: str = ""
    #: results file for the runs (default: results/experiments/<name>.sqlite, outside git)
    db: Optional[str] = None
    runs: tuple[RunStep, ...] = ()
    scripts: tuple[ScriptStep, ...] = ()
    report: bool = True


_TOP = {"name", "reproduces", "description", "out", "db", "run", "script", "report"}


def _check_keys(table: Mapping[str, Any], allowed: Sequence[str], where: str) -> None:
    for key in table:
        if key not in allowed:
            raise ConfigError(f"{where}: unknown key '{key}'{_did_you_mean(key, allowed)} "
                              f"(known: {', '.join(sorted(allowed))})")


def _check_value(name: str, expected: str, v: Any, where: str) -> Any:
    optional = expected.startswith("Optional[")
    base = expected[len("Optional["):-1] if optional else expected
    if v is None and optional:
        return None
    if base.startswith("tuple"):
        if not isinstance(v, list):
            raise ConfigError(f"{where}: '{name}' must be a list, not {v!r}")
        item = int if "int" in base else str
        if not all(isinstance(x, item) and not isinstance(x, bool) for x in v):
            raise ConfigError(f"{where}: '{name}' must be a list of {item.__name__}s, not {v!r}")
        return tuple(v)
    if base.startswith("Mapping"):
        if not isinstance(v, dict):
            raise ConfigError(f"{where}: '{name}' must be a table, not {v!r}")
        return v
    if base == "bool":
        ok = isinstance(v, bool)
    elif base == "float":
        ok = isinstance(v, (int, float)) and not isinstance(v, bool)
    elif base == "int":
        ok = isinstance(v, int) and not isinstance(v, bool)
    else:
        ok = isinstance(v, str)
    if not ok:
        raise ConfigError(f"{where}: '{name}' must be {'an' if base == 'int' else 'a'} {base}, not {v!r}")
    return float(v) if base == "float" else v


def _coerce(cls: type, table: Mapping[str, Any], where: str) -> Any:
    names = [f.name for f in fields(cls)]
    _check_keys(table, names, where)
    kw = {f.name: _check_value(f.name, str(f.type), table[f.name], where) for f in fields(cls) if f.name in table}
    missing = [f.name for f in fields(cls)
               if f.default is MISSING and f.default_factory is MISSING and f.name not in kw]
    if missing:
        raise ConfigError(f"{where}: missing key '{missing[0]}'")
    obj = cls(**kw)
    if isinstance(obj, RunStep) and obj.sample is not None and not 0 < obj.sample <= 1:
        raise ConfigError(f"{where}: 'sample' must be a fraction in (0, 1], not {obj.sample}")
    return obj


def load_experiment(path: str | Path) -> Experiment:
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"{p}: experiment file not found")
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: {exc}") from None
    _check_keys(data, sorted(_TOP), str(p))
    runs = data.get("run", [])
    scripts = data.get("script", [])
    if not isinstance(runs, list) or not isinstance(scripts, list):
        raise ConfigError(f"{p}: 'run' and 'script' must be arrays of tables ([[run]], [[script]])")
    if not runs and not scripts:
        raise ConfigError(f"{p}: no [[run]] or [[script]] step")
    exp = Experiment(
        name=str(data.get("name") or p.stem), file=str(p), reproduces=str(data.get("reproduces", "")),
        description=str(data.get("description", "")), out=str(data.get("out") or f"results/experiments/{p.stem}"),
        db=data.get("db"), report=bool(data.get("report", True)),
        runs=tuple(_coerce(RunStep, r, f"{p}: [[run]] #{i + 1}") for i, r in enumerate(runs)),
        scripts=tuple(_coerce(ScriptStep, s, f"{p}: [[script]] #{i + 1}") for i, s in enumerate(scripts)))
    for i, s in enumerate(exp.scripts):
        if not s.path.startswith("benchmarks/") or not s.path.endswith(".py"):
            raise ConfigError(f"{p}: [[script]] #{i + 1}: path must be a Python script under benchmarks/, "
                              f"not '{s.path}'")
    return exp


def validate_experiment(exp: Experiment, root: Path) -> None:
    """Everything checkable before running: datasets, methods, method options, scripts."""
    from groundplan.bench.datasets import DATASETS
    from groundplan.methods import available_methods

    methods = available_methods()
    for i, r in enumerate(exp.runs):
        where = f"{exp.file}: [[run]] #{i + 1}"
        if r.dataset not in DATASETS:
            raise ConfigError(f"{where}: unknown dataset '{r.dataset}'{_did_you_mean(r.dataset, sorted(DATASETS))}")
        if r.method not in methods:
            raise ConfigError(f"{where}: unknown method '{r.method}'{_did_you_mean(r.method, methods)}")
    for i, s in enumerate(exp.scripts):
        if not (root / s.path).is_file():
            raise ConfigError(f"{exp.file}: [[script]] #{i + 1}: no script {s.path}")


def sample_task_ids(ids: Sequence[str], fraction: float, seed: int) -> tuple[str, ...]:
    """A seeded sample of at least ``fraction`` of ``ids`` (at least one), in dataset order."""
    k = max(1, -(-len(ids) * round(fraction * 1000) // 1000))  # ceil without float drift
    chosen = set(random.Random(seed).sample(list(ids), min(k, len(ids))))
    return tuple(i for i in ids if i in chosen)


@dataclass(frozen=True)
class StepResult:
    kind: str  # run | script
    label: str
    ok: bool
    seconds: float
    detail: str = ""
    run_id: Optional[str] = None
    metrics: Mapping[str, Any] = field(default_factory=dict)


def _subst(text: str, values: Mapping[str, str]) -> str:
    for k, v in values.items():
        text = text.replace("{" + k + "}", v)
    return text


def run_experiment(exp: Experiment, *, root: Path, db: Optional[Path] = None, workers: int = 1,
                   dry_run: bool = False, fresh: bool = False,
                   on_step: Optional[Callable[[str], None]] = None) -> list[StepResult]:
    """Run every step in order; a failing script or run is recorded and the next step runs.
    Runs resume from the experiment's results file (episodes already there are not run
    again); ``fresh`` first moves that file aside (``<file>.<time>.bak``), so every episode is
    run anew - after a change to the code, to regenerate a figure."""
    from groundplan.bench.datasets import get_dataset
    from groundplan.bench.executors import make_executor
    from groundplan.bench.runner import RunSpec, run_benchmark
    from groundplan.bench.store import ResultStore
    from groundplan.datadir import data_dir
    from groundplan.llm import LLMConfig

    validate_experiment(exp, root)
    out = root / exp.out
    db_path = db or root / (exp.db or f"results/experiments/{exp.name}.sqlite")
    found = data_dir(required=False)
    data = str(found) if found is not None else ""
    values = {"out": str(out), "db": str(db_path), "data": data, "root": str(root)}
    say = on_step or (lambda _msg: None)
    results: list[StepResult] = []
    if dry_run:
        for r in exp.runs:
            say(f"run {r.method} on {r.dataset} (llm {r.llm}{' ' + r.model if r.model else ''}"
                f"{f', sample {r.sample:g}' if r.sample else ''})")
        for s in exp.scripts:
            say(f"script {s.path} {' '.join(_subst(a, values) for a in s.args)}")
        return results
    if fresh and db is not None:
        raise ConfigError("--fresh starts the experiment's own results file anew; it does not touch a file "
                          "named with --db")
    out.mkdir(parents=True, exist_ok=True)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    if fresh and db_path.exists():
        aside = db_path.with_name(f"{db_path.name}.{time.strftime('%Y%m%d-%H%M%S')}.bak")
        db_path.rename(aside)
        say(f"--fresh: the previous results file is now {aside}")
    run_ids: list[str] = []
    for r in exp.runs:
        label = f"{r.method} on {r.dataset} ({r.llm}{' ' + r.model if r.model else ''})"
        say(f"run {label}")
        t0 = time.perf_counter()
        task_ids = r.tasks or None
        if r.sample is not None:
            ids = [t.id for t in get_dataset(r.dataset).loader()]
            task_ids = sample_task_ids(ids, r.sample, r.sample_seed)
        llm = None
        if r.llm != "none":
            llm = LLMConfig(backend=r.llm, model=r.model, base_url=r.base_url,
                            replay=tuple(Path(_subst(x, values)) for x in r.replay), n_threads=r.threads)
        spec = RunSpec(r.dataset, r.method, llm, r.seeds, r.limit, r.run_id, "skip", "fast-downward",
                       r.planner_timeout, dict(r.options), False, task_ids)
        with ResultStore(db_path) as store:
            summary = run_benchmark(spec, store, make_executor("local", workers=workers))
        run_ids.append(summary.run_id)
        m = summary.metrics
        results.append(StepResult("run", label, True, time.perf_counter() - t0,
                                  f"{summary.total} episodes, success {m.get('success') or 0:.3f}, "
                                  f"errors {m.get('errors', 0)}", summary.run_id, dict(m)))
        say(f"  {results[-1].detail}")
    for s in exp.scripts:
        args = [_subst(a, values) for a in s.args]
        say(f"script {s.path} {' '.join(args)}")
        t0 = time.perf_counter()
        cmd = [sys.executable, str(root / s.path), *args]
        if s.stdout:
            with (out / s.stdout).open("w", encoding="utf-8") as fh:
                proc = subprocess.run(cmd, cwd=root, stdout=fh, stderr=subprocess.PIPE, text=True, check=False)
        else:
            proc = subprocess.run(cmd, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                  check=False)
        tail = (proc.stderr or "").strip().splitlines()[-1:] if proc.returncode else []
        results.append(StepResult("script", s.path, proc.returncode == 0, time.perf_counter() - t0,
                                  f"exit {proc.returncode}" + (f": {tail[0]}" if tail else "")))
        say(f"  {results[-1].detail}")
    if exp.report and run_ids:
        from groundplan.bench.report import write_report

        with ResultStore(db_path, must_exist=True) as store:
            rep = write_report(store, run_ids, out, plots=True)
        say(f"report: {rep.files[0]}")
    (out / "experiment.md").write_text(summary_markdown(exp, results), encoding="utf-8")
    return results


def summary_markdown(exp: Experiment, results: Sequence[StepResult]) -> str:
    lines = [f"# {exp.name}", "", exp.description or exp.reproduces, "",
             f"Regenerate: `.venv/bin/groundplan bench experiment {exp.file}`", "",
             "| step | ok | seconds | result |", "|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r.kind}: {r.label} | {'yes' if r.ok else 'NO'} | {r.seconds:.1f} | {r.detail} |")
    return "\n".join(lines) + "\n"


__all__ = ["Experiment", "RunStep", "ScriptStep", "StepResult", "load_experiment", "validate_experiment",
           "run_experiment", "sample_task_ids", "summary_markdown"]
