import json
import subprocess
import sys

import pytest
from conftest import KITCHEN

GP = [sys.executable, "-m", "groundplan.cli.main"]


def run(*args, stdin=None):
    return subprocess.run([*GP, *args], capture_output=True, text=True, input=stdin, timeout=120)


def test_plan_prints_steps_cost_time():
    r = run("plan", "--scene", str(KITCHEN), "--goal", "and (inhand apple0 human0)")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[0] == "grasp apple0 counter0 counter0 robot0"
    assert lines[-1].startswith("; cost 3")


def test_plan_json_with_check():
    r = run("plan", "--scene", str(KITCHEN), "--goal", "and (inhand apple0 human0)",
            "--check", "and (inhand apple0 human0) (in coke0 fridge0)", "--json")
    obj = json.loads(r.stdout)
    assert set(obj) >= {"status", "plan", "cost", "seconds", "check", "error"}
    assert obj["status"] == "solved" and obj["check"] is True and obj["cost"] == 3


def test_plan_jsonl_batch(tmp_path):
    f = tmp_path / "req.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in [
        {"scene": str(KITCHEN), "goal": "and (inhand apple0 human0)", "check": "and (inhand sponge0 human0)"},
        {"scene": str(KITCHEN), "goal": "and (inhand pear0 human0)"},
        {"scene": str(tmp_path / "missing.yaml"), "goal": "and (inhand apple0 human0)"},
    ]) + "\n")
    r = run("plan", "--jsonl", str(f))
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["status"] for x in rows] == ["solved", "invalid", "invalid"]
    assert rows[0]["check"] is False
    assert "pear0" in rows[1]["error"] and "missing.yaml" in rows[2]["error"]
    assert [x["line"] for x in rows] == [1, 2, 3]


@pytest.mark.parametrize("goal,needle", [
    ("and (inhand apple0 human0", "unbalanced parentheses"),
    ("and (holding apple0)", "unknown predicate 'holding'"),
    ("and (inhand pear0 human0)", "unknown object 'pear0'"),
    ("and (inhand counter0 human0)", "must be a carry"),
    ("and (inhand apple0)", "takes 2 arguments"),
])
def test_bad_goal_exit_2_one_line(goal, needle):
    r = run("plan", "--scene", str(KITCHEN), "--goal", goal)
    assert r.returncode == 2
    assert needle in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("content,needle", [
    ("OBJECTS\ncoke:0\nEND-OBJECTS\nRELATIONZ\nEND-RELATIONZ\n", ":4: unknown section"),
    ("OBJECTS\ncoke0\nEND-OBJECTS\nRELATIONS\nEND-RELATIONS\n", ":2: OBJECTS lines hold one class:index, got 'coke0'"),
    ("OBJECTS\ncoke:0\nEND-OBJECTS\nRELATIONS\non coke:0 table:7\nEND-RELATIONS\n", ":5: relation 'on coke0 table7'"),
])
def test_bad_scene_exit_2_names_file_and_line(tmp_path, content, needle):
    f = tmp_path / "bad.txt"
    f.write_text(content)
    r = run("plan", "--scene", str(f), "--goal", "and (inhand coke0 human0)")
    assert r.returncode == 2
    assert needle in r.stderr and "bad.txt" in r.stderr
    assert "Traceback" not in r.stderr


def test_missing_scene_file():
    r = run("plan", "--scene", "does/not/exist.yaml", "--goal", "and (inhand a0 b0)")
    assert r.returncode == 2 and "scene file not found" in r.stderr
