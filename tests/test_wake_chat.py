"""`groundplan chat` (Wake et al. Sec. III-B: user feedback): type an instruction, see the
plan, type a correction, see the revised plan, accept it and go on from its environment.

Run through a pipe, and in a real terminal (tmux send-keys / capture-pane) with the scripted
backend; one test drives the embedded model in tmux."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from test_wake_support import LFO_PLANS, ROOT, SCENES, answer

GROUNDPLAN = Path(sys.executable).with_name("groundplan")
SHELF = SCENES / "lfo_shelf.yaml"


def _script(tmp_path: Path) -> Path:
    """Three answers: a plan with one move_object, the revised plan with two (the paper's
    Fig. 12 correction), and the next instruction's plan in the chained environment."""
    from groundplan.methods.wake_prompts.judge import lfo_world
    from groundplan.sim.pipeline import build

    env = lfo_world(build(SHELF, skillset="lfo")).environment()
    seq, obj, changes = LFO_PLANS["Put the juice on top of the shelf."]
    first = answer(env, seq, obj, changes, summary="put the juice on top of the shelf")
    revised_seq = seq[:4] + ["move_object(<juice>, <shelf_top>)"] + seq[4:]
    revised = answer(env, revised_seq, obj, changes, summary="put the juice on top of the shelf, moving it upward")
    env2 = revised["environment_after"]
    seq2, obj2, changes2 = LFO_PLANS["Throw away the spam into the trash bin."]
    second = answer(env2, seq2, obj2, changes2, summary="throw away the spam", question="Is the trash bin empty?")
    p = tmp_path / "script.json"
    p.write_text(json.dumps([first, revised, second]))
    return p


def _args(script: Path) -> list[str]:
    return [str(GROUNDPLAN), "chat", "--scene", str(SHELF), "--backend", "scripted", "--script-file", str(script),
            "--no-cache"]


def test_chat_through_a_pipe(tmp_path):
    script = _script(tmp_path)
    lines = ["Put the juice on top of the shelf", "Insert another move_object() to move the juice upward.", "",
             "Throw away the spam", "/ok", "/env", "/history", "/quit"]
    r = subprocess.run(_args(script), input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120,
                       cwd=ROOT)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    chunks = re.split(r"(?:instruction|feedback)> ", out)  # banner, then what each typed line produced
    first, revised, accepted = chunks[1], chunks[2], chunks[3]
    assert first.count("move_object(<juice>, <shelf_top>)") == 1
    assert revised.count("move_object(<juice>, <shelf_top>)") == 2
    assert accepted.startswith("accepted")
    assert "executor: every step runs" in revised
    assert "The robot asks: Is the trash bin empty?" in out
    assert '"<spam>": "inside_something(<trash_bin>)"' in out  # /env after accepting both plans
    assert "1. Put the juice on top of the shelf" in out and "2. Throw away the spam" in out


def test_chat_rejects_a_missing_scene(tmp_path):
    r = subprocess.run([str(GROUNDPLAN), "chat", "--scene", str(tmp_path / "nope.yaml")], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and "scene file not found" in r.stderr


# ----------------------------------------------------------------------------- a real terminal (tmux)

needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed")


class Tmux:
    def __init__(self, cmd: list[str], width: int = 160, height: int = 60):
        self.name = f"gp-chat-{uuid.uuid4().hex[:8]}"
        env_cmd = " ".join(f"'{c}'" for c in cmd)
        subprocess.run(["tmux", "new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height),
                        f"cd '{ROOT}' && {env_cmd}; sleep 30"], check=True)

    def send(self, text: str) -> None:
        if text:
            subprocess.run(["tmux", "send-keys", "-t", self.name, "-l", text], check=True)
        subprocess.run(["tmux", "send-keys", "-t", self.name, "Enter"], check=True)

    def screen(self) -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-J", "-S", "-3000", "-t", self.name],
                              capture_output=True, text=True, check=True).stdout

    def wait_for(self, needle: str, timeout: float = 60.0, count: int = 1) -> str:
        end = time.time() + timeout
        while time.time() < end:
            s = self.screen()
            if s.count(needle) >= count:
                return s
            time.sleep(0.3)
        raise AssertionError(f"'{needle}' (x{count}) did not appear in the terminal:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


@needs_tmux
def test_chat_in_a_real_terminal(tmp_path):
    script = _script(tmp_path)
    t = Tmux(_args(script))
    try:
        t.wait_for("instruction> ")
        t.send("Put the juice on top of the shelf")
        s = t.wait_for("feedback> ")
        assert s.count("move_object(<juice>, <shelf_top>)") == 1 and "executor: every step runs" in s
        t.send("Insert another move_object() to move the juice upward.")
        s = t.wait_for("feedback> ", count=2)
        assert s.count("move_object(<juice>, <shelf_top>)") == 3  # one in the first plan, two in the revised one
        t.send("")  # Enter accepts
        t.wait_for("accepted")
        t.send("Throw away the spam")
        s = t.wait_for("The robot asks: Is the trash bin empty?")
        assert "inside_something(<trash_bin>)" in s
        t.send("/ok")
        t.send("/quit")
        t.wait_for("accepted", count=2)
    finally:
        t.close()


@pytest.mark.embedded
@pytest.mark.terminal_embedded
@needs_tmux
def test_chat_with_the_embedded_model_in_a_real_terminal(tmp_path):
    cache = tmp_path / "cache"
    t = Tmux([str(GROUNDPLAN), "chat", "--scene", str(SHELF), "--cache-dir", str(cache), "--max-tokens", "700"])
    try:
        t.wait_for("instruction> ", timeout=120)
        t.send("Put the juice on top of the shelf")
        s = t.wait_for("(Enter to accept, or type a correction)", timeout=1200)
        assert "┃ action" in s and "environment after:" in s
        t.send("Always end with releasing the object.")
        t.wait_for("(Enter to accept, or type a correction)", timeout=1200, count=2)
        t.send("/quit")
    finally:
        t.close()
    assert os.path.isdir(cache)


def test_chat_on_a_virtualhome_graph_with_automatic_feedback(tmp_path):
    """/auto: the automatic feedback system corrects the plan (PutIn into a closed microwave)."""
    from groundplan.bench.datasets.wake import kitchen_graph
    from groundplan.core.task import Task
    from groundplan.methods.wake_prompts import make_world

    t = Task("c", "c", "", kitchen_graph(), None, skillset="virtualhome",
             extras={"keep": ["pie_320", "microwave_314"]})
    env = make_world(t)[0].environment()
    after = json.loads(json.dumps(env))
    after["object_states"]["<pie_320>"] = ["INSIDE(<microwave_314>)", "INSIDE(<kitchen_207>)"]
    seq = ["Walktowards(<pie_320>)", "Grab(<pie_320>)", "Walktowards(<microwave_314>)", "PutIn(<pie_320>, <microwave_314>)"]
    first = {"task_cohesion": {"task_sequence": seq, "step_instructions": ["walk", "grab", "walk", "put in"]},
             "environment_after": after, "instruction_summary": "put the pie in the microwave"}
    fixed = json.loads(json.dumps(first))
    fixed["task_cohesion"]["task_sequence"] = seq[:3] + ["Open(<microwave_314>)", seq[3], "Close(<microwave_314>)"]
    fixed["task_cohesion"]["step_instructions"] = ["walk", "grab", "walk", "open", "put in", "close"]
    script = tmp_path / "vh.json"
    script.write_text(json.dumps([first, fixed]))
    r = subprocess.run([str(GROUNDPLAN), "chat", "--scene", kitchen_graph(), "--keep", "pie_320", "--keep",
                        "microwave_314", "--backend", "scripted", "--script-file", str(script), "--no-cache"],
                       input="Put the pie in the microwave\n/auto\n\n/quit\n", capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert "step 4 fails: <microwave> (314) is not open" in r.stdout
    assert "automatic feedback: You are wrong! Modify your answer. You need to open an openable object" in r.stdout
    assert "executor: every step runs" in r.stdout and "INSIDE(<microwave_314>)" in r.stdout
