"""Output that survives pipes (issue 19): with stdout not a terminal the text is plain (no
wrapping at 80 columns, no markup, no color), rich markup never eats brackets, `pddl --out`
writes files the bare Fast Downward driver solves, and `scene show` loads back."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import KITCHEN, ROOT, shared_data

from groundplan.world import load_scene

GP = [sys.executable, "-m", "groundplan.cli.main"]
GOAL = "and (inhand coke0 human0) (in banana0 trash_can0)"
ANSI = re.compile(r"\x1b\[")


def gp(*args, cwd=ROOT, env=None):
    """The CLI with stdout and stderr as pipes (never a terminal), as in `groundplan ... > f`."""
    return subprocess.run([*GP, *map(str, args)], capture_output=True, text=True, timeout=300, cwd=cwd,
                          env={**os.environ, "COLUMNS": "80", **(env or {})})


def fast_downward(domain: Path, problem: Path, workdir: Path) -> list[str]:
    """The bare Fast Downward driver of the up-fast-downward package (no groundplan code)."""
    spec = importlib.util.find_spec("up_fast_downward")
    assert spec is not None and spec.submodule_search_locations
    driver = Path(list(spec.submodule_search_locations)[0]) / "downward" / "fast-downward.py"
    proc = subprocess.run([sys.executable, str(driver), str(domain), str(problem), "--search", "astar(ff())"],
                          capture_output=True, text=True, timeout=300, cwd=workdir)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    plan = (workdir / "sas_plan").read_text().splitlines()
    return [ln.strip("()") for ln in plan if not ln.startswith(";")]


def executes_to_goal(steps: list[str]) -> bool:
    from groundplan.pddl.goal import parse_goal
    from groundplan.pddl.state import evaluate_goal
    from groundplan.sim.executor import Executor
    from groundplan.sim.pipeline import build

    task = build(KITCHEN)
    ex = Executor(task.domain, task.problem)
    assert all(ex.apply(s).ok for s in steps), steps
    return evaluate_goal(parse_goal(GOAL), task.domain, task.problem, ex.facts).success


def test_pddl_out_files_are_solved_by_the_bare_fast_downward_driver(tmp_path):
    proc = gp("pddl", "--scene", KITCHEN, "--goal", GOAL, "--out", tmp_path / "pddl")
    assert proc.returncode == 0, proc.stderr
    domain, problem = tmp_path / "pddl" / "domain.pddl", tmp_path / "pddl" / "problem.pddl"
    assert f"wrote {domain} and {problem}" in proc.stdout
    assert domain.read_text().startswith("(define (domain") and "(:goal" in problem.read_text()
    run = tmp_path / "fd"
    run.mkdir()
    steps = fast_downward(domain, problem, run)
    assert steps and executes_to_goal(steps)


def test_pddl_to_stdout_is_the_pddl_unwrapped(tmp_path):
    """`groundplan pddl --scene S > f`: exactly the writer's text (no line broken at 80
    columns, no markup eaten); split in two, the driver solves it."""
    from groundplan.pddl import parse_goal, write_domain, write_problem
    from groundplan.sim.pipeline import build

    proc = gp("pddl", "--scene", KITCHEN, "--goal", GOAL)
    assert proc.returncode == 0, proc.stderr
    task = build(KITCHEN)
    expected_domain = write_domain(task.domain)
    expected_problem = write_problem(task.problem.with_goal(parse_goal(GOAL)), with_goal=True)
    assert max(len(ln) for ln in expected_domain.splitlines()) > 80  # the case that used to be wrapped
    cut = proc.stdout.index("(define (problem")
    assert proc.stdout[:cut].strip() == expected_domain.strip()
    assert proc.stdout[cut:].strip() == expected_problem.strip()
    (tmp_path / "d.pddl").write_text(proc.stdout[:cut])
    (tmp_path / "p.pddl").write_text(proc.stdout[cut:])
    assert executes_to_goal(fast_downward(tmp_path / "d.pddl", tmp_path / "p.pddl", tmp_path))


def _same_scene(a, b) -> bool:
    """Equal except where each was read from (source file and line marks)."""
    return dataclasses.replace(b, source=a.source, lines=a.lines) == a


@pytest.mark.parametrize("scene", [
    KITCHEN,
    pytest.param("autogpt-p/autogpt_p/data/evaluation/scenes/environment_nuts.txt", id="autogptp-txt"),
])
def test_scene_show_loads_back_equal(tmp_path, scene):
    path = Path(scene)
    if not path.is_absolute():
        data = shared_data()
        if data is None:
            pytest.skip("../shared/data not present")
        path = data / scene
    proc = gp("scene", "show", path)
    assert proc.returncode == 0, proc.stderr
    assert "[" in proc.stdout  # the YAML flow lists are there, not eaten as markup
    shown = tmp_path / "shown.yaml"
    shown.write_text(proc.stdout)
    original, back = load_scene(path), load_scene(shown)
    if path.suffix == ".yaml":
        assert _same_scene(original, back)
    else:  # AutoGPT+P's .txt lists each location among its own contents; YAML does not
        assert dataclasses.replace(back, locations=original.locations) == dataclasses.replace(
            original, source=back.source, lines=back.lines)
        assert [(loc.name, tuple(c for c in loc.contents if c != loc.name)) for loc in original.locations] == \
            [(loc.name, loc.contents) for loc in back.locations]
    again = gp("scene", "show", shown)
    if path.suffix == ".yaml":
        assert again.stdout == proc.stdout  # a fixed point


def test_help_keeps_brackets():
    proc = gp("--help")
    assert proc.returncode == 0
    assert "[limits]" in proc.stdout


def test_piped_tables_and_messages_are_plain_and_unwrapped(tmp_path):
    proc = gp("limits")
    assert proc.returncode == 0, proc.stderr
    assert not ANSI.search(proc.stdout)
    assert "[limits]" in proc.stdout  # the title, not eaten as markup
    # every row on one line, its description whole, although wider than 80 columns
    row = next(ln for ln in proc.stdout.splitlines() if "goal_max_chars" in ln)
    assert "goal text, characters (longer goals are refused before parsing)" in row and len(row) > 80
    # an error naming a file with brackets: the brackets are kept, one plain line
    bad = tmp_path / "[draft] scene.yaml"
    err = gp("plan", "--scene", bad, "--goal", "and (inhand coke0 human0)")
    assert err.returncode == 2
    assert err.stderr.strip() == f"error: {bad}: scene file not found"
