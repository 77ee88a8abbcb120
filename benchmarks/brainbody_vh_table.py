"""BrainBody-LLM Tables 1-2 on ProgPrompt's VirtualHome sets: SR / GCR / EXEC per method and
dataset (Table 1 layout), and per task (Table 2 layout), through the bench harness (results
in a SQLite store; re-running resumes).

    # oracle Brain + oracle Body (no LLM): proves the loop, SR 1.0 on the solvable tasks
    .venv/bin/python benchmarks/brainbody_vh_table.py --methods brainbody_oracle --llm none
    # the embedded model (SmolLM2-135M), the paper's methods and baselines
    .venv/bin/python benchmarks/brainbody_vh_table.py --methods brainbody,brainbody_nofb,base_llm,progprompt
    # only print what the store holds
    .venv/bin/python benchmarks/brainbody_vh_table.py --report-only

A method name may carry configuration: ``brainbody[K=1]``.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from groundplan.bench.executors import make_executor
from groundplan.bench.metrics import aggregate
from groundplan.bench.runner import RunSpec, run_benchmark
from groundplan.bench.store import ResultStore
from groundplan.llm import LLMConfig

DATASETS = ("progprompt-env1", "progprompt-env2", "progprompt-test_unseen")
LABELS = {"brainbody": "BB-LLM (feedback, K=3)", "brainbody_nofb": "BB-LLM (no feedback)",
          "brainbody_embed": "BB-LLM, embedding Body", "brainbody_oracle": "oracle Brain + oracle Body",
          "brainbody_gbnf": "BB-LLM, grammar-constrained Body (groundplan option, K=3)",
          "base_llm": "Base-LLM", "progprompt": "ProgPrompt"}


def parse_method(text: str) -> tuple[str, dict[str, Any], str]:
    m = re.fullmatch(r"([\w]+)(?:\[(.*)\])?", text.strip())
    if not m:
        raise SystemExit(f"bad method '{text}'")
    cfg: dict[str, Any] = {}
    for kv in filter(None, (m.group(2) or "").split(",")):
        k, v = kv.split("=")
        cfg[k.strip()] = int(v) if v.strip().lstrip("-").isdigit() else v.strip()
    suffix = "".join(f"-{k}{v}" for k, v in sorted(cfg.items()))
    return m.group(1), cfg, suffix


def run_id(method: str, suffix: str, dataset: str, llm: str) -> str:
    return f"{method}{suffix}@{dataset}@{llm}"


def fmt(v: Any) -> str:
    return "-" if v is None else f"{v:.2f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--methods", default="brainbody_oracle")
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--llm", default="embedded", help="embedded, none, openai, ...")
    ap.add_argument("--model", default=None)
    ap.add_argument("--db", type=Path, default=Path("results/vh.sqlite"))
    ap.add_argument("--seeds", default="0")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--per-task", action="store_true", help="also print Table 2 (per task)")
    args = ap.parse_args()
    methods = [parse_method(m) for m in args.methods.split(",") if m.strip()]
    datasets = [d for d in args.datasets.split(",") if d]
    seeds = tuple(int(s) for s in args.seeds.split(","))
    llm_cfg = None if args.llm == "none" else LLMConfig(backend=args.llm, model=args.model)
    args.db.parent.mkdir(parents=True, exist_ok=True)
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    per_task: dict[tuple[str, str], list] = {}
    with ResultStore(args.db) as store:
        for name, cfg, suffix in methods:
            for ds in datasets:
                rid = run_id(name, suffix, ds, args.llm if llm_cfg is None else (llm_cfg.backend + (f":{args.model}" if args.model else "")))
                if not args.report_only:
                    spec = RunSpec(ds, name, llm_cfg, seeds, run_id=rid, method_config=cfg)
                    s = run_benchmark(spec, store, make_executor("local", workers=1))
                    print(f"{rid}: {s.total} episodes, {s.ran} run now, {s.wall_time:.0f} s", file=sys.stderr)
                eps = list(store.episodes([rid]))
                if not eps:
                    continue
                from groundplan.bench.datasets import load_tasks
                from groundplan.bench.metrics import episode_metrics
                from groundplan.methods.base import Episode

                tasks = {t.id: t for t in load_tasks(ds)}
                mrows = []
                for e in eps:
                    ep = Episode(e.task_id, e.method, e.status, e.success, metrics=e.metrics)
                    mrows.append({**episode_metrics(ep, tasks[e.task_id]).to_dict(), "task": tasks[e.task_id].instruction})
                rows[(name + suffix, ds)] = {**aggregate(mrows), "n": len(mrows), "of": len(tasks)}
                per_task[(name + suffix, ds)] = mrows
    if not rows:
        print("no results in the store")
        return 1
    print("## Table 1 layout: SR / GCR / EXEC per method (embedded model unless stated)\n")
    print("A run that did not finish shows how many of the set's tasks it covers next to its SR.\n")
    head = "| technique | " + " | ".join(f"{d.split('-', 1)[1]} SR | GCR | EXEC" for d in datasets) + " |"
    print(head)
    print("|---|" + "---|---|---|" * len(datasets))
    for name, cfg, suffix in methods:
        label = LABELS.get(name, name)
        if "K" in cfg and name == "brainbody":
            label = f"BB-LLM (feedback, K={cfg['K']})"
        elif suffix:
            label += f" {suffix.strip('-')}"
        cells = []
        for ds in datasets:
            a = rows.get((name + suffix, ds))
            part = f" ({a['n']}/{a['of']} tasks)" if a and a["n"] < a["of"] else ""
            cells += [fmt(a.get("sr")) + part, fmt(a.get("gcr")), fmt(a.get("exec"))] if a else ["-", "-", "-"]
        print(f"| {label} | " + " | ".join(cells) + " |")
    if args.per_task:
        print("\n## Table 2 layout: per task\n")
        for (m, ds), mr in per_task.items():
            print(f"\n### {LABELS.get(m, m)} on {ds}\n\n| task | SR | GCR | EXEC |\n|---|---|---|---|")
            for r in mr:
                print(f"| {r['task']} | {int(r['sr'])} | {r['gcr']:.2f} | {r['exec']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
