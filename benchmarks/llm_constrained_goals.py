"""Constrained goal generation over the 104 AutoGPT+P SayCan scenarios (LLM issue, bar 1).

For every row: build the domain and problem from the scene, render AutoGPT+P's goal prompt
(the first LLM step of its Plan tool), decode a goal under the goal grammar of that domain
and scene, parse and check it, plan it with Fast Downward, execute the plan, and check the
row's desired goal in the final state (success). Prints a table per family: parse + check
rate, success, median / p95 model latency per goal, tokens.

    .venv/bin/python benchmarks/llm_constrained_goals.py                  # embedded SmolLM2
    .venv/bin/python benchmarks/llm_constrained_goals.py --serve          # openai backend vs a local llama.cpp server
    .venv/bin/python benchmarks/llm_constrained_goals.py --backend openai --base-url URL --model NAME
    .venv/bin/python benchmarks/llm_constrained_goals.py --free           # unconstrained, for comparison
    .venv/bin/python benchmarks/llm_constrained_goals.py --record run.jsonl / --backend replay --replay run.jsonl
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from groundplan.bench.datasets.autogpt_p import saycan_tasks
from groundplan.errors import GroundplanError
from groundplan.llm import GoalGrammarOptions, LLMConfig, UsageMeter, build_llm, goal_grammar, propose_goal
from groundplan.llm.server import LocalLlamaServer
from groundplan.planners import PlannerLimits, get_planner
from groundplan.prompts.autogpt_p import goal_prompt
from groundplan.sim.pipeline import build, plan_and_check


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f} %" if b else "-"


def p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))] if xs else float("nan")


def run(args: argparse.Namespace, console: Console, base_url: str | None) -> list[dict]:
    cfg = LLMConfig(backend=args.backend, model=args.model, base_url=base_url, cache=args.cache,
                    cache_dir=Path(args.cache_dir) if args.cache_dir else None,
                    record=Path(args.record) if args.record else None,
                    replay=tuple(Path(p) for p in args.replay), n_threads=args.threads, n_ctx=args.n_ctx)
    llm = build_llm(cfg)
    tasks = saycan_tasks()
    if args.order == "scene":  # consecutive prompts share the scene prefix: llama.cpp reuses its KV cache
        tasks = sorted(tasks, key=lambda t: t.scene_file)
    if args.limit:
        tasks = tasks[: args.limit]
    planner = get_planner("fast-downward", limits=PlannerLimits(timeout=args.plan_timeout))
    opts = GoalGrammarOptions(max_depth=args.depth, max_args=args.width, wrap_goal=not args.no_wrap)
    built: dict[str, object] = {}
    rows = []
    meter = UsageMeter()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.fields[last]}"), console=console) as prog:
        bar = prog.add_task(f"goals ({llm.backend_name}, {llm.model})", total=len(tasks), last="")
        for t in tasks:
            row = {"id": t.id, "family": t.subset, "instruction": t.instruction, "desired": t.goal,
                   "scene": t.scene_file}
            try:
                if t.scene_file not in built:
                    built[t.scene_file] = build(t.scene_file, oam_file=t.oam_file, strict=False)
                pt = built[t.scene_file]
                prompt = goal_prompt(pt.domain, pt.problem, t.instruction)
                g = goal_grammar(pt.domain, pt.problem, opts) if not args.free else None
                t0, c0 = time.perf_counter(), time.process_time()
                prop = propose_goal(llm, prompt, pt.domain, pt.problem, constrained=not args.free, grammar=g,
                                    usage=meter)
                row.update(wall_s=time.perf_counter() - t0, cpu_s=time.process_time() - c0, latency_s=prop.completion.usage.latency_s,
                           source=prop.completion.usage.source, prompt_tokens=prop.completion.usage.prompt_tokens,
                           completion_tokens=prop.completion.usage.completion_tokens, answer=prop.completion.text,
                           goal=prop.goal.pddl() if prop.goal is not None else None, parsed=prop.ok,
                           error=prop.error, finish=prop.completion.finish_reason)
                if prop.ok:
                    out = plan_and_check(pt, prop.goal.pddl(), planner, check_text=t.goal, timeout=args.plan_timeout,
                                         typecheck=False)
                    row.update(plan_status=out.status, success=bool(out.check), plan=list(out.plan), cost=out.cost)
                else:
                    row.update(plan_status="no goal", success=False)
            except GroundplanError as exc:
                row.update(parsed=False, success=False, error=str(exc), latency_s=None, plan_status="error")
            rows.append(row)
            lat = row.get("latency_s")
            prog.update(bar, advance=1, last=f"{lat:.2f} s  {str(row.get('goal'))[:50]}" if lat is not None else "")
    s = meter.summary()
    console.print(f"LLM calls {s.calls} (model {s.model_calls}, cache {s.cached_calls}, replay {s.replayed_calls}); "
                  f"tokens {s.prompt_tokens} prompt + {s.completion_tokens} completion; model calls counted by "
                  f"the backend: {llm.model_calls}", highlight=False)
    llm.close()
    return rows


def report(rows: list[dict], console: Console, title: str) -> dict:
    table = Table(title=title)
    for c in ("family", "rows", "parse+check", "success", "median s", "p95 s", "median cpu s", "prompt tok",
              "completion tok"):
        table.add_column(c, justify="right" if c != "family" else "left")
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(r["family"], []).append(r)

    def line(name: str, rs: list[dict]) -> None:
        lats = [r["latency_s"] for r in rs if r.get("latency_s") is not None]
        cpus = [r["cpu_s"] for r in rs if r.get("cpu_s") is not None]
        ok = sum(1 for r in rs if r.get("parsed"))
        succ = sum(1 for r in rs if r.get("success"))
        table.add_row(name, str(len(rs)), pct(ok, len(rs)), f"{succ} ({pct(succ, len(rs))})",
                      f"{statistics.median(lats):.3f}" if lats else "-", f"{p95(lats):.3f}" if lats else "-",
                      f"{statistics.median(cpus):.3f}" if cpus else "-",
                      f"{statistics.mean(r.get('prompt_tokens', 0) for r in rs):.0f}",
                      f"{statistics.mean(r.get('completion_tokens', 0) for r in rs):.1f}")

    for name, rs in groups.items():
        line(name, rs)
    line("all", rows)
    console.print(table)
    lats = [r["latency_s"] for r in rows if r.get("latency_s") is not None]
    cpus = [r["cpu_s"] for r in rows if r.get("cpu_s") is not None]
    summary = {"median_cpu_s": statistics.median(cpus) if cpus else None, "rows": len(rows), "parsed": sum(1 for r in rows if r.get("parsed")),
               "success": sum(1 for r in rows if r.get("success")),
               "median_latency_s": statistics.median(lats) if lats else None, "p95_latency_s": p95(lats),
               "mean_latency_s": statistics.mean(lats) if lats else None}
    lat = (f"model latency per goal: median {summary['median_latency_s']:.3f} s, p95 {summary['p95_latency_s']:.3f} s, "
           f"mean {summary['mean_latency_s']:.3f} s; CPU time of this process per goal: median "
           f"{summary['median_cpu_s']:.3f} s") if lats else "no latency measured"
    console.print(f"parse + check: {summary['parsed']}/{summary['rows']} = {pct(summary['parsed'], summary['rows'])}; "
                  f"success: {summary['success']}/{summary['rows']} = {pct(summary['success'], summary['rows'])}; {lat}",
                  highlight=False)
    errors = [r for r in rows if not r.get("parsed")]
    for r in errors[:10]:
        console.print(f"  not parsed: {r['id']}: {r.get('error')}", highlight=False)
    return summary


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="embedded")
    ap.add_argument("--model", default=None)
    ap.add_argument("--base-url", default=None)
    ap.add_argument("--serve", action="store_true",
                    help="start llama-cpp-python's server with the bundled model and use the openai backend")
    ap.add_argument("--free", action="store_true", help="unconstrained generation (goal extracted from text)")
    ap.add_argument("--cache", action="store_true", help="use the disk cache (off by default: this measures)")
    ap.add_argument("--cache-dir", default=None)
    ap.add_argument("--record", default=None, help="write a transcript (JSONL)")
    ap.add_argument("--replay", nargs="*", default=[], help="transcripts for --backend replay")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--n-ctx", type=int, default=4096)
    ap.add_argument("--depth", type=int, default=2, help="goal grammar: and/or levels")
    ap.add_argument("--width", type=int, default=4, help="goal grammar: children per and/or")
    ap.add_argument("--no-wrap", action="store_true", help="goal grammar without the (:goal ...) wrapper")
    ap.add_argument("--order", choices=("scene", "dataset"), default="scene")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--plan-timeout", type=float, default=60.0)
    ap.add_argument("--json", default=None, help="write per-row results here")
    args = ap.parse_args()
    console = Console(width=max(120, Console().width))
    server = None
    base_url = args.base_url
    if args.serve:
        args.backend = "openai"
        args.model = args.model or "smollm2"
        server = LocalLlamaServer(alias=args.model, n_ctx=args.n_ctx, n_threads=args.threads, logits_all=False)
    with (server or contextlib.nullcontext()) as srv:
        if srv is not None:
            base_url = srv.base_url
            console.print(f"llama.cpp server on {base_url}", highlight=False)
        t0 = time.perf_counter()
        rows = run(args, console, base_url)
        total = time.perf_counter() - t0
    mode = "free" if args.free else (f"constrained (depth {args.depth}, width {args.width}"
                                     f"{', no (:goal) wrapper' if args.no_wrap else ''})")
    summary = report(rows, console, f"AutoGPT+P SayCan goals, {mode}, backend {args.backend}")
    import os

    console.print(f"total wall time {total:.1f} s; load average at the end {os.getloadavg()[0]:.2f} on "
                  f"{os.cpu_count()} cores", highlight=False)
    if args.json:
        Path(args.json).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    return 0 if summary["parsed"] == summary["rows"] or args.free else 1


if __name__ == "__main__":
    sys.exit(main())
