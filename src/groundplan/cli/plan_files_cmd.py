"""`groundplan plan --domain D.pddl --problem P.pddl`: plan any PDDL task, validate the plan
with the executor, print it (or one JSON object). Bad PDDL: one ``file:line: message`` line,
exit code 2; no plan: exit code 1."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from groundplan.cli.console import fail_line, make_console
from groundplan.errors import GroundplanError

out = make_console()
err = make_console(stderr=True)


def _fail(msg: str, code: int = 2) -> None:
    err.print(fail_line("error", str(msg)))
    raise typer.Exit(code)


def plan_files_command(domain: Optional[Path], problem: Optional[Path], *, as_json: bool, planner_name: str,
                       timeout: Optional[float], other: object = None) -> None:
    from groundplan.pddl.parser import load_task
    from groundplan.sim.pddl_task import file_planner, plan_task

    if domain is None or problem is None:
        _fail("give both --domain D.pddl and --problem P.pddl")
    if other:
        _fail("--domain/--problem plan a PDDL task; --scene, --goal, --check and --jsonl do not apply to it")
    try:
        task = load_task(domain, problem)
    except GroundplanError as exc:
        if as_json:
            sys.stdout.write(json.dumps({"status": "invalid", "plan": [], "cost": None, "seconds": 0,
                                         "goal_reached": None, "valid": None, "validation": None,
                                         "error": str(exc), "warnings": [], "domain": str(domain),
                                         "problem": str(problem), "planner": planner_name}) + "\n")
            raise typer.Exit(2) from None
        raise
    result = plan_task(task, file_planner(planner_name, timeout), timeout=timeout)
    if as_json:
        sys.stdout.write(json.dumps(result.to_json()) + "\n")
        raise typer.Exit(0 if result.status == "solved" else (2 if result.status == "invalid" else 1))
    for w in result.warnings:
        err.print(fail_line("warning", w))
    if result.status == "invalid":
        _fail(result.error or "invalid task")
    if result.status != "solved":
        err.print(f"{result.status}: {result.error or ''}")
        raise typer.Exit(1)
    for step in result.plan:
        out.print(step)
    cost = result.validation.cost if result.validation else result.cost
    out.print(f"; cost {cost:g}, {len(result.plan)} actions, {result.seconds * 1000:.0f} ms; "
              f"validated: {result.validation.message() if result.validation else 'n/a'}", highlight=False,
              markup=False, soft_wrap=True)


__all__ = ["plan_files_command"]
