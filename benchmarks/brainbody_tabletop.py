"""BrainBody-LLM Table 4: the 7 Franka tabletop tasks, Success / Fail per task, with the
oracle Brain (gold plan; recorded replans after each out-of-workspace error) and with the
embedded model as Brain and Body (K=3). Resumable through the bench harness.

    .venv/bin/python benchmarks/brainbody_tabletop.py                 # oracle + embedded
    .venv/bin/python benchmarks/brainbody_tabletop.py --llm none      # oracle only
    .venv/bin/python benchmarks/brainbody_tabletop.py --report-only
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from groundplan.bench.datasets import load_tasks
from groundplan.bench.executors import make_executor
from groundplan.bench.runner import RunSpec, run_benchmark
from groundplan.bench.store import ResultStore
from groundplan.llm import LLMConfig

DATASET = "franka-tabletop"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--llm", default="embedded")
    ap.add_argument("--db", type=Path, default=Path("results/vh.sqlite"))
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args()
    cols = [("oracle Brain + Body", "brainbody_oracle", None, f"brainbody_oracle@{DATASET}@none")]
    if args.llm != "none":
        cols.append((f"BB-LLM ({args.llm})", "brainbody", LLMConfig(backend=args.llm),
                     f"brainbody@{DATASET}@{args.llm}"))
    tasks = load_tasks(DATASET)
    results: dict[str, dict[str, tuple[bool, int, str]]] = {}
    args.db.parent.mkdir(parents=True, exist_ok=True)
    with ResultStore(args.db) as store:
        for label, method, llm, rid in cols:
            if not args.report_only:
                run_benchmark(RunSpec(DATASET, method, llm, (0,), run_id=rid), store, make_executor("local", workers=1))
            results[label] = {e.task_id: (e.success, sum(1 for ev in e.trace if ev.get("type") == "feedback"),
                                          e.error or "")
                              for e in store.episodes([rid], with_trace=True)}
    print("## Table 4 layout: Franka tabletop tasks (Success / Fail; feedback loops used)\n")
    print("| # | task | unreachable obj./loc. | diff. | " + " | ".join(lbl for lbl, *_ in cols) + " |")
    print("|---|---|---|---|" + "---|" * len(cols))
    for t in tasks:
        cells = []
        for lbl, *_ in cols:
            r = results[lbl].get(t.id)
            cells.append("-" if r is None else f"{'Success' if r[0] else 'Fail'} ({r[1]})")
        print(f"| {t.extras['number']} | {t.instruction} | {t.extras['unreachable']} | {t.extras['difficulty']} | "
              + " | ".join(cells) + " |")
    for lbl, *_ in cols:
        n = sum(1 for r in results[lbl].values() if r[0])
        print(f"\n{lbl}: {n}/{len(tasks)} tasks succeed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
