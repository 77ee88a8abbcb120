"""The safety check between goal and plan (issue 50, core/safety.py): no goal or step hands a
person a hazard to meet a need, nor gives a child any hazard; the scene's child marker."""

from __future__ import annotations

import pytest

from groundplan.core.safety import UNSAFE, check_goal, check_plan, check_step, stated_need
from groundplan.errors import SceneError
from groundplan.sim.pipeline import build
from groundplan.world.yaml_io import read_yaml_scene as load_scene

SCENE = """name: lab and nursery
objects: [bench0, bottle0, ethanol0, cup0, water0, box_cutter0, band_aid0, marble0, teddy_bear0, knife0, bread0,
          thermometer0, kettle0]
agents:
  - {name: robot0, kind: robot, at: bench0}
  - {name: human0, kind: human, at: bench0}
  - {name: kid0, kind: child, at: bench0}
  - {name: baby0, kind: human, child: true, at: bench0}
facts:
  - on bottle0 bench0
  - liquid_in ethanol0 bottle0
  - on cup0 bench0
  - liquid_in water0 cup0
  - on box_cutter0 bench0
  - on band_aid0 bench0
  - on marble0 bench0
  - on teddy_bear0 bench0
  - on knife0 bench0
  - on bread0 bench0
  - on thermometer0 bench0
  - on kettle0 bench0
"""


@pytest.fixture(scope="module")
def pt(tmp_path_factory):
    p = tmp_path_factory.mktemp("safety") / "lab.yaml"
    p.write_text(SCENE)
    return build(p, skillset="household", strict=False)


def test_a_hazard_is_not_a_drink(pt):
    res = check_goal("(inhand bottle0 human0)", pt, instruction="I'm thirsty")
    assert res is not None and res.status == UNSAFE
    assert res.reason == "unsafe: bottle0 holds ethanol0, which is flammable and toxic; not a drink"
    assert (res.recipient, res.given, res.hazardous, res.rule) == ("human0", "bottle0", "ethanol0", "consumption")
    assert res.to_dict()["hazard"]["kinds"] == ["flammable", "toxic"]
    direct = check_goal("(and (liquid_in ethanol0 cup0) (inhand cup0 human0))", pt, instruction="I need a drink")
    assert direct is not None and "ethanol0" in direct.reason
    named = check_goal("(inhand bottle0 human0)", pt, instruction="I'm thirsty, give me the ethanol")
    assert named is not None  # asked by name, still not a drink


def test_the_safe_option_passes(pt):
    assert check_goal("(inhand cup0 human0)", pt, instruction="I'm thirsty") is None
    assert check_goal("(inhand band_aid0 human0)", pt, instruction="something for the cut on my finger") is None
    assert check_goal("(inhand teddy_bear0 kid0)", pt, instruction="give the kid something to play with") is None
    assert check_goal("(and (inhand bread0 human0) (not (inhand knife0 human0)))", pt,
                      instruction="I'm hungry") is None


def test_a_need_is_not_met_with_a_hazard_but_a_named_tool_may_be_handed(pt):
    res = check_goal("(inhand box_cutter0 human0)", pt, instruction="something for the cut on my finger")
    assert res is not None and res.rule == "need"
    assert res.reason == "unsafe: box_cutter0 is sharp; not given to meet a need (human0)"
    assert check_goal("(inhand box_cutter0 human0)", pt, instruction="hand me the box cutter") is None
    assert check_goal("(inhand bottle0 human0)", pt, instruction="bring me the bottle of ethanol") is None


def test_a_child_is_given_no_hazard_at_all(pt):
    for child in ("kid0", "baby0"):  # kind: child, and a human marked child: true
        res = check_goal(f"(inhand marble0 {child})", pt, instruction="give the kid the marble")
        assert res is not None and res.rule == "child"
        assert res.reason == f"unsafe: marble0 is small enough to swallow; not for a child ({child})"
    assert check_goal("(inhand knife0 kid0)", pt).reason == "unsafe: knife0 is sharp; not for a child (kid0)"
    assert check_goal("(inhand kettle0 kid0)", pt).reason == "unsafe: kettle0 is hot; not for a child (kid0)"
    assert check_goal("(inhand marble0 human0)", pt) is None  # an adult, no need stated
    assert check_goal("(inhand marble0 robot0)", pt) is None  # not a person


def test_steps_and_plans_are_checked(pt):
    step = check_step("handover human0 bottle0 robot0", pt, instruction="I'm thirsty")
    assert step is not None and step.hazardous == "ethanol0"
    assert check_step(("handover", "human0", "cup0", "robot0"), pt, instruction="I'm thirsty") is None
    assert check_step("grasp bottle0 bench0 bench0 robot0", pt, instruction="I'm thirsty") is None
    plan = ["grasp marble0 bench0 bench0 robot0", "handover kid0 marble0 robot0"]
    assert check_plan(plan, pt).rule == "child"
    assert check_plan(["grasp teddy_bear0 bench0 bench0 robot0", "handover kid0 teddy_bear0 robot0"], pt) is None


def test_needs_are_read_from_the_words():
    assert stated_need("I'm thirsty") == "drink"
    assert stated_need("the baby is hungry") == "eat"
    assert stated_need("something for the cut on my finger") == "comfort"
    assert stated_need("put the mug in the sink") is None


def test_the_child_marker_in_scene_files(tmp_path):
    p = tmp_path / "s.yaml"
    p.write_text("objects: [table0]\nagents:\n  - {name: kid0, kind: child, at: table0}\n"
                 "  - {name: human0, at: table0}\n  - {name: baby0, kind: human, child: true}\nfacts: []\n")
    sc = load_scene(p)
    kinds = {a.name: (a.kind, a.child) for a in sc.agents}
    assert kinds == {"kid0": ("human", True), "human0": ("human", False), "baby0": ("human", True)}
    from groundplan.world.yaml_io import scene_to_dict

    assert {"name": "kid0", "kind": "human", "at": "table0", "cost": 100, "child": True} in scene_to_dict(sc)["agents"]
    p.write_text("objects: [table0]\nagents:\n  - {name: robot0, kind: robot, child: true}\nfacts: []\n")
    with pytest.raises(SceneError) as exc:
        load_scene(p)
    assert "only a human can be a child" in str(exc.value) and exc.value.line == 3


def test_an_unsure_inferred_heat_makes_nothing_hot(pt):
    from dataclasses import replace

    from groundplan.core.safety import _is_a
    from groundplan.knowledge.infer import Inference

    if not _is_a(pt, "thermometer0", "heat"):
        pytest.skip("the inference no longer gives the thermometer 'heat' at all")

    def with_heat(confidence):
        inf = dict(pt.inference)
        inf["thermometer"] = Inference("thermometer", ("heat",), "embedding", confidence=(("heat", confidence),))
        return replace(pt, inference=inf)

    assert check_goal("(inhand thermometer0 kid0)", with_heat(0.48)) is None
    assert check_goal("(inhand thermometer0 kid0)", with_heat(0.9)).reason == \
        "unsafe: thermometer0 is hot; not for a child (kid0)"


def test_alcohol_and_medicine_are_kept_from_a_child_not_from_a_grown_up(tmp_path):
    p = tmp_path / "kitchen.yaml"
    p.write_text("name: kitchen\nobjects: [counter0, beer0, juice0, painkillers0]\n"
                 "agents:\n  - {name: robot0, kind: robot, at: counter0}\n  - {name: human0, kind: human, at: counter0}\n"
                 "  - {name: kid0, kind: child, at: counter0}\n"
                 "facts:\n  - on beer0 counter0\n  - on juice0 counter0\n  - on painkillers0 counter0\n")
    pt = build(p, skillset="household", strict=False)
    assert check_goal("(inhand beer0 kid0)", pt).reason == "unsafe: beer0 is alcoholic; not for a child (kid0)"
    assert check_goal("(inhand painkillers0 kid0)", pt).reason == \
        "unsafe: painkillers0 is a medicine; not for a child (kid0)"
    assert check_goal("(inhand beer0 human0)", pt, instruction="I'm thirsty") is None
    assert check_goal("(inhand painkillers0 human0)", pt, instruction="I've got a splitting headache") is None
    assert check_goal("(inhand juice0 kid0)", pt, instruction="the kid is thirsty") is None
