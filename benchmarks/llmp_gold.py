"""LLM+P's 140 gold problems (7 IPC domains x 20, ../shared/data/llm-pddl) planned and
validated through ``groundplan plan --domain D --problem P --json`` (one fresh process per
problem, as a user runs it), timed against the bare Fast Downward driver from the
up-fast-downward wheel (``fast-downward.py D P --search ...``, a fresh process per call) in
the same run.

Both sides run the same search configuration. groundplan's Fast Downward planner for PDDL
tasks first prunes the translated task by h^2 analysis (SymK's preprocessor,
``groundplan.planners.h2``; the bare Fast Downward driver has no such step), then runs
``astar(ff())`` with a quarter of the time bound and, if that runs out, Fast
Downward's lama-first configuration with the rest; the bare driver is called the same way (a
second call, ``--search <lama-first>``, when the first one runs out of its quarter). The bare driver's plan is validated by
groundplan's executor too, so both columns count only plans that execute and reach the goal.

IPC tyreworld's domain uses ``wrench``, ``jack`` and ``pump`` as constants without declaring
them. Fast Downward rejects the original file ("Undefined object", translate exit code 31),
both the translator groundplan imports and the driver bundled with up-fast-downward.
groundplan reads them as domain constants of the type the problem gives them (with a
warning) and plans the repaired task; the bare driver, having rejected the original file, is
run again on the repaired task as groundplan writes it (column "bare input" in gold.json).

    .venv/bin/python benchmarks/llmp_gold.py [--timeout 20] [--domains barman,...] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from groundplan.datadir import data_dir
from groundplan.pddl.parser import load_task
from groundplan.pddl.writer import write_domain, write_problem
from groundplan.planners.fast_downward import LAMA_FIRST, downward_binary, parse_plan_file
from groundplan.sim.pddl_task import FILE_PRIMARY_SHARE, FILE_SEARCH, validate_plan

DOMAINS = ("barman", "blocksworld", "floortile", "grippers", "storage", "termes", "tyreworld")
PRIMARY = FILE_SEARCH
FALLBACK = LAMA_FIRST
OUT = Path(__file__).parent / "results" / "llmp"
GROUNDPLAN = Path(sys.executable).with_name("groundplan")


def run_groundplan(domain: Path, problem: Path, timeout: float) -> dict:
    t0 = time.perf_counter()
    proc = subprocess.run([str(GROUNDPLAN), "plan", "--domain", str(domain), "--problem", str(problem), "--json",
                           "--timeout", str(timeout)], capture_output=True, text=True, timeout=timeout + 60)
    wall = time.perf_counter() - t0
    try:
        res = json.loads(proc.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        res = {"status": "error", "error": (proc.stderr or proc.stdout).strip()[-300:]}
    return {**res, "wall": wall, "rc": proc.returncode}


def _driver_call(driver: Path, d: Path, p: Path, search: str, timeout: float, tmp: str) -> tuple[int | None, str]:
    plan_file = Path(tmp, "sas_plan")
    plan_file.unlink(missing_ok=True)
    proc = subprocess.Popen([sys.executable, str(driver), "--plan-file", str(plan_file), str(d), str(p), "--search",
                             search], cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True, text=True)
    try:
        log, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return None, ""
    return proc.returncode, plan_file.read_text() if plan_file.exists() else log[-400:]


def run_bare(domain_text: str, problem_text: str, timeout: float) -> dict:
    """The bare driver with the same two-stage search; plan text when solved."""
    driver = downward_binary().parents[3] / "fast-downward.py"
    with tempfile.TemporaryDirectory(prefix="llmp-bare-") as tmp:
        d, p = Path(tmp, "domain.pddl"), Path(tmp, "problem.pddl")
        d.write_text(domain_text)
        p.write_text(problem_text)
        t0 = time.perf_counter()
        rc, text = _driver_call(driver, d, p, PRIMARY, timeout * FILE_PRIMARY_SHARE, tmp)
        stage = "primary"
        if rc is None:  # out of its share: the fallback gets the rest, as groundplan does
            rc, text = _driver_call(driver, d, p, FALLBACK, max(0.5, timeout - (time.perf_counter() - t0)), tmp)
            stage = "fallback"
        wall = time.perf_counter() - t0
    if rc == 0:
        steps, cost = parse_plan_file(text)
        return {"status": "solved", "plan": list(steps), "cost": cost, "wall": wall, "stage": stage}
    if rc is None:
        return {"status": "timeout", "wall": wall, "stage": stage}
    reason = next((ln for ln in reversed(text.splitlines()) if ln.strip()), f"exit code {rc}")
    return {"status": "error", "error": reason[:200], "wall": wall, "rc": rc, "stage": stage}


def _cpu_children() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def retry(data: dict, timeout: float, sides: str, domains: tuple[str, ...] = DOMAINS) -> None:
    """Second pass on the problems a side left unsolved: that side again with ``timeout``
    (``sides``: ours, bare or both), with the CPU seconds each call used (a wall-clock bound
    on a loaded machine measures the load as much as the planner)."""
    root = data_dir() / "llm-pddl" / "domains"
    for r in data["rows"]:
        if r["domain"] not in domains:
            continue
        again_ours = not (r["status"] == "solved" and r["valid"]) and sides in ("ours", "both")
        again_bare = not r["bare_valid"] and sides in ("bare", "both")
        if not (again_ours or again_bare):
            continue
        dfile, pfile = root / r["domain"] / "domain.pddl", root / r["domain"] / r["problem"]
        rec: dict = {}
        if again_ours:
            c0 = _cpu_children()
            ours = run_groundplan(dfile, pfile, timeout)
            rec.update(status=ours.get("status"), valid=ours.get("valid"), wall=ours["wall"], cost=ours.get("cost"),
                       cpu=_cpu_children() - c0)
        if again_bare:
            task = load_task(dfile, pfile)
            c0 = _cpu_children()
            text = (dfile.read_text(), pfile.read_text()) if r["bare_input"] == "original" else (
                write_domain(task.domain, comments=False), write_problem(task.problem))
            bare = run_bare(*text, timeout)
            ok = validate_plan(task.domain, task.problem, bare["plan"]).valid if bare["status"] == "solved" else None
            rec.update(bare_status=bare["status"], bare_valid=ok, bare_wall=bare["wall"], bare_cost=bare.get("cost"),
                       bare_cpu=_cpu_children() - c0)
        r["retry"] = rec
        print(f"retry {r['domain']}/{r['problem']}: {rec}", flush=True)


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] if xs else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per problem, both sides")
    ap.add_argument("--domains", default=",".join(DOMAINS))
    ap.add_argument("--limit", type=int, default=20, help="problems per domain")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--report-only", action="store_true", help="rewrite README.md from OUT/gold.json")
    ap.add_argument("--retry-unsolved", type=float, default=None, metavar="SECONDS",
                    help="re-run both sides with this bound on the problems either side left unsolved in "
                         "OUT/gold.json (a second pass, recorded beside the first)")
    ap.add_argument("--retry-sides", choices=("ours", "bare", "both"), default="both")
    args = ap.parse_args()
    if args.report_only or args.retry_unsolved:
        data = json.loads((args.out / "gold.json").read_text())
        args.timeout = data["timeout"]
        load = tuple(data.get("load", (float("nan"),) * 2))
        if args.retry_unsolved:
            retry(data, args.retry_unsolved, args.retry_sides, tuple(args.domains.split(",")))
            data["retry_timeout"] = args.retry_unsolved
            (args.out / "gold.json").write_text(json.dumps(data, indent=1) + "\n")
        args.retry_timeout = data.get("retry_timeout")
        write_readme(args, data["rows"], (load[0],), (load[1],))
        return 0
    root = data_dir() / "llm-pddl" / "domains"
    load_before = os.getloadavg()
    rows = []
    for dom in args.domains.split(","):
        dfile = root / dom / "domain.pddl"
        for i in range(1, args.limit + 1):
            pfile = root / dom / f"p{i:02d}.pddl"
            ours = run_groundplan(dfile, pfile, args.timeout)
            task = load_task(dfile, pfile)
            bare = run_bare(dfile.read_text(), pfile.read_text(), args.timeout)
            bare_input = "original"
            if bare["status"] == "error" and task.warnings:
                bare_orig_error = bare.get("error")
                bare = run_bare(write_domain(task.domain, comments=False), write_problem(task.problem), args.timeout)
                bare_input = f"repaired (original rejected: {bare_orig_error})"
            bare_valid = None
            if bare["status"] == "solved":
                v = validate_plan(task.domain, task.problem, bare["plan"])
                bare_valid, bare["validation"] = v.valid, v.message()
            row = {"domain": dom, "problem": pfile.name, "status": ours.get("status"), "valid": ours.get("valid"),
                   "goal_reached": ours.get("goal_reached"), "steps": len(ours.get("plan") or []),
                   "cost": ours.get("cost"), "seconds_api": ours.get("seconds"), "wall": ours["wall"],
                   "validation": ours.get("validation"), "error": ours.get("error"),
                   "bare_status": bare["status"], "bare_valid": bare_valid, "bare_cost": bare.get("cost"),
                   "bare_wall": bare["wall"], "bare_stage": bare.get("stage"), "bare_input": bare_input,
                   "bare_error": bare.get("error")}
            rows.append(row)
            print(f"{dom:12s} {pfile.name} ours {row['status']:9s} valid={row['valid']} {row['wall']:6.2f}s "
                  f"(api {row['seconds_api'] or 0:6.2f}s) cost={row['cost']} | bare {row['bare_status']:8s} "
                  f"valid={bare_valid} {row['bare_wall']:6.2f}s cost={row['bare_cost']} [{bare.get('stage')}]",
                  flush=True)
    load_after = os.getloadavg()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "gold.json").write_text(json.dumps({"timeout": args.timeout, "load": [load_before[0], load_after[0]],
                                                    "rows": rows}, indent=1) + "\n")
    write_readme(args, rows, load_before, load_after)
    return 0 if all(r["status"] == "solved" and r["valid"] for r in rows) else 1


def _by_domain(rows: list[dict], key: str) -> str:
    out: dict[str, list[str]] = {}
    for r in rows:
        out.setdefault(r["domain"], []).append(f"{r['problem'][:-5]} {r[key]}")
    return "; ".join(f"{d} {', '.join(v)}" for d, v in out.items())


def _retry_lines(args, rows: list[dict]) -> list[str]:
    t = getattr(args, "retry_timeout", None)
    again = [r for r in rows if r.get("retry")]
    if not t or not again:
        return []
    ours_try = [r for r in again if "status" in r["retry"]]
    bare_try = [r for r in again if "bare_status" in r["retry"]]
    ours = [r for r in ours_try if r["retry"]["status"] == "solved" and r["retry"]["valid"]]
    bare = [r for r in bare_try if r["retry"]["bare_valid"]]

    def names(rs: list[dict]) -> str:
        return f" ({', '.join(r['domain'] + '/' + r['problem'][:-5] for r in rs)})" if rs else ""

    def cpu(rs: list[dict], key: str) -> str:
        xs = [r["retry"][key] for r in rs if r["retry"].get(key) is not None]
        return f", median {statistics.median(xs):.1f} s CPU per call" if xs else ""

    total = sum(1 for r in rows if (r["status"] == "solved" and r["valid"]) or (r.get("retry") or {}).get("valid"))
    return [f"- Second pass at {t:g} s (`--retry-unsolved {t:g}`): groundplan solved and validated {len(ours)} of the "
            f"{len(ours_try)} it had left{names(ours)}{cpu(ours_try, 'cpu')}"
            + (f"; the bare driver {len(bare)} of {len(bare_try)}{names(bare)}{cpu(bare_try, 'bare_cpu')}"
               if bare_try else "")
            + f". Solved and validated through `plan --domain --problem` in either pass: {total}/{len(rows)}."]


def write_readme(args, rows: list[dict], load_before, load_after) -> None:
    lines = ["| domain | problems | solved | validated | ours median (s) | ours p95 (s) | in-process median (s) | "
             "bare driver solved+valid | bare median (s) | bare p95 (s) | bare calls that needed the fallback |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    groups = {}
    for r in rows:
        groups.setdefault(r["domain"], []).append(r)
    groups["all"] = rows
    for dom, rs in groups.items():
        ours = [r["wall"] for r in rs]
        api = [r["seconds_api"] for r in rs if r["seconds_api"] is not None]
        bare = [r["bare_wall"] for r in rs]
        lines.append(
            f"| {dom} | {len(rs)} | {sum(r['status'] == 'solved' for r in rs)} | {sum(bool(r['valid']) for r in rs)} "
            f"| {statistics.median(ours):.2f} | {pct(ours, 0.95):.2f} | {statistics.median(api) if api else 0:.2f} "
            f"| {sum(bool(r['bare_valid']) for r in rs)} | {statistics.median(bare):.2f} | {pct(bare, 0.95):.2f} "
            f"| {sum(r['bare_stage'] == 'fallback' for r in rs)} |")
    repaired = [r for r in rows if r["bare_input"] != "original"]
    cost_diff = [r for r in rows if r["bare_cost"] is not None and r["cost"] is not None and r["bare_cost"] != r["cost"]]
    failures = [r for r in rows if not (r["status"] == "solved" and r["valid"])]
    bare_fail = [r for r in rows if not r["bare_valid"]]
    text = [
        "# LLM+P gold problems through `groundplan plan --domain --problem`",
        "",
        "The 140 gold problems of LLM+P (Liu et al. 2023; 7 IPC domains x 20, `../shared/data/llm-pddl/domains`), "
        "each planned by `groundplan plan --domain D --problem P --json` in a fresh process and validated by "
        "groundplan's executor (every step's preconditions in order, then the problem's goal); timed against the "
        "bare Fast Downward driver of the up-fast-downward wheel (`fast-downward.py D P --search ...`, a fresh "
        "process) in the same run, both with the same search (`astar(ff())` for a quarter of the bound, "
        "then Fast Downward's lama-first); groundplan first prunes the translated task by h^2 analysis "
        "(SymK's preprocessor, `groundplan.planners.h2`), which the bare driver does not have. Wall time per problem includes interpreter start-up on both "
        "sides; \"in-process\" is the time groundplan reports for read + check + plan + validate.",
        "",
        "```bash",
        f".venv/bin/python benchmarks/llmp_gold.py --timeout {args.timeout:g}",
        "```",
        "",
        *lines,
        "",
        f"Time bound {args.timeout:g} s (wall clock) per problem on each side. Machine: {os.cpu_count()} cores "
        f"({platform.processor() or platform.machine()}), shared with other jobs; "
        + (f"load average (1 min) before {load_before[0]:.2f}, after {load_after[0]:.2f}."
           if load_before[0] == load_before[0] else "load average not recorded by this run.")
        + " On a loaded machine a wall-clock bound measures the load as much as the planner (the second pass "
          "below gives the CPU seconds of the calls it repeated).",
        "",
        f"- Not solved or not validated by groundplan within {args.timeout:g} s: {len(failures)}"
        + ("" if not failures else ": " + _by_domain(failures, "status")),
        f"- Not solved by the bare driver within {args.timeout:g} s: {len(bare_fail)}"
        + ("" if not bare_fail else ": " + _by_domain(bare_fail, "bare_status")),
        *_retry_lines(args, rows),
        f"- Bare driver on repaired input: {len(repaired)} problems"
        + (f" ({', '.join(sorted({r['domain'] for r in repaired}))}: the driver rejects the original domain file, "
           f"'Undefined object wrench', translate exit code 31; run again on the task as groundplan repairs and "
           f"writes it)" if repaired else ""),
        f"- Plans whose cost differs between groundplan and the bare driver: {len(cost_diff)}"
        + ("" if not cost_diff else " (" + ", ".join(f"{r['domain']}/{r['problem']} {r['cost']:g} vs "
                                                     f"{r['bare_cost']:g}" for r in cost_diff[:10]) + ")"),
        "",
        "Per-problem rows: `gold.json`. `--report-only` rewrites this file from them.",
        "",
        "LLM+P as a method (the LLM writes the problem; success = its plan is valid on the gold problem) on the "
        "embedded model, with the oracle and the paper's figures: [embedded.md](embedded.md); the worked example "
        "is in [docs/llm_p.md](../../../docs/llm_p.md).",
    ]
    (args.out / "README.md").write_text("\n".join(text) + "\n")


if __name__ == "__main__":
    sys.exit(main())
