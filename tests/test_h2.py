"""h^2 pruning before Fast Downward's search (groundplan.planners.h2): SymK's preprocessor
output read back by Fast Downward, floortile's dead ends, unsolvability, and a skip (never a
failure) when the preprocessor cannot run."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundplan.datadir import data_dir
from groundplan.pddl.parser import check_task
from groundplan.planners import PlanStatus, h2
from groundplan.sim.pddl_task import file_planner, plan_files, plan_task

try:
    FLOORTILE = data_dir() / "llm-pddl" / "domains" / "floortile"
except Exception:  # noqa: BLE001
    FLOORTILE = Path("/nonexistent")

TILE_DOMAIN = """(define (domain tiles)
  (:requirements :typing)
  (:types robot tile color)
  (:predicates (robot-at ?r - robot ?x - tile) (up ?x - tile ?y - tile) (clear ?x - tile)
               (painted ?x - tile ?c - color) (robot-has ?r - robot ?c - color))
  (:action paint-up
    :parameters (?r - robot ?y - tile ?x - tile ?c - color)
    :precondition (and (robot-has ?r ?c) (robot-at ?r ?x) (up ?y ?x) (clear ?y))
    :effect (and (not (clear ?y)) (painted ?y ?c)))
  (:action move-up
    :parameters (?r - robot ?x - tile ?y - tile)
    :precondition (and (robot-at ?r ?x) (up ?y ?x) (clear ?y))
    :effect (and (robot-at ?r ?y) (not (robot-at ?r ?x)) (clear ?x) (not (clear ?y)))))
"""
TILE_PROBLEM = """(define (problem two) (:domain tiles)
  (:objects r - robot t0 t1 t2 - tile white black - color)
  (:init (robot-at r t0) (robot-has r white) (up t1 t0) (up t2 t1) (clear t1) (clear t2))
  (:goal (and (painted t2 {color}))))
"""


def test_symk_dialect_becomes_fast_downward_sas():
    symk = "begin_mutex_group\nfw\n2\n0 0\n1 0\nend_mutex_group\nbegin_mutex_group\nbw\n2\n0 1\n1 1\nend_mutex_group\n"
    fd = h2.to_fast_downward(symk)
    assert "fw" not in fd.split() and "bw" not in fd.split()
    assert fd.count("begin_mutex_group") == 2 and "\n2\n0 0\n1 0\n" in fd
    # a variable value that happens to read "fw" elsewhere is left alone
    assert h2.to_fast_downward("begin_variable\nfw\n") == "begin_variable\nfw\n"


def test_pruned_task_plans_and_validates():
    task = check_task(TILE_DOMAIN, TILE_PROBLEM.format(color="white"))
    out = plan_task(task, file_planner(timeout=20))
    assert out.status == "solved" and out.valid
    assert out.timings.get("h2", 0) > 0 and "h2_skipped" not in out.timings
    assert list(out.plan) == ["move-up r t0 t1", "paint-up r t2 t1 white"]


def test_h2_proves_unsolvable():
    # the robot holds white only: painting t2 black can never happen
    task = check_task(TILE_DOMAIN, TILE_PROBLEM.format(color="black"))
    out = plan_task(task, file_planner(timeout=20))
    assert out.status == PlanStatus.UNSOLVABLE.value and out.plan == ()


def test_missing_preprocessor_skips_and_still_plans(monkeypatch):
    def gone():
        raise h2.PlannerError("package up-symk is not installed")

    monkeypatch.setattr(h2, "preprocessor_binary", gone)
    task = check_task(TILE_DOMAIN, TILE_PROBLEM.format(color="white"))
    out = plan_task(task, file_planner(timeout=20))
    assert out.status == "solved" and out.valid and out.timings.get("h2_skipped") == 1.0


@pytest.mark.skipif(not FLOORTILE.is_dir(), reason="../shared/data/llm-pddl not present")
def test_floortile_dead_ends_solved_after_h2():
    # Fast Downward alone (astar(ff()) then lama-first) does not solve p04 in 120 s
    out = plan_files(FLOORTILE / "domain.pddl", FLOORTILE / "p04.pddl", timeout=60)
    assert out.status == "solved" and out.valid, out.error
    assert out.timings.get("h2_operators_removed", 0) > 0
