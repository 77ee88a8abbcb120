"""Render one recorded SayCan or Inner Monologue episode as a worked example (markdown).

    .venv/bin/python benchmarks/saycan_worked_example.py benchmarks/results/saycan/saycan@saycan-101-judged.jsonl \
        --task saycan_b_nl_verb:44
    .venv/bin/python benchmarks/saycan_worked_example.py \
        benchmarks/results/inner_monologue/inner_monologue@progprompt-test_unseen.jsonl --task test_unseen:0

Reads the episode's trace (no model is run): for SayCan, each step's best-scored skills
with their log-probabilities and the one executed; for Inner Monologue, the dialogue of
actions, success feedback and scene descriptions; then the final check."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Sequence

import results_archive


def saycan_md(ep: dict) -> str:
    out = [f"Instruction: \"{ep['instruction']}\" (task `{ep['task_id']}`)", ""]
    steps = [e for e in ep["trace"] if e["type"] == "step"]
    k = 0
    for e in ep["trace"]:
        if e["type"] != "llm_call":
            continue
        k += 1
        pairs = [f"{c} ({lp:.2f})" if lp is not None else f"{c} (-inf)"
                 for c, lp in zip(e.get("continuations") or [], e.get("logprobs") or [])]
        chosen = (e.get("continuations") or ["?"])[0]
        act = steps[k - 1]["action"] if k - 1 < len(steps) and chosen != "done" else ""
        out.append(f"{k}. {e.get('candidates')} afforded skills + done; best: " + ", ".join(pairs[:4]) +
                   (f"  \n   -> executes `{act}`" if act else "  \n   -> done"))
    chk = next((e for e in ep["trace"] if e["type"] == "check"), None)
    if chk:
        out += ["", f"Check against the {chk['against']}: success {chk['success']}, GCR {chk['gcr']}"
                + (f", unsatisfied: {chk.get('unsatisfied')}" if chk.get("unsatisfied") else "")]
    return "\n".join(out)


def im_md(ep: dict, max_steps: int = 0) -> str:
    out = [f"Human: {ep['instruction']}"]
    shown = 0
    steps = [e for e in ep["trace"] if e["type"] == "step"]
    for e in ep["trace"]:
        if e["type"] == "feedback":
            out.append(e["scene"] if len(e["scene"]) < 200 else e["scene"][:200] + " ...")
        elif e["type"] == "step":
            shown += 1
            if max_steps and shown > max_steps:
                continue
            out.append(f"Robot: {e['action']}")
            out.append("Success: yes" if e["ok"] else f"Action failed: {e.get('reason')}")
    if max_steps and len(steps) > max_steps:
        out.append(f"... ({len(steps) - max_steps} more actions)")
    res = next((e for e in ep["trace"] if e["type"] == "result"), {})
    if res.get("said_done"):
        out.append("Robot: done")
    out.append(f"-> success {res.get('success')}, GCR {res.get('gcr')}")
    return "```\n" + "\n".join(out) + "\n```"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("episodes", type=Path)
    ap.add_argument("--task", required=True)
    ap.add_argument("--max-steps", type=int, default=0, help="Inner Monologue: show at most N actions")
    args = ap.parse_args(argv)
    for line in results_archive.read_text(args.episodes).splitlines():  # on disk or packed
        ep = json.loads(line)
        if ep["task_id"] == args.task:
            print(saycan_md(ep) if ep["method"].startswith("saycan") else im_md(ep, args.max_steps))
            return 0
    print(f"{args.episodes}: no episode for task {args.task}")
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
