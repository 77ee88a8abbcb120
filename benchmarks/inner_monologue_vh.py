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
import time
from pathlib import Path
from typing import Sequence

import results_archive

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


def run(args: argparse.Namespace) -> bool:
    from groundplan.bench.datasets import load_tasks
    from groundplan.methods import RunContext, get_method

    tasks = load_tasks(args.dataset)
    OUT.mkdir(parents=True, exist_ok=True)
    llm, workaround = None, False
    for name in args.methods.split(","):
        m = get_method(name)
        if m.needs_llm and llm is None:
            from saycan_llm import embedded_llm

            llm, workaround = embedded_llm(args.threads)
        # the step bound is for the LLM (the oracle answers the whole gold script: default bound)
        cfg = {"max_steps": args.max_steps} if name == "inner_monologue" else {}
        ctx = RunContext(llm=llm if m.needs_llm else None, config=cfg)
        with (OUT / f"{name}@{args.dataset}.jsonl").open("w", encoding="utf-8") as fh:
            for t in tasks[: args.limit or None]:
                t0 = time.perf_counter()
                ep = m.run(t, ctx)
                dt = time.perf_counter() - t0
                fh.write(json.dumps({"instruction": t.instruction, "seconds": round(dt, 2),
                                     "workaround": workaround, **ep.to_json()}) + "\n")
                fh.flush()
                print(f"{name:24s} {t.id:16s} {ep.status:8s} {dt:6.1f}s gcr={ep.metrics.get('gcr')} "
                      f"{t.instruction!r} -> {list(ep.plan)[:4]}", flush=True)
    return workaround


def report(args: argparse.Namespace, n_tasks: int) -> None:
    names = args.methods.split(",")
    rows, per_task, workaround, model = [], {}, False, None
    for name in names:
        path = OUT / f"{name}@{args.dataset}.jsonl"
        eps = [json.loads(x) for x in results_archive.read_text(path).splitlines() if x.strip()] \
            if results_archive.exists(path) else []  # on disk or in inner_monologue.tar.xz
        if not eps:
            continue
        n = len(eps)
        workaround = workaround or any(e.get("workaround") for e in eps)
        model = model or next((ev.get("usage", {}).get("model") for e in eps for ev in e.get("trace", [])
                               if ev.get("type") == "llm_call" and ev.get("usage")), None)
        sr = sum(e["success"] for e in eps) / n
        gcr = sum(e["metrics"].get("gcr") or 0 for e in eps) / n
        ex = sum(e["metrics"].get("exec") or 0 for e in eps) / n
        calls = sum(e["usage"]["calls"] for e in eps) / n
        tok = sum(e["usage"]["prompt_tokens"] + e["usage"]["completion_tokens"] for e in eps) / n
        sec = sum(e.get("seconds") or e.get("wall_time") or 0 for e in eps) / n
        cover = "" if n == n_tasks else f" ({n} of {n_tasks} tasks)"
        rows.append(f"| {LABELS.get(name, name)}{cover} | {sr:.2f} | {gcr:.2f} | {ex:.2f} | {calls:.1f} | "
                    f"{tok:.0f} | {sec:.1f} |")
        for e in eps:
            per_task.setdefault(e["instruction"], {})[name] = f"{int(e['success'])} / {e['metrics'].get('gcr') or 0:.2f}"
    head = ("# Inner Monologue on VirtualHome (issue 23)\n\n"
            f"Command: `.venv/bin/python benchmarks/inner_monologue_vh.py --methods {args.methods} --dataset "
            f"{args.dataset} --max-steps {args.max_steps}` (`--report-only` re-makes this file from the .jsonl "
            "episodes beside it)\n\n"
            f"Tasks: `{args.dataset}` ({n_tasks} tasks: the test tasks BrainBody-LLM reports). Success (SR) "
            "and GCR are ProgPrompt's goal conditions from the final graph (the same scorer as the BrainBody "
            "rows); EXEC = executed / attempted actions. Step bound "
            f"{args.max_steps} actions. Model: {model or 'SmolLM2-135M-Instruct'} (embedded), temperature 0, one "
            f"thread{'; one-token micro-batches (host workaround, benchmarks/saycan_llm.py)' if workaround else ''}. "
            "Calls, tokens and seconds are per task (shared 2-core machine, load average 12-14 during the run: "
            "seconds are many times an idle machine's).\n\n"
            "| technique | SR | GCR | EXEC | LLM calls | tokens | s / task |\n|---|---|---|---|---|---|---|\n")
    body = "\n".join(rows + bb_rows(args.dataset))
    paper = ("\n\nThe Inner Monologue paper evaluates on tabletop rearrangement and a real kitchen, not on "
             "VirtualHome, so there is no paper figure for this set; BrainBody-LLM's paper (Table 1) gives "
             "BB-LLM with feedback SR 0.54 / GCR 0.81 (GPT-4) and ProgPrompt 0.34 / 0.65 (GPT-3) on these tasks "
             "(see `benchmarks/results/brainbody/README.md`).\n\n")
    tt = ["## Per task (success / GCR)\n", "| task | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for inst, d in per_task.items():
        tt.append(f"| {inst} | " + " | ".join(d.get(n, "") for n in names) + " |")
    (OUT / "README.md").write_text(head + body + paper + "\n".join(tt) + "\n", encoding="utf-8")
    print(body)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", default="inner_monologue_oracle,brainbody_oracle,inner_monologue")
    ap.add_argument("--dataset", default="progprompt-test_unseen")
    ap.add_argument("--max-steps", type=int, default=15)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--limit", type=int, default=0, help="only the first N tasks")
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args(argv)
    from groundplan.bench.datasets import load_tasks

    if not args.report_only:
        run(args)
    report(args, len(load_tasks(args.dataset)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
