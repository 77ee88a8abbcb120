"""AutoGPT+P end to end on the embedded model (SmolLM2-135M-Instruct, llama.cpp, offline):
every set of the paper's evaluation, through the benchmark harness, with grammar-constrained
answers (goal grammar of the scene, tool / object / affordance-list grammars). No target:
the numbers show that everything runs without errors, and what it costs per task.

    .venv/bin/python benchmarks/autogptp_embedded.py [--sets saycan,plan-tool,substitution,scenarios]
        [--db results/autogptp_embedded.sqlite] [--limit N | --per-subset N] [--n-ctx 8192]

``--per-subset N`` runs the first N tasks of every subset (family) of every set, so a pass
cut short still covers all of them; a later pass with a larger N (or none) resumes.

Equivalent single run (the CLI uses the default 4096-token context):
    groundplan bench run autogptp-saycan --method autogpt_p --llm embedded
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from groundplan.bench.executors import make_executor
from groundplan.bench.runner import RunSpec, run_benchmark
from groundplan.bench.store import ResultStore
from groundplan.datadir import autogpt_p_root
from groundplan.llm import LLMConfig

SETS = {
    "saycan": ("autogptp-saycan", "autogpt_p", 120.0, {}),
    "plan-tool": ("autogptp-plan-tool", "autogpt_p", 120.0, {}),
    "substitution": ("autogptp-substitution", "autogpt_p", 60.0,
                     {"oam_file": "object_affordance_mapping/data/oam/simulation_classes_ground_truth_.json"}),
    "substitution-naive": ("autogptp-substitution", "autogpt_p_naive_alternative", 60.0,
                           {"oam_file": "object_affordance_mapping/data/oam/simulation_classes_ground_truth_.json"}),
    "scenarios": ("autogptp-scenarios", "autogpt_p", 120.0, {}),
}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--db", type=Path, default=Path("results/autogptp_embedded.sqlite"))
    ap.add_argument("--limit", type=int)
    ap.add_argument("--per-subset", type=int, help="only the first N tasks of each subset")
    ap.add_argument("--n-ctx", type=int, default=8192)
    ap.add_argument("--md", type=Path, default=Path("benchmarks/results/autogpt_p/embedded.md"))
    ap.add_argument("--json", type=Path, default=Path("results/autogptp_embedded.json"))
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--cache", action="store_true",
                    help="use the LLM disk cache (off by default: tokens and time per task are measured)")
    args = ap.parse_args()
    args.db.parent.mkdir(parents=True, exist_ok=True)
    lines = ["| set | subset | n | success | minimal | minimal tools | errors | LLM calls / task | tokens / task "
             "(prompt+completion) | s / task (median) |", "|---|---|---|---|---|---|---|---|---|---|"]
    out = {}
    with ResultStore(args.db) as store:
        for key in args.sets.split(","):
            dataset, method, timeout, cfg = SETS[key]
            cfg = {k: (str(autogpt_p_root() / v) if k == "oam_file" else v) for k, v in cfg.items()}
            rid = f"{method}@{dataset}@embedded"
            if not args.report_only:
                ids = None
                if args.per_subset:
                    from groundplan.bench.datasets import load_tasks

                    seen: dict[str, int] = defaultdict(int)
                    ids = []
                    for t in load_tasks(dataset):
                        seen[t.subset] += 1
                        if seen[t.subset] <= args.per_subset:
                            ids.append(t.id)
                    ids = tuple(ids)
                spec = RunSpec(dataset, method, LLMConfig(backend="embedded", n_ctx=args.n_ctx, cache=args.cache), run_id=rid,
                               planner_timeout=timeout, method_config=cfg, limit=args.limit, task_ids=ids)
                s = run_benchmark(spec, store, make_executor("local", workers=1))
                print(f"{rid}: {s.total} episodes ({s.ran} now) in {s.wall_time:.0f} s", file=sys.stderr)
            by = defaultdict(list)
            for row in store.episodes([rid]):
                by[row.subset].append(row)
            for sub, rows in sorted(by.items()):
                n = len(rows)

                def rate(key, rows=rows, n=n):
                    vals = [r.metrics.get(key) for r in rows]
                    return "-" if all(v is None for v in vals) else f"{sum(bool(v) for v in vals) / n:.2f}"

                errors = sum(1 for r in rows if r.status in ("error", "crash", "invalid"))
                calls = statistics.mean(r.llm_calls for r in rows)
                tok = statistics.mean(r.prompt_tokens + r.completion_tokens for r in rows)
                ptok = statistics.mean(r.prompt_tokens for r in rows)
                ctok = statistics.mean(r.completion_tokens for r in rows)
                secs = statistics.median(r.wall_time for r in rows)
                lines.append(f"| {key} | {sub} | {n} | {rate('success')} | {rate('minimal')} | {rate('minimal_tools')} "
                             f"| {errors} | {calls:.1f} | {tok:.0f} ({ptok:.0f}+{ctok:.0f}) | {secs:.1f} |")
                out[f"{key}:{sub}"] = {"n": n, "success": sum(r.success for r in rows) / n, "errors": errors,
                                       "llm_calls": calls, "tokens": tok, "seconds_median": secs,
                                       "error_messages": [r.error for r in rows if r.status in ("error", "crash", "invalid")]}
    text = "\n".join(lines)
    print(text)
    args.md.parent.mkdir(parents=True, exist_ok=True)
    args.md.write_text(text + "\n")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
