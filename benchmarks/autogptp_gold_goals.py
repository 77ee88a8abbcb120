"""Gold goals on AutoGPT+P's own data (foundation issue, bar 1).

For every row of the SayCan set (104) and of evaluation_{simple_task,simple_goal,
complex_goal,knowledge,implicit}.csv: plan `desired_goal` in `scene_file` with Fast
Downward, execute the plan in groundplan's executor, confirm the goal, and compare the
cost with `min_costs`. Prints a per-set table and every mismatch with its cause.

    .venv/bin/python benchmarks/autogptp_gold_goals.py [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from groundplan.bench.datasets.autogpt_p import plan_tool_tasks, saycan_tasks
from groundplan.errors import GroundplanError
from groundplan.planners import get_planner
from groundplan.sim.pipeline import build, plan_and_check


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", help="write per-row results here")
    ap.add_argument("--ids", nargs="*", help="only these task ids")
    ap.add_argument("--timeout", type=float, default=120.0,
                    help="seconds per plan: astar(ff()) gets half, the greedy fallback the rest (the original "
                         "ran astar(ff()) without a limit in its validation path)")
    ap.add_argument("--no-typecheck", action="store_true",
                    help="accept ill-typed goal atoms as the original did (a few desired goals swap arguments)")
    args = ap.parse_args()
    console = Console()
    tasks = saycan_tasks() + plan_tool_tasks()
    if args.ids:
        tasks = [t for t in tasks if t.id in set(args.ids)]
    planner = get_planner("fast-downward")
    rows = []
    with Progress(console=console) as prog:
        bar = prog.add_task("gold goals", total=len(tasks))
        for t in tasks:
            t0 = time.perf_counter()
            try:
                pt = build(t.scene_file, oam_file=t.oam_file, strict=False)
                out = plan_and_check(pt, t.goal, planner, timeout=args.timeout, typecheck=not args.no_typecheck)
                row = {"id": t.id, "set": t.subset if t.dataset == "autogptp-saycan" else t.subset,
                       "dataset": t.dataset, "status": out.status, "reached": out.goal_reached, "cost": out.cost,
                       "min_costs": t.extras.get("min_costs"), "plan": list(out.plan), "error": out.error,
                       "goal": t.goal, "seconds": time.perf_counter() - t0}
            except GroundplanError as exc:
                row = {"id": t.id, "set": t.subset, "dataset": t.dataset, "status": "error", "reached": False,
                       "cost": None, "min_costs": t.extras.get("min_costs"), "plan": [], "error": str(exc),
                       "goal": t.goal, "seconds": time.perf_counter() - t0}
            rows.append(row)
            prog.advance(bar)
    table = Table(title="AutoGPT+P gold goals: solved, goal confirmed by the executor, cost == min_costs")
    for c in ("set", "rows", "solved+confirmed", "cost == min", "cost < min", "cost > min", "median s"):
        table.add_column(c)
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(r["set"], []).append(r)
    tot = {"n": 0, "ok": 0, "eq": 0}
    for name, rs in groups.items():
        ok = [r for r in rs if r["status"] == "solved" and r["reached"]]
        eq = [r for r in ok if r["cost"] == r["min_costs"]]
        lt = [r for r in ok if r["min_costs"] is not None and r["cost"] < r["min_costs"]]
        gt = [r for r in ok if r["min_costs"] is not None and r["cost"] > r["min_costs"]]
        table.add_row(name, str(len(rs)), str(len(ok)), str(len(eq)), str(len(lt)), str(len(gt)),
                      f"{statistics.median(r['seconds'] for r in rs):.3f}")
        tot["n"] += len(rs)
        tot["ok"] += len(ok)
        tot["eq"] += len(eq)
    table.add_row("all", str(tot["n"]), str(tot["ok"]), str(tot["eq"]), "", "", "")
    console.print(table)
    console.print(f"solved and confirmed: {tot['ok']}/{tot['n']} = {100 * tot['ok'] / tot['n']:.1f} %; "
                  f"all three (solved, confirmed, cost == min_costs): {tot['eq']}/{tot['n']} = "
                  f"{100 * tot['eq'] / tot['n']:.1f} %")
    console.print("[bold]Mismatches[/bold]")
    for r in rows:
        if not (r["status"] == "solved" and r["reached"] and r["cost"] == r["min_costs"]):
            console.print(f"  {r['id']}: status={r['status']} reached={r['reached']} cost={r['cost']} "
                          f"min_costs={r['min_costs']} goal={r['goal']!r} error={r['error']} plan={r['plan']}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
