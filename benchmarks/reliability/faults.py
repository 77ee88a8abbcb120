"""Issue 12, figure 3: faults. (a) A benchmark run against an OpenAI-compatible endpoint
that fails 30 % of requests (HTTP 429, HTTP 500, a hang past the read timeout, a connection
reset) ends with the same metrics as a clean run. (b) The results database locked by
another process, or the disk full (an injected OSError(ENOSPC) / SQLITE_FULL), stops the
run with one clear error line and loses no finished episode; re-running resumes.

    .venv/bin/python benchmarks/reliability/faults.py --seeds 0,1,2 --fault-rate 0.3

The endpoint is groundplan.testing's fake server (FakeOpenAI). Its "model"
answers AutoGPT+P's goal prompt for a SayCan instruction with the dataset's gold goal, and
for every fourth instruction first with a goal naming an object the scene lacks (so the
self-correction round runs); the answer depends only on the messages, so a clean and a
faulty run can be compared exactly. Writes benchmarks/results/reliability/faults.md."""

from __future__ import annotations

import argparse
import errno
import hashlib
import json
import os
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from groundplan.testing import FakeOpenAI  # the fault-injecting OpenAI-compatible server

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "benchmarks" / "results" / "reliability"

DATASET = "autogptp-saycan"
METHOD = "autogpt_p"


def gold_answers():
    from groundplan.bench.datasets import load_tasks

    table = {}
    for t in load_tasks(DATASET):
        if t.goal:
            table[t.instruction] = t.goal
    return table


def make_model(gold):
    keys = sorted(gold, key=len, reverse=True)

    def answer(body: dict) -> str:
        msgs = body.get("messages") or []
        text = "\n".join(str(m.get("content", "")) for m in msgs)
        instr = next((k for k in keys if k in text), None)
        if instr is None:
            return "I cannot help with that."
        goal = gold[instr].strip()
        goal = goal if goal.startswith("(") else f"({goal})"
        corrected = "correct your answer" in msgs[-1].get("content", "") if msgs else False
        if int(hashlib.sha256(instr.encode()).hexdigest(), 16) % 4 == 0 and not corrected:
            return "(:goal (and (inhand unicorn0 human0)))"
        return f"The goal is\n(:goal {goal})"

    return answer


def run(url: str, db: Path, seeds, limit, *, read_timeout: float, executor=None, run_id="faults",
        planner_timeout: float = 300.0):
    from groundplan.bench.executors import make_executor
    from groundplan.bench.runner import RunSpec, run_benchmark
    from groundplan.bench.store import ResultStore
    from groundplan.llm.config import LLMConfig

    llm = LLMConfig(backend="openai", base_url=url, model="fake-model", cache=False, read_timeout=read_timeout,
                    connect_timeout=1.0, total_timeout=120.0, max_retries=12, backoff_base=0.01, backoff_max=0.05)
    spec = RunSpec(DATASET, METHOD, llm=llm, seeds=tuple(seeds), limit=limit, run_id=run_id,
                   planner_timeout=planner_timeout)
    with ResultStore(db, timeout=0.5) as st:
        return run_benchmark(spec, st, executor or make_executor("local", workers=1))


def episode_table(db: Path, run_id: str):
    from groundplan.bench.store import ResultStore

    with ResultStore(db, must_exist=True) as st:
        return {(r.task_id, r.seed): (r.status, r.success, json.dumps({k: v for k, v in r.metrics.items()
                                                                          if "time" not in k and "seconds" not in k},
                                                                         sort_keys=True),
                                      r.llm_calls, r.goal, r.plan) for r in st.episodes([run_id])}


def store_fault(fault: str, url: str, tmp: Path, limit_b: int, read_timeout: float) -> tuple[bool, str]:
    """Run ``limit_b`` episodes; from the third episode's write on, inject ``fault``. Then
    count what was kept and re-run to resume."""
    import groundplan.bench.store as store_mod
    from groundplan.bench.executors import Executor
    from groundplan.bench.runner import run_units_inline
    from groundplan.bench.store import ResultStore, StoreError

    db = tmp / f"{fault}.sqlite"
    holder: dict = {}

    class FaultAfterTwo(Executor):
        name = "fault-after-two"

        def map(self, spec, units):
            for i, res in enumerate(run_units_inline(spec, units)):
                if i == 2:
                    if fault == "locked":
                        holder["c"] = sqlite3.connect(str(db), isolation_level=None)
                        holder["c"].execute("BEGIN EXCLUSIVE")
                    else:
                        holder[fault] = True
                yield res

    original_write = store_mod.ResultStore._write

    class FullDisk:
        """The store's connection on a full disk: every INSERT fails with OSError(ENOSPC)."""

        def __init__(self, conn):
            self.conn = conn

        def execute(self, sql, *args):
            if sql.lstrip().upper().startswith("INSERT"):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(db))
            return self.conn.execute(sql, *args)

        def __getattr__(self, name):
            return getattr(self.conn, name)

    def write(self, sql, params):
        if holder.get("ENOSPC") and not isinstance(self.conn, FullDisk):
            self.conn = FullDisk(self.conn)
        if holder.get("sqlite-full"):
            self.conn.execute(f"PRAGMA max_page_count={self.conn.execute('PRAGMA page_count').fetchone()[0]}")
        return original_write(self, sql, params)

    store_mod.ResultStore._write = write
    msg = ""
    try:
        run(url, db, [0], limit_b, read_timeout=read_timeout, executor=FaultAfterTwo(), run_id="b")
    except StoreError as exc:
        msg = str(exc)
    except Exception as exc:  # noqa: BLE001 - reported as a failure of the bar
        msg = f"UNTYPED {type(exc).__name__}: {exc}"
    finally:
        store_mod.ResultStore._write = original_write
        if "c" in holder:
            holder["c"].execute("ROLLBACK")
            holder["c"].close()
    with ResultStore(db) as st:
        st.conn.execute("PRAGMA max_page_count=1073741823")
        kept = st.count("b")
    s2 = run(url, db, [0], limit_b, read_timeout=read_timeout, run_id="b")
    with ResultStore(db) as st:
        after = st.count("b")
    ok = bool(msg) and "\n" not in msg and not msg.startswith("UNTYPED") and kept == 2 and after == limit_b
    shown = msg.replace(str(tmp), "$TMP").replace("|", "/")
    return ok, f"| {fault} | `{shown}` | {kept} / 2 | {after} of {limit_b} (ran {s2.ran}) |"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--limit", type=int, default=None, help="tasks per seed (default: all 104)")
    ap.add_argument("--fault-rate", type=float, default=0.3)
    ap.add_argument("--read-timeout", type=float, default=1.0, help="the client's read timeout; a hang exceeds it")
    ap.add_argument("--planner-timeout", type=float, default=300.0,
                    help="long enough that A* never falls back to greedy search under load (a plan of another cost)")
    ap.add_argument("--out", type=Path, default=OUT / "faults.md")
    a = ap.parse_args(argv)
    seeds = [int(x) for x in a.seeds.split(",")]
    gold = gold_answers()
    model = make_model(gold)
    tmp = Path(tempfile.mkdtemp(prefix="gp-faults-"))
    lines: list[str] = []

    # (a) clean vs 30 % faults
    t0 = time.perf_counter()
    with FakeOpenAI(answer=model) as clean:
        s_clean = run(clean.url, tmp / "clean.sqlite", seeds, a.limit, read_timeout=a.read_timeout,
                      planner_timeout=a.planner_timeout)
        n_clean = len(clean.requests)
    t_clean = time.perf_counter() - t0
    rng = random.Random(12)
    kinds = ("429", "500", "hang", "reset")

    def faults(i):
        r = rng.random()
        return kinds[int(r / a.fault_rate * len(kinds))] if r < a.fault_rate else None

    t0 = time.perf_counter()
    with FakeOpenAI(answer=model, faults=faults, hang_s=a.read_timeout + 1.0) as faulty:
        s_faulty = run(faulty.url, tmp / "faulty.sqlite", seeds, a.limit, read_timeout=a.read_timeout,
                       planner_timeout=a.planner_timeout)
        n_req, injected = len(faulty.requests), list(faulty.injected)
    t_faulty = time.perf_counter() - t0
    e_clean, e_faulty = episode_table(tmp / "clean.sqlite", "faults"), episode_table(tmp / "faulty.sqlite", "faults")
    same_rows = sum(1 for k in e_clean if e_faulty.get(k) == e_clean[k])
    errors = sum(1 for v in e_faulty.values() if v[0] in ("error", "crash"))
    by_kind = {k: injected.count(k) for k in kinds}
    agg_c = {k: v for k, v in s_clean.metrics.items() if "time" not in k}
    agg_f = {k: v for k, v in s_faulty.metrics.items() if "time" not in k}
    print("clean", agg_c, "\nfaulty", agg_f, flush=True)
    load = os.getloadavg()
    lines += ["# Faults (issue 12, figure 3)", "",
              f"Command: `.venv/bin/python benchmarks/reliability/faults.py --seeds {a.seeds}"
              + (f" --limit {a.limit}" if a.limit else "") + f" --fault-rate {a.fault_rate} "
              f"--read-timeout {a.read_timeout} --planner-timeout {a.planner_timeout:g}`", "",
              f"Machine: 2 shared cores, load average {load[0]:.1f} at the end. The papers report no such figure.", "",
              f"## (a) {METHOD} on {DATASET}, {len(e_clean)} episodes (seeds {a.seeds}), OpenAI-compatible fake endpoint",
              "", "| run | requests | injected faults | episodes | identical to clean (status, success, metrics, "
              "LLM calls, goal, plan) | error/crash episodes | wall time (s) |", "|---|---|---|---|---|---|---|",
              f"| clean | {n_clean} | 0 | {len(e_clean)} | - | "
              f"{sum(1 for v in e_clean.values() if v[0] in ('error', 'crash'))} | {t_clean:.0f} |",
              f"| {a.fault_rate:.0%} faults | {n_req} | {len(injected)} ({len(injected) / max(1, n_req):.0%}: "
              + ", ".join(f"{k} {v}" for k, v in by_kind.items()) + f") | {len(e_faulty)} | **{same_rows} of "
              f"{len(e_clean)}** | {errors} | {t_faulty:.0f} |", "",
              "Aggregate metrics (timings left out):", "", "| metric | clean | faulty |", "|---|---|---|"]
    lines += [f"| {k} | {agg_c[k]} | {agg_f.get(k)} |" for k in sorted(agg_c)]
    lines.append("")
    ok_a = same_rows == len(e_clean) and agg_c == agg_f and len(e_clean) == len(e_faulty)

    # (b) database locked, disk full
    lines += ["## (b) results database locked / disk full mid-run", "",
              "| fault | error line | episodes kept / finished before the fault | re-run resumes to |",
              "|---|---|---|---|"]
    limit_b = 6
    with FakeOpenAI(answer=model) as srv:
        for fault in ("locked", "sqlite-full", "ENOSPC"):
            ok, row = store_fault(fault, srv.url, tmp, limit_b, a.read_timeout)
            ok_a = ok_a and ok
            lines.append(row)
            print(row, flush=True)
    lines += ["", "`locked`: another connection holds `BEGIN EXCLUSIVE` from the third episode on (busy timeout 0.5 s). "
              "`sqlite-full`: `PRAGMA max_page_count` pinned to the current size (SQLite's own 'database or disk is "
              "full'). `ENOSPC`: the store's write raises `OSError(ENOSPC)` as a full disk does.", ""]
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text("\n".join(lines) + "\n")
    import shutil

    shutil.rmtree(tmp, ignore_errors=True)
    print("->", a.out, "OK" if ok_a else "NOT MET")
    return 0 if ok_a else 1


if __name__ == "__main__":
    sys.exit(main())
