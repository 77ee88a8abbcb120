"""The Franka tabletop tasks of BrainBody-LLM's Table 4: workspace semantics, checkers, and
the oracle Brain solving all 7 (with feedback after unreachable objects / locations)."""

from __future__ import annotations

import pytest

from groundplan.methods.brainbody.algorithm import brainbody_loop
from groundplan.methods.brainbody.tabletop import (
    TASKS,
    CommandBody,
    TabletopEnv,
    TabletopOracleBrain,
    check_letter_l,
    check_plus,
    check_rainbow_line,
    check_segregated,
    franka_tasks,
    parse_command,
)


def env_for(n: int) -> TabletopEnv:
    return TabletopEnv(next(t for t in franka_tasks() if t.extras["number"] == n))


def test_out_of_workspace_messages():
    env = env_for(3)
    assert env.execute("<rob0> [grasp] <violet_cube>").ok
    r = env.execute("<rob0> [move] <violet_cube> <location_G>")
    assert not r.ok and r.message == "location_g is out of the workspace of the robot"
    env = env_for(5)
    r = env.execute("<rob0> [grasp] <scarlet_cube>")
    assert not r.ok and r.message == "scarlet_cube is out of the workspace of the robot"
    assert not env.execute("<rob0> [move] <red_cube> <location_A>").ok  # not grasped
    assert env.execute("<rob0> [return to base]").ok
    assert parse_command("<rob0>[move] <red_cube> <location_A>") == "move red_cube location_a rob0"


@pytest.mark.parametrize("number", [t.number for t in TASKS])
def test_oracle_brain_solves_every_task(number):
    env = env_for(number)
    res = brainbody_loop(env.task.instruction, TabletopOracleBrain(env.spec), CommandBody(), env, K=3)
    assert env.score().success, env.score().detail
    assert res.feedback_loops == env.spec.feedback_needed
    assert (env.spec.feedback_needed > 0) == (env.spec.unreachable == "Yes")


@pytest.mark.parametrize("number", [t.number for t in TASKS if t.unreachable == "Yes"])
def test_without_feedback_the_unreachable_tasks_fail(number):
    env = env_for(number)
    brainbody_loop(env.task.instruction, TabletopOracleBrain(env.spec), CommandBody(), env, K=0)
    assert not env.score().success


def test_checkers():
    assert check_letter_l({"a_cube": (0, 0), "b_cube": (0, 1), "c_cube": (1, 0)}, {})[0]
    assert not check_letter_l({"a_cube": (0, 0), "b_cube": (1, 1), "c_cube": (1, 0)}, {})[0]
    plus = {"a_cube": (2, 2), "b_cube": (1, 2), "c_cube": (3, 2), "d_cube": (2, 1), "e_cube": (2, 3)}
    assert check_plus(plus, {})[0] and not check_plus({**plus, "e_cube": (3, 3)}, {})[0]
    line = {"red_cube": (-1, 1), "green_cube": (0, 1), "violet_cube": (2, 1)}
    assert check_rainbow_line(line, {})[0]
    assert not check_rainbow_line({**line, "red_cube": (3, 1)}, {})[0]
    assert check_segregated({"a_cube": (-1, 1), "b_cylinder": (1, 1)}, {})[0]
    assert not check_segregated({"a_cube": (-1, 1), "b_cylinder": (1, 1), "c_cube": (2, 2)}, {})[0]


def test_bench_oracle_method_on_the_dataset():
    from groundplan.bench.datasets import load_tasks
    from groundplan.methods import RunContext, get_method

    tasks = load_tasks("franka-tabletop")
    assert len(tasks) == 7
    eps = [get_method("brainbody_oracle").run(t, RunContext()) for t in tasks]
    assert all(e.success for e in eps), [e.error for e in eps]
    assert [e.metrics["feedback_loops"] for e in eps] == [0, 0, 1, 1, 2, 1, 1]
