"""Errors are not failures (issue 19): an OpenAI-compatible endpoint answering HTTP 400
"context length exceeded" (llama.cpp's server at its default 2048-token context) ends each
episode with status ``error`` and the endpoint's reason, and the summary and the report count
the errors apart from failures (the episodes were once recorded as ``no_plan``)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest
from conftest import ROOT, needs_data

from groundplan.bench.store import ResultStore
from groundplan.core.verdict import verdict_text
from groundplan.testing import FakeOpenAI

GP = [sys.executable, "-m", "groundplan.cli.main"]
pytestmark = needs_data


def gp(*args, timeout=300):
    return subprocess.run([*GP, *map(str, args)], capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          env={**os.environ, "GROUNDPLAN_CACHE": os.devnull})


def test_context_length_400_is_an_error_episode_counted_apart(tmp_path):
    db = tmp_path / "bench.sqlite"
    with FakeOpenAI(faults=lambda i: "context") as srv:
        # no --model: the server lists exactly one, which is used
        proc = gp("bench", "run", "autogptp-saycan", "--method", "autogpt_p", "--llm", "openai", "--base-url",
                  srv.url, "--limit", "3", "--db", db, "--no-cache", "--no-progress",
                  "--report", tmp_path / "report")
        assert len(srv.requests) == 3  # one request per episode: a 400 is not retried, nothing after it
    assert proc.returncode == 0, proc.stderr
    line = proc.stdout.splitlines()[0]
    assert "autogpt_p@autogptp-saycan@openai" in line and "success 0.000" in line and "errors 3" in line, line
    assert "3 of 3 episodes ended in an error" in proc.stderr
    c = sqlite3.connect(str(db))
    rows = c.execute("SELECT status, success, error, metrics, model FROM episodes").fetchall()
    c.close()
    assert len(rows) == 3
    for status, success, error, metrics, model in rows:
        assert status == "error" and not success and model == "fake-model"
        assert "HTTP 400" in error and "exceeds the available context size" in error
        assert json.loads(metrics)["error"] is True
        assert verdict_text(status, bool(success), None, error).startswith("error: ")
    runs = gp("bench", "runs", "--db", db)
    assert "autogpt_p@autogptp-saycan@openai:fake-model: " in runs.stdout
    assert "3 episodes, 0 successes, 3 errors" in runs.stdout, runs.stdout
    report = (tmp_path / "report" / "report.md").read_text()
    assert "3 episodes ended in an error" in report and "unsuccessful episodes" not in report
    header = next(ln for ln in report.splitlines() if ln.startswith("| run "))
    cells = [c.strip() for c in header.strip("|").split("|")]
    first = next(ln for ln in report.splitlines() if ln.startswith("| autogpt_p@"))
    values = [c.strip() for c in first.strip("|").split("|")]
    assert values[cells.index("errors")] == "3" and values[cells.index("invalid")] == "0"


def test_endpoint_error_in_process_keeps_the_trace(tmp_path):
    """The same through the runner in-process: status error, the endpoint's reason, and the
    episode's trace up to the failed call."""
    from groundplan.bench.executors import make_executor
    from groundplan.bench.runner import RunSpec, run_benchmark
    from groundplan.llm import LLMConfig

    with FakeOpenAI(faults=lambda i: "context") as srv:
        spec = RunSpec("autogptp-saycan", "autogpt_p", LLMConfig(backend="openai", base_url=srv.url, cache=False,
                                                                 max_retries=0), limit=1)
        with ResultStore(tmp_path / "b.sqlite") as store:
            summary = run_benchmark(spec, store, make_executor("local", workers=1))
            (row,) = list(store.episodes([summary.run_id]))
    assert summary.metrics["errors"] == 1 and summary.metrics["success"] == 0.0
    assert row.status == "error" and "context" in row.error


@pytest.mark.embedded
def test_embedded_prompt_longer_than_the_context_is_refused_before_evaluation():
    """The embedded model counts the prompt with its own tokenizer (chat template applied)
    and refuses one longer than its context before evaluating it; its default context is
    SmolLM2's full 8192 tokens (benchmarks/prompt_lengths.py: every method's prompts fit)."""
    from groundplan.llm import EmbeddedLLM, LLMConfig, LLMContextLengthError

    assert EmbeddedLLM.from_config(LLMConfig()).n_ctx == 8192
    llm = EmbeddedLLM(n_ctx=256, n_threads=1)
    try:
        with pytest.raises(LLMContextLengthError, match=r"prompt of \d+ tokens does not fit the context of 256 "
                                                        r"tokens of the embedded model") as ei:
            llm.chat("apple " * 400, max_tokens=4)
        assert ei.value.prompt_tokens > 256 and ei.value.n_ctx == 256
        assert llm.model_calls == 0
        assert llm.chat("apple", max_tokens=2).text  # a prompt that fits still runs
    finally:
        llm.close()
