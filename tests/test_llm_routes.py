"""One answer per model, whichever route: embedded, `groundplan llm serve` with `--llm openai`,
and the replay of a recording send the same request for the same method and agree.

- a recording of an embedded AutoGPT+P run replays (the replay backend decodes "as
  recorded": a transcript with grammars makes the method send its grammar again);
- the served route sends the constraint the embedded route sends (llama.cpp's ``grammar``,
  vLLM's ``guided_grammar``), captured by FakeOpenAI;
- a replay miss is an error episode (exit 3), never "no plan";
- `llm serve` lists the served model under its name, and runs over it record that name.

The tests marked ``embedded`` run the real SmolLM2-135M (and its real llama.cpp server)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from conftest import KITCHEN
from typer.testing import CliRunner

from groundplan.cli.main import app
from groundplan.core.task import Task
from groundplan.llm import LLMConfig, build_llm, read_transcript
from groundplan.llm.server import free_port, server_available
from groundplan.llm.transcript import ReplayLLM, TranscriptWriter
from groundplan.llm.types import ChatRequest, Completion, Usage, as_messages
from groundplan.methods import RunContext, get_method
from groundplan.testing import FakeOpenAI

INSTRUCTION = "Bring me the apple"
CONFIG = {"max_rounds": 2}


def _task() -> Task:
    return Task("k:1", "test", INSTRUCTION, str(KITCHEN), "and (inhand apple0 human0)")


def _run(llm, planner):
    return get_method("autogpt_p").run(_task(), RunContext(llm=llm, planner=planner, config=CONFIG))


def _models_in_trace(ep) -> set[str]:
    return {e["usage"]["model"] for e in ep.trace if e.get("type") == "llm_call" and e.get("usage")}


def _first_goal_body(requests: list[dict]) -> dict:
    bodies = [r["body"] for r in requests if r["path"].endswith("/chat/completions")]
    return next(b for b in bodies if "PDDL" in b["messages"][0]["content"])


# ----------------------------------------------------------------------------- without a model


@pytest.mark.parametrize("style, field", [("auto", "grammar"), ("llama.cpp", "grammar"), ("vllm", "guided_grammar")])
def test_served_route_sends_the_grammar_by_default(planner, style, field):
    with FakeOpenAI() as srv:
        llm = build_llm(LLMConfig(backend="openai", base_url=srv.url, model="fake-model", cache=False,
                                  constraint_style=style))
        assert llm.supports_grammar
        ep = _run(llm, planner)
        body = _first_goal_body(srv.requests)
    assert body.get(field), "the goal call carried no grammar"
    assert "root ::=" in body[field]
    if field == "grammar":  # FakeOpenAI decodes under llama.cpp's field
        goals = [e for e in ep.trace if e["type"] == "goal"]
        assert goals and all(g["text"].startswith("(") for g in goals)  # a constrained goal every round


def test_an_endpoint_without_grammars_gets_free_text(planner):
    with FakeOpenAI() as srv:
        llm = build_llm(LLMConfig(backend="openai", base_url=srv.url, model="fake-model", cache=False,
                                  constraint_style="openai"))
        assert not llm.supports_grammar
        _run(llm, planner)
        body = _first_goal_body(srv.requests)
    assert "grammar" not in body and "guided_grammar" not in body


def _transcript_with_one_other_answer(path):
    req = ChatRequest(as_messages("an unrelated question"))
    TranscriptWriter(path).write(req, Completion("an answer", "stop", Usage(1, 1, 0.0, "embedded", "smollm2-135m",
                                                                              "model")))


def test_a_replay_miss_is_an_error_episode(planner, tmp_path):
    t = tmp_path / "other.llm.jsonl"
    _transcript_with_one_other_answer(t)
    ep = _run(ReplayLLM([t]), planner)
    assert ep.status == "error"
    assert "no recorded answer for this chat request" in (ep.error or "")


def test_a_replay_miss_exits_3(tmp_path):
    t = tmp_path / "other.llm.jsonl"
    _transcript_with_one_other_answer(t)
    r = CliRunner().invoke(app, ["run", "--scene", str(KITCHEN), "--method", "autogpt_p", "--llm", "replay",
                                 "--replay", str(t), "--check", "(inhand apple0 human0)", INSTRUCTION])
    assert r.exit_code == 3, r.output
    assert "no recorded answer" in r.output


def test_replay_finds_a_recording_made_without_the_grammar(tmp_path):
    """A request recorded free (another route) answers the same conversation asked with a
    grammar and its token budget, and the reverse: replay keys ignore only those two."""
    t = tmp_path / "t.llm.jsonl"
    free = ChatRequest(as_messages("goal?"))
    TranscriptWriter(t).write(free, Completion("(inhand apple0 human0)", "stop",
                                               Usage(1, 1, 0.0, "openai", "m", "model")))
    rep = ReplayLLM([t])
    assert not rep.supports_grammar  # recorded without grammars: the method asks free
    c = rep.constrained("goal?", grammar='root ::= "(inhand apple0 human0)"', max_tokens=33)
    assert c.text == "(inhand apple0 human0)"
    from groundplan.llm.errors import ReplayMissError

    with pytest.raises(ReplayMissError):
        rep.chat("another goal?")


@pytest.mark.parametrize("given, alias", [(None, "smollm2-135m"), ("smollm2", "smollm2-135m")])
def test_llm_serve_lists_the_model_under_its_name(monkeypatch, given, alias, tmp_path):
    if not server_available():
        pytest.skip("llama.cpp's server is not installed")
    seen = {}

    def fake_exec(exe, cmd):
        seen["cmd"] = cmd
        raise SystemExit(0)

    monkeypatch.setattr(os, "execv", fake_exec)
    args = ["llm", "serve", "--port", "1"] + (["--model", given] if given else [])
    try:
        CliRunner().invoke(app, args, catch_exceptions=False)
    except SystemExit:
        pass
    if "cmd" not in seen:
        pytest.skip("the bundled model is not installed")
    cmd = seen["cmd"]
    assert cmd[cmd.index("--model_alias") + 1] == alias


def test_llm_serve_of_another_file_lists_that_file(monkeypatch, tmp_path):
    other = tmp_path / "other.gguf"
    other.write_bytes(b"GGUF")
    seen = {}
    monkeypatch.setattr(os, "execv", lambda exe, cmd: seen.setdefault("cmd", cmd))
    monkeypatch.setattr("groundplan.llm.server.server_available", lambda: True)
    r = CliRunner().invoke(app, ["llm", "serve", "--port", "1", "--model", str(other)])
    assert r.exit_code == 0, r.output
    cmd = seen["cmd"]
    assert cmd[cmd.index("--model_alias") + 1] == "other" and "as 'other'" in r.output


# ----------------------------------------------------------------------------- the real model


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """An embedded AutoGPT+P run on SmolLM2, recorded."""
    from groundplan.api import make_planner

    path = tmp_path_factory.mktemp("rec") / "run.llm.jsonl"
    try:
        llm = build_llm(LLMConfig(cache=False, record=path))
    except Exception as exc:  # noqa: BLE001 - model not installed
        pytest.skip(f"embedded model unavailable: {exc}")
    with llm:
        ep = _run(llm, make_planner())
    return ep, path


@pytest.mark.embedded
def test_an_embedded_recording_replays(recorded, planner):
    ep, path = recorded
    assert ep.usage.model_calls >= 1
    recs = list(read_transcript(path))
    assert recs[0]["request"]["constraint"]  # recorded with the goal grammar
    assert {r["model"] for r in recs} == {"smollm2-135m"} == _models_in_trace(ep)
    assert ep.metrics["model"] == "smollm2-135m"  # the episode names its model
    rep = build_llm(LLMConfig(backend="replay", replay=(path,), cache=False))
    again = _run(rep, planner)
    assert again.status == ep.status and again.goal == ep.goal and again.plan == ep.plan, again.error
    assert again.usage.replayed_calls == ep.usage.calls and again.usage.model_calls == 0
    assert _models_in_trace(again) == {"smollm2-135m"}


@pytest.mark.embedded
def test_served_and_embedded_routes_send_the_same_constraint(recorded, planner):
    _ep, path = recorded
    first = next(iter(read_transcript(path)))["request"]
    with FakeOpenAI() as srv:
        _run(build_llm(LLMConfig(backend="openai", base_url=srv.url, model="fake-model", cache=False)), planner)
        body = _first_goal_body(srv.requests)
    assert body["grammar"] == first["constraint"]["text"]
    assert body["messages"] == first["messages"]
    assert body["max_tokens"] == first["params"]["max_tokens"]


@pytest.mark.embedded
def test_a_run_over_llm_serve_records_the_served_model(tmp_path, planner):
    if not server_available():
        pytest.skip("llama.cpp's server is not installed")
    from groundplan.llm.models import resolve_model

    try:
        smol = resolve_model(None).path
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"embedded model unavailable: {exc}")
    other = tmp_path / "other.gguf"
    other.symlink_to(smol)
    port = free_port()
    log = open(tmp_path / "serve.log", "wb")
    exe = Path(sys.executable).parent / "groundplan"
    proc = subprocess.Popen([str(exe), "llm", "serve", "--model", str(other),
                             "--port", str(port), "--n-ctx", "4096", "--threads", "1"], stdout=log, stderr=log)
    try:
        url = f"http://127.0.0.1:{port}/v1"
        deadline = time.monotonic() + 120
        ids = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                ids = [m["id"] for m in httpx.get(f"{url}/models", timeout=1).json()["data"]]
                break
            except (httpx.HTTPError, ValueError, KeyError):
                time.sleep(0.5)
        assert ids == ["other"], (tmp_path / "serve.log").read_text()[-500:]
        record = tmp_path / "served.llm.jsonl"
        from groundplan.llm import resolve_config

        cfg = resolve_config(LLMConfig(backend="openai", base_url=url, cache=False, record=record))
        assert cfg.model == "other"
        with build_llm(cfg) as llm:
            ep = _run(llm, planner)
        assert ep.status != "error", ep.error
        assert _models_in_trace(ep) == {"other"} and ep.metrics["model"] == "other"
        recs = list(read_transcript(record))
        assert recs and {r["model"] for r in recs} == {"other"}
        assert recs[0]["request"]["constraint"]  # the grammar went to the server
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()



# ----------------------------------------------------------------------------- AutoGPT+P's goal format


def test_a_fenced_pddl_answer_is_a_goal_and_the_format_feedback_says_what_to_write():
    from groundplan.methods.autogpt_p.plan_tool import check_syntax_and_semantics, original_conditions
    from groundplan.sim.pipeline import build

    pt = build(str(KITCHEN), strict=False)
    conds = original_conditions()
    ok = check_syntax_and_semantics("```pddl (inhand apple0 human0) (closed fridge0)```", pt, conds,
                                    allow_hidden=True)
    assert ok.feedback is None and ok.text == "(and (inhand apple0 human0) (closed fridge0))"
    one = check_syntax_and_semantics("Here it is:\n```pddl\n(inhand apple0 human0)\n```", pt, conds,
                                     allow_hidden=True)
    assert one.text == "(inhand apple0 human0)" and one.feedback is None
    # the (:goal ...) block, when there is one, is read as the original read it
    both = check_syntax_and_semantics("(:goal (inhand coke0 human0))\n```pddl\n(inhand apple0 human0)\n```", pt,
                                      conds, allow_hidden=True)
    assert both.text == "(inhand coke0 human0)"
    bad = check_syntax_and_semantics("the apple (inhand apple0 human0) and the fridge (closed fridge0)", pt, conds,
                                     allow_hidden=True)
    assert bad.goal is None
    assert bad.feedback.startswith("Your previous answer did not contain a goal in the correct format")
    assert "(:goal (and (inhand apple0 human0) (closed fridge0)))" in bad.feedback
