"""LLM layer, offline: interface, scripted backend, usage, cache, record / replay, registry."""

from __future__ import annotations

import json
import socket

import pytest

from groundplan.errors import GroundplanError
from groundplan.llm import (
    BACKENDS,
    CachedLLM,
    ChatRequest,
    ConstraintViolationError,
    DiskCache,
    GenerationParams,
    LLMConfig,
    LLMConfigError,
    LLMError,
    LLMUnsupportedError,
    Message,
    RecordingLLM,
    ReplayLLM,
    ReplayMissError,
    ScriptedLLM,
    ScriptExhaustedError,
    TranscriptWriter,
    UsageMeter,
    build_llm,
    default_cache_dir,
    read_transcript,
)
from groundplan.llm.types import Constraint, as_messages


def test_errors_are_groundplan_errors():
    assert issubclass(LLMError, GroundplanError)
    for cls in (LLMConfigError, ReplayMissError, ScriptExhaustedError, ConstraintViolationError, LLMUnsupportedError):
        assert issubclass(cls, LLMError)


def test_request_key_is_stable_and_sensitive():
    a = ChatRequest(as_messages("hi"), GenerationParams(max_tokens=5))
    b = ChatRequest((Message("user", "hi"),), GenerationParams(max_tokens=5))
    assert a.key() == b.key()
    assert a.key() != ChatRequest(as_messages("hi"), GenerationParams(max_tokens=6)).key()
    assert a.key() != ChatRequest(as_messages("hi"), GenerationParams(max_tokens=5), Constraint.gbnf('root ::= "x"')).key()
    # schema key does not depend on dict order
    assert Constraint.json_schema({"type": "object", "required": []}) == \
        Constraint.json_schema({"required": [], "type": "object"})
    assert ChatRequest.from_dict(json.loads(json.dumps(a.to_dict()))) == a


def test_scripted_answers_in_order_and_exhaustion():
    llm = ScriptedLLM(["one", "two"])
    assert llm.chat("a").text == "one"
    assert llm.chat([{"role": "user", "content": "b"}]).text == "two"
    with pytest.raises(ScriptExhaustedError):
        llm.chat("c")
    assert llm.model_calls == 2
    assert [r.messages[0].content for r in llm.requests] == ["a", "b", "c"]


def test_scripted_function_and_usage_meter():
    llm = ScriptedLLM(lambda req: req.messages[-1].content.upper())
    meter = UsageMeter()
    assert llm.chat("hello world", usage=meter).text == "HELLO WORLD"
    llm.chat("x", usage=meter)
    s = meter.summary()
    assert s.calls == 2 and s.model_calls == 2 and s.cached_calls == 0
    assert s.prompt_tokens == 3 and s.completion_tokens == 3
    assert meter.records[0].backend == "scripted" and meter.records[0].source == "model"


def test_scripted_checks_grammar_and_schema():
    g = 'root ::= "(" ("a" | "b") ")"'
    assert ScriptedLLM(["(a)"]).constrained("q", grammar=g).text == "(a)"
    with pytest.raises(ConstraintViolationError):
        ScriptedLLM(["(c)"]).constrained("q", grammar=g)
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    assert ScriptedLLM(['{"n": 3}']).constrained("q", json_schema=schema).json() == {"n": 3}
    with pytest.raises(ConstraintViolationError, match="JSON schema"):
        ScriptedLLM(['{"n": "x"}']).constrained("q", json_schema=schema)
    with pytest.raises(ConstraintViolationError, match="not valid JSON"):
        ScriptedLLM(['{"n": 3']).constrained("q", json_schema=schema)
    with pytest.raises(ValueError):
        ScriptedLLM(["x"]).constrained("q")


def test_scoring_supported_only_where_backend_can():
    with pytest.raises(LLMUnsupportedError):
        ScriptedLLM(["x"]).score("p", ["a"])
    llm = ScriptedLLM(scorer=lambda r: [-float(len(c)) for c in r.continuations])
    res = llm.score("The capital is", [" Paris", " Rome"])
    assert res.best() == " Rome" and res.logprobs == (-6.0, -5.0) and res.token_counts == (1, 1)


def test_cache_second_run_makes_no_model_calls(tmp_path):
    backend = ScriptedLLM(lambda r: "answer to " + r.messages[-1].content)
    llm = build_llm(LLMConfig(backend="scripted", cache_dir=tmp_path), backend=backend)
    assert isinstance(llm, CachedLLM)
    first = [llm.chat(f"q{i}").text for i in range(5)]
    assert backend.model_calls == 5
    meter = UsageMeter()
    again = [llm.chat(f"q{i}", usage=meter).text for i in range(5)]
    assert again == first
    assert backend.model_calls == 5  # zero new model calls
    assert meter.summary().cached_calls == 5 and meter.summary().model_calls == 0
    # tokens are those of the original answer, so totals do not depend on caching
    assert meter.summary().completion_tokens > 0
    # a fresh process (new objects) over the same directory also hits
    backend2 = ScriptedLLM([])
    llm2 = build_llm(LLMConfig(backend="scripted", cache_dir=tmp_path), backend=backend2)
    assert [llm2.chat(f"q{i}").text for i in range(5)] == first and backend2.model_calls == 0
    assert len(DiskCache(tmp_path)) == 5


def test_cache_keyed_by_params_model_and_backend(tmp_path):
    backend = ScriptedLLM(lambda r: str(r.params.max_tokens))
    llm = CachedLLM(backend, DiskCache(tmp_path))
    assert llm.chat("q", max_tokens=5).text == "5"
    assert llm.chat("q", max_tokens=6).text == "6"
    assert llm.chat("q", max_tokens=5, stop=["x"]).text == "5"
    assert backend.model_calls == 3
    other = CachedLLM(ScriptedLLM(["other model"], model="m2"), DiskCache(tmp_path))
    assert other.chat("q", max_tokens=5).text == "other model"


def test_sampling_without_seed_is_not_cached(tmp_path):
    backend = ScriptedLLM(["a", "b"])
    llm = CachedLLM(backend, DiskCache(tmp_path))
    assert llm.chat("q", temperature=0.8, seed=None).text == "a"
    assert llm.chat("q", temperature=0.8, seed=None).text == "b"


def test_no_cache_bypasses(tmp_path):
    backend = ScriptedLLM(lambda r: "x")
    llm = build_llm(LLMConfig(backend="scripted", cache=False, cache_dir=tmp_path), backend=backend)
    llm.chat("q")
    llm.chat("q")
    assert backend.model_calls == 2 and not isinstance(llm, CachedLLM)


def test_corrupt_cache_entry_is_a_miss(tmp_path):
    backend = ScriptedLLM(lambda r: "fresh")
    llm = CachedLLM(backend, DiskCache(tmp_path))
    llm.chat("q")
    for f in (tmp_path / "v1").glob("*/*.json"):
        f.write_text("{not json")
    assert llm.chat("q").text == "fresh" and backend.model_calls == 2


def test_default_cache_dir_env():
    assert str(default_cache_dir({"GROUNDPLAN_CACHE": "/tmp/gpc"})) == "/tmp/gpc"
    assert str(default_cache_dir({"HOME": "/h", "XDG_CACHE_HOME": "/x"})) == "/x/groundplan/llm"
    assert default_cache_dir({}).parts[-3:] == (".cache", "groundplan", "llm")


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*a, **k):
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_record_then_replay_identical_with_zero_model_calls(tmp_path, monkeypatch, no_network):
    transcript = tmp_path / "run.jsonl"
    backend = ScriptedLLM(lambda r: f"[{r.messages[-1].content}]", scorer=lambda r: [-1.0] * len(r.continuations))
    rec = build_llm(LLMConfig(backend="scripted", cache=False, record=transcript), backend=backend)
    assert isinstance(rec, RecordingLLM)
    g = 'root ::= "[" [a-z0-9]+ "]"'
    outs = [rec.chat(f"q{i}").text for i in range(3)] + [rec.constrained("c1", grammar=g).text]
    scores = rec.score("p", ["a", "b"]).logprobs
    assert len(list(read_transcript(transcript))) == 5

    # replay: no model, no network (socket creation raises), the embedded backend cannot load
    monkeypatch.setattr("groundplan.llm.embedded.EmbeddedLLM.load",
                        lambda self: (_ for _ in ()).throw(AssertionError("model loaded")))
    rep = build_llm(LLMConfig(backend="replay", replay=(transcript,)))
    meter = UsageMeter()
    again = [rep.chat(f"q{i}", usage=meter).text for i in range(3)] + [rep.constrained("c1", grammar=g, usage=meter).text]
    assert again == outs
    assert rep.score("p", ["a", "b"], usage=meter).logprobs == scores
    assert rep.model_calls == 0 and meter.summary().model_calls == 0 and meter.summary().replayed_calls == 5
    assert rep.model == "script"
    with pytest.raises(ReplayMissError, match="no recorded answer"):
        rep.chat("never asked")


def test_recording_includes_cache_hits(tmp_path):
    transcript = tmp_path / "t.jsonl"
    backend = ScriptedLLM(lambda r: "x")
    llm = build_llm(LLMConfig(backend="scripted", cache_dir=tmp_path / "c", record=transcript), backend=backend)
    llm.chat("q")
    llm.chat("q")
    recs = list(read_transcript(transcript))
    assert len(recs) == 2 and recs[1]["usage"]["source"] == "cache" and backend.model_calls == 1


def test_replay_repeats_sampled_answers_in_order(tmp_path):
    transcript = tmp_path / "t.jsonl"
    rec = RecordingLLM(ScriptedLLM(["a", "b"]), TranscriptWriter(transcript))
    rec.chat("q", temperature=1.0, seed=None)
    rec.chat("q", temperature=1.0, seed=None)
    rep = ReplayLLM([transcript])
    assert [rep.chat("q", temperature=1.0, seed=None).text for _ in range(3)] == ["a", "b", "b"]


def test_replay_errors(tmp_path):
    with pytest.raises(LLMConfigError):
        build_llm(LLMConfig(backend="replay"))
    with pytest.raises(LLMConfigError, match="not found"):
        ReplayLLM([tmp_path / "missing.jsonl"])
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"x": 1}\n')
    with pytest.raises(LLMError, match="bad.jsonl:1"):
        ReplayLLM([bad])


def test_registry_and_unknown_backend():
    assert {"embedded", "openai", "replay", "scripted"} <= set(BACKENDS)
    with pytest.raises(LLMConfigError, match="unknown LLM backend 'nope'"):
        build_llm(LLMConfig(backend="nope"))
    custom = {"mine": lambda cfg: ScriptedLLM(["custom"])}
    assert build_llm(LLMConfig(backend="mine", cache=False), registry=custom).chat("x").text == "custom"


def test_openai_backend_config_errors():
    with pytest.raises(LLMConfigError, match="base URL"):
        build_llm(LLMConfig(backend="openai", model="m", cache=False))
    with pytest.raises(LLMConfigError, match="model name"):
        build_llm(LLMConfig(backend="openai", base_url="http://127.0.0.1:1/v1", cache=False))
    with pytest.raises(LLMConfigError, match="http"):
        build_llm(LLMConfig(backend="openai", base_url="ftp://x", model="m", cache=False))


def test_embedded_missing_model_file(tmp_path):
    from groundplan.llm import LLMModelNotFoundError

    with pytest.raises(LLMModelNotFoundError, match="model file not found"):
        build_llm(LLMConfig(model=str(tmp_path / "nope.gguf"), cache=False))
