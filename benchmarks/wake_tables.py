"""Wake et al.'s Tables II, III and VI regenerated with a live model (default: the embedded
SmolLM2-135M), through the benchmark runner (resumable SQLite store).

    .venv/bin/python benchmarks/wake_tables.py --table ii        # 14 scenarios x 5 trials (temperature 1.0)
    .venv/bin/python benchmarks/wake_tables.py --table vi        # the same with the higher-level instructions
    .venv/bin/python benchmarks/wake_tables.py --table iii       # automatic feedback, temperature 0: rounds to success
    .venv/bin/python benchmarks/wake_tables.py --table variation # scenario 5's 10 paraphrases x 5 trials
    .venv/bin/python benchmarks/wake_tables.py --table lfo       # the learning-from-observation role-plays
    .venv/bin/python benchmarks/wake_tables.py --table ii --report-only --md out.md

Options: --trials, --temperature, --prompts project|original, --free (no constrained decoding),
--max-feedback, --db, --limit, --tasks, --llm embedded|openai|..., --model, --base-url, --n-ctx.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

TABLES = {
    "ii": ("wake-vh", "Table II: executable and correct, per trial"),
    "vi": ("wake-vh-highlevel", "Table VI: higher-level instructions, per trial"),
    "iii": ("wake-vh", "Table III: feedback rounds to a successful sequence"),
    "variation": ("wake-vh-variation", "Scenario 5 and its 10 paraphrases, per trial"),
    "lfo": ("wake-lfo", "Learning-from-observation role-plays (multi-step, environment chained)"),
}


def _result_event(row) -> dict:
    for e in reversed(row.trace or ()):
        if e.get("type") == "result":
            return e
    return {}


def run(args) -> str:
    from groundplan.bench.executors import make_executor
    from groundplan.bench.runner import RunSpec, run_benchmark
    from groundplan.bench.store import ResultStore
    from groundplan.llm import LLMConfig

    dataset, title = TABLES[args.table]
    feedback = args.table == "iii"
    temperature = 0.0 if feedback or args.table == "lfo" else args.temperature
    seeds = (0,) if feedback or args.table == "lfo" else tuple(range(args.trials))
    cfg = {"prompts": args.prompts, "constrained": not args.free, "temperature": temperature,
           "feedback": "auto" if feedback else "none", "max_feedback": args.max_feedback,
           "context_tokens": args.n_ctx}
    llm = LLMConfig(backend=args.llm, model=args.model, base_url=args.base_url, n_ctx=args.n_ctx)
    run_id = args.run_id or (f"wake-{args.table}@{args.llm}{':' + args.model if args.model else ''}"
                             f"@{args.prompts}{'-free' if args.free else ''}@t{temperature:g}")
    spec = RunSpec(dataset, "wake_prompts", llm=llm, seeds=seeds, limit=args.limit, run_id=run_id,
                   method_config=cfg, task_ids=tuple(args.tasks.split(",")) if args.tasks else None)
    store = ResultStore(args.db)
    if not args.report_only:
        def progress(res, row) -> None:  # noqa: ANN001
            ev = _result_event(row)
            sys.stderr.write(f"{row.task_id} seed {row.seed}: {row.status} executable={ev.get('executable')} "
                             f"rounds={ev.get('feedback_rounds')} {row.wall_time:.0f}s\n")
            sys.stderr.flush()

        run_benchmark(spec, store, make_executor("local", workers=1), on_result=progress)
    rows = [r for r in store.episodes([run_id], with_trace=True)]
    return render(args.table, title, rows, run_id, cfg)


def render(table: str, title: str, rows, run_id: str, cfg: dict) -> str:
    from groundplan.methods.wake_prompts.replay import PAPER_TABLE_II, PAPER_TABLE_III, PAPER_TABLE_VI

    lines = [f"### {title}", "", f"run `{run_id}`, config `{json.dumps(cfg)}`", ""]
    if not rows:
        return "\n".join(lines + ["(no episodes yet)"])
    by = {(r.task_id, r.seed): r for r in rows}
    tasks = sorted({r.task_id for r in rows})
    seeds = sorted({r.seed for r in rows})
    head = "| | " + " | ".join(t.lstrip("shv").lstrip("0") or "0" for t in tasks) + " | total |"
    sep = "|---" * (len(tasks) + 2) + "|"
    if table == "iii":
        paper = PAPER_TABLE_III
        lines += [head.replace(" total |", ""), "|---" * (len(tasks) + 1) + "|"]
        ours = []
        for t in tasks:
            ev = _result_event(by[(t, 0)])
            ours.append(str(ev.get("feedback_rounds")) if by[(t, 0)].success else f">{cfg['max_feedback']}")
        lines.append("| ours (embedded) | " + " | ".join(ours) + " |")
        lines.append("| paper (GPT-3.5) | " + " | ".join(str(paper[int(t[1:])]) for t in tasks) + " |")
        solved = sum(1 for t in tasks if by[(t, 0)].success)
        lines += ["", f"solved within {cfg['max_feedback']} rounds: {solved}/{len(tasks)} scenarios run "
                      f"(paper: 14/14)", ""]
        calls = [r.llm_calls for r in rows]
        lines += [f"LLM calls per scenario: {', '.join(map(str, calls))} (first answer + feedback rounds)", ""]
        lines.append("Feedback given (kind per round):")
        for t in tasks:
            kinds = [e.get("kind") for e in by[(t, 0)].trace if e.get("type") == "feedback"]
            lines.append(f"- {t}: {', '.join(kinds) or '-'}")
        return "\n".join(lines)
    if table == "lfo":
        lines += ["| task | instructions | solved per instruction | rounds | executable | final goal | "
                  "env_after = executor (fraction) |", "|---|---|---|---|---|---|---|"]
        for t in tasks:
            r = by[(t, 0)]
            ev = _result_event(r)
            lines.append(f"| {t} | {ev.get('instructions')} | {ev.get('solved')} | {ev.get('rounds')} | "
                         f"{ev.get('executable')} | {ev.get('correct')} | {ev.get('env_match')} |")
        return "\n".join(lines)
    paper = PAPER_TABLE_II if table == "ii" else PAPER_TABLE_VI if table == "vi" else None
    lines += [head, sep]
    for s in seeds:
        row = [int(by[(t, s)].success) if (t, s) in by else "-" for t in tasks]
        lines.append(f"| trial {s + 1}: executable and correct | " + " | ".join(map(str, row)) +
                     f" | {sum(x for x in row if x != '-')}/{len(tasks)} |")
    for s in seeds:
        row = [int(bool(_result_event(by[(t, s)]).get("executable"))) if (t, s) in by else "-" for t in tasks]
        lines.append(f"| trial {s + 1}: executable | " + " | ".join(map(str, row)) +
                     f" | {sum(x for x in row if x != '-')}/{len(tasks)} |")
    if paper:
        for s in seeds:
            row = [paper[int(t[1:])][s] for t in tasks]
            lines.append(f"| trial {s + 1}: paper (GPT-3.5) | " + " | ".join(map(str, row)) + f" | {sum(row)}/{len(tasks)} |")
    n = len(rows)
    ok = sum(1 for r in rows if r.success)
    ex = sum(1 for r in rows if _result_event(r).get("executable"))
    q = sum(int(_result_event(r).get("questions") or 0) for r in rows)
    lines += ["", f"episodes {n}: executable and correct {ok} ({ok / n:.0%}), executable {ex} ({ex / n:.0%}), "
                  f"answers with a question {q}", ""]
    fails: dict[str, int] = {}
    for r in rows:
        if not r.success:
            key = (r.error or "").split(":")[0][:60]
            fails[key] = fails.get(key, 0) + 1
    if fails:
        lines.append("Most frequent failures (first failing step or 'goal not reached'):")
        for k, v in sorted(fails.items(), key=lambda kv: -kv[1])[:8]:
            lines.append(f"- {v}x {k}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Wake et al. Tables II / III / VI on a live model")
    ap.add_argument("--table", choices=sorted(TABLES), required=True)
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--temperature", type=float, default=1.0)
    ap.add_argument("--prompts", default="project", choices=("project", "original"))
    ap.add_argument("--free", action="store_true", help="no constrained decoding")
    ap.add_argument("--max-feedback", type=int, default=5)
    ap.add_argument("--db", type=Path, default=Path("results") / "wake.sqlite")
    ap.add_argument("--run-id")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--tasks", help="comma-separated task ids (e.g. s08,s09): run only these (the report shows all "
                                    "episodes of the run); a second process on other tasks shares the store")
    ap.add_argument("--llm", default="embedded")
    ap.add_argument("--model")
    ap.add_argument("--base-url")
    ap.add_argument("--n-ctx", type=int, default=8192)
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--md", type=Path)
    args = ap.parse_args(argv)
    text = run(args)
    sys.stdout.write(text + "\n")
    if args.md:
        args.md.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
