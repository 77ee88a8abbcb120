"""`groundplan run` (issue 19): one method on the user's own instruction and scene, the live
trace, the one verdict vocabulary, --json / --record, exit codes (0 success or goal holds,
1 failure or no plan, 2 bad input or refused, 3 error)."""

import json
import os
import subprocess
import sys

from conftest import KITCHEN, ROOT

from groundplan.core.verdict import Verdict, verdict_kind, verdict_text
from groundplan.testing import FakeOpenAI

GP = [sys.executable, "-m", "groundplan.cli.main"]
#: AutoGPT+P's answers: the tool, then the goal
TOOL, GOAL = "SELECTED TOOL: PLAN", "(:goal (and (inhand coke0 human0)))"


def gp(*args, timeout=300):
    return subprocess.run([*GP, *map(str, args)], capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          env={**os.environ, "GROUNDPLAN_CACHE": os.devnull})


def scripted(*extra, answers=(TOOL, GOAL)):
    script = [a for ans in answers for a in ("--script", ans)]
    return gp("run", "--scene", KITCHEN, "bring me a coke", "--method", "autogpt_p", "--llm", "scripted", *script,
              "--no-cache", *extra)


def test_verdict_vocabulary():
    assert verdict_text("success", True, {"checked": True}) == "success"
    assert verdict_text("failure", False, {"checked": False, "own_goal_held": True}) == "goal holds (unverified)"
    assert verdict_text("failure", False, {"checked": True, "own_goal_held": True}) == "failure"
    assert verdict_text("failure", False, {"checked": False, "own_goal_held": False}) == "failure"
    for st in ("no_plan", "unsolvable", "timeout"):
        assert verdict_text(st, False, {}) == "no plan"
    assert verdict_text("error", False, {}, "HTTP 400: context\nlength") == "error: HTTP 400: context length"
    assert verdict_kind("crash", False) is Verdict.ERROR
    assert verdict_text("success", True, None) == "success"  # stored before 'checked' existed: gold goals


def test_run_scripted_shows_trace_and_unverified_verdict():
    r = scripted()
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "\x1b[" not in out  # not a terminal: plain text
    assert "LLM [tool_selection]" in out and "tok" in out
    assert "tool PLAN" in out and "goal (and (inhand coke0 human0))" in out
    assert "ok   handover human0 coke0 robot0   +(inhand coke0 human0) -(hand_occupied robot0)" in out
    assert "verdict: goal holds (unverified)" in out
    assert "LLM: 2 calls" in out and "plan: 5 steps, cost 5" in out


def test_run_check_success_and_failure_exit_codes():
    r = scripted("--check", "and (inhand coke0 human0)")
    assert r.returncode == 0 and "verdict: success" in r.stdout, r.stdout + r.stderr
    r = scripted("--check", "and (in banana0 trash_can0)")
    assert r.returncode == 1 and "verdict: failure" in r.stdout, r.stdout + r.stderr
    assert "check: and (in banana0 trash_can0) (does not hold after execution)" in r.stdout


def test_run_json_and_record_then_replay(tmp_path):
    rec = tmp_path / "run.json"
    r = scripted("--json", "--record", rec)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert {"task_id", "method", "status", "success", "goal", "plan", "metrics", "usage", "wall_time", "trace",
            "error", "seed", "verdict"} <= set(doc)
    assert doc["verdict"] == "goal holds (unverified)" and doc["metrics"]["checked"] is False
    assert doc["metrics"]["own_goal_held"] is True
    saved = json.loads(rec.read_text())
    assert saved["plan"] == doc["plan"] and saved["instruction"] == "bring me a coke"
    transcript = tmp_path / "run.llm.jsonl"
    assert len(transcript.read_text().splitlines()) == 2
    again = gp("run", "--scene", KITCHEN, "bring me a coke", "--method", "autogpt_p", "--llm", "replay",
               "--replay", transcript, "--no-cache", "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["plan"] == doc["plan"]


def test_run_refusal_and_bad_input_exit_2():
    r = gp("run", "--scene", KITCHEN, "bring me a coke", "--method", "wake_prompts", "--llm", "scripted")
    assert r.returncode == 2 and r.stderr.startswith("error: refused: method 'wake_prompts' runs on the lfo / "
                                                     "virtualhome skill sets, not 'household'"), r.stderr
    r = gp("run", "--scene", KITCHEN, "bring me a coke", "--method", "oracle")
    assert r.returncode == 2 and "needs a check goal" in r.stderr
    r = gp("run", "--scene", KITCHEN, "bring me a coke", "--check", "and (inhand cokee0 human0)")
    assert r.returncode == 2 and "unknown object 'cokee0' (did you mean coke0?)" in r.stderr
    r = gp("run", "--scene", ROOT / "nosuch.yaml", "bring me a coke")
    assert r.returncode == 2 and "file not found" in r.stderr
    assert not any("Traceback" in x for x in (r.stdout, r.stderr))


def test_run_oracle_with_check_no_llm():
    r = gp("run", "--scene", KITCHEN, "bring me a coke", "--method", "oracle", "--llm", "none",
           "--check", "and (inhand coke0 human0)")
    assert r.returncode == 0 and "verdict: success" in r.stdout, r.stdout + r.stderr


def test_endpoint_error_is_an_error_verdict_exit_3():
    with FakeOpenAI(faults=lambda i: "context") as srv:
        r = gp("run", "--scene", KITCHEN, "bring me a coke", "--method", "autogpt_p", "--llm", "openai",
               "--base-url", srv.url, "--no-cache")
    assert r.returncode == 3, r.stdout + r.stderr
    assert "verdict: error: " in r.stdout and "HTTP 400" in r.stdout
