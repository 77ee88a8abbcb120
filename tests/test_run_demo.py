"""`make demo` (issue 19): `groundplan run` on the kitchen with its instruction prints a right
goal and plan - the coke handed to the human, the banana in the trash can - and the verdict
says so against the Makefile's check goal. The command is read from the Makefile."""

import re
import subprocess
import sys

import pytest
from conftest import ROOT

pytestmark = pytest.mark.embedded


def make_var(name: str) -> str:
    m = re.search(rf"^{name}\s*\?=\s*(.*)$", (ROOT / "Makefile").read_text(), flags=re.M)
    assert m, name
    return m.group(1).strip()


def test_make_demo_prints_a_correct_goal_and_plan():
    demo = re.search(r"^demo:.*\n\t(.*)$", (ROOT / "Makefile").read_text(), flags=re.M).group(1)
    assert "groundplan run" in demo and "--check" in demo
    r = subprocess.run([sys.executable, "-m", "groundplan.cli.main", "run", "--scene", make_var("DEMO_SCENE"),
                        "--method", make_var("DEMO_METHOD"), "--check", make_var("DEMO_CHECK"),
                        make_var("DEMO_INSTRUCTION")], cwd=ROOT, capture_output=True, text=True, timeout=600)
    out = r.stdout
    assert r.returncode == 0, out + r.stderr
    assert "verdict: success" in out
    goal = re.search(r"^goal: (.*)$", out, flags=re.M).group(1)
    assert "(inhand coke0 human0)" in goal and "(in banana0 trash_can0)" in goal, goal
    assert "(inhand banana0 human0)" not in goal
    plan = out[out.index("\nplan: "):]
    assert "handover human0 coke0 robot0" in plan and "putin banana0 trash_can0 trash_can0 robot0" in plan
