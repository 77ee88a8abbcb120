"""The documented formats: the JSON Schemas are valid, their examples load through the real
loaders, every built-in file satisfies them, docs/formats.md is generated from them, and
goals get a did-you-mean (also in the LLM's self-correction feedback)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", ["scene", "skillset", "oam", "oam_json"])
def test_schema_is_valid_and_its_examples_pass(name):
    import jsonschema

    from groundplan.schemas import load_schema

    schema = load_schema(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["examples"] and schema["x-checks"]
    for ex in schema["examples"]:
        jsonschema.Draft202012Validator(schema).validate(ex)


def test_examples_load_through_the_loaders(tmp_path):
    """The documented examples are real: they load, build and plan."""
    from groundplan.knowledge.oam import load_oam
    from groundplan.schemas import load_schema
    from groundplan.skills.skillset import load_skillset
    from groundplan.world import load_scene

    files = {}
    for name, suffix in (("scene", ".yaml"), ("skillset", ".yaml"), ("oam", ".yaml"), ("oam_json", ".json")):
        p = tmp_path / f"{name}{suffix}"
        ex = load_schema(name)["examples"][0]
        p.write_text(json.dumps(ex) if suffix == ".json" else yaml.safe_dump(ex, sort_keys=False))
        files[name] = p
    assert load_scene(files["scene"]).name == "small_kitchen"
    assert load_skillset(files["skillset"]).name == "tiny_arm"
    assert load_oam(files["oam"]).affordances("watering_can") >= {"pour", "liquid-contain"}
    assert load_oam(files["oam_json"]).affordances("watering_can") == {"grasp", "carry", "pour"}


def test_bundled_files_satisfy_the_schemas():
    """Every built-in skill set, the default map and the example scenes pass validation."""
    from groundplan.knowledge.oam import load_oam
    from groundplan.schemas import validate
    from groundplan.skills.skillset import available_skillsets, load_skillset
    from groundplan.world import load_scene

    assert len(available_skillsets()) >= 6
    for n in available_skillsets():
        load_skillset(n)
    load_oam(ROOT / "src" / "groundplan" / "knowledge" / "data" / "default_oam.yaml")
    for p in sorted((ROOT / "examples" / "scenes").glob("*.yaml")):
        load_scene(p)
        validate(yaml.safe_load(p.read_text()), "scene", file=str(p))


def test_formats_md_is_generated_from_the_schemas():
    from groundplan.schemas.docs import render_markdown

    doc = (ROOT / "docs" / "formats.md").read_text()
    assert doc == render_markdown(), "docs/formats.md is stale: run `groundplan formats --markdown > docs/formats.md`"
    for field in ("capabilities", "preconditions", "affordance_types", "explored", "oams"):
        assert f"`{field}`" in doc
    assert "(affordances.md)" in doc


def test_formats_command_prints_a_schema():
    from typer.testing import CliRunner

    from groundplan.cli.main import app

    r = CliRunner().invoke(app, ["formats", "--schema", "skillset"])
    assert r.exit_code == 0 and json.loads(r.output)["title"] == "Skill set (YAML)"
    r = CliRunner().invoke(app, ["formats"])
    assert r.exit_code == 0 and r.output.startswith("# File formats")


def test_a_misspelt_section_is_never_silently_ignored(tmp_path):
    """The issue's case: `capabilites:` in a copy of a built-in skill set was ignored and
    planning answered "unsolvable"; now it is an error naming the line."""
    from groundplan.errors import SkillSetError
    from groundplan.skills.skillset import load_skillset

    src = (ROOT / "src" / "groundplan" / "skills" / "data" / "tabletop.yaml").read_text()
    p = tmp_path / "mine.yaml"
    p.write_text(src.replace("\ncapabilities:", "\ncapabilites:"))
    line = src.splitlines().index("capabilities:") + 1
    with pytest.raises(SkillSetError) as ei:
        load_skillset(p)
    assert str(ei.value).startswith(f"{p}:{line}: unknown section 'capabilites' (did you mean capabilities?)")


# ----------------------------------------------------------------------------- goals: did-you-mean

@pytest.fixture(scope="module")
def kitchen_task():
    from groundplan.sim.pipeline import build

    return build(str(ROOT / "examples" / "scenes" / "kitchen.yaml"))


@pytest.mark.parametrize("goal,message,feedback", [
    ("and (inhand appel0 human0)", "unknown object 'appel0' (did you mean apple0?)",
     "this object does not exist in the scene. Did you mean apple0? Please correct your answer"),
    ("and (inhnad apple0 human0)", "unknown predicate 'inhnad' in (inhnad apple0 human0) (did you mean inhand?)",
     "this predicate does not exist in the domain. Did you mean inhand? Please correct your answer"),
    ("exists (?x - carri) (inhand ?x human0)", "unknown type 'carri' for variable ?x (did you mean carry?)",
     "this type does not exist in the domain. Did you mean carry? Please correct your answer"),
    ("and (inhand zebra9 human0)", "unknown object 'zebra9'",
     "this object does not exist in the scene. Please correct your answer"),
])
def test_goal_did_you_mean(kitchen_task, goal, message, feedback):
    from groundplan.errors import GoalError
    from groundplan.pddl.goal import check_goal, parse_goal

    with pytest.raises(GoalError) as ei:
        check_goal(parse_goal(goal), kitchen_task.domain, kitchen_task.problem)
    assert str(ei.value).endswith(message), str(ei.value)
    assert ei.value.feedback.endswith(feedback), ei.value.feedback


def test_no_suggestion_of_a_hidden_predicate_when_hidden_ones_are_refused(kitchen_task):
    from groundplan.errors import GoalError
    from groundplan.pddl.goal import check_goal, parse_goal

    with pytest.raises(GoalError) as ei:  # 'fre' is close to the hidden predicate 'free'
        check_goal(parse_goal("and (fre apple0)"), kitchen_task.domain, kitchen_task.problem, allow_hidden=False)
    assert "free" not in str(ei.value)


def test_tabletop_plans_through_fast_downward(tmp_path):
    """A skill set whose derived heads are not declared under predicates (tabletop) reached
    Fast Downward as a ParseError; the written domain now declares them."""
    from groundplan.planners import get_planner
    from groundplan.sim.pipeline import build, plan_and_check

    scene = tmp_path / "t.yaml"
    scene.write_text("objects: [cube0, location0, location1]\nagents: [{name: robot0, kind: robot}]\n"
                     "locations: {location0: [cube0], location1: []}\n"
                     "facts: [at cube0 location0, in_workspace location0, in_workspace location1]\n")
    out = plan_and_check(build(scene, skillset="tabletop"), "and (at cube0 location1)", get_planner("fast-downward"))
    assert out.status == "solved", out.error
    assert out.plan == ("grasp cube0 robot0", "move cube0 location1 robot0")


# ----------------------------------------------------------------------------- scene facts vs the domain

def test_affordance_misfit_strict_error_lenient_warning():
    """`on watering_can0 sink0`: a sink is no support. Strict: file:line naming the sink's
    affordances; lenient: the fact is kept (as before) with that warning."""
    from groundplan.errors import SceneError
    from groundplan.knowledge.oam import default_oam
    from groundplan.pddl.formula import Atom
    from groundplan.skills.builder import build_task
    from groundplan.skills.skillset import load_skillset
    from groundplan.world import load_scene

    path = ROOT / "tests" / "data" / "malformed" / "formats" / "scene_affordance.yaml"
    scene, hh = load_scene(path), load_skillset("household")
    with pytest.raises(SceneError) as ei:
        build_task(hh, scene, default_oam())
    assert str(ei.value).startswith(f"{path}:14: fact (on watering_can0 sink0): sink0 is a sink with affordances "
                                    "[contain, heat-resistance, liquid-contain]; 'on' needs a support as argument 2")
    task = build_task(hh, scene, default_oam(), strict=False)
    assert Atom("on", ("watering_can0", "sink0")) in task.problem.init
    assert any("sink0 is a sink with affordances" in w and "dropped" not in w for w in task.warnings)


def test_txt_scene_fact_errors_name_the_line(tmp_path):
    from groundplan.sim.pipeline import build

    p = tmp_path / "k.txt"
    p.write_text("OBJECTS\ncoke:0\ncounter:0\nhuman:0\nEND-OBJECTS\nRELATIONS\non coke:0 counter:0\n"
                 "onn coke:0 counter:0\nat human:0 counter:0\nEND-RELATIONS\nLOCATIONS\ncounter:0\nEND-LOCATIONS\n")
    from groundplan.errors import SceneError

    with pytest.raises(SceneError) as ei:
        build(p)
    assert str(ei.value) == (f"{p}:8: fact (onn coke0 counter0) uses predicate 'onn', unknown to skill set "
                             "'household' (did you mean on?); --lenient drops the fact with a warning")


def test_mutated_files_give_one_line_errors_never_crashes(tmp_path):
    """Random edits of valid files (inserted YAML tokens, cut spans, repeated lines): the
    loaders and the builder answer with a one-line GroundplanError or load; nothing else."""
    import random

    from groundplan.errors import GroundplanError
    from groundplan.knowledge.oam import default_oam, load_oam
    from groundplan.skills.builder import build_task
    from groundplan.skills.skillset import load_skillset
    from groundplan.world.yaml_io import parse_yaml_scene

    rng = random.Random(20)
    hh, oam = load_skillset("household"), default_oam()
    sources = {"scene": (ROOT / "examples" / "scenes" / "kitchen.yaml").read_text(),
               "skills": (ROOT / "tests" / "data" / "formats" / "arm.yaml").read_text(),
               "oam": "watering_can: [grasp, carry, pour]\nstool: [support]\n"}
    tokens = ["", " ", ":", "-", "[", "]", "{", "}", "(", ")", "?", "\n", "  ", "on", "~", "&a", "*a", "<<",
              "!!int", "1", "'", '"', "#", ",", "?x", "and", "not", "forall"]
    outcomes = {"loaded": 0, "error": 0}
    for _ in range(150):
        kind = rng.choice(sorted(sources))
        text = sources[kind]
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(text) + 1)
            r = rng.random()
            if r < 0.45:
                text = text[:i] + rng.choice(tokens) + text[i:]
            elif r < 0.75:
                text = text[:i] + text[i + rng.randint(1, 8):]
            else:
                lines = text.splitlines(True)
                lines.insert(rng.randrange(len(lines) + 1), rng.choice(lines))
                text = "".join(lines)
        path = tmp_path / f"{kind}.yaml"
        path.write_text(text)
        try:
            if kind == "scene":
                build_task(hh, parse_yaml_scene(text, file=str(path)), oam)
            elif kind == "skills":
                load_skillset(str(path))
            else:
                load_oam(path)
            outcomes["loaded"] += 1
        except GroundplanError as exc:
            assert "\n" not in str(exc) and str(exc).startswith(str(path)), str(exc)
            outcomes["error"] += 1
    assert outcomes["error"] > 30 and outcomes["loaded"] > 10, outcomes
