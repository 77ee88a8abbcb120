"""Evaluate RobLM (or the Fast Downward baseline) on an ALFRED-style split: generation,
plan parsing, grounding and execution, and the metrics of Fig. 5 / Tables 2-4. One json
record per sample x context x repeat is written to --out (outside the repository);
benchmarks/roblm_report.py turns the records into the tables.

    nice -n 10 .venv/bin/python benchmarks/roblm_eval.py --data /tmp/roblm/valid_unseen.jsonl \
        --model /tmp/roblm/run1/checkpoint-200 --label finetuned --contexts none scene_graph \
        --per-category 5 --out /tmp/roblm/eval/finetuned.jsonl
    nice -n 10 .venv/bin/python benchmarks/roblm_eval.py --data ... --baseline --label fd --out ...
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from collections import defaultdict
from dataclasses import asdict
from pathlib import Path

from groundplan.bench.datasets.alfred import CATEGORIES, read_jsonl
from groundplan.methods.roblm.grounding import AlfredWorld, execute, goal_satisfied
from groundplan.methods.roblm.lm import Sampling, generate, load_model
from groundplan.methods.roblm.metrics import accuracy, per_action, subtask_success
from groundplan.methods.roblm.textformat import parse_plan, sample_text
from groundplan.world.graph2nl import context


def pick(samples, per_category: int | None):
    if not per_category:
        return samples
    by = defaultdict(list)
    for s in samples:
        by[s.category].append(s)
    return [s for c in CATEGORIES for s in by[c][:per_category]]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--label", required=True)
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--baseline", action="store_true", help="the Fast Downward plan instead of a model")
    ap.add_argument("--contexts", nargs="+", default=["none", "scene_graph"])
    ap.add_argument("--per-category", type=int, default=None)
    ap.add_argument("--categories", nargs="*", default=None)
    ap.add_argument("--sampling", default="greedy", choices=["greedy", "top_k_top_p"])
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--max-new-tokens", type=int, default=72)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's, or OMP_NUM_THREADS)")
    a = ap.parse_args()
    if a.threads:
        import torch

        torch.set_num_threads(a.threads)
    samples = pick(read_jsonl(a.data), a.per_category)
    if a.categories:
        samples = [s for s in samples if s.category in a.categories]
    scenes = {s.id: s.scene() for s in samples}
    lm = None if a.baseline else load_model(a.model)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    contexts = ["-"] if a.baseline else a.contexts
    with a.out.open("w") as fh:
        for ctx in contexts:
            for rep in range(a.repeats):
                t0 = time.perf_counter()
                if a.baseline:
                    outputs = [s.plan for s in samples]
                    secs = [s.fd_seconds for s in samples]
                else:
                    prompts = [sample_text(s.goal_text, context(ctx, scenes[s.id], s.target)) for s in samples]
                    outputs = generate(lm, prompts, Sampling(a.sampling, max_new_tokens=a.max_new_tokens, seed=rep),
                                       batch_size=a.batch_size)
                    per = (time.perf_counter() - t0) / max(1, len(samples))
                    secs = [per] * len(samples)
                for s, out, sec in zip(samples, outputs, secs):
                    pred, problems = parse_plan(out)
                    gold, _ = parse_plan(s.plan)
                    world = AlfredWorld(scenes[s.id])
                    run = execute(world, pred)
                    rec = {"id": s.id, "category": s.category, "context": ctx, "label": a.label, "repeat": rep,
                           "sampling": a.sampling, "output": out, "problems": problems,
                           "accuracy": asdict(accuracy(pred, gold)), "per_action": per_action(pred, gold),
                           "subtask": subtask_success(gold, run), "goal_success": goal_satisfied(s.goal_pddl, run.facts,
                                                                                               world.scene),
                           "seconds": sec}
                    fh.write(json.dumps(rec) + "\n")
                    fh.flush()
                print(f"{a.label} {ctx} repeat {rep}: {len(samples)} samples in {time.perf_counter() - t0:.1f} s", flush=True)
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
