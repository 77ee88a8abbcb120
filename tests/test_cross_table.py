"""The cross-table's adapter registry and report."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from groundplan.bench.adapters import ADAPTERS, DATASETS, NOT_ADAPTED, ROWS, Adapter, Refusal, Row, cell
from groundplan.core.task import Task
from groundplan.methods import available_methods, method_class

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def samples():
    from groundplan.bench.datasets import load_tasks

    return {d: load_tasks(d)[0] for d in DATASETS}


def test_every_row_names_a_registered_method_and_every_adapter_a_known_pair():
    methods = set(available_methods())
    assert {r.method for r in ROWS} <= methods
    for (m, d) in list(ADAPTERS) + list(NOT_ADAPTED):
        assert m.split("@")[0] in methods, m
        assert d in DATASETS, d


def test_every_cell_is_an_adapter_or_a_reason(samples):
    adapted = 0
    for row in ROWS:
        for d in DATASETS:
            c = cell(row, d, samples[d])
            assert isinstance(c, (Adapter, Refusal))
            if isinstance(c, Refusal):
                assert c.reason and len(c.reason) > 15, (row, d)
            else:
                adapted += 1
                # an adapter never overrides the method's own refusal
                assert method_class(row.method).supports(c.prepare(samples[d])) is None, (row, d)
    assert adapted >= 40


def test_the_methods_own_refusal_is_the_reason(samples):
    c = cell(Row("x", "inner_monologue", "embedded", "embedded"), "autogptp-saycan", samples["autogptp-saycan"])
    assert isinstance(c, Refusal) and "virtualhome" in c.reason
    # a method that accepts a task still needs an adapter: the written reason is given
    c = cell(Row("x", "goalsearch", "embedded", "embedded"), "llmp", samples["llmp"])
    assert isinstance(c, Refusal) and "PDDL" in c.reason


def test_native_pairs_are_marked(samples):
    c = cell(Row("x", "saycan", "embedded", "embedded"), "saycan-101-judged", samples["saycan-101-judged"])
    assert isinstance(c, Adapter) and c.how.startswith("native")
    c = cell(Row("x", "saycan", "embedded", "embedded"), "autogptp-plan-tool", samples["autogptp-plan-tool"])
    assert isinstance(c, Adapter) and not c.how.startswith("native")


def test_replay_rows_use_their_own_adapters(samples):
    rep = next(r for r in ROWS if r.kind == "replay" and r.method == "autogpt_p")
    assert isinstance(cell(rep, "autogptp-saycan", samples["autogptp-saycan"]), Adapter)
    c = cell(rep, "saycan-101-judged", samples["saycan-101-judged"])
    assert isinstance(c, Refusal) and "wording" in c.reason


def test_unknown_task_shape_is_refused_by_the_method():
    t = Task(id="q", dataset="x", instruction="i", scene_file="", goal=None, skillset="lfo")
    c = cell(Row("x", "saycan", "embedded", "embedded"), "wake-lfo", t)
    assert isinstance(c, Refusal) and "household" in c.reason


def test_report_writes_table_and_heat_map(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("cross_table", ROOT / "benchmarks" / "cross_table.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["cross_table"] = mod
    spec.loader.exec_module(mod)
    monkeypatch.setattr(mod, "OUT", tmp_path)
    monkeypatch.setattr(mod, "EPISODES", tmp_path / "episodes.jsonl")
    rows = [{"row": "SayCan, oracle scorer", "method": "saycan_oracle", "llm": "none", "kind": "oracle",
             "dataset": "autogptp-saycan", "task_id": f"t{i}", "seconds": 1.0, "status": s, "success": s == "success",
             "gcr": 1.0 if s == "success" else 0.0, "calls": 0, "tokens": 0, "error": None if s == "success" else "x"}
            for i, s in enumerate(["success", "success", "failure", "error"])]
    (tmp_path / "episodes.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    mod.main(["--report-only", "--n", "4", "--datasets", "autogptp-saycan,cowp,wake-lfo"])
    text = (tmp_path / "README.md").read_text()
    assert "| SayCan, oracle scorer | 0.50 / 0.50 (4, 1 err) |" in text
    assert "n/a [" in text and "not run" in text and "Reasons a pair is not adapted" in text
    assert (tmp_path / "cross_table.png").stat().st_size > 10_000
