"""Do two results files agree trial by trial? For every run id present in both, counts the
trials both hold and how many of them have the same outcome (success) and the same executed
plan. COWP's trials are deterministic given the trial, the run seed and the code (the
situation draws depend only on those and the executed actions; Fast Downward and the LLM at
temperature 0 are deterministic), so agreement on the re-run trials is evidence that a
stored run was made by the same code.

    .venv/bin/python benchmarks/cowp_same_runs.py NEW.sqlite OLD.sqlite [--md out.md]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from groundplan.bench.store import ResultStore


def outcomes(db: Path) -> dict[str, dict[tuple[str, int], tuple[bool, tuple[str, ...]]]]:
    out: dict[str, dict[tuple[str, int], tuple[bool, tuple[str, ...]]]] = {}
    with ResultStore(db, must_exist=True) as store:
        for r in store.runs():
            if r["dataset"] != "cowp":
                continue
            out[r["run_id"]] = {(e.task_id, e.seed): (bool(e.success), tuple(e.plan))
                                for e in store.episodes([r["run_id"]])}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("new", type=Path)
    ap.add_argument("old", type=Path)
    ap.add_argument("--md", type=Path)
    a = ap.parse_args()
    new, old = outcomes(a.new), outcomes(a.old)
    lines = [f"| run | trials in {a.new.name} | in {a.old.name} | both | same outcome and plan | differ |",
             "|---|---|---|---|---|---|"]
    for rid in sorted(set(new) & set(old)):
        both = set(new[rid]) & set(old[rid])
        same = sum(1 for k in both if new[rid][k] == old[rid][k])
        diff = sorted(k[0] for k in both if new[rid][k] != old[rid][k])
        lines.append(f"| `{rid}` | {len(new[rid])} | {len(old[rid])} | {len(both)} | {same} | "
                     f"{len(diff)}{' (' + ', '.join(diff[:5]) + ')' if diff else ''} |")
    md = "\n".join(lines) + "\n"
    print(md)
    if a.md:
        a.md.write_text(md, encoding="utf-8")


if __name__ == "__main__":
    main()
