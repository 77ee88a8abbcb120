"""How much could a reranker over goalsearch's candidates give? (issue 21, a diagnostic)

For each instruction of a set, goalsearch proposes its ranked goals (at most ``max_goals``,
6 by default). The shipped method plans the first that passes the checks and the planner.
This script plans *every* candidate and executes it against the task's check goal, and
reports per family:

* ``top-1``: the shipped answer (the first candidate that plans);
* ``oracle@k``: some candidate among the first k succeeds: the most a perfect reranker over
  goalsearch's own candidates could reach (an upper bound, not a method).

Run it on seen sets only. A fresh held-out set measured this way is no longer blind for a
reranker trained on what this prints.

    python benchmarks/small_model_oracle_rerank.py --sets heldout-f,heldout-e [--timeout 10]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import results_archive
import small_model_heldout as H

from groundplan.errors import GoalError, GroundplanError
from groundplan.methods import get_method
from groundplan.methods.base import TraceRecorder, execute_and_score
from groundplan.pddl.goal import check_goal, parse_goal
from groundplan.pddl.semantics import check_semantics
from groundplan.planners import get_planner
from groundplan.sim.pipeline import build, plan_and_check

#: sets written for the next round and not yet measured blind: the script refuses them (every
#: set a-z is seen: their misses were read for rules)
BLIND: tuple[str, ...] = ("heldout-aa", "heldout-aa-oracle")


def candidate_outcomes(task, searcher, planner, timeout: float) -> list[bool | None]:
    """For each ranked candidate: True (succeeds), False (plans, fails the check), None (does not plan)."""
    pt = build(task.scene_file, skillset=task.skillset, oam_file=task.oam_file, strict=False)
    res = searcher.search(task.instruction, pt.domain, pt.problem)
    out: list[bool | None] = []
    for g in res.goals:
        try:
            f = parse_goal(g.text)
            check_goal(f, pt.domain, pt.problem, typecheck=False)
            check_semantics(f, pt.domain, pt.problem, pt.skillset.semantic_conditions)
            plan = plan_and_check(pt, g.text, planner, typecheck=False, timeout=timeout)
            if plan.status != "solved":
                out.append(None)
                continue
            out.append(bool(execute_and_score(pt, plan.plan, task, TraceRecorder(), own_goal=g.text).success))
        except (GoalError, GroundplanError):
            out.append(None)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", required=True, help="comma-separated set names (seen sets only)")
    ap.add_argument("--timeout", type=float, default=10.0, help="planner seconds per candidate")
    ap.add_argument("--json", help="write per-instruction outcomes here")
    ap.add_argument("--config", default="{}", help="goalsearch options as JSON (e.g. '{\"max_goals\": 20}')")
    ap.add_argument("--failures-of", metavar="RESULT_JSON",
                    help="only the instructions this small_model_heldout.py result failed")
    args = ap.parse_args()
    sets = [s for s in args.sets.split(",") if s]
    refused = [s for s in sets if s in BLIND]
    if refused:
        print(f"error: {', '.join(refused)} is kept blind for the next round; pick seen sets", file=sys.stderr)
        return 2
    try:
        config = json.loads(args.config)
    except json.JSONDecodeError as exc:
        print(f"error: --config is not JSON: {exc}", file=sys.stderr)
        return 2
    only = None
    if args.failures_of:
        try:  # a run on disk or packed in its folder's archive (small_model/heldout.tar.xz)
            rows_of = results_archive.read_json(Path(args.failures_of))["rows"]
        except FileNotFoundError as exc:
            print(f"error: --failures-of: {exc}", file=sys.stderr)
            return 2
        only = {r["task"] for r in rows_of if not r["success"]}
    searcher = get_method("goalsearch").searcher(config)
    planner = get_planner("fast-downward")
    rows = []
    for s in sets:
        for t in H.tasks_for(s):
            if only is not None and t.id not in only:
                continue
            oc = candidate_outcomes(t, searcher, planner, args.timeout)
            first = next((o for o in oc if o is not None), False)
            rows.append({"set": s, "task": t.id, "family": t.subset or "-", "top1": bool(first),
                         "outcomes": oc})
            print(f"{s} {t.id} top1={'ok ' if first else 'BAD'} {''.join('+' if o else '.' if o is False else 'x' for o in oc)}",
                  flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    print()
    print(table(rows))
    return 0


def table(rows: list[dict]) -> str:
    """Per set and family: top-1 and oracle@k successes."""
    lines = ["| set | family | n | top-1 | oracle@2 | oracle@3 | oracle@6 | oracle@10 | oracle@20 |",
             "|---|---|---|---|---|---|---|---|---|"]
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["set"], r["family"])].append(r)
        groups[(r["set"], "(every family)")].append(r)
    for (s, fam), rs in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] != "(every family)", kv[0][1])):
        at = [sum(any(o for o in r["outcomes"][:k]) for r in rs) for k in (2, 3, 6, 10, 20)]
        lines.append(f"| {s} | {fam} | {len(rs)} | {sum(r['top1'] for r in rs)} | " + " | ".join(map(str, at)) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
