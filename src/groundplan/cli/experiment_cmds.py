"""`groundplan bench experiment FILE...`: the one launcher of the declared experiments
(``experiments/*.toml``; see groundplan.bench.experiment)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from groundplan.errors import GroundplanError


def _repo_root(start: Path) -> Path:
    for p in (start.resolve(), *start.resolve().parents):
        if (p / "benchmarks").is_dir() and (p / "pyproject.toml").is_file():
            return p
    return Path.cwd()


def experiment_command(
    files: List[Path] = typer.Argument(..., help="experiment files (experiments/*.toml)"),
    db: Optional[Path] = typer.Option(None, "--db", help="results file (default: the experiment's own, "
                                                         "results/experiments/<name>.sqlite)"),
    workers: int = typer.Option(1, "--workers", "-w", min=1, help="worker processes for the runs"),
    dry_run: bool = typer.Option(False, "--dry-run", help="check the files and list the steps; run nothing"),
    fresh: bool = typer.Option(False, "--fresh", help="run every episode anew (the experiment's previous results "
                                                      "file is moved aside); default: resume from it"),
) -> None:
    """Run declared experiments (method x dataset x LLM x seeds x options, and measuring
    scripts), writing their results files, tables and plots."""
    from groundplan.bench.experiment import load_experiment, run_experiment

    def say(msg: str) -> None:
        sys.stderr.write(msg + "\n")
        sys.stderr.flush()

    failed = 0
    try:
        exps = [load_experiment(f) for f in files]  # every file checked before anything runs
        for exp in exps:
            say(f"== {exp.name}: {exp.reproduces or exp.description}")
            results = run_experiment(exp, root=_repo_root(Path(exp.file).parent), db=db, workers=workers,
                                     dry_run=dry_run, fresh=fresh, on_step=say)
            failed += sum(1 for r in results if not r.ok)
            if not dry_run:
                sys.stdout.write(f"{exp.name}: {len(results)} steps, {failed} failed; see {exp.out}/experiment.md\n")
    except GroundplanError as exc:
        sys.stderr.write(f"error: {' '.join(str(exc).split())}\n")
        raise typer.Exit(2) from None
    raise typer.Exit(1 if failed else 0)


__all__ = ["experiment_command"]
