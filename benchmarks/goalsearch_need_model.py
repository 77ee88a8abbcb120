"""goalsearch with and without the local-model need stage (issue 48 item 6: ``need_model.py``,
``--set need_model=true``), on a blind held-out set written before the stage ran on it.

Each instruction runs twice through the goalsearch method, the same in all but the stage: the
run without it makes no model call; the run with it asks the local model (``--model``) to order
the things the rules would hand over, for a stated need only. Success is the set's gold goal
holding after execution. The stage stays off by default unless this ablation says otherwise.

    .venv/bin/python benchmarks/goalsearch_need_model.py --set heldout-ab --model qwen2.5-coder-1.5b \\
        --out benchmarks/results/goalsearch_need_model
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import small_model_heldout as H  # sibling script (benchmarks/ is sys.path[0])

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "goalsearch_need_model"


def run(set_name: str, model: str, threads: int, limit: int | None) -> dict:
    from groundplan.llm import LLMConfig, build_llm
    from groundplan.llm.models import resolve_model
    from groundplan.methods import RunContext, get_method
    from groundplan.planners import get_planner

    resolved = resolve_model(model)
    llm = build_llm(LLMConfig(cache=False, n_threads=threads, model=str(resolved.path)))
    planner = get_planner("fast-downward")
    method = get_method("goalsearch")
    tasks = H.tasks_for(set_name)[:limit] if limit else H.tasks_for(set_name)
    rows = []
    for t in tasks:
        row = {"task": t.id, "family": t.subset, "instruction": t.instruction, "gold": t.goal}
        for label, config, ctx_llm in (("without", {}, None), ("with", {"need_model": True}, llm)):
            t0 = time.perf_counter()
            ep = method.run(t, RunContext(llm=ctx_llm, planner=planner, config=config))
            asked = [e for e in ep.trace or () if e.get("what") == "need model"]
            row[label] = {"success": bool(ep.success), "goal": ep.goal, "status": ep.status,
                          "calls": ep.usage.model_calls, "asked": asked[0] if asked else None,
                          "seconds": round(time.perf_counter() - t0, 3)}
        print(f"{t.id} without {'ok ' if row['without']['success'] else 'BAD'} with "
              f"{'ok ' if row['with']['success'] else 'BAD'} {t.instruction[:60]!r}", flush=True)
        rows.append(row)
    return {"set": set_name, "model": resolved.name, "threads": threads,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "rows": rows}


def render(res: dict, command: str) -> str:
    rows = res["rows"]
    asked = [r for r in rows if r["with"]["asked"]]
    n = len(rows)

    def ok(rs, label):
        return sum(r[label]["success"] for r in rs)

    lines = [f"# goalsearch's need stage on {res['set']} with {res['model']} (issue 48 item 6)", "",
             f"Run {res['date']}, {res['threads']} thread(s). Command: `{command}`.", "",
             "| | without the stage | with the stage |", "|---|---|---|",
             f"| success, all {n} | {ok(rows, 'without')}/{n} | {ok(rows, 'with')}/{n} |",
             f"| success, the {len(asked)} where the stage asked the model | {ok(asked, 'without')}/{len(asked)} | "
             f"{ok(asked, 'with')}/{len(asked)} |",
             f"| model calls | {sum(r['without']['calls'] for r in rows)} | {sum(r['with']['calls'] for r in rows)} |",
             f"| seconds per instruction (mean) | {sum(r['without']['seconds'] for r in rows) / max(n, 1):.2f} | "
             f"{sum(r['with']['seconds'] for r in rows) / max(n, 1):.2f} |", "",
             "## Instructions whose goal the stage changed", "",
             "| task | instruction | without | with | success without -> with |", "|---|---|---|---|---|"]
    for r in rows:
        if r["without"]["goal"] != r["with"]["goal"]:
            lines.append(f"| {r['task']} | {r['instruction']} | `{r['without']['goal']}` | `{r['with']['goal']}` | "
                         f"{r['without']['success']} -> {r['with']['success']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", required=True, help="a held-out set name (small_model_heldout.py's)")
    ap.add_argument("--model", default="qwen2.5-coder-1.5b", help="a model name of `groundplan llm models`")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    try:
        res = run(args.set, args.model, args.threads, args.limit)
    except (KeyError, ValueError) as exc:
        print(f"goalsearch_need_model: {exc}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    stem = f"{res['set']}@{res['model']}"
    (args.out / f"{stem}.json").write_text(json.dumps(res, indent=1) + "\n")
    command = "python benchmarks/goalsearch_need_model.py " + " ".join(argv if argv is not None else sys.argv[1:])
    (args.out / f"{stem}.md").write_text(render(res, command))
    print(render(res, command))
    return 0


if __name__ == "__main__":
    sys.exit(main())
