"""AutoGPT+P's human-robot collaboration through agent costs (Sec. IV-A, eq. 10): every
action has an actor of its capability type and adds the actor's cost to total-cost, so with
the robot at 1 and the human at 100 the robot does all it can and asks the human only for
what it cannot do. Real Fast Downward, scripted LLM."""

from __future__ import annotations

import pytest
import yaml
from conftest import KITCHEN

from groundplan.core.task import Task
from groundplan.llm import ScriptedLLM
from groundplan.methods import RunContext, get_method

ALL_BUT_OPEN = ["grasp", "place", "take_out", "putin", "handover", "receive_object", "move", "pour", "fill"]


def scene(tmp_path, robot_caps=None, human_caps=None, robot_cost=1, human_cost=100):
    """The kitchen with the agents' capabilities and costs set."""
    data = yaml.safe_load(KITCHEN.read_text())
    robot = {"name": "robot0", "kind": "robot", "at": "counter0", "cost": robot_cost}
    human = {"name": "human0", "kind": "human", "at": "table0", "cost": human_cost}
    if robot_caps is not None:
        robot["capabilities"] = robot_caps
    if human_caps is not None:
        human["capabilities"] = human_caps
    data["agents"] = [robot, human]
    p = tmp_path / f"kitchen_{robot_cost}_{human_cost}_{len(robot_caps or [])}_{len(human_caps or [])}.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


def plan_for(tmp_path, planner, goal, **kw):
    task = Task("collab:1", "test", "Open the fridge", str(scene(tmp_path, **kw)), goal)
    llm = ScriptedLLM([f"(:goal {goal})"])
    ep = get_method("autogpt_p").run(task, RunContext(llm=llm, planner=planner, planner_timeout=60))
    return ep


def actors(plan):
    return [step.split()[-1] for step in plan]


def test_robot_acts_alone_when_it_can(tmp_path, planner):
    ep = plan_for(tmp_path, planner, "(opened fridge0)", human_caps=list(ALL_BUT_OPEN) + ["open"])
    assert ep.success, ep.error
    assert any(s.startswith("open fridge0") for s in ep.plan)
    assert set(actors(ep.plan)) == {"robot0"}  # the human could, but costs 100 per action


def test_robot_asks_the_human_only_for_what_it_cannot_do(tmp_path, planner):
    ep = plan_for(tmp_path, planner, "(and (opened fridge0) (inhand apple0 robot0))",
                  robot_caps=ALL_BUT_OPEN, human_caps=["open", "move"])
    assert ep.success, ep.error
    by_actor = {}
    for s in ep.plan:
        by_actor.setdefault(s.split()[-1], []).append(s.split()[0])
    assert "open" in by_actor.get("human0", [])
    assert "open" not in by_actor.get("robot0", [])
    assert "grasp" in by_actor["robot0"]  # the robot still does what it can itself
    assert set(by_actor["human0"]) <= {"open", "move"}
    # the human's share is as small as it can be: walk to the fridge, open it
    assert len(by_actor["human0"]) == 2
    assert ep.metrics["cost"] == pytest.approx(200 + len(by_actor["robot0"]))


def test_costs_decide_who_acts(tmp_path, planner):
    """The same capabilities with the costs swapped: the cheap human does the work."""
    ep = plan_for(tmp_path, planner, "(opened fridge0)", human_caps=list(ALL_BUT_OPEN) + ["open"],
                  robot_cost=100, human_cost=1)
    assert ep.success, ep.error
    assert set(actors(ep.plan)) == {"human0"}


def test_nobody_can_act_gives_no_plan(tmp_path, planner):
    ep = plan_for(tmp_path, planner, "(opened fridge0)", robot_caps=ALL_BUT_OPEN, human_caps=["move"])
    assert not ep.success and not ep.plan
