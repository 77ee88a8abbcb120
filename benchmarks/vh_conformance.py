"""Conformance of groundplan's executor (the `virtualhome` skill set) with VirtualHome's
evolving-graph executor, on EAI's 342 gold programs (PyPI eai-eval, offline).

Both executors run each gold program from its initial graph, step by step, stopping at the
first failing step. Compared per program:

- executability: every step executes (and, finer, the index of the first failing step);
- final goal satisfaction: EAI's goal (node states, edges, action goals) on each executor's
  final graph, checked by one function (`check_vh_goal`) - the same verdict for the same graph;
- the final graphs themselves (states and edges; first step after which they differ) and the
  failure messages (text before " when executing"), as diagnostics.

    .venv/bin/python benchmarks/vh_conformance.py                  # all 342, 2 workers
    .venv/bin/python benchmarks/vh_conformance.py --limit 20 --json out.json

Needs `pip install --no-deps eai-eval==1.0.5`. Exit code 1 if an agreement is below --bar.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

from groundplan.core.datasets.eai import load_programs
from groundplan.testing.vh_conformance import cause, compare, perturbed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", type=Path, default=None, help="write per-program rows here")
    ap.add_argument("--bar", type=float, default=0.98)
    ap.add_argument("--perturb", action="store_true",
                    help="drop the navigation before each program's first object action: compares failures and messages")
    args = ap.parse_args()
    progs = list(load_programs())[: args.limit]
    if args.perturb:
        progs = [perturbed(p) for p in progs]
    t0 = time.perf_counter()
    if args.workers > 1:
        with Pool(args.workers) as pool:
            rows = pool.map(compare, progs, chunksize=4)
    else:
        rows = [compare(p) for p in progs]
    wall = time.perf_counter() - t0
    n = len(rows)

    def rate(key: str) -> float:
        return sum(1 for r in rows if r[key]) / n

    print("# VirtualHome conformance: groundplan `virtualhome` skill set vs the evolving-graph executor\n")
    print(f"{n} EAI gold programs ({sum(r['steps'] for r in rows)} steps), {wall:.0f} s on {args.workers} worker(s); "
          f"executor time: reference {sum(r['seconds_reference'] for r in rows):.0f} s, groundplan "
          f"{sum(r['seconds_groundplan'] for r in rows):.0f} s\n")
    print("| measure | agreement | reference | groundplan |\n|---|---|---|---|")
    print(f"| program executable | {rate('exec_agree'):.3f} | {sum(r['ref_exec'] for r in rows)} | "
          f"{sum(r['gp_exec'] for r in rows)} |")
    print(f"| first failing step | {rate('step_agree'):.3f} | | |")
    print(f"| final goal satisfied | {rate('goal_agree'):.3f} | {sum(r['ref_goal'] for r in rows)} | "
          f"{sum(r['gp_goal'] for r in rows)} |")
    fails = [r for r in rows if r["ref_fail"] is not None and r["gp_fail"] is not None]
    if fails:
        print(f"| failure message (both fail) | {sum(r['message_agree'] for r in fails) / len(fails):.3f} | | |")
    print(f"| final graph identical | {rate('final_identical'):.3f} | | |\n")
    causes = Counter(cause(r) for r in rows)
    print("## Disagreements by cause\n")
    print("| cause | programs | examples |\n|---|---|---|")
    for c, k in causes.most_common():
        if c == "agree":
            continue
        ex = ", ".join(r["id"] for r in rows if cause(r) == c)[:60]
        print(f"| {c} | {k} | {ex} |")
    print(f"| (agree on everything) | {causes.get('agree', 0)} | |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, default=str))
    ok = rate("exec_agree") >= args.bar and rate("goal_agree") >= args.bar
    print(f"\nbar {args.bar:.0%} on executability and goal satisfaction: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
