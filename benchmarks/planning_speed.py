"""Planning speed (foundation issue, bar 3): time per plan through groundplan (Fast
Downward with in-process translation, per-task SAS cache, and goal-relevant pruning above
60 objects) against the bare Fast Downward driver call (`fast-downward.py domain problem
--search astar(ff())`, a fresh interpreter per call) on the same tasks, in one run.

Sets: the 104 AutoGPT+P SayCan gold goals, and generated household scenes of 25, 50, 100
and 200 objects (3 scenes x 4 goals each; the first goal on a scene pays translation).

    .venv/bin/python benchmarks/planning_speed.py [--bare-limit 20] [--bare-timeout 60]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from groundplan.bench.datasets.autogpt_p import saycan_tasks
from groundplan.knowledge.oam import default_oam
from groundplan.pddl import parse_goal, write_domain, write_problem
from groundplan.planners import PlannerLimits, get_planner
from groundplan.planners.fast_downward import downward_binary
from groundplan.sim.pipeline import build, plan_and_check
from groundplan.skills import build_task, load_skillset
from groundplan.world.generate import household_scene, random_goals


def bare_driver(domain_text: str, problem_text: str, timeout: float) -> float | None:
    driver = downward_binary().parents[3] / "fast-downward.py"
    with tempfile.TemporaryDirectory() as tmp:
        d, p = Path(tmp, "domain.pddl"), Path(tmp, "problem.pddl")
        d.write_text(domain_text)
        p.write_text(problem_text)
        t0 = time.perf_counter()
        # its own process group: on timeout the driver's translate/search children go too
        # (left behind, they would run beside the next measurements)
        proc = subprocess.Popen([sys.executable, str(driver), str(d), str(p), "--search", "astar(ff())"], cwd=tmp,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return None
        return time.perf_counter() - t0


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bare-limit", type=int, default=20, help="bare-driver calls per set (they are slow)")
    ap.add_argument("--bare-timeout", type=float, default=60.0)
    ap.add_argument("--sizes", type=int, nargs="*", default=[25, 50, 100, 200])
    ap.add_argument("--out", type=Path, default=None, help="also write the table as markdown here")
    args = ap.parse_args()
    console = Console(width=150)
    load_before = os.getloadavg()
    planner = get_planner("fast-downward", limits=PlannerLimits(timeout=300))
    results: dict[str, dict[str, list]] = {}

    def record(name: str, ours: float, bare: float | None | str = "skip") -> None:
        r = results.setdefault(name, {"ours": [], "bare": [], "bare_timeouts": 0})
        r["ours"].append(ours)
        if bare is None:
            r["bare_timeouts"] += 1
        elif bare != "skip":
            r["bare"].append(bare)

    tasks = saycan_tasks()
    with Progress(console=console) as prog:
        bar = prog.add_task("SayCan gold goals", total=len(tasks) * 2)
        for sweep in ("first pass: each scene's first goal translates", "second pass: translations cached"):
            for i, t in enumerate(tasks):
                pt = build(t.scene_file, oam_file=t.oam_file, strict=False)
                t0 = time.perf_counter()
                out = plan_and_check(pt, t.goal, planner, typecheck=False)
                ours = time.perf_counter() - t0
                bare: float | None | str = "skip"
                if (sweep.startswith("first") and i % max(1, len(tasks) // args.bare_limit) == 0
                        and out.status == "solved"):
                    prob = pt.problem.with_goal(parse_goal(t.goal))
                    bare = bare_driver(write_domain(pt.domain), write_problem(prob), args.bare_timeout)
                record(f"saycan (104), {sweep}", ours, bare)
                prog.advance(bar)
        skills, oam = load_skillset("household"), default_oam()
        for n in args.sizes:
            bar = prog.add_task(f"household {n} objects", total=12)
            for seed in range(3):
                scene = household_scene(n, seed)
                pt = build_task(skills, scene, oam)
                for j, g in enumerate(random_goals(scene, 4, seed)):
                    t0 = time.perf_counter()
                    plan_and_check(pt, g, planner)
                    ours = time.perf_counter() - t0
                    bare = "skip"
                    if j == 0:
                        bare = bare_driver(write_domain(pt.domain), write_problem(pt.problem.with_goal(parse_goal(g))),
                                           args.bare_timeout)
                    record(f"household {n} (first goal)" if j == 0 else f"household {n} (later goals)", ours, bare)
                    prog.advance(bar)
    table = Table(title="Time per plan (seconds): groundplan vs bare Fast Downward driver, same run")
    for c in ("set", "plans", "groundplan median", "groundplan p95", "bare driver median", "bare p95",
              "bare timeouts"):
        table.add_column(c)
    for name, r in results.items():
        b = r["bare"]
        table.add_row(name, str(len(r["ours"])), f"{statistics.median(r['ours']):.3f}", f"{pct(r['ours'], 0.95):.3f}",
                      f"{statistics.median(b):.3f}" if b else "-", f"{pct(b, 0.95):.3f}" if b else "-",
                      f"{r['bare_timeouts']} (> {args.bare_timeout:.0f} s)" if r["bare_timeouts"] else "0")
    console.print(table)
    load_after = os.getloadavg()
    console.print(f"load average (1 min) before {load_before[0]:.2f}, after {load_after[0]:.2f}")
    if args.out:
        rows = ["| set | plans | groundplan median (s) | groundplan p95 (s) | bare driver median (s) | bare p95 (s) | bare timeouts |",
                "|---|---|---|---|---|---|---|"]
        for name, r in results.items():
            b = r["bare"]
            rows.append(f"| {name} | {len(r['ours'])} | {statistics.median(r['ours']):.3f} | {pct(r['ours'], 0.95):.3f} | "
                        + (f"{statistics.median(b):.3f} | {pct(b, 0.95):.3f}" if b else "- | -")
                        + f" | {r['bare_timeouts']} |")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(
            "# Planning speed: groundplan vs the bare Fast Downward driver (same run)\n\n"
            f"Command: `.venv/bin/python benchmarks/planning_speed.py {' '.join(sys.argv[1:])}`  \n"
            f"Machine: {os.cpu_count()} cores; load average (1 min) before {load_before[0]:.2f}, after "
            f"{load_after[0]:.2f}. Goals: SayCan median <= 0.050 s, 200 objects <= 3 s.\n\n"
            + "\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
