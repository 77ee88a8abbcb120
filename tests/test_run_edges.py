"""The edges of running on one's own scene: ``run --lenient --infer --oam-replace`` reach the
method's own task building; ``groundplan.run`` takes an in-memory ``Scene``; ``pddl --out``
without a goal refuses; strict scene errors name ``--lenient``; an unreachable endpoint does
not stop a method that makes no LLM call."""

import json
import os
import socket
import subprocess
import sys
from dataclasses import replace

import yaml
from conftest import KITCHEN, ROOT

GP = [sys.executable, "-m", "groundplan.cli.main"]

#: an AutoGPT+P scene with a relation naming an object OBJECTS does not list (as in many of
#: AutoGPT+P's evaluation scenes)
TXT = ("OBJECTS\ncoke:0\ncounter:0\ntable:0\nhuman:0\nEND-OBJECTS\nRELATIONS\non coke:0 counter:0\n"
       "on sponge:0 counter:0\nat robot:0 counter:0\nat human:0 table:0\nEND-RELATIONS\nLOCATIONS\n"
       "counter0 coke:0 counter:0\ntable0 table:0\nEND-LOCATIONS\n")
#: a scene with classes no map names (gizmo, desk)
STUDY = """name: study
objects: [desk0, shelf0, gizmo0, apple0]
agents:
  - {name: robot0, kind: robot, at: shelf0}
  - {name: human0, kind: human, at: desk0}
locations:
  desk0: [gizmo0]
  shelf0: [apple0]
facts:
  - on gizmo0 desk0
  - on apple0 shelf0
"""


def gp(*args):
    r = subprocess.run([*GP, *map(str, args)], capture_output=True, text=True, timeout=300, cwd=ROOT,
                       env={**os.environ, "GROUNDPLAN_CACHE": os.devnull})
    assert "Traceback" not in r.stderr, r.stderr
    return r


def test_strict_txt_error_names_lenient_and_run_lenient_loads(tmp_path):
    scene = tmp_path / "k.txt"
    scene.write_text(TXT)
    r = gp("run", "--scene", scene, "bring me a coke", "--llm", "none")
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert f"{scene}:9: relation 'on sponge0 counter0' names unknown object 'sponge0'" in r.stderr
    assert "--lenient" in r.stderr
    r = gp("plan", "--scene", scene, "--goal", "and (inhand coke0 human0)")
    assert r.returncode == 2 and "--lenient" in r.stderr
    r = gp("run", "--scene", scene, "bring me a coke", "--llm", "none", "--lenient", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["verdict"] == "goal holds (unverified)" and doc["plan"][-1].startswith("handover human0 coke0")


def test_strict_fact_error_names_lenient(tmp_path):
    scene = tmp_path / "s.txt"
    scene.write_text(TXT.replace("on sponge:0 counter:0\n", "at table:0 counter:0\n"))
    r = gp("run", "--scene", scene, "bring me a coke", "--llm", "none")
    assert r.returncode == 2 and "'at' needs an actor" in r.stderr
    assert "--lenient keeps the fact with a warning" in r.stderr


def test_run_infer_reaches_the_method(tmp_path):
    scene = tmp_path / "study.yaml"
    scene.write_text(STUDY)
    args = ("run", "--scene", scene, "hand me the gizmo", "--method", "oracle", "--llm", "none",
            "--check", "and (inhand gizmo0 human0)")
    off = gp(*args, "--infer", "off")
    # the oracle builds its own task: without inference the gizmo has no grasp affordance
    assert off.returncode == 1 and "verdict: no plan" in off.stdout, off.stdout + off.stderr
    assert "gizmo' (gizmo0) is not in the OAM" in off.stderr
    lexical = gp(*args, "--infer", "lexical")
    assert lexical.returncode == 0 and "verdict: success" in lexical.stdout, lexical.stdout + lexical.stderr
    assert "inferred affordances: desk (sturdy-support, support); gizmo (carry, grasp)" in lexical.stdout


def test_run_oam_replace_reaches_the_method(tmp_path):
    from groundplan.knowledge.oam import default_oam

    oam = default_oam()
    classes = ["counter", "table", "trash_can", "apple", "banana", "cup", "sponge", "salmon", "coke", "bowl",
               "water", "bottle"]  # the kitchen's classes but the fridge
    path = tmp_path / "nofridge.yaml"
    path.write_text(yaml.safe_dump({c: sorted(oam.affordances(c)) for c in classes}))
    args = ("run", "--scene", KITCHEN, "bring me a coke", "--method", "oracle", "--llm", "none",
            "--check", "and (inhand coke0 human0)", "--oam", path)
    extended = gp(*args)
    assert extended.returncode == 0 and "verdict: success" in extended.stdout, extended.stderr
    replaced = gp(*args, "--oam-replace", "--infer", "off")
    # the coke is in the fridge, which the replacing map leaves without 'open'
    assert replaced.returncode == 1 and "verdict: no plan" in replaced.stdout, replaced.stdout + replaced.stderr
    assert "class 'fridge' (fridge0) is not in the OAM 'nofridge'" in replaced.stderr


def test_python_run_takes_a_scene_object():
    from groundplan import load_scene, plan, run, verdict
    from groundplan.api import scene_file, user_task
    from groundplan.pddl.formula import Atom
    from groundplan.world import Location, Scene

    scene = load_scene(KITCHEN)
    ep = run("goalsearch", "bring me a coke", scene)
    assert verdict(ep) == "goal holds (unverified)" and ep.plan[-1] == "handover human0 coke0 robot0"
    # a scene a perception pipeline changed in memory: the coke now on the counter
    facts = {f for f in scene.facts if f.args != ("coke0", "fridge0")} | {Atom("on", ("coke0", "counter0"))}
    locations = tuple(Location(loc.name, tuple(o for o in loc.contents if o != "coke0")
                               + (("coke0",) if loc.name == "counter0" else ())) for loc in scene.locations)
    moved = replace(scene, facts=frozenset(facts), locations=locations)
    assert isinstance(moved, Scene)
    ep = run("oracle", "bring me a coke", moved, check="and (inhand coke0 human0)")
    assert verdict(ep) == "success" and not any("fridge0" in s for s in ep.plan), ep.plan
    out = plan(moved, "and (inhand coke0 human0)")
    assert out.status == "solved" and len(out.plan) == len(ep.plan)
    task = user_task("bring me a coke", moved)
    assert task.scene_file == scene_file(moved) and task.scene_file.endswith(".yaml")
    assert task.source == "<scene kitchen>"


def test_pddl_out_without_goal_refuses(tmp_path):
    out = tmp_path / "pddl"
    r = gp("pddl", "--scene", KITCHEN, "--out", out)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--goal" in r.stderr
    assert not out.exists()
    r = gp("pddl", "--scene", KITCHEN, "--out", out, "--goal", "and (inhand coke0 human0)")
    assert r.returncode == 0, r.stderr
    assert "(:goal" in (out / "problem.pddl").read_text()
    r = gp("plan", "--domain", out / "domain.pddl", "--problem", out / "problem.pddl")
    assert r.returncode == 0 and "handover human0 coke0 robot0" in r.stdout, r.stderr


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_endpoint_does_not_stop_a_method_without_llm_calls():
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    common = ("run", "--scene", KITCHEN, "bring me a coke", "--llm", "openai", "--base-url", url, "--retries", "0",
              "--timeout", "5", "--no-cache", "--json")
    r = gp(*common)  # goalsearch, no --model: the model list cannot be read
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["verdict"] == "goal holds (unverified)"
    assert r.stderr.startswith("warning: ") and "needs no LLM: running without one" in r.stderr
    r = gp(*common, "--method", "autogpt_p")  # a method that needs the LLM: still refused (bad setting)
    assert r.returncode == 2 and "could not be read" in r.stderr
    r = gp("run", "--scene", KITCHEN, "bring me a coke", "--llm", "opanai")  # a misspelt backend stays bad input
    assert r.returncode == 2 and "did you mean openai?" in r.stderr


def test_an_empty_instruction_and_a_misspelt_method_are_bad_input(tmp_path):
    scene = tmp_path / "study.yaml"
    scene.write_text(STUDY)
    r = gp("run", "--scene", scene, "  ")
    assert r.returncode == 2 and r.stderr.strip().startswith("error: the instruction is empty"), r.stderr
    assert "Traceback" not in r.stderr
    r = gp("run", "--scene", scene, "bring me the apple", "--method", "goalsaerch")
    assert r.returncode == 2 and "(did you mean goalsearch?)" in r.stderr, r.stderr
