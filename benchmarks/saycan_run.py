"""SayCan on its own benchmarks: per-family success, GCR, steps, calls, tokens and time.

    .venv/bin/python benchmarks/saycan_run.py --dataset saycan-101-judged --method saycan --per-family 5
    .venv/bin/python benchmarks/saycan_run.py --dataset autogptp-saycan --method saycan_oracle --per-family 0

``--per-family N`` runs a seeded sample of N tasks per family (0: every task). Episodes go
to ``benchmarks/results/saycan/<method>@<dataset>[@<variant>].jsonl`` (traces without the
long prompts), the per-family table to the ``.md`` beside it. The embedded model runs on one
thread (``benchmarks/saycan_llm.py``: with the host's micro-batch workaround if needed)."""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Optional, Sequence

import results_archive

OUT = Path(__file__).resolve().parent / "results" / "saycan"

#: SayCan's planning success per family as AutoGPT+P's Table IV quotes it from the SayCan
#: paper (PaLM-SayCan, "SayCan (plan)"); the drawer family is not in SayCan's released file
PAPER_PLAN = {"saycan_a_nl_primitive": 0.93, "saycan_b_nl_verb": 0.60, "saycan_c_nl_noun": 0.93,
              "saycan_d_structured_language": 0.93, "saycan_e_embodiment": 0.64, "saycan_f_crowd_sourced": 0.73,
              "saycan_g_long_horizon": 0.73, "saycan_x_drawer": 1.00, "all": 0.81}
FAMILY_NAMES = {"saycan_a_nl_primitive": "NL Single Primitive", "saycan_b_nl_verb": "NL Verbs",
                "saycan_c_nl_noun": "NL Nouns", "saycan_d_structured_language": "Structured Language",
                "saycan_e_embodiment": "Embodiment", "saycan_f_crowd_sourced": "Crowd-Sourced",
                "saycan_g_long_horizon": "Long-Horizon", "saycan_x_drawer": "Drawer (AutoGPT+P only)"}


def sample_tasks(tasks: Sequence[Any], per_family: int, seed: int) -> list[Any]:
    if per_family <= 0:
        return list(tasks)
    by: dict[str, list[Any]] = defaultdict(list)
    for t in tasks:
        by[t.subset].append(t)
    out = []
    for fam in sorted(by):
        rows = by[fam]
        pick = sorted(random.Random(f"{seed}:{fam}").sample(range(len(rows)), min(per_family, len(rows))))
        out += [rows[i] for i in pick]
    return out


def slim(ep_json: dict) -> dict:
    """The episode without the long prompt texts in its trace."""
    trace = []
    for ev in ep_json.get("trace") or []:
        ev = dict(ev)
        if ev.get("type") == "llm_call" and isinstance(ev.get("prompt"), str) and len(ev["prompt"]) > 200:
            ev["prompt"] = "..." + ev["prompt"][-200:]
        trace.append(ev)
    return {**ep_json, "trace": trace}


def table(rows: list[dict]) -> str:
    by: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by[r["family"]].append(r)
    lines = ["| family | n | success | GCR | said done | steps (mean) | LLM calls | tokens (prompt+compl.) | "
             "s / task | SayCan paper (plan, PaLM) |", "|---|---|---|---|---|---|---|---|---|---|"]

    def line(name: str, rs: list[dict], key: str) -> str:
        n = len(rs)
        succ = sum(r["success"] for r in rs) / n
        gcr = sum(r["gcr"] or 0 for r in rs) / n
        done = sum(bool(r["said_done"]) for r in rs) / n
        steps = sum(r["steps"] for r in rs) / n
        calls = sum(r["calls"] for r in rs) / n
        tok = sum(r["tokens"] for r in rs) / n
        sec = sum(r["seconds"] for r in rs) / n
        paper = PAPER_PLAN.get(key)
        return (f"| {name} | {n} | {succ:.2f} | {gcr:.2f} | {done:.2f} | {steps:.1f} | {calls:.1f} | {tok:.0f} | "
                f"{sec:.1f} | {'' if paper is None else f'{paper:.2f}'} |")

    for fam in sorted(by):
        lines.append(line(FAMILY_NAMES.get(fam, fam), by[fam], fam))
    lines.append(line("**all**", rows, "all"))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="saycan-101-judged")
    ap.add_argument("--method", default="saycan")
    ap.add_argument("--per-family", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-steps", type=int, default=16)
    ap.add_argument("--examples", type=int, default=6)
    ap.add_argument("--normalise", default="sum", choices=("sum", "mean"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--variant", default="")
    ap.add_argument("--report-only", action="store_true", help="re-make the .md from the .jsonl episodes")
    args = ap.parse_args(argv)
    if args.report_only:
        return report_only(args)

    from groundplan.bench.datasets import load_tasks
    from groundplan.methods import RunContext, get_method
    from groundplan.planners import get_planner

    tasks = sample_tasks(load_tasks(args.dataset), args.per_family, args.seed)
    method = get_method(args.method)
    llm, workaround = None, False
    if method.needs_llm:
        from saycan_llm import embedded_llm

        llm, workaround = embedded_llm(args.threads)
    cfg = {"max_steps": args.max_steps, "examples": args.examples, "normalise": args.normalise}
    ctx = RunContext(llm=llm, planner=get_planner(), config=cfg)
    name = f"{args.method}@{args.dataset}" + (f"@{args.variant}" if args.variant else "")
    OUT.mkdir(parents=True, exist_ok=True)
    rows = []
    t_all = time.perf_counter()
    with (OUT / f"{name}.jsonl").open("w", encoding="utf-8") as fh:
        for t in tasks:
            t0 = time.perf_counter()
            ep = method.run(t, ctx)
            dt = time.perf_counter() - t0
            d = ep.to_json()
            fh.write(json.dumps({"dataset": args.dataset, "family": t.subset, "instruction": t.instruction,
                                 "seconds": round(dt, 2), "workaround": workaround, **slim(d)}) + "\n")
            fh.flush()
            u = ep.usage
            rows.append({"family": t.subset, "success": bool(ep.success), "gcr": ep.metrics.get("gcr"),
                         "said_done": ep.metrics.get("said_done"), "steps": len(ep.plan), "calls": u.calls,
                         "tokens": u.prompt_tokens + u.completion_tokens, "seconds": dt})
            print(f"{t.id:34s} {ep.status:8s} {dt:6.1f}s {t.instruction[:50]!r} -> {ep.metrics.get('skills')}",
                  flush=True)
    wall = time.perf_counter() - t_all
    write_md(args, name, rows, len(tasks), llm.model if llm else None, workaround, f"wall time {wall:.0f} s")
    print(table(rows))
    return 0


def report_only(args: argparse.Namespace) -> int:
    """The table from the recorded episodes (a run stopped early reports the tasks it did)."""
    name = f"{args.method}@{args.dataset}" + (f"@{args.variant}" if args.variant else "")
    rows, model, workaround = [], None, False
    for line in results_archive.read_text(OUT / f"{name}.jsonl").splitlines():  # on disk or in saycan.tar.xz
        try:
            e = json.loads(line)
        except json.JSONDecodeError:  # the last line of a run stopped while writing
            continue
        u = e["usage"]
        model = model or u.get("model") or None
        workaround = workaround or bool(e.get("workaround"))
        rows.append({"family": e["family"], "success": bool(e["success"]), "gcr": e["metrics"].get("gcr"),
                     "said_done": e["metrics"].get("said_done"), "steps": len(e["plan"]), "calls": u["calls"],
                     "tokens": u["prompt_tokens"] + u["completion_tokens"],
                     "seconds": e.get("seconds") or e.get("wall_time") or 0.0})
    if not model and args.method == "saycan":
        model = "SmolLM2-135M-Instruct.Q4_1"
    write_md(args, name, rows, None, model, workaround or args.method == "saycan", "report re-made from the episodes")
    print(table(rows))
    return 0


def write_md(args: argparse.Namespace, name: str, rows: list[dict], n_planned: Optional[int], model: Optional[str],
             workaround: bool, when: str) -> None:
    n = len(rows)
    sample_txt = ("every task" if args.per_family <= 0 else
                  f"seeded sample, {args.per_family} per family, seed {args.seed}")
    partial = "" if n_planned is None or n_planned == n else f" of {n_planned} planned"
    head = (f"# {args.method} on {args.dataset}\n\n"
            f"Command: `.venv/bin/python benchmarks/saycan_run.py --dataset {args.dataset} --method {args.method} "
            f"--per-family {args.per_family} --seed {args.seed} --max-steps {args.max_steps} --examples "
            f"{args.examples} --normalise {args.normalise}`\n\n"
            f"{n} tasks{partial} ({sample_txt}); "
            f"step bound {args.max_steps}; {args.examples} few-shot pairs; LLM score {args.normalise} of token "
            f"log-probabilities; LLM: {model or 'none (oracle scorer)'}"
            f"{' (one-token micro-batches: host workaround, benchmarks/saycan_llm.py)' if workaround else ''}; "
            f"{when}; shared 2-core machine (load average 12-14 during the embedded runs: seconds are many "
            "times an idle machine's).\n\n"
            "Success: the gold goal holds after executing the chosen skills in groundplan's executor (for "
            "saycan-101-judged: AutoGPT+P's gold goal and scene for the same instruction). The paper column is "
            "SayCan's human-judged planning success with PaLM-540B, as quoted in AutoGPT+P's Table IV.\n\n")
    (OUT / f"{name}.md").write_text(head + table(rows) + "\n", encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
