"""The README's "Your own task" section works as written (issue 19): every ```bash block of
the section is run verbatim, in order, with bash, in a fresh directory holding only what a
clean checkout has (the examples and the virtualenv, linked), and its output is checked.

The one command that needs a live OpenAI-compatible server runs against groundplan's fake
server (``groundplan.testing.FakeOpenAI``, answering as a model would: the tool, then the
goal); its URL replaces the README's ``http://localhost:8080/v1`` and nothing else changes.
One command runs the real embedded model (AutoGPT+P's two calls)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest
from conftest import ROOT

from groundplan.testing import FakeOpenAI

README = ROOT / "README.md"
ENDPOINT = "http://localhost:8080/v1"

pytestmark = pytest.mark.embedded


def section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("\n## Your own task\n")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def bash_blocks() -> list[str]:
    return re.findall(r"^```bash\n(.*?)^```", section(), flags=re.S | re.M)


def test_section_follows_the_setup_commands():
    text = README.read_text(encoding="utf-8")
    assert text.index("make test") < text.index("## Your own task") < text.index("## Planning from the command line")


def fake_model():
    """AutoGPT+P's answers from a 'model' behind the endpoint: the tool, then the goal."""
    answers = iter(["SELECTED TOOL: PLAN", "(:goal (and (inhand apple0 human0)))"])

    def answer(body: dict) -> str:
        return next(answers, "SELECTED TOOL: PLAN")

    return answer


def test_every_command_of_the_section_runs(tmp_path):
    blocks = bash_blocks()
    assert len(blocks) == 5, blocks
    work = tmp_path / "checkout"
    work.mkdir()
    shutil.copytree(ROOT / "examples", work / "examples")
    (work / ".venv").symlink_to(ROOT / ".venv")
    env = {**os.environ, "GROUNDPLAN_CACHE": str(tmp_path / "cache"), "NO_COLOR": "1"}
    env.pop("GROUNDPLAN_CONFIG", None)

    def sh(block: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", block], cwd=work, env=env, capture_output=True, text=True, timeout=900)

    # 1. the scene
    r = sh(blocks[0])
    assert r.returncode == 0, r.stderr
    assert (work / "my" / "office.yaml").is_file()

    # 2. two methods: goalsearch (default), AutoGPT+P on the embedded model with --check
    r = sh(blocks[1])
    out = r.stdout
    assert "Traceback" not in r.stderr, r.stderr
    assert "inferred affordances:" in out and "stapler (" in out
    assert "run goalsearch on my/office.yaml" in out and "run autogpt_p on my/office.yaml" in out
    assert "  ok   handover human0 apple0 robot0   +(inhand apple0 human0)" in out
    verdicts = re.findall(r"^verdict: (.*)$", out, flags=re.M)
    assert len(verdicts) == 2 and verdicts[0] == "goal holds (unverified)", verdicts
    assert re.search(r"^LLM \[tool_selection\] \d+\+\d+ tok, [\d.]+ s -> ", out, flags=re.M), out
    assert re.search(r"^LLM: 2 calls, \d+\+\d+ tokens; time", out, flags=re.M), out
    assert verdicts[1] in {"success", "failure", "no plan"}, verdicts

    # 3. a refused method; --json and --record
    r = sh(blocks[2])
    assert "error: refused: method 'wake_prompts' runs on the lfo / virtualhome skill sets, not 'household'" in r.stderr
    assert r.stdout.startswith('{"task_id": "run", "method": "goalsearch"'), r.stdout
    rec = json.loads((work / "my" / "run.json").read_text())
    assert rec["verdict"] == "goal holds (unverified)" and rec["plan"][-1] == "handover human0 apple0 robot0"

    # 4. an OpenAI-compatible endpoint (the fake server in place of llama-server on :8080)
    assert ENDPOINT in blocks[3]
    with FakeOpenAI(answer=fake_model()) as srv:
        r = sh(blocks[3].replace(ENDPOINT, srv.url))
        assert len(srv.requests) == 2
    assert r.returncode == 0, r.stdout + r.stderr
    assert "with openai" in r.stdout and "verdict: goal holds (unverified)" in r.stdout

    # 5. the Python API
    r = sh(blocks[4])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[0] == ("('move desk0 shelf0 robot0', 'grasp apple0 shelf0 shelf0 robot0', "
                        "'move shelf0 human0 robot0', 'handover human0 apple0 robot0')")
    assert re.fullmatch(r"success 0 LLM calls \d+ trace events", lines[1]), lines
