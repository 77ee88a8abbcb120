"""BrainBody-LLM Fig. 6: SR, GCR and EXEC against the number of feedback loops K (0..3),
on ProgPrompt's test_unseen (the paper's test set), plotted to a PNG.

Runs (resumable, through the bench harness; the LLM disk cache makes the runs share every
call up to the point where their loops differ):

    K=0: brainbody_nofb, K=1: brainbody[K=1], K=2: brainbody[K=2], K=3: brainbody

    .venv/bin/python benchmarks/brainbody_k_ablation.py                      # embedded model
    .venv/bin/python benchmarks/brainbody_k_ablation.py --oracle --dataset franka-tabletop   # oracle Brain, no LLM
    .venv/bin/python benchmarks/brainbody_k_ablation.py --method brainbody_gbnf   # grammar-constrained Body
    .venv/bin/python benchmarks/brainbody_k_ablation.py --report-only
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from groundplan.bench.datasets import load_tasks
from groundplan.bench.executors import make_executor
from groundplan.bench.metrics import aggregate, episode_metrics
from groundplan.bench.runner import RunSpec, run_benchmark
from groundplan.bench.store import ResultStore
from groundplan.llm import LLMConfig
from groundplan.methods.base import Episode


def runs(llm: str, dataset: str, oracle: bool = False, method: str = "brainbody") -> list[tuple[int, str, dict, str]]:
    """(K, method, config, run id) - the same ids benchmarks/brainbody_vh_table.py uses
    (``brainbody_gbnf[K=1]`` there is ``brainbody_gbnf-K1`` here)."""
    if oracle:
        return [(k, "brainbody_oracle", {"K": k}, f"brainbody_oracle-K{k}@{dataset}@none") for k in range(4)]
    if method == "brainbody":
        return [(0, "brainbody_nofb", {}, f"brainbody_nofb@{dataset}@{llm}"),
                (1, "brainbody", {"K": 1}, f"brainbody-K1@{dataset}@{llm}"),
                (2, "brainbody", {"K": 2}, f"brainbody-K2@{dataset}@{llm}"),
                (3, "brainbody", {}, f"brainbody@{dataset}@{llm}")]
    return [(k, method, {"K": k}, f"{method}-K{k}@{dataset}@{llm}") for k in range(3)] + \
        [(3, method, {}, f"{method}@{dataset}@{llm}")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="progprompt-test_unseen")
    ap.add_argument("--llm", default="embedded")
    ap.add_argument("--db", type=Path, default=Path("results/vh.sqlite"))
    ap.add_argument("--png", type=Path, default=Path("results/brainbody_k_ablation.png"))
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--oracle", action="store_true", help="oracle Brain and Body (no LLM)")
    ap.add_argument("--method", default="brainbody",
                    help="brainbody (K=0 is brainbody_nofb) or a variant with a K key, e.g. brainbody_gbnf")
    args = ap.parse_args()
    if args.oracle:
        args.llm = "none"
        if args.png == Path("results/brainbody_k_ablation.png"):
            args.png = Path(f"results/brainbody_k_ablation_oracle_{args.dataset}.png")
    llm_cfg = None if args.llm == "none" else LLMConfig(backend=args.llm)
    tasks = {t.id: t for t in load_tasks(args.dataset)}
    points = []
    args.db.parent.mkdir(parents=True, exist_ok=True)
    with ResultStore(args.db) as store:
        for k, method, cfg, rid in runs(args.llm, args.dataset, args.oracle, args.method):
            if not args.report_only:
                run_benchmark(RunSpec(args.dataset, method, llm_cfg, (0,), run_id=rid, method_config=cfg), store,
                              make_executor("local", workers=1))
            eps = list(store.episodes([rid], with_trace=True))
            if not eps:
                continue
            rows = [episode_metrics(Episode(e.task_id, e.method, e.status, e.success, metrics=e.metrics),
                                    tasks[e.task_id]).to_dict() for e in eps]
            a = aggregate(rows)
            loops = sum(sum(1 for ev in e.trace if ev.get("type") == "feedback") for e in eps) / len(eps)
            points.append((k, a["sr"], a["gcr"], a["exec"], len(eps), loops))
    if not points:
        print("no results")
        return 1
    who = "oracle Brain + Body" if args.oracle else f"{args.method}, {args.llm}"
    print(f"## Fig. 6: feedback loops K on {args.dataset} ({who})\n")
    print("| K | SR | GCR | EXEC | episodes | mean feedback loops used |\n|---|---|---|---|---|---|")
    for k, sr, gcr, ex, n, loops in points:
        print(f"| {k} | {sr:.2f} | {gcr:.2f} | {ex:.2f} | {n} | {loops:.2f} |")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.4))
    ks = [p[0] for p in points]
    # SR and GCR often coincide: SR dashed on top, with bigger hollow markers, stays visible
    styles = (("SR", "o", "--", 9), ("GCR", "s", "-", 5), ("EXEC", "^", "-", 5))
    for i, (label, marker, ls, size) in enumerate(styles, start=1):
        ax.plot(ks, [p[i] for p in points], marker=marker, linestyle=ls, markersize=size, label=label,
                markerfacecolor="none" if label == "SR" else None, zorder=3 if label == "SR" else 2)
    ax.set_xlabel("feedback loops K")
    ax.set_ylabel("score")
    ax.set_xticks(ks)
    ax.set_ylim(0, 1.05)
    ax.set_title(f"BrainBody-LLM, {args.dataset} ({who})", fontsize=9)
    ax.legend()
    fig.tight_layout()
    args.png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.png, dpi=120)
    print(f"\nplot: {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
