"""Which of COWP's situations can the robot's skills handle at all?

For every task, situation and action it was reported at, the situation is forced at that
action of the closed-world plan in the most favourable trial - every candidate object and
every appliance spawned - and the true world is asked whether the task can still be
completed (a plan exists with an accepted substitute, an accepted appliance fix, or, in the
two-object setting, the second object). Situations that stay unsolvable are the paper's
"power outage" kind: beyond the robot's skills whatever it knows.

    .venv/bin/python benchmarks/cowp_situations.py [--md out.md] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from groundplan.methods.cowp.spec import APPLIANCES_FILE, TASK_IDS, task_spec, word_list
from groundplan.methods.cowp.world import SituationWorld, TrialSetup, build_trial
from groundplan.planners import get_planner


def census(planner) -> list[dict]:
    rows = []
    for tid in TASK_IDS:
        spec = task_spec(tid)
        for two in (False, True):
            setup = TrialSetup(tid, 0, 0, two, word_list(spec.candidates_file), word_list(APPLIANCES_FILE), 1.0)
            trial = build_trial(setup)
            plan = planner.plan(trial.domain, trial.problem).plan
            for s in spec.situations:
                for action, reports in s.actions.items():
                    w = SituationWorld(trial, planner=planner, forced=(s.id, action))
                    for step in plan:
                        w.observe(step)
                        if w.active is not None:
                            break
                        w.apply(step)
                    a = w.active
                    rows.append({"task": tid, "task_name": spec.paper, "two_objects": two, "id": s.id, "text": s.text,
                                 "action": action, "reports": reports, "reached": a is not None,
                                 "solvable": a.solvable if a else None, "target": s.target,
                                 "blocks_action": a.blocks_action if a else None,
                                 "fixers": list(s.fixers), "substitutes": list(spec.accepted(s.target or ""))})
    return rows


def summarize(rows: list[dict]) -> str:
    lines = ["## COWP situations the dining skills can handle (every object and appliance available)", ""]
    lines.append("| Task | situations | reports | unsolvable (1 object) | unsolvable reports (1 object) | "
                 "unsolvable (2 objects) | unsolvable reports (2 objects) |")
    lines.append("|---|---|---|---|---|---|---|")
    total = {"sit": 0, "rep": 0.0, "u1": 0, "r1": 0.0, "u2": 0, "r2": 0.0}
    for tid in TASK_IDS:
        mine = [r for r in rows if r["task"] == tid and r["reached"]]
        one = [r for r in mine if not r["two_objects"]]
        two = [r for r in mine if r["two_objects"]]
        # a situation is unsolvable when it is unsolvable at every action it was reported at
        def unsolvable(rs):
            by: dict[int, list[dict]] = {}
            for r in rs:
                by.setdefault(r["id"], []).append(r)
            ids = {i for i, v in by.items() if not any(x["solvable"] for x in v)}
            return ids, sum(r["reports"] for r in rs if not r["solvable"])
        u1, r1 = unsolvable(one)
        u2, r2 = unsolvable(two)
        n = len({r["id"] for r in one})
        reps = sum(r["reports"] for r in one)
        name = one[0]["task_name"] if one else str(tid)
        lines.append(f"| {name} ({tid}) | {n} | {reps:.0f} | {len(u1)} | {r1:.0f} ({100 * r1 / reps:.0f}%) | "
                     f"{len(u2)} | {r2:.0f} ({100 * r2 / reps:.0f}%) |")
        total["sit"] += n
        total["rep"] += reps
        total["u1"] += len(u1)
        total["r1"] += r1
        total["u2"] += len(u2)
        total["r2"] += r2
    lines.append(f"| all | {total['sit']} | {total['rep']:.0f} | {total['u1']} | {total['r1']:.0f} "
                 f"({100 * total['r1'] / total['rep']:.0f}%) | {total['u2']} | {total['r2']:.0f} "
                 f"({100 * total['r2'] / total['rep']:.0f}%) |")
    lines += ["", "Unsolvable in both settings (situation @ action: why):", ""]
    for r in rows:
        if r["two_objects"] or not r["reached"] or r["solvable"]:
            continue
        twin = next(x for x in rows if x["two_objects"] and x["task"] == r["task"] and x["id"] == r["id"]
                    and x["action"] == r["action"])
        if twin["solvable"]:
            continue
        why = ("nothing of the task is at fault (power, robot, door, ...)" if r["target"] is None
               else f"no accepted substitute for the {r['target']}" if not r["substitutes"]
               else f"the {r['target']} is not an argument of {r['action']}, so the action itself is blocked"
               if r["blocks_action"]
               else f"too late for a substitute: the robot holds the {r['target']} and no skill puts it down")
        if r["fixers"]:
            why += f"; accepted fixers {r['fixers']} cannot help here"
        lines.append(f"- task {r['task']}: {r['text']} @ {r['action']} ({r['reports']:.1f} reports): {why}")
    not_reached = [r for r in rows if not r["reached"] and not r["two_objects"]]
    if not_reached:
        lines += ["", "Reported at an action the closed-world plan does not contain (never drawn): " +
                  "; ".join(f"task {r['task']} {r['text']} @ {r['action']}" for r in not_reached)]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description="COWP situation census")
    ap.add_argument("--md", type=Path)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    rows = census(get_planner("fast-downward"))
    md = summarize(rows)
    print(md)
    if a.md:
        a.md.write_text(md, encoding="utf-8")
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
