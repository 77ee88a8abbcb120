"""End-to-end runs of `groundplan bench` on AutoGPT+P's SayCan set with the oracle: the
paper-shaped report, resuming after kill -9, identical metrics across 1/2 local workers and
Ray, and malformed dataset rows (reported by name and row; skipped or failing the run)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, needs_data, shared_data

GP = [sys.executable, "-m", "groundplan.cli.main"]
pytestmark = needs_data


def gp(*args, env=None, check=True, timeout=600):
    proc = subprocess.run([*GP, *map(str, args)], capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          env={**os.environ, **(env or {})})
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout: {proc.stdout}\nstderr: {proc.stderr}")
    return proc


def rows(db, run_id=None):
    c = sqlite3.connect(str(db))
    c.row_factory = sqlite3.Row
    q = "SELECT * FROM episodes" + (" WHERE run_id = ?" if run_id else "")
    out = [dict(r) for r in c.execute(q, (run_id,) if run_id else ())]
    c.close()
    return out


def metrics_of(db, run_id):
    from groundplan.bench.metrics import aggregate, deterministic_view

    return deterministic_view(aggregate(json.loads(r["metrics"]) for r in rows(db, run_id)))


def test_oracle_saycan_run_and_table_iv_report(tmp_path):
    db = tmp_path / "b.sqlite"
    # the first task of every family
    from groundplan.bench.datasets import load_tasks

    tasks = load_tasks("autogptp-saycan")
    pick = []
    for fam in sorted({t.subset for t in tasks}):
        pick += [t.id for t in tasks if t.subset == fam][:1]
    args = [a for tid in pick for a in ("--task", tid)]
    gp("bench", "run", "autogptp-saycan", "--method", "oracle", "--db", db, "--no-progress", *args)
    rs = rows(db)
    assert len(rs) == len(pick) and all(r["success"] for r in rs)
    r0 = rs[0]
    assert r0["dataset_version"] and r0["backend"] == "none" and json.loads(r0["trace"])
    out = tmp_path / "rep"
    gp("bench", "report", "oracle@autogptp-saycan@none", "--db", db, "--out", out)
    md = (out / "report.md").read_text()
    table = md[md.index("## autogptp-saycan"):]
    fams = ["NL Primitive", "NL Verb", "NL Noun", "Structured Language", "Embodiment", "Crowd Sourced",
            "Long Horizon", "Drawer", "Average"]
    positions = [table.index(f"| {f} |") for f in fams]
    assert positions == sorted(positions)  # the paper's row order
    assert "| success | minimal |" in table
    assert "| Average | 8 | 1.00 | 1.00 |" in table and "| NL Primitive | 1 | 1.00 | 1.00 |" in table
    assert (out / "success_by_subset_autogptp-saycan.png").stat().st_size > 1000
    assert (out / "cost_time_autogptp-saycan.png").stat().st_size > 1000
    summary = json.loads((out / "summary.json").read_text())
    assert summary["runs"]["oracle@autogptp-saycan@none"]["success"] == 1.0
    # the same command again skips everything
    p = gp("bench", "run", "autogptp-saycan", "--method", "oracle", "--db", db, "--no-progress", *args)
    assert f"{len(pick)} already done, 0 run now" in " ".join(p.stdout.split())
    assert len(rows(db)) == len(pick)


def _children(pid):
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(d.name))
            except (OSError, IndexError, ValueError):
                pass
    return out


def _alive(pid):
    try:
        st = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
        return st != "Z"
    except OSError:
        return False


def test_kill_9_then_resume_gives_one_row_per_episode_and_same_metrics(tmp_path):
    n = 18
    db = tmp_path / "k.sqlite"
    cmd = [*GP, "bench", "run", "autogptp-saycan", "--method", "oracle", "--db", str(db), "--limit", str(n),
           "--workers", "2", "--no-progress"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    done = 0
    kids = []
    while time.time() < deadline:
        time.sleep(0.2)
        kids = kids or _children(proc.pid)
        if db.exists():
            try:
                done = len(rows(db))
            except sqlite3.OperationalError:
                continue
        if done >= n // 3:
            break
    assert proc.poll() is None, "the run finished before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(1.5)
    assert kids and not [k for k in kids if _alive(k)], "worker processes outlived the killed run"
    partial = len(rows(db))
    assert n // 3 <= partial < n
    p = gp(*cmd[3:])
    assert f"{partial} already done" in " ".join(p.stdout.split())
    rs = rows(db)
    assert len(rs) == n and len({(r["task_id"], r["seed"]) for r in rs}) == n
    ref = tmp_path / "ref.sqlite"
    gp("bench", "run", "autogptp-saycan", "--method", "oracle", "--db", ref, "--limit", n, "--no-progress")
    run_id = "oracle@autogptp-saycan@none"
    assert metrics_of(db, run_id) == metrics_of(ref, run_id)
    assert {r["task_id"]: r["metrics"] for r in rows(db)}.keys() == {r["task_id"] for r in rows(ref)}


def test_one_and_two_workers_give_identical_metrics(tmp_path):
    per = {}
    for w in (1, 2):
        db = tmp_path / f"w{w}.sqlite"
        gp("bench", "run", "autogptp-saycan", "--method", "oracle", "--db", db, "--limit", 10, "--workers", w,
           "--no-progress")
        per[w] = {r["task_id"]: json.loads(r["metrics"]) for r in rows(db)}
        for m in per[w].values():
            m.pop("wall_time")
    assert per[1] == per[2] and len(per[1]) == 10


@pytest.mark.skipif(shutil.which("ray", path=str(Path(sys.executable).parent)) is None, reason="ray not installed")
def test_ray_executor_with_a_local_head(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    import tempfile

    ray_bin = str(Path(sys.executable).parent / "ray")
    tmp_ray = tempfile.mkdtemp(prefix="gpray", dir="/tmp")  # AF_UNIX socket paths must stay short
    head = subprocess.Popen([ray_bin, "start", "--head", f"--port={port}", "--node-ip-address=127.0.0.1",
                             "--num-cpus=2", "--disable-usage-stats", "--include-dashboard=false",
                             "--object-store-memory=100000000", f"--temp-dir={tmp_ray}", "--block"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.time() + 90
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.5)
        time.sleep(2)
        db = tmp_path / "ray.sqlite"
        p = gp("bench", "run", "autogptp-saycan", "--method", "oracle", "--db", db, "--limit", 6, "--executor", "ray",
               "--address", f"127.0.0.1:{port}", "--workers", 2, "--no-progress", timeout=300)
        assert "on ray (127.0.0.1" in " ".join(p.stdout.split())
        ref = tmp_path / "ref.sqlite"
        gp("bench", "run", "autogptp-saycan", "--method", "oracle", "--db", ref, "--limit", 6, "--no-progress")
        run_id = "oracle@autogptp-saycan@none"
        assert metrics_of(db, run_id) == metrics_of(ref, run_id)
        assert metrics_of(db, run_id)["success"] == 1.0
    finally:
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
            if head.poll() is not None and not _group_alive(head.pid):
                break
            try:
                os.killpg(head.pid, sig)
            except ProcessLookupError:
                break
            t = time.time()
            while time.time() - t < wait and _group_alive(head.pid):
                time.sleep(0.3)
        head.wait(timeout=10)
        shutil.rmtree(tmp_ray, ignore_errors=True)


def _group_alive(pgid):
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[3]) == pgid and fields[0] != "Z":
                    return True
            except (OSError, IndexError, ValueError):
                pass
    return False


def test_ray_unreachable_address_is_one_line_error(tmp_path):
    pytest.importorskip("ray")
    p = gp("bench", "run", "autogptp-saycan", "--method", "oracle", "--db", tmp_path / "x.sqlite", "--limit", 1,
           "--executor", "ray", "--address", "127.0.0.1:9", "--no-progress", check=False, timeout=120)
    assert p.returncode == 2
    assert p.stderr.strip().count("\n") == 0 and "cannot connect to Ray at 127.0.0.1:9" in p.stderr


# ----------------------------------------------------------------------------- malformed rows


@pytest.fixture()
def bad_data(tmp_path):
    """A data directory whose SayCan family A has three malformed rows: a short row
    (missing columns), a goal naming an unknown object, a scene file that does not exist."""
    src = shared_data() / "autogpt-p"
    root = tmp_path / "data" / "autogpt-p"
    ev = Path("autogpt_p/data/evaluation/saycan")
    (root / ev / "scenarios").mkdir(parents=True)
    (root / ev / "scenes").symlink_to(src / ev / "scenes")
    (root / "object_affordance_mapping").symlink_to(src / "object_affordance_mapping")
    for f in (src / ev / "scenarios").glob("saycan_*.csv"):
        shutil.copy(f, root / ev / "scenarios" / f.name)
    fa = root / ev / "scenarios" / "saycan_a_nl_primitive.csv"
    lines = fa.read_text().splitlines()
    lines[1] = "pick up the coke can,saycan_a_nl_primitive/simple_kitchen.txt"  # row 2: no goal, no min_costs
    lines[2] = lines[2].replace("coke0", "unicorn0")  # row 3: unknown object
    parts = lines[3].split(",")
    parts[1] = "saycan_a_nl_primitive/no_such_scene.txt"  # row 4: missing scene file
    lines[3] = ",".join(parts)
    fa.write_text("\n".join(lines) + "\n")
    return tmp_path / "data", fa


ROWS = ("saycan_a_nl_primitive:2", "saycan_a_nl_primitive:3", "saycan_a_nl_primitive:4",
        "saycan_a_nl_primitive:5")


def _run_rows(data, db, *extra, check=True):
    args = [a for tid in ROWS for a in ("--task", tid)]
    return gp("bench", "run", "autogptp-saycan", "--method", "oracle", "--db", db, "--no-progress", *args, *extra,
              env={"GROUNDPLAN_DATA": str(data)}, check=check)


def test_bad_rows_skipped_are_invalid_episodes_named_by_file_and_row(bad_data, tmp_path):
    data, fa = bad_data
    db = tmp_path / "bad.sqlite"
    p = _run_rows(data, db, "--on-bad-row", "skip", "--workers", "2")
    err = " ".join(p.stderr.split())
    assert f"{fa}:2: dataset autogptp-saycan, row saycan_a_nl_primitive:2: missing value for the goal column" in err
    assert f"{fa}:3:" in err and "unknown object" in err and "unicorn0" in err
    assert f"{fa}:4:" in err and "scene file not found" in err and "no_such_scene.txt" in err
    by_id = {r["task_id"]: r for r in rows(db)}
    assert len(by_id) == 4  # nothing vanished from the denominator
    assert [by_id[t]["status"] for t in ROWS] == ["invalid", "invalid", "invalid", "success"]
    out = tmp_path / "rep"
    gp("bench", "report", "oracle@*", "--db", db, "--out", out, "--no-plots")
    md = (out / "report.md").read_text()
    assert "3 invalid dataset rows, counted as failed episodes" in md
    assert "| NL Primitive | 4 | 0.25 | 0.25 |" in md
    assert f"{fa}:3" in md


@pytest.mark.parametrize("row,needle", [(2, "missing value for the goal column"), (3, "unknown object"),
                                        (4, "scene file not found")])
def test_bad_row_fails_the_run_with_its_name_and_row(bad_data, tmp_path, row, needle):
    data, fa = bad_data
    db = tmp_path / f"fail{row}.sqlite"
    args = ["--task", f"saycan_a_nl_primitive:{row}", "--task", "saycan_a_nl_primitive:5"]
    p = gp("bench", "run", "autogptp-saycan", "--method", "oracle", "--db", db, "--no-progress", *args,
           "--on-bad-row", "fail", env={"GROUNDPLAN_DATA": str(data)}, check=False)
    assert p.returncode == 2
    msg = p.stderr.strip()
    assert msg.count("\n") == 0 and msg.startswith("error:")
    assert f"{fa}:{row}:" in " ".join(msg.split()) and needle in msg
    assert all(r["status"] != "invalid" for r in rows(db))


def test_missing_column_in_the_header_stops_with_file_and_line(tmp_path, bad_data):
    data, fa = bad_data
    text = fa.read_text().replace("desired_goal", "goal", 1)
    fa.write_text(text)
    p = _run_rows(data, tmp_path / "h.sqlite", check=False)
    assert p.returncode == 2 and f"{fa}:1: missing column 'desired_goal'" in " ".join(p.stderr.split())


def test_saycan101_loader_and_a_row_without_query(tmp_path):
    from groundplan.bench.datasets import get_dataset
    from groundplan.bench.datasets.saycan import saycan101_tasks

    tasks = get_dataset("saycan-101").loader()
    assert len(tasks) == 101 and all(t.goal is None for t in tasks)
    fams = {}
    for t in tasks:
        fams[t.extras["family"]] = fams.get(t.extras["family"], 0) + 1
    assert fams == {"Crowd-Sourced": 15, "Long-Horizon": 15, "NL Verbs": 15, "NL Nouns": 15,
                    "NL Single Primitive": 15, "Structured Language": 15, "Embodiment": 11}
    note = next(t for t in tasks if t.instruction == "Please, move the ppsi to the close cuonter")
    assert note.extras["note"] == "note purposeful misspelling" and note.extras["family"] == "Crowd-Sourced"
    src = shared_data() / "saycan"
    d = tmp_path / "saycan"
    d.mkdir()
    lines = (src / "saycan_initial_condition_for_dataset_v0.tsv").read_text().splitlines()
    lines[5] = "Multiple"  # a row with only its family cell
    (d / "saycan_initial_condition_for_dataset_v0.tsv").write_text("\n".join(lines) + "\n")
    bad = [t for t in saycan101_tasks(d) if t.extras.get("missing_columns")]
    assert len(bad) == 1 and bad[0].source.endswith(":6") and bad[0].extras["missing_columns"] == ["Query"]
    from groundplan.bench.validate import check_task

    prob = check_task(bad[0], has_goals=False, has_scenes=False)
    assert "missing column 'Query'" in str(prob) and ":6:" in str(prob)


def test_database_locked_mid_run_stops_with_one_line_and_keeps_finished_episodes(tmp_path):
    from groundplan.bench.executors import RunExecutor
    from groundplan.bench.runner import RunSpec, run_benchmark, run_units_inline
    from groundplan.bench.store import ResultStore, StoreError

    path = tmp_path / "lock.sqlite"
    holder = {}

    class LockAfterTwo(RunExecutor):
        name = "test"

        def map(self, spec, units):
            for i, res in enumerate(run_units_inline(spec, units)):
                if i == 2:  # another process grabs the file before the third episode is written
                    holder["c"] = sqlite3.connect(str(path), isolation_level=None)
                    holder["c"].execute("BEGIN EXCLUSIVE")
                yield res

    with ResultStore(path, timeout=0.3) as st:
        with pytest.raises(StoreError) as ei:
            run_benchmark(RunSpec("autogptp-saycan", "oracle", limit=5), st, LockAfterTwo())
        assert "locked" in str(ei.value) and "\n" not in str(ei.value)
        holder["c"].execute("ROLLBACK")
        holder["c"].close()
        assert st.count("oracle@autogptp-saycan@none") == 2
        summary = run_benchmark(RunSpec("autogptp-saycan", "oracle", limit=5), st, _inline())
        assert summary.already_done == 2 and summary.ran == 3 and st.count(summary.run_id) == 5


def _inline():
    from groundplan.bench.executors import make_executor

    return make_executor("local", workers=1)


def test_cli_locked_results_file_is_one_line_exit_2(tmp_path):
    db = tmp_path / "l.sqlite"
    gp("bench", "run", "autogptp-saycan", "--method", "oracle", "--db", db, "--limit", 1, "--no-progress")
    c = sqlite3.connect(str(db), isolation_level=None)
    c.execute("BEGIN EXCLUSIVE")
    try:
        p = gp("bench", "run", "autogptp-saycan", "--method", "oracle", "--db", db, "--limit", 2, "--no-progress",
               "--db-timeout", "0.5", check=False)
    finally:
        c.execute("ROLLBACK")
        c.close()
    assert p.returncode == 2 and p.stderr.strip().count("\n") == 0
    assert "locked" in p.stderr and str(db) in " ".join(p.stderr.split())
