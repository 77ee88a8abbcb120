"""`groundplan bench show RUN [TASK]` and the report's failure lines: each episode's instruction,
the goal the method produced, the gold goal, the verdict and the trace; errors apart from
failures; unknown runs and tasks are one line with a did-you-mean and exit 2; results files
written before the store kept instructions and gold goals stay readable."""

from __future__ import annotations

import json
import sqlite3

import pytest
from conftest import needs_data
from typer.testing import CliRunner

from groundplan.bench.report import write_report
from groundplan.bench.show import essentials, select_episodes
from groundplan.bench.store import EpisodeRow, ResultStore, RunRecord
from groundplan.cli.main import app

RUN = "goalsearch@toy@none"


def _row(task_id, status, success, *, goal="(on cup0 table0)", error=None, metrics=None, trace=(), seed=0,
         instruction=None, gold="(on cup0 shelf0)"):
    return EpisodeRow(RUN, task_id, seed, "goalsearch", "toy", "v1", "fam", "none", "", "h", status, success,
                      {"checked": True, **(metrics or {})}, 0, 0, 0, 0.2, goal, ("grasp cup0 table0 robot0",), error,
                      "toy.csv:2", trace, instruction=f"put the cup away ({task_id})" if instruction is None
                      else instruction, gold_goal=gold)


TRACE = ({"type": "goal", "t": 0.01, "text": "(on cup0 table0)", "source": "single"},
         {"type": "plan", "t": 0.02, "steps": ["grasp cup0 table0 robot0"], "status": "solved", "cost": 1},
         {"type": "step", "t": 0.03, "index": 0, "action": "grasp cup0 table0 robot0", "ok": True,
          "added": ["(inhand cup0 robot0)"], "deleted": []},
         {"type": "llm_call", "t": 0.04, "purpose": "goal", "prompt": "write the goal " + "x" * 500,
          "text": "(on cup0 table0) " + "y" * 500, "usage": {"prompt_tokens": 12, "completion_tokens": 5}},
         {"type": "check", "t": 0.05, "success": False, "against": "gold goal", "unsatisfied": ["(on cup0 shelf0)"]})


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as st:
        st.ensure_run(RunRecord(RUN, "goalsearch", "toy", "v1", "none", "", "h", {}))
        st.write_episode(_row("t1", "success", True, goal="(on cup0 shelf0)"))
        st.write_episode(_row("t2", "failure", False, error="goal not reached", trace=TRACE))
        st.write_episode(_row("t3", "no_plan", False, goal=None, error="no valid goal after 3 corrections"))
        st.write_episode(_row("t4", "error", False, goal=None, error="HTTP 400: context length exceeded"))
        # no check goal, the method's own goal held: not a failure
        st.write_episode(_row("t5", "failure", False, gold=None, metrics={"checked": False, "own_goal_held": True}))
    return path


def gp(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_failures_are_failure_and_no_plan_errors_apart_unverified_neither(db):
    with ResultStore(db) as st:
        sel = select_episodes(st, RUN)
    assert [e.row.task_id for e in sel.episodes] == ["t2", "t3"]
    assert [e.row.task_id for e in sel.errors] == ["t4"]
    counted = {"success": 1, "goal holds (unverified)": 1, "failure": 1, "no plan": 1, "error": 1}
    assert {k: sel.counts[k] for k in counted} == counted and sum(sel.counts.values()) == 5
    t2 = sel.episodes[0]
    assert (t2.row.instruction, t2.goal, t2.row.gold_goal, t2.verdict) == (
        "put the cup away (t2)", "(on cup0 table0)", "(on cup0 shelf0)", "failure")
    assert sel.errors[0].verdict == "error: HTTP 400: context length exceeded"


def test_show_run_prints_each_failure_with_its_trace_and_lists_errors_apart(db):
    r = gp("bench", "show", RUN, "--db", db)
    assert r.exit_code == 0, r.output
    out = r.output
    assert "2 failures" in out and "== t2 (seed 0, fam) ==" in out and "== t3 (seed 0, fam) ==" in out
    assert "== t1 " not in out and "== t4 " not in out and "== t5 " not in out
    block = out.split("== t2 ")[1].split("== t3 ")[0]
    for line in ("instruction: put the cup away (t2)", "goal:        (on cup0 table0)",
                 "gold goal:   (on cup0 shelf0)", "verdict:     failure", "why:         goal not reached"):
        assert line in block, block
    assert "trace (5 events)" in block and "ok   grasp cup0 table0 robot0" in block
    llm = next(ln for ln in block.splitlines() if "LLM [goal]" in ln)
    assert "12+5 tok" in llm and len(llm) < 250  # shortened
    assert "verdict:     no plan" in out
    errors = out.split("1 error (the method could not run")[1]
    assert "t4 (seed 0): error: HTTP 400: context length exceeded" in errors
    assert "\x1b[" not in out  # plain when not a terminal


def test_show_task_full_and_json(db):
    r = gp("bench", "show", RUN, "t2", "--db", db, "--full")
    assert r.exit_code == 0 and "y" * 500 in r.output and "x" * 500 in r.output
    r = gp("bench", "show", "goalsearch@*", "t5", "--db", db, "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    (ep,) = data["episodes"]
    assert data["run"]["run_id"] == RUN and data["task"] == "t5" and data["errors"] == []
    assert ep["verdict"] == "goal holds (unverified)" and ep["gold_goal"] is None
    assert ep["instruction"] == "put the cup away (t5)" and ep["goal"] == "(on cup0 table0)"
    r = gp("bench", "show", RUN, "--db", db, "--json", "--all")
    assert [e["task_id"] for e in json.loads(r.output)["episodes"]] == ["t1", "t2", "t3", "t4", "t5"]


@pytest.mark.parametrize("args, message", [
    (("goalsearch@toy",), "no run 'goalsearch@toy'; did you mean 'goalsearch@toy@none'?"),
    ((RUN, "t22"), f"run '{RUN}' has no task 't22'; did you mean 't2'?"),
    ((RUN, "t2", "--seed", "3"), "no episode of task 't2' with seed 3 (seeds: 0)"),
])
def test_unknown_run_task_or_seed_is_one_line_exit_2(db, args, message):
    r = gp("bench", "show", *args, "--db", db)
    assert r.exit_code == 2 and message in r.output and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1


def test_ambiguous_glob_names_the_runs(db):
    with ResultStore(db) as st:
        st.ensure_run(RunRecord("goalsearch@toy@other", "goalsearch", "toy", "v1", "none", "", "h", {}))
    r = gp("bench", "show", "goalsearch@*", "--db", db)
    assert r.exit_code == 2 and "matches 2 runs" in r.output


def test_report_lists_failures_with_their_essentials(db, tmp_path):
    with ResultStore(db) as st:
        md = write_report(st, [RUN], tmp_path / "rep", plots=False).markdown
    failed = md.split("unsuccessful episodes")[1]
    assert (f'- {RUN} t2 (seed 0): failure; "put the cup away (t2)"; goal `(on cup0 table0)`; '
            f"gold `(on cup0 shelf0)`; why: goal not reached") in failed
    assert "no plan; \"put the cup away (t3)\"; goal (none)" in failed
    assert " t4 " not in failed and " t5 " not in failed  # the error is listed apart, unverified is no failure
    assert "1 episodes ended in an error" in md and "HTTP 400" in md.split("unsuccessful episodes")[0]
    r = gp("bench", "report", RUN, "--db", db, "--out", tmp_path / "rep2", "--no-plots")
    assert r.exit_code == 0 and f"{RUN}: 2 failed, 1 errors; `groundplan bench show {RUN}`" in r.output
    assert essentials(_row("t9", "failure", False, instruction="")).startswith("failure; goal (on cup0 table0)")


def test_the_goal_produced_is_the_method_s_not_the_gold_goal_it_stored(tmp_path):
    """Methods that write no goal of their own (BrainBody) or keep theirs in the trace
    (AutoGPT+P) store the gold goal as the episode's goal: neither shows it as produced."""
    own = ({"type": "goal", "t": 0.1, "round": 1, "text": "(on cup0 counter0)"},)
    with ResultStore(tmp_path / "g.sqlite") as st:
        st.ensure_run(RunRecord(RUN, "goalsearch", "toy", "v1", "none", "", "h", {}))
        st.write_episode(_row("a", "failure", False, goal="(on cup0 shelf0)", trace=own))
        st.write_episode(_row("b", "failure", False, goal="(on cup0 shelf0)"))
        shown = {e.row.task_id: e for e in select_episodes(st, RUN).episodes}
        md = write_report(st, [RUN], tmp_path / "rep", plots=False).markdown
    assert shown["a"].goal == "(on cup0 counter0)" and shown["b"].goal is None
    assert "a (seed 0): failure; \"put the cup away (a)\"; goal `(on cup0 counter0)`; gold `(on cup0 shelf0)`" in md
    assert "b (seed 0): failure; \"put the cup away (b)\"; goal (none); gold `(on cup0 shelf0)`" in md


OLD_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (run_id TEXT PRIMARY KEY, created TEXT NOT NULL, method TEXT NOT NULL, dataset TEXT NOT NULL,
    dataset_version TEXT NOT NULL, backend TEXT NOT NULL, model TEXT NOT NULL, prompt_hash TEXT NOT NULL,
    config TEXT NOT NULL);
CREATE TABLE episodes (run_id TEXT NOT NULL, task_id TEXT NOT NULL, seed INTEGER NOT NULL, method TEXT NOT NULL,
    dataset TEXT NOT NULL, dataset_version TEXT NOT NULL, subset TEXT NOT NULL, backend TEXT NOT NULL,
    model TEXT NOT NULL, prompt_hash TEXT NOT NULL, status TEXT NOT NULL, success INTEGER NOT NULL,
    metrics TEXT NOT NULL, llm_calls INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL, wall_time REAL NOT NULL, goal TEXT, plan TEXT NOT NULL, error TEXT,
    source TEXT NOT NULL, trace TEXT NOT NULL, finished TEXT NOT NULL, UNIQUE (run_id, task_id, seed));
INSERT INTO meta VALUES ('schema_version', '1');
INSERT INTO runs VALUES ('old', '2026-01-01', 'oracle', 'nosuch', 'v1', 'none', '', '', '{}');
INSERT INTO episodes VALUES ('old', 'k1', 0, 'oracle', 'nosuch', 'v1', '', 'none', '', '', 'failure', 0,
    '{}', 0, 0, 0, 0.1, '(on a b)', '[]', 'goal not reached', 'f:1', '[]', '2026-01-01');
"""


def test_an_older_results_file_reads_missing_fields_as_empty_and_is_upgraded_on_write(tmp_path):
    path = tmp_path / "old.sqlite"
    c = sqlite3.connect(str(path))
    c.executescript(OLD_SCHEMA)
    c.close()
    with ResultStore(path) as st:
        (row,) = st.episodes(["old"], with_trace=True)
        assert (row.instruction, row.gold_goal, row.goal) == ("", None, "(on a b)")
        assert "instruction" not in {r[1] for r in st.conn.execute("PRAGMA table_info(episodes)")}  # reading: no change
    r = gp("bench", "show", "old", "--db", path)
    assert r.exit_code == 0 and "instruction: (not stored)" in r.output and "goal:        (on a b)" in r.output
    with ResultStore(path) as st:
        st.write_episode(EpisodeRow("old", "k2", 0, "oracle", "nosuch", "v1", "", "none", "", "", "success", True, {},
                                    0, 0, 0, 0.1, "(on a b)", (), None, "f:2", instruction="stack a on b",
                                    gold_goal="(on a b)"))
        rows = {r.task_id: r for r in st.episodes(["old"])}
        assert rows["k2"].instruction == "stack a on b" and rows["k1"].instruction == ""
        assert st.conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == "2"


@needs_data
def test_bench_run_records_instruction_gold_goal_and_trace_and_show_reads_them(tmp_path):
    from groundplan.bench.datasets import get_dataset
    from groundplan.bench.executors import make_executor
    from groundplan.bench.runner import RunSpec, run_benchmark

    tasks = {t.id: t for t in get_dataset("autogptp-saycan").loader()[:3]}
    with ResultStore(tmp_path / "b.sqlite") as st:
        summary = run_benchmark(RunSpec("autogptp-saycan", "goalsearch", limit=3), st, make_executor("local"))
        rows = list(st.episodes([summary.run_id], with_trace=True))
        sel = select_episodes(st, summary.run_id, rows[0].task_id, lookup=False)
    assert {r.task_id for r in rows} == set(tasks)
    for r in rows:
        assert r.instruction == tasks[r.task_id].instruction and r.gold_goal == tasks[r.task_id].goal
        assert r.goal and any(e["type"] == "goal" for e in r.trace)
    assert sel.episodes[0].row.instruction == tasks[rows[0].task_id].instruction
    # an older file (no instruction column) is filled from the registered dataset of the same version
    c = sqlite3.connect(str(tmp_path / "b.sqlite"))
    c.execute("UPDATE episodes SET instruction = NULL, gold_goal = NULL")
    c.commit()
    c.close()
    r = gp("bench", "show", summary.run_id, rows[0].task_id, "--db", tmp_path / "b.sqlite")
    assert r.exit_code == 0, r.output
    assert f"instruction: {tasks[rows[0].task_id].instruction} (from the dataset)" in r.output
