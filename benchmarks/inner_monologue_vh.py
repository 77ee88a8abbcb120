"""Inner Monologue on VirtualHome beside BrainBody-LLM and ProgPrompt, on the same tasks.

    .venv/bin/python benchmarks/inner_monologue_vh.py \
        --methods inner_monologue_oracle,brainbody_oracle,inner_monologue --dataset progprompt-test_unseen

Runs each method on every task of the dataset (one process, the embedded model on one
thread: ``benchmarks/saycan_llm.py``), writes the episodes to
``benchmarks/results/inner_monologue/<method>@<dataset>.jsonl`` and the table (SR / GCR /
EXEC / calls / tokens / time) to ``benchmarks/results/inner_monologue/README.md``, with the
BrainBody-LLM / ProgPrompt rows measured on the same tasks and model in
``benchmarks/results/brainbody/table1_embedded.md`` (read from there, not re-run: the
BrainBody grid takes about an hour of CPU)."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))

ROOT = Path(__file__).resolve().parent
OUT = ROOT / "results" / "inner_monologue"
BB_TABLE = ROOT / "results" / "brainbody" / "table1_embedded.md"
LABELS = {"inner_monologue": "Inner Monologue (embedded, grammar-constrained action)",
          "inner_monologue_oracle": "Inner Monologue loop, scripted oracle (gold commands)",
          "brainbody_oracle": "BrainBody-LLM, oracle Brain + oracle Body"}


def bb_rows(dataset: str) -> list[str]:
    """BrainBody-LLM / Base-LLM / ProgPrompt rows for ``dataset`` (test_unseen columns) from
    the committed BrainBody table on the embedded model."""
    if not BB_TABLE.exists() or not dataset.endswith("test_unseen"):
        return []
    out = []
    for line in BB_TABLE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 10 and re.match(r"^[0-9.]+$", cells[7] or "x"):
            out.append(f"| {cells[0]} (embedded; from brainbody/table1_embedded.md) | {cells[7]} | {cells[8]} | "
                       f"{cells[9]} | | | |")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", default="inner_monologue_oracle,brainbody_oracle,inner_monologue")
    ap.add_argument("--dataset", default="progprompt-test_unseen")
    ap.add_argument("--max-steps", type=int, default=15)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)

    from groundplan.bench.datasets import load_tasks
    from groundplan.bench.metrics import aggregate
    from groundplan.core.metrics import episode_metrics
    from groundplan.methods import RunContext, get_method

    tasks = load_tasks(args.dataset)
    OUT.mkdir(parents=True, exist_ok=True)
    llm, workaround = None, False
    rows = []
    per_task: dict[str, dict[str, str]] = {}
    for name in args.methods.split(","):
        m = get_method(name)
        if m.needs_llm and llm is None:
            from saycan_llm import embedded_llm

            llm, workaround = embedded_llm(args.threads)
        cfg = {"max_steps": args.max_steps} if name.startswith("inner_monologue") else {}
        ctx = RunContext(llm=llm if m.needs_llm else None, config=cfg)
        eps = []
        t_all = time.perf_counter()
        with (OUT / f"{name}@{args.dataset}.jsonl").open("w", encoding="utf-8") as fh:
            for t in tasks:
                t0 = time.perf_counter()
                ep = m.run(t, ctx)
                dt = time.perf_counter() - t0
                eps.append((ep, dt, t))
                fh.write(json.dumps({"instruction": t.instruction, **ep.to_json()}) + "\n")
                per_task.setdefault(t.instruction, {})[name] = f"{int(ep.success)} / {ep.metrics.get('gcr') or 0:.2f}"
                print(f"{name:24s} {t.id:16s} {ep.status:8s} {dt:6.1f}s gcr={ep.metrics.get('gcr')} "
                      f"{t.instruction!r} -> {list(ep.plan)[:4]}", flush=True)
        n = len(eps)
        # SR / GCR / EXEC by the one definition (groundplan.core.metrics), averaged as reports do
        agg = aggregate(episode_metrics(e, t).to_dict() for e, _, t in eps)
        sr, gcr, ex = agg["sr"], agg["gcr"], agg["exec"]
        calls = sum(e.usage.calls for e, _, _ in eps) / n
        tok = sum(e.usage.prompt_tokens + e.usage.completion_tokens for e, _, _ in eps) / n
        sec = sum(d for _, d, _ in eps) / n
        rows.append(f"| {LABELS.get(name, name)} | {sr:.2f} | {gcr:.2f} | {ex:.2f} | {calls:.1f} | {tok:.0f} | "
                    f"{sec:.1f} |")
        print(rows[-1], f"(wall {time.perf_counter() - t_all:.0f} s)", flush=True)
    names = args.methods.split(",")
    head = ("# Inner Monologue on VirtualHome (issue 23)\n\n"
            f"Command: `.venv/bin/python benchmarks/inner_monologue_vh.py --methods {args.methods} --dataset "
            f"{args.dataset} --max-steps {args.max_steps}`\n\n"
            f"Tasks: all {len(tasks)} of `{args.dataset}` (the 10 test tasks BrainBody-LLM reports). Success (SR) "
            "and GCR are ProgPrompt's goal conditions from the final graph (the same scorer as the BrainBody "
            "rows); EXEC = executed / attempted actions. Step bound "
            f"{args.max_steps} actions. Model: {llm.model if llm else 'none'}, temperature 0, one thread"
            f"{'; one-token micro-batches (host workaround, benchmarks/saycan_llm.py)' if workaround else ''}. "
            "Calls, tokens and seconds are per task (shared 2-core machine, heavily loaded during the run).\n\n"
            "| technique | SR | GCR | EXEC | LLM calls | tokens | s / task |\n|---|---|---|---|---|---|---|\n")
    body = "\n".join(rows + bb_rows(args.dataset))
    paper = ("\n\nThe Inner Monologue paper evaluates on tabletop rearrangement and a real kitchen, not on "
             "VirtualHome, so there is no paper figure for this set; BrainBody-LLM's paper (Table 1, GPT-4) gives "
             "BB-LLM with feedback SR 0.54 / GCR 0.81 and ProgPrompt (GPT-3) 0.34 / 0.65 on these tasks (see "
             "`benchmarks/results/brainbody/README.md`).\n\n")
    tt = ["## Per task (success / GCR)\n", "| task | " + " | ".join(names) + " |",
          "|---|" + "---|" * len(names)]
    for inst, d in per_task.items():
        tt.append(f"| {inst} | " + " | ".join(d.get(n, "") for n in names) + " |")
    (OUT / "README.md").write_text(head + body + paper + "\n".join(tt) + "\n", encoding="utf-8")
    print(body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
