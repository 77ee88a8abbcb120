"""The openai backend against local stdlib HTTP servers (offline): request shape, constraint
styles, scoring, fault injection (429 / 500 / hangs on 30 % of requests), unreachable and
hanging endpoints, rejected keys, the key never leaking, and the CLI."""

from __future__ import annotations

import json
import logging
import random
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from groundplan.llm import (
    LLMAuthError,
    LLMConfig,
    LLMConfigError,
    LLMConnectionError,
    LLMContextLengthError,
    LLMEndpointError,
    LLMModelNotFoundError,
    LLMResponseError,
    LLMTimeoutError,
    LLMUnsupportedError,
    OpenAICompatLLM,
    RetryPolicy,
    UsageMeter,
    build_llm,
    propose_goal,
)
from groundplan.llm.server import free_port
from groundplan.testing import FakeOpenAI

SAYCAN = Path("/work/shared/data/autogpt-p/autogpt_p/data/evaluation/saycan")
OAM = Path("/work/shared/data/autogpt-p/object_affordance_mapping/data/oam/saycan_oam.json")
SECRET = "sk-test-SECRET-0123456789abcdef"


def backend(url: str, **kw) -> OpenAICompatLLM:
    retry = RetryPolicy(connect_timeout=kw.pop("connect_timeout", 1.0), read_timeout=kw.pop("read_timeout", 2.0),
                        total_timeout=kw.pop("total_timeout", 20.0), max_retries=kw.pop("max_retries", 4),
                        backoff_base=kw.pop("backoff_base", 0.01), backoff_max=kw.pop("backoff_max", 0.05))
    return OpenAICompatLLM(url, kw.pop("model", "fake-model"), retry=retry, **kw)


# ----------------------------------------------------------------------------- basics

def test_chat_request_shape_and_usage():
    with FakeOpenAI() as srv:
        llm = backend(srv.url, environ={})
        meter = UsageMeter()
        c = llm.chat([{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello"}],
                     max_tokens=7, temperature=0.0, stop=["\n"], seed=3, usage=meter)
        assert c.text == "echo: hello"
        body = srv.requests[0]["body"]
        assert body["model"] == "fake-model" and body["max_tokens"] == 7 and body["stop"] == ["\n"]
        assert body["seed"] == 3 and body["messages"][0] == {"role": "system", "content": "be brief"}
        assert body["repeat_penalty"] == 1.0  # llama.cpp servers: OpenAI semantics, no penalty
        assert srv.requests[0]["auth"] is None  # no key in the environment: none sent
        assert c.usage.prompt_tokens == 11 and c.usage.backend == "openai" and c.usage.model == "fake-model"
        assert meter.summary().model_calls == 1 and llm.model_calls == 1
        assert llm.list_models() == ["fake-model"]


def test_constraint_styles():
    g = 'root ::= "yes" | "no"'
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    with FakeOpenAI(answer=lambda b: "yes" if "grammar" in b or "guided_grammar" in b else '{"a": 1}') as srv:
        assert backend(srv.url, environ={}).constrained("q", grammar=g).text == "yes"
        assert srv.requests[-1]["body"]["grammar"] == g
        assert backend(srv.url, environ={}).constrained("q", json_schema=schema).json() == {"a": 1}
        assert srv.requests[-1]["body"]["response_format"] == {"type": "json_object", "schema": schema}
        backend(srv.url, environ={}, constraint_style="vllm").constrained("q", grammar=g)
        assert srv.requests[-1]["body"]["guided_grammar"] == g
        backend(srv.url, environ={}, constraint_style="openai").constrained("q", json_schema=schema)
        assert srv.requests[-1]["body"]["response_format"]["type"] == "json_schema"
        with pytest.raises(LLMUnsupportedError, match="no GBNF grammar"):
            backend(srv.url, environ={}, constraint_style="openai").constrained("q", grammar=g)
    assert backend("https://api.openai.com/v1", environ={}).style.name == "openai"
    assert backend("https://x.openai.azure.com/openai/deployments/d", environ={}, api_version="2024-06-01").style.name \
        == "openai"
    assert backend("http://127.0.0.1:8080/v1", environ={}).style.name == "llama.cpp"


def test_scoring_via_echo_logprobs():
    with FakeOpenAI() as srv:
        res = backend(srv.url, environ={}).score("the cat sat on the", [" mat", " windowsill"])
        # tokens after the prompt: " mat" (-2.0) vs " windowsill" (-5.5)
        assert res.logprobs == (-2.0, -5.5) and res.token_counts == (1, 1) and res.best() == " mat"
        assert srv.requests[0]["body"]["echo"] is True and srv.requests[0]["path"] == "/v1/completions"


def test_model_not_found_and_bad_url():
    with FakeOpenAI() as srv:
        with pytest.raises(LLMModelNotFoundError, match="has no model 'missing-model'"):
            backend(srv.url, model="missing-model", environ={}).chat("x")
        with pytest.raises(LLMResponseError, match="OpenAI-compatible base URL"):
            backend(srv.url.replace("/v1", "/v2"), environ={}).chat("x")


def test_model_taken_from_the_server_when_not_given():
    with FakeOpenAI() as srv:
        llm = backend(srv.url, model="", environ={})
        assert llm.model == "fake-model"
        assert llm.chat("hi").usage.model == "fake-model"
        assert srv.requests[-1]["body"]["model"] == "fake-model"
    with FakeOpenAI(models=[{"id": "llama-3-8b"}, {"id": "qwen2.5-7b"}]) as srv:
        with pytest.raises(LLMConfigError, match="lists several models: llama-3-8b, qwen2.5-7b; choose one with --model"):
            backend(srv.url, model="", environ={})
    with FakeOpenAI(models=[]) as srv:
        with pytest.raises(LLMConfigError, match="lists no model"):
            backend(srv.url, model="", environ={})


def test_context_length_error_from_the_server_is_not_retried():
    with FakeOpenAI(faults=lambda i: "context") as srv:
        with pytest.raises(LLMContextLengthError, match="HTTP 400: the prompt does not fit the model's context.*"
                                                        "exceeds the available context size"):
            backend(srv.url, environ={}).chat("hi")
        assert len(srv.requests) == 1  # a 4xx is final
    assert issubclass(LLMContextLengthError, LLMEndpointError)


def test_prompt_longer_than_the_servers_context_is_not_sent():
    """llama.cpp reports its context in GET /props; the prompt is counted with its /tokenize
    (the fake: one token per word) and refused before POST /chat/completions."""
    with FakeOpenAI(n_ctx=60) as srv:
        llm = backend(srv.url, environ={})
        assert llm.server_context() == 60
        assert llm.chat("short question").text.startswith("echo")
        long = " ".join(f"w{i}" for i in range(80))
        with pytest.raises(LLMContextLengthError, match=r"prompt of 8\d tokens does not fit the context of 60 "
                                                        r"tokens of fake-model .*not sent") as ei:
            llm.chat(long)
        assert ei.value.n_ctx == 60 and ei.value.prompt_tokens >= 80
        assert [r["path"] for r in srv.requests] == ["/v1/chat/completions"]  # only the short one
    with FakeOpenAI(models=[{"id": "fake-model", "max_model_len": 4096}]) as srv:  # vLLM
        assert backend(srv.url, environ={}).server_context() == 4096
    with FakeOpenAI() as srv:  # neither: unknown, the server itself decides
        assert backend(srv.url, environ={}).server_context() is None


# ----------------------------------------------------------------------------- faults

def test_retries_on_429_500_and_hangs_then_succeeds():
    pattern = {0: "429", 1: "500", 2: "hang"}
    with FakeOpenAI(faults=lambda i: pattern.get(i)) as srv:
        llm = backend(srv.url, environ={}, read_timeout=0.3)
        t0 = time.monotonic()
        assert llm.chat("hi").text == "echo: hi"
        assert len(srv.requests) == 4 and srv.injected == ["429", "500", "hang"]
        assert time.monotonic() - t0 < 2.0


def test_gives_up_after_max_retries_with_one_line_message():
    with FakeOpenAI(faults=lambda i: "500") as srv:
        with pytest.raises(LLMResponseError) as ei:
            backend(srv.url, environ={}, max_retries=2).chat("hi")
        msg = str(ei.value)
        assert "HTTP 500" in msg and "gave up after 3 attempts" in msg and "\n" not in msg
        assert len(srv.requests) == 3


def test_unreachable_endpoint_fails_within_total_timeout():
    port = free_port()  # nothing listens there
    llm = backend(f"http://127.0.0.1:{port}/v1", environ={}, connect_timeout=0.5, total_timeout=1.5,
                  max_retries=10, backoff_base=0.2, backoff_max=1.0)
    t0 = time.monotonic()
    with pytest.raises(LLMConnectionError) as ei:
        llm.chat("hi")
    elapsed = time.monotonic() - t0
    msg = str(ei.value)
    assert elapsed < 1.5 + 0.3, elapsed
    assert f"cannot reach http://127.0.0.1:{port}/v1/chat/completions: connection refused" in msg
    assert "gave up" in msg and "\n" not in msg


def test_hanging_endpoint_fails_within_total_timeout():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)  # accepts connections (backlog) but never answers
    port = srv.getsockname()[1]
    try:
        llm = backend(f"http://127.0.0.1:{port}/v1", environ={}, read_timeout=0.4, total_timeout=1.2)
        t0 = time.monotonic()
        with pytest.raises(LLMTimeoutError, match="did not answer within") as ei:
            llm.chat("hi")
        assert time.monotonic() - t0 < 1.2 + 0.3
        assert "total timeout 1.2 s" in str(ei.value)
    finally:
        srv.close()


# ----------------------------------------------------------------------------- keys

def test_key_sent_but_never_stored_logged_or_shown(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("GROUNDPLAN_API_KEY", SECRET)
    caplog.set_level(logging.DEBUG)
    with FakeOpenAI(key=SECRET, faults=lambda i: "429" if i == 0 else None) as srv:
        cfg = LLMConfig(backend="openai", base_url=srv.url, model="fake-model", cache_dir=tmp_path / "cache",
                        record=tmp_path / "t.jsonl", backoff_base=0.01)
        llm = build_llm(cfg)
        assert llm.chat("hello").text == "echo: hello"
        assert srv.requests[-1]["auth"] == f"Bearer {SECRET}"
        shown = repr(llm) + repr(cfg) + caplog.text
        # a rejected key: the server echoes it back; the error must not
        monkeypatch.setenv("GROUNDPLAN_API_KEY", SECRET[:-1] + "X")
        bad = build_llm(cfg.with_(cache=False, record=None))
        with pytest.raises(LLMAuthError) as ei:
            bad.chat("hello")
        msg = str(ei.value)
        assert "$GROUNDPLAN_API_KEY was rejected" in msg and "HTTP 401" in msg and "\n" not in msg
        shown += msg + repr(bad) + caplog.text
    stored = "".join(p.read_text() for p in tmp_path.rglob("*") if p.is_file())
    assert stored  # cache and transcript were written
    for text in (shown, stored):
        assert SECRET not in text and SECRET[:-1] + "X" not in text and SECRET[8:24] not in text


def test_missing_key_message_names_the_variables():
    with FakeOpenAI(key=SECRET) as srv:
        with pytest.raises(LLMAuthError, match="no API key was sent \\(set GROUNDPLAN_API_KEY or OPENAI_API_KEY\\)"):
            backend(srv.url, environ={}).chat("x")
        # the key can come from OPENAI_API_KEY too
        assert backend(srv.url, environ={"OPENAI_API_KEY": SECRET}).chat("x").text == "echo: x"


# ----------------------------------------------------------------------------- goal runs

@pytest.fixture(scope="module")
def goal_cases():
    if not SAYCAN.exists():
        pytest.skip("shared AutoGPT+P data not present")
    from groundplan.bench.datasets.autogpt_p import saycan_tasks
    from groundplan.prompts.autogpt_p import goal_prompt
    from groundplan.sim.pipeline import build

    tasks = saycan_tasks()[::5]  # 21 rows across all families
    built, cases = {}, []
    for t in tasks:
        if t.scene_file not in built:
            built[t.scene_file] = build(t.scene_file, oam_file=t.oam_file, strict=False)
        pt = built[t.scene_file]
        cases.append((pt, goal_prompt(pt.domain, pt.problem, t.instruction)))
    return cases


def run_goals(llm, cases):
    out = []
    for pt, prompt in cases:
        p = propose_goal(llm, prompt, pt.domain, pt.problem, constrained=True)
        assert p.ok, p.error
        out.append(p.goal.pddl())
    return out


def test_fault_injection_30_percent_same_results(goal_cases):
    with FakeOpenAI() as clean:
        reference = run_goals(backend(clean.url, environ={}), goal_cases)
    rng = random.Random(42)

    def faults(i):
        r = rng.random()
        return "429" if r < 0.1 else "500" if r < 0.2 else "hang" if r < 0.3 else None

    with FakeOpenAI(faults=faults) as faulty:
        llm = backend(faulty.url, environ={}, read_timeout=0.25, max_retries=8)
        t0 = time.monotonic()
        got = run_goals(llm, goal_cases)
        elapsed = time.monotonic() - t0
        n_req, injected = len(faulty.requests), list(faulty.injected)
    assert got == reference
    assert llm.model_calls == len(goal_cases)
    # under load a slow clean answer can also time out and be retried: at least one request per goal and fault
    assert n_req >= len(goal_cases) + len(injected)
    assert {"429", "500", "hang"} <= set(injected) and 0.15 <= len(injected) / n_req <= 0.45
    assert elapsed < 90


def test_record_replay_goal_run_offline(goal_cases, tmp_path, monkeypatch):
    transcript = tmp_path / "goals.jsonl"
    with FakeOpenAI() as srv:
        rec = build_llm(LLMConfig(backend="openai", base_url=srv.url, model="fake-model", cache=False,
                                  record=transcript))
        recorded = run_goals(rec, goal_cases)
    # server gone; no sockets at all
    monkeypatch.setattr(socket, "socket", lambda *a, **k: (_ for _ in ()).throw(OSError("no network")))
    rep = build_llm(LLMConfig(backend="replay", replay=(transcript,)))
    assert run_goals(rep, goal_cases) == recorded and rep.model_calls == 0


def test_cached_goal_run_makes_no_calls(goal_cases, tmp_path):
    with FakeOpenAI() as srv:
        cfg = LLMConfig(backend="openai", base_url=srv.url, model="fake-model", cache_dir=tmp_path)
        first = run_goals(build_llm(cfg), goal_cases)
        n = len(srv.requests)
        again = build_llm(cfg)
        assert run_goals(again, goal_cases) == first
        assert len(srv.requests) == n and again.model_calls == 0


# ----------------------------------------------------------------------------- CLI

@pytest.fixture
def cli():
    import typer

    from groundplan.cli.llm_cmds import goal_command, llm_app

    app = typer.Typer()
    app.add_typer(llm_app, name="llm")
    app.command("goal")(goal_command)
    return app


def test_cli_llm_ask(cli, tmp_path):
    runner = CliRunner()
    with FakeOpenAI() as srv:
        r = runner.invoke(cli, ["llm", "ask", "hello there", "--backend", "openai", "--base-url", srv.url,
                                "--model", "fake-model", "--cache-dir", str(tmp_path), "--usage"])
        assert r.exit_code == 0, r.output
        assert "echo: hello there" in r.stdout
        r2 = runner.invoke(cli, ["llm", "ask", "hello there", "--backend", "openai", "--base-url", srv.url,
                                 "--model", "fake-model", "--cache-dir", str(tmp_path), "--usage"])
        assert "(cache)" in r2.stderr and len(srv.requests) == 1
        r3 = runner.invoke(cli, ["llm", "ask", "hello there", "--backend", "openai", "--base-url", srv.url,
                                 "--model", "fake-model", "--cache-dir", str(tmp_path), "--no-cache"])
        assert r3.exit_code == 0 and len(srv.requests) == 2


def test_cli_llm_flag_and_the_servers_model():
    """--llm is the backend flag of every command (--backend its alias); without --model the
    server's only model is used; several: exit 2 naming them."""
    from groundplan.cli.main import app

    runner = CliRunner()
    with FakeOpenAI() as srv:
        for flag in ("--llm", "--backend"):
            r = runner.invoke(app, ["llm", "ask", "hello there", flag, "openai", "--base-url", srv.url, "--no-cache",
                                    "--usage"])
            assert r.exit_code == 0, r.output
            assert "echo: hello there" in r.stdout and "openai fake-model:" in r.stderr
    with FakeOpenAI(models=[{"id": "llama-3-8b"}, {"id": "qwen2.5-7b"}]) as srv:
        for cmd in (["llm", "ask", "hi"], ["goal", "--scene", "examples/scenes/kitchen.yaml", "--instruction", "hi"],
                    ["chat", "--scene", "examples/scenes/lfo_shelf.yaml"],
                    ["bench", "run", "autogptp-saycan", "--method", "autogpt_p", "--limit", "1"]):
            r = runner.invoke(app, [*cmd, "--llm", "openai", "--base-url", srv.url, "--no-cache"])
            assert r.exit_code == 2, (cmd, r.output)
            assert "lists several models: llama-3-8b, qwen2.5-7b; choose one with --model" in r.stderr, (cmd, r.stderr)
        assert srv.requests == []  # nothing was sent


def test_cli_errors_one_line_exit_2(cli):
    runner = CliRunner()
    port = free_port()
    r = runner.invoke(cli, ["llm", "ask", "hi", "--backend", "openai", "--base-url", f"http://127.0.0.1:{port}/v1",
                            "--model", "m", "--no-cache", "--retries", "1", "--total-timeout", "2"])
    assert r.exit_code == 2
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "cannot reach" in lines[0] and "Traceback" not in r.output
    r = runner.invoke(cli, ["llm", "ask", "hi", "--backend", "bogus"])
    assert r.exit_code == 2 and "unknown LLM backend 'bogus'" in r.stderr


@pytest.mark.skipif(not SAYCAN.exists(), reason="shared AutoGPT+P data not present")
def test_cli_goal_constrained(cli, tmp_path):
    scene = SAYCAN / "scenes/saycan_g_long_horizon/simple_kitchen.txt"
    runner = CliRunner()
    with FakeOpenAI() as srv:
        args = ["goal", "--scene", str(scene), "--instruction", "bring me a coke", "--constrained", "--oam", str(OAM),
                "--lenient", "--backend", "openai", "--base-url", srv.url, "--model", "fake-model", "--no-cache",
                "--record", str(tmp_path / "g.jsonl")]
        r = runner.invoke(cli, args)
        assert r.exit_code == 0, r.output
        goal = r.stdout.strip()
        assert goal.startswith("(")
        prompt = srv.requests[0]["body"]["messages"][0]["content"]
        assert prompt.startswith("You are the humanoid service robot")
        assert 'The user asks "bring me a coke".' in prompt and "(inhand  ?o - carry ?a - actor)" in prompt
        assert "grammar" in srv.requests[0]["body"]
    r = runner.invoke(cli, ["goal", "--scene", str(scene), "--instruction", "bring me a coke", "--constrained",
                            "--oam", str(OAM), "--lenient", "--backend", "replay", "--replay", str(tmp_path / "g.jsonl"),
                            "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["goal"] == goal


def test_entry_point_error_is_one_line(tmp_path):
    port = free_port()
    proc = subprocess.run([sys.executable, "-m", "groundplan.cli.main", "llm", "ask", "hi", "--backend", "openai",
                           "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "m", "--no-cache", "--retries", "0"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    err = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(err) == 1 and "cannot reach" in err[0] and "Traceback" not in proc.stderr


def test_endpoint_ignoring_the_grammar_is_caught():
    # e.g. Ollama's OpenAI endpoint silently drops the llama.cpp 'grammar' field
    with FakeOpenAI(answer=lambda b: "Sure! The goal is (inhand coke0 human0).") as srv:
        from groundplan.llm import ConstraintViolationError

        with pytest.raises(ConstraintViolationError, match="does not match the grammar"):
            backend(srv.url, environ={}).constrained("q", grammar='root ::= "(" [a-z0-9 ]+ ")"')
