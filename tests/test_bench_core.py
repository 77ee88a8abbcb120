"""Bench harness units: methods registry and episode record, metrics, results store (no
shared data needed: the example kitchen scene)."""

from __future__ import annotations

import json
import sqlite3

import pytest
from conftest import KITCHEN

from groundplan.bench.metrics import aggregate, deterministic_view, episode_metrics
from groundplan.bench.store import EpisodeRow, ResultStore, RunRecord, StoreError
from groundplan.core.task import Task
from groundplan.errors import ConfigError
from groundplan.llm.types import Usage, UsageMeter
from groundplan.methods import (
    Episode,
    EpisodeStatus,
    Method,
    RunContext,
    TraceRecorder,
    available_methods,
    get_method,
    register_method,
)

GOAL = "and (in salmon0 fridge0) (inhand coke0 human0)"


def kitchen_task(goal=GOAL, **extras) -> Task:
    return Task(id="k1", dataset="test", instruction="salmon in the fridge, coke to me", scene_file=str(KITCHEN),
                goal=goal, extras=extras, source="test.csv:2")


# ----------------------------------------------------------------------------- methods


def test_registry_lists_oracle_and_rejects_unknown():
    assert "oracle" in available_methods()
    assert get_method("oracle").name == "oracle"
    with pytest.raises(ConfigError, match="unknown method 'nope'"):
        get_method("nope")


def test_register_method_twice_is_an_error():
    @register_method("test-dummy")
    class Dummy(Method):
        needs_llm = False

        def run(self, task, ctx):
            return Episode(task.id, self.name, "success", True)

    assert get_method("test-dummy").run(kitchen_task(), RunContext()).success
    with pytest.raises(ConfigError, match="registered twice"):
        @register_method("test-dummy")
        class Other(Dummy):
            pass


def test_oracle_plans_executes_and_traces(planner):
    ep = get_method("oracle").run(kitchen_task(min_costs=None), RunContext(planner=planner, seed=3))
    assert ep.success and ep.status == "success" and ep.seed == 3
    assert ep.plan and ep.goal == GOAL
    kinds = [e["type"] for e in ep.trace]
    assert kinds[0] == "goal" and "plan" in kinds and kinds.count("step") == len(ep.plan) and "check" in kinds
    step = next(e for e in ep.trace if e["type"] == "step")
    assert step["ok"] and step["added"]
    assert ep.metrics["planned_steps"] == ep.metrics["executed_steps"] == len(ep.plan)
    json.dumps(ep.to_json())  # the trace is JSON-able
    assert Episode.from_json(json.loads(json.dumps(ep.to_json()))) == ep


def test_oracle_without_goal_or_with_unreachable_goal(planner):
    ep = get_method("oracle").run(kitchen_task(goal=None), RunContext(planner=planner))
    assert not ep.success and ep.status == EpisodeStatus.UNSUPPORTED.value
    ep = get_method("oracle").run(kitchen_task(goal="and (in salmon0 fridge0) (not (in salmon0 fridge0))"),
                                  RunContext(planner=planner))
    assert not ep.success and ep.status in ("unsolvable", "invalid")


def test_trace_recorder_rejects_unknown_event_and_records_llm_usage():
    rec = TraceRecorder()
    with pytest.raises(ValueError, match="unknown trace event type"):
        rec.event("tool-call")

    class C:  # a completion-like object
        text = "and (in a b)"
        finish_reason = "stop"
        usage = Usage(10, 5, 0.1, "scripted", "script")

    ev = rec.llm_call("goal", [{"role": "user", "content": "hi"}], C())
    assert ev["usage"]["prompt_tokens"] == 10 and ev["text"] == "and (in a b)"


# ----------------------------------------------------------------------------- metrics


def _ep(success=True, cost=4.0, gcr=None, status=None, **m):
    return Episode("k1", "x", status or ("success" if success else "failure"), success,
                   metrics={"cost": cost, "gcr": gcr, "planned_steps": 4, "executed_steps": 4 if success else 2, **m})


def test_minimal_and_minimal_tools():
    t = kitchen_task(min_costs=4, min_tool_calls=2)
    m = episode_metrics(_ep(cost=4.0, tool_calls=2), t)
    assert m.minimal and m.minimal_tools and m.sr and m.exec == 1.0
    m = episode_metrics(_ep(cost=6.0, tool_calls=3), t)
    assert m.success and not m.minimal and not m.minimal_tools
    m = episode_metrics(_ep(success=False, cost=4.0, gcr=0.5), t)
    assert not m.minimal and m.gcr == 0.5 and not m.sr and m.exec == 0.5
    assert episode_metrics(_ep(), kitchen_task()).minimal is None  # no recorded minimum


def test_invalid_rows_count_as_failures_and_situations():
    t = kitchen_task(min_costs=4, accepted_objects=["cup0"])
    rows = [episode_metrics(_ep(), t).to_dict(),
            episode_metrics(Episode("k2", "x", "invalid", False, error="bad"), t).to_dict(),
            episode_metrics(_ep(situation_met=True, objects_used=["cup0"]), t).to_dict(),
            episode_metrics(_ep(situation_met=True, objects_used=["bowl0"]), t).to_dict()]
    agg = aggregate(rows)
    assert agg["n"] == 4 and agg["invalid"] == 1
    assert agg["success"] == 0.75 and agg["minimal"] == 0.75
    assert agg["situation_handling"] == 0.5 and agg["task_completion"] == 0.75
    usage = UsageMeter()
    usage.add(Usage(7, 3, 0.2, "scripted", "s"))
    e = Episode("k1", "x", "success", True, usage=usage.summary())
    assert episode_metrics(e, t).tokens == 10 and episode_metrics(e, t).llm_calls == 1
    assert set(deterministic_view(agg)) >= {"success", "minimal", "n"}


# ----------------------------------------------------------------------------- store


def _row(task_id="t1", seed=0, status="success", run_id="r1", trace=()):
    return EpisodeRow(run_id, task_id, seed, "oracle", "test", "v1", "fam", "none", "", "", status,
                      status == "success", {"success": status == "success"}, 0, 0, 0, 0.1, "g", ("a b",), None,
                      "f.csv:2", trace)


def _run(run_id="r1", **kw):
    base = dict(method="oracle", dataset="test", dataset_version="v1", backend="none", model="", prompt_hash="",
                config={"planner": "fast-downward"})
    base.update(kw)
    return RunRecord(run_id, **base)


def test_store_unique_rows_resume_keys_and_identity(tmp_path):
    with ResultStore(tmp_path / "r.sqlite") as st:
        st.ensure_run(_run())
        st.write_episode(_row("t1"))
        st.write_episode(_row("t2", status="error"))
        st.write_episode(_row("t3", status="invalid"))
        st.write_episode(_row("t2", status="success"))  # a retried episode replaces, never duplicates
        assert st.count("r1") == 3
        assert st.finished_keys("r1", redo_statuses={"invalid"}) == {("t1", 0), ("t2", 0)}
        st.ensure_run(_run())  # same identity: fine
        with pytest.raises(StoreError, match="different configuration.*prompt_hash"):
            st.ensure_run(_run(prompt_hash="abc"))
        with pytest.raises(StoreError, match=r"config\.planner"):
            st.ensure_run(_run(config={"planner": "pyperplan"}))
        assert [r.task_id for r in st.episodes(["r1"])] == ["t1", "t2", "t3"]
        assert st.match_runs(["r*"]) == ["r1"]
        with pytest.raises(StoreError, match="no run 'zz'"):
            st.match_runs(["zz"])


def test_store_locked_and_full_are_one_line_errors(tmp_path):
    path = tmp_path / "r.sqlite"
    with ResultStore(path, timeout=0.2) as st:
        st.ensure_run(_run())
        other = sqlite3.connect(str(path), isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")
        with pytest.raises(StoreError) as ei:
            st.write_episode(_row("t1"))
        assert "locked" in str(ei.value) and "\n" not in str(ei.value) and str(path) in str(ei.value)
        other.execute("ROLLBACK")
        other.close()
        st.write_episode(_row("t1"))
        st.conn.execute(f"PRAGMA max_page_count={st.conn.execute('PRAGMA page_count').fetchone()[0]}")
        with pytest.raises(StoreError, match="full") as ei:
            st.write_episode(_row("t2", trace=({"type": "note", "text": "x" * 200_000},)))
        assert "\n" not in str(ei.value)
        assert st.count("r1") == 1  # the finished episode is still there


def test_store_rejects_a_non_database(tmp_path):
    p = tmp_path / "x.sqlite"
    p.write_text("not a database at all" * 100)
    with pytest.raises(StoreError, match="x.sqlite"):
        ResultStore(p)


# ----------------------------------------------------------------------------- executors


@register_method("test-llm-probe")
class LLMProbe(Method):
    """Reports which LLM / planner object and process served each episode."""

    needs_llm = True

    def run(self, task, ctx):
        import os

        meter = UsageMeter()
        answer = ctx.llm.chat("which goal?", usage=meter, seed=ctx.seed)
        return Episode(task.id, self.name, "success", True, goal=answer.text, usage=meter.summary(),
                       metrics={"llm": id(ctx.llm), "planner": id(ctx.planner), "pid": os.getpid()})


@pytest.mark.parametrize("workers", [1, 2])
def test_each_worker_builds_its_llm_and_planner_once(workers):
    from dataclasses import replace

    from groundplan.bench.executors import make_executor
    from groundplan.bench.runner import WorkerSpec, WorkUnit
    from groundplan.llm import LLMConfig

    units = [WorkUnit(i, replace(kitchen_task(), id=f"k{i}"), seed=i % 2) for i in range(6)]
    # each worker's scripted backend has an answer for every episode it may get
    spec = WorkerSpec("test-llm-probe", LLMConfig(backend="scripted", script=("and (in a b)",) * 6, cache=False))
    res = list(make_executor("local", workers=workers).map(spec, units))
    assert sorted(r.index for r in res) == list(range(6))
    eps = [r.episode for r in res]
    assert all(e.success and e.goal == "and (in a b)" and e.usage.calls == 1 for e in eps), [e.error for e in eps]
    per_pid = {}
    for e in eps:
        per_pid.setdefault(e.metrics["pid"], set()).add((e.metrics["llm"], e.metrics["planner"]))
    assert len(per_pid) <= workers
    assert all(len(objs) == 1 for objs in per_pid.values())  # one LLM and one planner per worker process
    assert sorted(e.seed for e in eps) == [0, 0, 0, 1, 1, 1]


def test_llm_method_without_llm_is_a_config_error(tmp_path):
    from groundplan.bench.runner import RunSpec, prepare_run

    with ResultStore(tmp_path / "r.sqlite") as st, pytest.raises(ConfigError, match="needs an LLM"):
        prepare_run(RunSpec("autogptp-saycan", "test-llm-probe"), st)


def test_bench_run_threads_reach_the_llm_config():
    from groundplan.cli.bench_cmds import _llm_config

    assert _llm_config("none", None, None, [], False, [], 1) is None
    cfg = _llm_config("embedded", None, None, [], False, [], 1)
    assert cfg.n_threads == 1 and cfg.backend == "embedded"
    assert _llm_config("embedded", None, None, [], False, []).n_threads is None
