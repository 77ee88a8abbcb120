"""goalsearch ablation rows in ONE process with the planner's answers shared between rows
(issue 21): rows differ only in the goal they choose, so a goal already planned in
its scene (by an earlier row) is not planned again. Success is unchanged by this (the same
goal in the same scene gets the same plan); the wall times of a row count only the plans it
made itself, so only the FIRST row's times are comparable with ``small_model_heldout.py run``.

    .venv/bin/python benchmarks/small_model_ablation_memo.py shipped round2-default no-state-verbs \\
        --sets tuning3,tuning2,tuning3dev

Results go where ``small_model_heldout.py`` writes them (``report`` prints the tables); each
row's description says that plans were shared.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import small_model_heldout as H


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("variants", nargs="+", choices=list(H.VARIANTS))
    ap.add_argument("--sets", default="tuning3")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--out", type=Path, default=H.OUT)
    args = ap.parse_args()
    sets = args.sets.split(",")
    for s in sets:
        if s not in ("tuning", "tuning2", "tuning3", "tuning3dev"):
            ap.error(f"only generated tuning sets here, not '{s}' (held-out sets are measured by the coordinator)")

    import groundplan.methods.small_model.method as gm

    real = gm.plan_and_check
    memo: dict = {}

    def shared(pt, goal_text, planner, **kw):
        key = (pt.problem.name, tuple(sorted(pt.problem.objects.items())), pt.problem.init, goal_text)
        if key not in memo:
            memo[key] = real(pt, goal_text, planner, **kw)
        return memo[key]

    gm.plan_and_check = shared
    for i, v in enumerate(args.variants):
        desc, config, uses = H.VARIANTS[v]
        if i > 0:
            H.VARIANTS[v] = (desc + " [plans shared with the rows run before it in one process: its times "
                             "exclude repeated plans]", config, uses)
    for s in sets:  # one set after the other: the deciding set's table is complete first
        for v in args.variants:
            res = H.run_variant(v, s, args.out, args.threads, args.limit)
            print(f"== {v}@{s}: {H._stats(res['rows'])}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
