"""docs/python-api.md runs: every ```python block, in order, in one namespace, from the
repository's root (offline: goalsearch and the oracle need no LLM, AutoGPT+P answers from a
script, and the OpenAI-compatible example talks to groundplan's fake server)."""

import contextlib
import io
import os
import re

from conftest import ROOT

from groundplan.testing import FakeOpenAI

DOC = ROOT / "docs" / "python-api.md"


def blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), flags=re.S | re.M)


def test_every_python_block_of_the_api_doc_runs(monkeypatch):
    code = blocks()
    assert len(code) >= 8
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("GROUNDPLAN_CACHE", os.devnull)
    ns: dict = {}
    printed = io.StringIO()
    with FakeOpenAI() as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url)
        for i, src in enumerate(code):
            with contextlib.redirect_stdout(printed):
                exec(compile(src, f"{DOC.name} block {i + 1}", "exec"), ns)  # noqa: S102 - the doc's own examples
        assert srv.requests, "the OpenAI-compatible example did not reach the server"
    out = printed.getvalue()
    # what the comments in the doc say they print
    assert "kitchen ['counter0', 'table0', 'fridge0', 'trash_can0']" in out
    assert "solved 5.0 True" in out
    assert "goal holds (unverified) (and (inhand coke0 human0)) 5 steps" in out
    assert "\nsuccess\n" in out
    assert "unverified False None" in out and "failure None goal not reached" in out  # settled episodes
    assert "success 4 steps" in out  # a Scene in memory
    assert "refused: method 'wake_prompts' runs on the lfo / virtualhome skill sets" in out
    assert "goal holds (unverified) 2 LLM calls" in out
    assert "['llm_call', 'note', 'tool_call', 'llm_call']" in out
    assert ns["doc"]["verdict"] in {"success", "goal holds (unverified)", "failure", "no plan"} or \
        ns["doc"]["verdict"].startswith("error: ")


def test_build_task_never_silently_without_a_map():
    """The obvious path (skill set + scene, no map) plans what the CLI plans (issue 19)."""
    from groundplan import build_task, load_scene, load_skillset, plan
    from groundplan.skills.builder import build_task as low_level

    scene = load_scene(ROOT / "examples" / "scenes" / "kitchen.yaml")
    for task in (build_task(scene), low_level(load_skillset("household"), scene)):
        assert plan(task, "and (in banana0 trash_can0)").status == "solved"
