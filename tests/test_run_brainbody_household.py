"""BrainBody-LLM in the user's household scene (``groundplan run --method brainbody``): the
Body's short commands are grounded to the skill set's actions, a failing step's executor
message goes back to the Brain, which replans (Algorithm 1), and the check goal scores it."""

import os
import subprocess
import sys

from conftest import KITCHEN, ROOT

from groundplan.core.task import Task
from groundplan.methods import method_class
from groundplan.methods.brainbody.household import HouseholdEnv, parse_command

GP = [sys.executable, "-m", "groundplan.cli.main"]
CHECK = "(and (inhand coke0 human0))"


def test_commands_are_grounded_and_failures_explained():
    env = HouseholdEnv(Task("t", "", "bring me a coke", str(KITCHEN), CHECK))
    assert parse_command("<robot0> [take_out] <coke0> <fridge0>") == ("take_out", ["coke0", "fridge0"])
    assert env.execute("<robot0> [move] <fridge0>").command == "move counter0 fridge0 robot0"
    out = env.execute("<robot0> [take_out] <coke0>")  # the fridge is closed
    assert not out.ok and out.command == "take_out coke0 fridge0 fridge0 robot0" and "fridge0" in out.message
    assert env.execute("<robot0> [open] <fridge0>").ok
    assert env.execute("<robot0> [take_out] <coke0>").ok
    assert env.execute("<robot0> [move] <human0>").ok
    assert env.execute("<robot0> [handover] <coke0> <human0>").command == "handover human0 coke0 robot0"
    assert env.score().success
    assert "no action 'fly'" in env.execute("<robot0> [fly] <coke0>").message
    assert "no object 'coke9'" in env.execute("<robot0> [grasp] <coke9>").message


def test_household_needs_a_check_goal():
    cls = method_class("brainbody")
    assert cls.supports(Task("t", "", "x", str(KITCHEN), None)).endswith("--check GOAL")
    assert cls.supports(Task("t", "", "x", str(KITCHEN), CHECK)) is None


def test_run_brainbody_feedback_loop_scripted():
    plan = "0: go to the fridge\n1: take the coke out of the fridge\n2: go to the human\n3: hand the coke over\n4: Done."
    replan = "1: open the fridge\n2: take the coke out of the fridge\n3: go to the human\n4: hand the coke over\n5: Done."
    answers = [plan, "<robot0> [move] <fridge0>", "<robot0> [take_out] <coke0> <fridge0>", replan,
               "<robot0> [open] <fridge0>", "<robot0> [take_out] <coke0> <fridge0>", "<robot0> [move] <human0>",
               "<robot0> [handover] <human0> <coke0>"]
    r = subprocess.run([*GP, "run", "--scene", str(KITCHEN), "--method", "brainbody", "--llm", "scripted",
                        "--no-cache", "--check", CHECK, *[a for s in answers for a in ("--script", s)],
                        "bring me a coke"], capture_output=True, text=True, timeout=300, cwd=ROOT,
                       env={**os.environ, "GROUNDPLAN_CACHE": os.devnull})
    out = r.stdout
    assert r.returncode == 0, out + r.stderr
    assert "  FAIL take_out coke0 fridge0 fridge0 robot0: " in out
    assert "LLM [brain-feedback]" in out or "replan" in out, out
    assert "  ok   handover human0 coke0 robot0" in out and "verdict: success" in out
