"""Recorded verdicts (foundation issue, bar 2): replay AutoGPT+P's 1,095 logged planning
cases. For each case: plan the recorded generated goal in the case's scene with Fast
Downward, execute the plan, check the recorded desired goal on the final state (the
initial state when there is no goal or no plan), and compare with the recorded
"Goal Reached"; on reached cases compare the plan cost with the recorded cost.

    .venv/bin/python benchmarks/autogptp_log_replay.py [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter

from rich.console import Console
from rich.progress import BarColumn, Progress, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from groundplan.bench.datasets.autogpt_p_logs import load_logged_cases
from groundplan.errors import GroundplanError
from groundplan.pddl import check_goal, evaluate_goal, parse_goal
from groundplan.planners import PlannerLimits, get_planner
from groundplan.sim import execute_plan
from groundplan.sim.pipeline import build


def replay(case, planner, timeout: float) -> dict:
    row = {"log": case.log, "index": case.index, "task": case.task_text, "generated": case.generated_goal,
           "desired": case.desired_goal, "recorded_reached": case.reached, "recorded_cost": case.cost}
    if case.task is None:
        return {**row, "outcome": "no-matching-row"}
    pt = build(case.task.scene_file, oam_file=case.task.oam_file, strict=False)
    desired = parse_goal(case.desired_goal)
    check_goal(desired, pt.domain, pt.problem, typecheck=False)
    facts = pt.problem.init
    cost = 0.0
    status = "no-goal"
    plan: tuple[str, ...] = ()
    if case.generated_goal is not None:
        try:
            goal = parse_goal(case.generated_goal)
            check_goal(goal, pt.domain, pt.problem, typecheck=False)
            res = planner.plan(pt.domain, pt.problem.with_goal(goal), timeout=timeout)
            status = res.status.value
            if res.solved:
                tr = execute_plan(pt.domain, pt.problem, res.plan)
                if tr.failed is None:
                    facts, cost, plan = tr.final_facts, tr.cost, res.plan
                else:
                    status = "plan-failed"
        except GroundplanError as exc:
            status = f"invalid: {exc}"
    reached = evaluate_goal(desired, pt.domain, pt.problem, facts).success
    return {**row, "status": status, "reached": reached, "cost": cost if reached else 0.0, "plan": list(plan)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--limit", type=int)
    args = ap.parse_args()
    console = Console()
    cases = load_logged_cases()
    if args.limit:
        cases = cases[: args.limit]
    planner = get_planner("fast-downward", limits=PlannerLimits(timeout=args.timeout))
    rows = []
    with Progress("[progress.description]{task.description}", BarColumn(), "{task.completed}/{task.total}",
                  TimeElapsedColumn(), TimeRemainingColumn(), console=console) as prog:
        bar = prog.add_task("replaying logged cases", total=len(cases))
        for c in cases:
            t0 = time.perf_counter()
            try:
                r = replay(c, planner, args.timeout)
            except GroundplanError as exc:
                r = {"log": c.log, "index": c.index, "task": c.task_text, "desired": c.desired_goal,
                     "generated": c.generated_goal, "recorded_reached": c.reached, "recorded_cost": c.cost,
                     "outcome": f"error: {exc}", "reached": None}
            r["seconds"] = time.perf_counter() - t0
            rows.append(r)
            prog.advance(bar)
    judged = [r for r in rows if r.get("recorded_reached") is not None and r.get("reached") is not None]
    agree = [r for r in judged if r["reached"] == r["recorded_reached"]]
    reached = [r for r in agree if r["reached"]]
    cost_eq = [r for r in reached if r["recorded_cost"] is not None and r["cost"] == r["recorded_cost"]]
    t = Table(title="AutoGPT+P logged planning cases replayed")
    t.add_column("logs")
    t.add_column("cases")
    t.add_column("verdict agrees")
    t.add_column("reached: cost == recorded")
    for group in ("saycan", "simulation"):
        rs = [r for r in judged if group in r["log"]]
        ag = [r for r in rs if r["reached"] == r["recorded_reached"]]
        rc = [r for r in ag if r["reached"]]
        ce = [r for r in rc if r["cost"] == r["recorded_cost"]]
        t.add_row(group, str(len(rs)), f"{len(ag)} ({100 * len(ag) / max(1, len(rs)):.1f} %)",
                  f"{len(ce)}/{len(rc)} ({100 * len(ce) / max(1, len(rc)):.1f} %)")
    t.add_row("all", str(len(judged)), f"{len(agree)} ({100 * len(agree) / max(1, len(judged)):.1f} %)",
              f"{len(cost_eq)}/{len(reached)} ({100 * len(cost_eq) / max(1, len(reached)):.1f} %)")
    console.print(t)
    console.print(f"cases in logs: {len(rows)}; without a verdict (cut off): "
                  f"{sum(1 for r in rows if r.get('recorded_reached') is None)}; unmatched rows: "
                  f"{sum(1 for r in rows if r.get('outcome') == 'no-matching-row')}; generated goal None: "
                  f"{sum(1 for r in rows if r.get('generated') is None)}")
    secs = sorted(r["seconds"] for r in rows)
    console.print(f"time per case: median {statistics.median(secs):.3f} s, p95 {secs[int(0.95 * (len(secs) - 1))]:.3f} s")
    console.print("[bold]Disagreements[/bold]")
    for r in judged:
        if r["reached"] != r["recorded_reached"]:
            console.print(f"  {r['log']}#{r['index']}: recorded={r['recorded_reached']} ours={r['reached']} "
                          f"status={r.get('status')} generated={r['generated']!r} desired={r['desired']!r}",
                          highlight=False)
    console.print("[bold]Cost differences on reached cases[/bold]")
    for r in reached:
        if r["cost"] != r["recorded_cost"]:
            console.print(f"  {r['log']}#{r['index']}: recorded={r['recorded_cost']} ours={r['cost']} "
                          f"generated={r['generated']!r}", highlight=False)
    console.print(f"status counts: {Counter(str(r.get('status'))[:20] for r in rows)}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
