"""Every LLM method on its own benchmark with each local model (issue 47, item 4).

    .venv/bin/python benchmarks/local_models_methods.py run --threads 1      # resumes; cells in priority order
    .venv/bin/python benchmarks/local_models_methods.py report               # methods.md from the episodes

A *cell* is one method on one of its own benchmarks. Each cell has a seeded sample of the
dataset's tasks (``--n``, default 24; all tasks where the set is smaller), kept in the sample's
random order (LLM+P: round-robin over its 7 domains, so a cut cell still covers them), and runs
it in *rounds*: one task with every model in ``--models`` (the local models and SmolLM2), so
that every model of a cell is measured on the same tasks. A cell starts no new round once the
time it has used (over every invocation, from the recorded episodes) plus its mean round time
would pass its budget (``CELLS``, scaled by ``--budget-scale``); a task is stopped after
``--task-timeout`` seconds (recorded as ``task_timeout``, counted with the errors, never as a
failure). ``n`` in the table is how many tasks ran.

Episodes are appended to ``benchmarks/results/llm/methods/episodes.jsonl`` (one line per
cell x model x task; a task already recorded is not run again) and packed into
``benchmarks/results/llm/methods.tar.xz`` (``results_archive.py pack``); ``report`` reads
them from either and writes ``benchmarks/results/llm/methods.md``.

Paper figures (``PAPER``) are the numbers each paper reports for its own method on that
benchmark with its own (hosted) model, copied from the method's results README or notes
named beside them; they are references, not results of this script.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import signal
import sys
import time
import traceback
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results" / "llm"
EPISODES = OUT / "methods" / "episodes.jsonl"
TABLE = OUT / "methods.md"
COMMANDS = OUT / "methods_commands.txt"

MODELS = ("qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b", "smollm2-135m")
SHORT = {"qwen2.5-coder-0.5b": "Qwen2.5-Coder-0.5B", "qwen2.5-coder-1.5b": "Qwen2.5-Coder-1.5B",
         "smollm2-135m": "SmolLM2-135M"}


@dataclass(frozen=True)
class Cell:
    key: str  # unique label
    method: str
    dataset: str
    budget: float  # seconds over all models
    config: tuple[tuple[str, Any], ...] = ()
    n: Optional[int] = None  # None: --n


# priority order (issue 47's brief): the AutoGPT+P SayCan cells, SayCan, LLM+P, Wake, the
# VirtualHome methods, then the rest. Budgets sum to about 100 minutes of one thread.
CELLS: tuple[Cell, ...] = (
    Cell("AutoGPT+P @ autogptp-saycan", "autogpt_p", "autogptp-saycan", 780),
    Cell("AutoGPT+P, no self-correction @ autogptp-saycan", "autogpt_p_no_correction", "autogptp-saycan", 480),
    Cell("SayCan @ saycan-101-judged", "saycan", "saycan-101-judged", 480),
    Cell("LLM+P @ llmp", "llm_p", "llmp", 480, n=28),
    Cell("Wake et al. @ wake-vh", "wake_prompts", "wake-vh", 420),
    Cell("BrainBody-LLM @ progprompt-test_unseen", "brainbody", "progprompt-test_unseen", 300),
    Cell("ProgPrompt @ progprompt-test_unseen", "progprompt", "progprompt-test_unseen", 300),
    Cell("Inner Monologue @ progprompt-test_unseen", "inner_monologue", "progprompt-test_unseen", 300),
    Cell("BrainBody-LLM @ eai-virtualhome", "brainbody", "eai-virtualhome", 240),
    Cell("ProgPrompt @ eai-virtualhome", "progprompt", "eai-virtualhome", 240),
    Cell("Inner Monologue @ eai-virtualhome", "inner_monologue", "eai-virtualhome", 240),
    Cell("AutoGPT+P @ autogptp-plan-tool", "autogpt_p", "autogptp-plan-tool", 300),
    Cell("BrainBody-LLM @ franka-tabletop", "brainbody", "franka-tabletop", 240),
    Cell("COWP @ cowp", "cowp", "cowp", 240),
)

# The papers' own figures for the cell (their hosted models), with where they are written down.
PAPER: dict[str, tuple[str, str]] = {
    "AutoGPT+P @ autogptp-saycan": (
        "GPT-4 0.98, GPT-3 0.40 (Birr et al. Table IV/V, self-correction)",
        "benchmarks/results/autogpt_p/README.md section 1 and ../shared/papers/autogpt-p.txt"),
    "AutoGPT+P, no self-correction @ autogptp-saycan": (
        "GPT-4 0.78, GPT-3 0.34 (Birr et al. Table IV/V, no correction)",
        "benchmarks/results/autogpt_p/README.md section 1"),
    "SayCan @ saycan-101-judged": (
        "PaLM-540B 0.81 (SayCan's human-judged plan success, mean of its 7 families as quoted in AutoGPT+P Table IV)",
        "benchmarks/results/saycan/saycan@saycan-101-judged.md (paper column)"),
    "LLM+P @ llmp": (
        "not quoted: the LLM+P paper's per-domain table is not in ../shared/papers",
        "benchmarks/results/llmp/README.md"),
    "Wake et al. @ wake-vh": (
        "GPT-3.5: 5/14 executable and correct, one answer per scenario (Table II; these runs made one call, no "
        "feedback round); 14/14 within 3 rounds of human feedback (Table III)",
        "benchmarks/results/wake/README.md and ../shared/papers/wake-chatgpt-prompts.txt"),
    "BrainBody-LLM @ progprompt-test_unseen": (
        "SR / GCR 0.54 / 0.81 (GPT-4), 0.36 / 0.70 (GPT-3.5), 0.40 / 0.55 (PaLM 2), with feedback (Table 1)",
        "benchmarks/results/brainbody/README.md (Table 1) and ../shared/papers/brainbody-llm.txt"),
    "ProgPrompt @ progprompt-test_unseen": (
        "SR / GCR 0.34 / 0.65 (GPT-3), 0.37 / 0.64 (GPT-4), as BrainBody-LLM's Table 1 reports ProgPrompt",
        "benchmarks/results/brainbody/README.md (Table 1)"),
    "Inner Monologue @ progprompt-test_unseen": (
        "none: the Inner Monologue paper does not evaluate VirtualHome",
        "benchmarks/results/inner_monologue/README.md"),
    "BrainBody-LLM @ eai-virtualhome": ("none: the paper reports test_unseen only", "benchmarks/results/brainbody/README.md"),
    "ProgPrompt @ eai-virtualhome": ("none quoted for this set", "benchmarks/results/brainbody/README.md"),
    "Inner Monologue @ eai-virtualhome": ("none: the Inner Monologue paper does not evaluate VirtualHome",
                                          "benchmarks/results/inner_monologue/README.md"),
    "AutoGPT+P @ autogptp-plan-tool": (
        "GPT-4 0.78, GPT-3 0.43 (Birr et al. Table VI, mean of the 5 sets, self-correction)",
        "benchmarks/results/autogpt_p/README.md section 1"),
    "BrainBody-LLM @ franka-tabletop": (
        "GPT-4 7/7, GPT-3.5 2/7, PaLM 2 3/7 (Table 4)",
        "benchmarks/results/brainbody/README.md (Table 4) and ../shared/papers/brainbody-llm.txt"),
    "COWP @ cowp": (
        "GPT-3: task completion 67.8 %, situation handling 36.9 % (Ding et al. Table 4)",
        "benchmarks/results/cowp/README.md and ../shared/papers/cowp.txt"),
}


class TaskTimeout(BaseException):
    """One task ran past --task-timeout (SIGALRM). A BaseException, so the methods' and the
    runner's ``except Exception`` do not turn it into a crash."""


def _alarm(signum, frame):  # noqa: ARG001 - signal handler signature
    raise TaskTimeout


def load_records() -> list[dict]:
    text = ""
    if EPISODES.exists():
        text = EPISODES.read_text(encoding="utf-8")
    else:
        try:
            import results_archive  # benchmarks/ is on sys.path when this script runs

            text = results_archive.read_text(EPISODES)
        except Exception:  # noqa: BLE001 - no archive yet
            text = ""
    out: dict[tuple[str, str, str], dict] = {}
    for line in text.splitlines():
        if line.strip():
            r = json.loads(line)
            out[(r["cell"], r["model"], r["task_id"])] = r  # the last, if run twice
    return list(out.values())


def sample_tasks(tasks: Sequence[Any], n: int, seed: int, dataset: str) -> list[Any]:
    """A seeded sample of ``n`` tasks in the sample's random order (its first k are a seeded
    sample of k); LLM+P: round-robin over the domains (each domain's problems shuffled)."""
    rng = random.Random(f"{seed}:{dataset}")
    if dataset == "llmp":
        by: dict[str, list[Any]] = defaultdict(list)
        for t in tasks:
            by[t.id.split("/")[0].split("-")[0] if "/" in t.id else t.extras.get("domain", t.id.rsplit("-", 1)[0])
               ].append(t)
        for v in by.values():
            rng.shuffle(v)
        order, i = [], 0
        while len(order) < len(tasks):
            for d in sorted(by):
                if i < len(by[d]):
                    order.append(by[d][i])
            i += 1
        return order[:n]
    order = list(tasks)
    rng.shuffle(order)
    return order[:n]


class Models:
    """One loaded LLM per model, kept for the whole run (RAM allows all three)."""

    def __init__(self, threads: int, kv_cache_mb: int):
        self.threads, self.kv_cache_mb = threads, kv_cache_mb
        self._llm: dict[str, Any] = {}

    def get(self, name: str) -> Any:
        if name not in self._llm:
            from groundplan.llm import LLMConfig, build_llm

            extra = {"kv_cache_mb": self.kv_cache_mb} if self.kv_cache_mb else {}
            self._llm[name] = build_llm(LLMConfig(backend="embedded", model=name, n_threads=self.threads,
                                                  cache=False, extra=extra))
        return self._llm[name]

    def drop(self, name: str) -> None:
        """After a task was stopped mid-call: the model's state may be half-evaluated."""
        llm = self._llm.pop(name, None)
        if llm is not None:
            try:
                llm.close()
            except Exception:  # noqa: BLE001
                pass


def run_one(cell: Cell, task: Any, model: str, models: Models, planner: Any, seed: int,
            timeout: float) -> dict:
    from groundplan.core.episode import run_method
    from groundplan.errors import GroundplanError
    from groundplan.methods.base import EpisodeStatus, RunContext, failed_episode, method_class

    t0 = time.perf_counter()
    rec: dict[str, Any]
    try:
        method = method_class(cell.method)()
        ctx = RunContext(llm=models.get(model), planner=planner, config=dict(cell.config), planner_timeout=120.0)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            ep = run_method(method, task, ctx.with_seed(seed))
        except GroundplanError as exc:
            ep = failed_episode(task, cell.method, EpisodeStatus.ERROR, str(exc), seed=seed)
        except Exception as exc:  # noqa: BLE001 - a method bug is the cell's result, recorded
            ep = failed_episode(task, cell.method, EpisodeStatus.CRASH, f"{type(exc).__name__}: {exc}", seed=seed)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        d = ep.to_json()
        u = d.get("usage") or {}
        m = d.get("metrics") or {}
        rec = {"status": d["status"], "success": bool(d["success"]), "gcr": m.get("gcr"),
               "calls": u.get("calls", 0), "model_calls": u.get("model_calls", 0),
               "prompt_tokens": u.get("prompt_tokens", 0), "completion_tokens": u.get("completion_tokens", 0),
               "llm_s": round(u.get("latency_s", 0.0), 2), "goal": (d.get("goal") or "")[:300] or None,
               "plan_len": len(d.get("plan") or ()), "error": (d.get("error") or "")[:300] or None,
               "reason": (d.get("reason") or "")[:300] or None,
               "metrics": {k: v for k, v in m.items() if isinstance(v, (int, float, bool, str)) and len(str(v)) < 80}}
    except TaskTimeout:
        models.drop(model)
        rec = {"status": "task_timeout", "success": False, "gcr": None, "calls": None, "model_calls": None,
               "prompt_tokens": None, "completion_tokens": None, "llm_s": None,
               "error": f"stopped after {timeout:.0f} s (per-task timeout)"}
    except Exception as exc:  # noqa: BLE001 - e.g. the model does not load
        rec = {"status": "crash", "success": False, "gcr": None, "calls": None, "model_calls": None,
               "prompt_tokens": None, "completion_tokens": None, "llm_s": None,
               "error": f"{type(exc).__name__}: {exc}"[:300], "where": traceback.format_exc(limit=3)[-400:]}
    rec["seconds"] = round(time.perf_counter() - t0, 2)
    return rec


def run_cells(args: argparse.Namespace) -> None:
    from groundplan.bench.datasets import load_tasks
    from groundplan.planners import PlannerLimits, get_planner

    models_wanted = tuple(args.models.split(","))
    cells = [c for c in CELLS if not args.cells or any(s in c.key for s in args.cells.split(";"))]
    recs = load_records()
    done = {(r["cell"], r["model"], r["task_id"]) for r in recs}
    spent: dict[str, float] = defaultdict(float)
    for r in recs:
        spent[r["cell"]] += r["seconds"]
    models = Models(args.threads, args.kv_cache_mb)
    planner = get_planner("fast-downward", limits=PlannerLimits(timeout=120.0))
    signal.signal(signal.SIGALRM, _alarm)
    EPISODES.parent.mkdir(parents=True, exist_ok=True)
    t_run = time.perf_counter()
    for cell in cells:
        tasks = sample_tasks(load_tasks(cell.dataset), cell.n or args.n, args.seed, cell.dataset)
        budget = cell.budget * args.budget_scale
        rounds = [sum(r["seconds"] for r in recs if r["cell"] == cell.key and r["task_id"] == t.id)
                  for t in tasks if all((cell.key, m, t.id) in done for m in models_wanted)]
        for t in tasks:
            todo = [m for m in models_wanted if (cell.key, m, t.id) not in done]
            if not todo:
                continue
            mean_round = sum(rounds) / len(rounds) if rounds else 0.0
            if spent[cell.key] + mean_round > budget:
                print(f"{cell.key}: budget {budget:.0f} s used ({spent[cell.key]:.0f} s, mean round "
                      f"{mean_round:.0f} s); {t.id} and later not started", flush=True)
                break
            if args.stop_after and time.perf_counter() - t_run > args.stop_after:
                print(f"--stop-after {args.stop_after:.0f} s reached", flush=True)
                return
            this_round = 0.0
            for m in todo:
                rec = run_one(cell, t, m, models, planner, args.seed, args.task_timeout)
                full = {"cell": cell.key, "method": cell.method, "dataset": cell.dataset, "model": m,
                        "task_id": t.id, "seed": args.seed, "threads": args.threads,
                        "kv_cache_mb": args.kv_cache_mb, "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                        **rec}
                with EPISODES.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(full) + "\n")
                spent[cell.key] += rec["seconds"]
                this_round += rec["seconds"]
                print(f"{cell.key:52s} {m:20s} {t.id:40s} {rec['status']:12s} {rec['seconds']:7.1f}s "
                      f"calls {rec.get('calls')}", flush=True)
            rounds.append(this_round)


# --------------------------------------------------------------------------- report

ERRORS = ("error", "crash", "task_timeout", "invalid", "unsupported")


def _fmt(x: Optional[float], digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def summarize(rs: list[dict]) -> dict[str, Any]:
    n = len(rs)
    errs = [r for r in rs if r["status"] in ERRORS]
    # GCR over the episodes that did not end in an error; one that executed nothing (no goal,
    # an unsolvable goal) reports none and counts 0, as in the papers' averages over all tasks
    reports_gcr = any(r.get("gcr") is not None for r in rs)
    gcrs = [r.get("gcr") or 0.0 for r in rs if r["status"] not in ERRORS] if reports_gcr else []
    calls = [r["calls"] for r in rs if r.get("calls") is not None]
    toks = [r["prompt_tokens"] + r["completion_tokens"] for r in rs if r.get("prompt_tokens") is not None]
    return {"n": n, "succ": sum(r["success"] for r in rs), "gcr": sum(gcrs) / len(gcrs) if gcrs else None,
            "errors": len(errs), "timeouts": sum(r["status"] == "task_timeout" for r in rs),
            "calls": sum(calls) / len(calls) if calls else None, "tokens": sum(toks) / len(toks) if toks else None,
            "sec": sum(r["seconds"] for r in rs) / n if n else None,
            "first_error": next((r.get("error") for r in errs if r.get("error")), None),
            "minimal": sum(bool((r.get("metrics") or {}).get("minimal")) for r in rs)
            if any("minimal" in (r.get("metrics") or {}) for r in rs) else None,
            "statuses": ", ".join(f"{k} {v}" for k, v in sorted(
                {st: sum(r["status"] == st for r in rs) for st in {r["status"] for r in rs}}.items(),
                key=lambda kv: (-kv[1], kv[0])))}


def report(args: argparse.Namespace) -> str:
    recs = load_records()
    models_wanted = tuple(args.models.split(","))
    by: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in recs:
        by[(r["cell"], r["model"])].append(r)
    cmds = COMMANDS.read_text(encoding="utf-8").strip().splitlines() if COMMANDS.is_file() else []
    lines = ["# Every LLM method with each local model on its own benchmark (issue 47, item 4)", "",
             "Regenerate (resumes from the recorded episodes; `report` alone rewrites this file):", "",
             "    GROUNDPLAN_DATA=... nice -n 10 .venv/bin/python benchmarks/local_models_methods.py run "
             f"--threads 1 --n {args.n} --seed {args.seed} --task-timeout {args.task_timeout:.0f} "
             f"--kv-cache-mb {args.kv_cache_mb}", "    .venv/bin/python benchmarks/local_models_methods.py report", "",
             "The invocations that recorded the episodes (`methods_commands.txt`):", "",
             *[f"    {c}" for c in cmds], "",
             "Per-episode rows: `methods/episodes.jsonl`, packed in `methods.tar.xz` "
             "(`benchmarks/results_archive.py list benchmarks/results/llm/methods`).", "",
             "How: each cell is one method on one of its own benchmarks; a seeded sample (seed "
             f"{args.seed}) of {args.n} tasks (all where the set is smaller; LLM+P 28 = 7 domains x 4, "
             "round-robin over domains), run task by task with **every model on the same task** (one thread, "
             "embedded llama.cpp, KV prefix cache "
             f"{args.kv_cache_mb} MB, LLM disk cache off, `nice -n 10` on a 2-core machine shared with another "
             "job). A cell starts no new task once its time budget is used, so `n` is how many tasks ran; where "
             "n is below the sample the cell was cut for time, and the table says so. Success = the dataset's "
             "check after execution (gold goal, goal conditions or checker). **Errors** (LLM or planner error, "
             "crash, a task stopped at the per-task timeout) are counted separately and are not failures; "
             "success is over all n. GCR: mean goal-condition recall over the episodes without an error, for "
             "methods that report it (an episode that executed nothing, e.g. an unsolvable goal, counts 0). Calls and "
             "tokens (prompt + completion) per task over the episodes that finished; s/task: wall time per task "
             "including everything (planning, execution).", ""]
    # the overview: one line per cell, success (GCR) per model on the same tasks, and the paper
    sizes = {}
    try:
        from groundplan.bench.datasets import load_tasks

        sizes = {c.key: min(c.n or args.n, len(load_tasks(c.dataset))) for c in CELLS}
    except Exception:  # noqa: BLE001 - no data directory: the sample sizes are left out
        pass
    lines += ["## Overview", "",
              "Success rate (GCR where the method reports it) over the n tasks every model ran; errors "
              "(including per-task timeouts) in brackets when there were any; s/task. `n / sample`: tasks run "
              "of the seeded sample (below the sample: the cell's time budget ran out).", "",
              "| method @ benchmark | n / sample | " + " | ".join(SHORT.get(m, m) for m in models_wanted)
              + " | paper |", "|---|---|" + "---|" * len(models_wanted) + "---|"]
    for cell in CELLS:
        have = [m for m in models_wanted if by.get((cell.key, m))]
        if not have:
            lines.append(f"| {cell.key} | 0 / {sizes.get(cell.key, '?')} | " + " | ".join("not run" for _ in models_wanted)
                         + f" | {PAPER.get(cell.key, ('-',))[0]} |")
            continue
        common = set.intersection(*[{r["task_id"] for r in by[(cell.key, m)]} for m in have])
        cells_txt = []
        for m in models_wanted:
            rs = [r for r in by.get((cell.key, m), []) if r["task_id"] in common]
            if not rs:
                cells_txt.append("not run")
                continue
            x = summarize(rs)
            cells_txt.append(f"{x['succ'] / x['n']:.2f}" + (f" ({x['gcr']:.2f})" if x["gcr"] is not None else "")
                             + (f" [{x['errors']} err]" if x["errors"] else "") + f", {x['sec']:.0f} s")
        lines.append(f"| {cell.key} | {len(common)} / {sizes.get(cell.key, '?')} | " + " | ".join(cells_txt)
                     + f" | {PAPER.get(cell.key, ('-',))[0]} |")
    lines += ["", "## Per cell", ""]
    for cell in CELLS:
        lines += [f"### {cell.key}", ""]
        paper = PAPER.get(cell.key)
        lines += ["| model | n | success | rate | GCR | errors (timeouts) | LLM calls / task | tokens / task | "
                  "s / task | statuses |", "|---|---|---|---|---|---|---|---|---|---|"]
        any_row = False
        ids = {m: {r["task_id"] for r in by.get((cell.key, m), [])} for m in models_wanted}
        for m in models_wanted:
            rs = by.get((cell.key, m), [])
            if not rs:
                lines.append(f"| {SHORT.get(m, m)} | 0 | not run | | | | | | | |")
                continue
            any_row = True
            s = summarize(rs)
            lines.append(f"| {SHORT.get(m, m)} | {s['n']} | {s['succ']}/{s['n']} | {s['succ'] / s['n']:.2f} | "
                         f"{_fmt(s['gcr'])} | {s['errors']} ({s['timeouts']}) | {_fmt(s['calls'], 1)} | "
                         f"{_fmt(s['tokens'], 0)} | {_fmt(s['sec'], 1)} | {s['statuses']}"
                         + (f"; minimal {s['minimal']}" if s["minimal"] is not None else "") + " |")
        if paper:
            lines.append(f"| paper: {paper[0]} | | | | | | | | | |")
        lines.append("")
        if any_row:
            common = set.intersection(*[v for v in ids.values() if v]) if any(ids.values()) else set()
            if any(ids[m] != common for m in models_wanted if ids[m]):
                lines.append(f"Same tasks for every model: {len(common)} (a model ran more where a round was cut).")
            errs = [(m, summarize(by[(cell.key, m)])["first_error"]) for m in models_wanted if by.get((cell.key, m))]
            errs = [(m, e) for m, e in errs if e]
            for m, e in errs:
                lines.append(f"- first error, {SHORT.get(m, m)}: {e[:160].replace('|', '/')}")
            if paper:
                lines.append(f"- paper figure from {paper[1]}")
            lines.append("")
    text = "\n".join(lines) + "\n"
    TABLE.write_text(text, encoding="utf-8")
    return text


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("run", "report"))
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--n", type=int, default=24)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--task-timeout", type=float, default=240.0)
    ap.add_argument("--budget-scale", type=float, default=1.0, help="multiply every cell's budget")
    ap.add_argument("--kv-cache-mb", type=int, default=int(os.environ.get("GROUNDPLAN_KV_CACHE_MB", 0) or 0))
    ap.add_argument("--cells", default="", help="only cells whose label contains one of these (';'-separated)")
    ap.add_argument("--stop-after", type=float, default=0.0, help="start no task after this many seconds")
    args = ap.parse_args(argv)
    if args.what == "run":
        COMMANDS.parent.mkdir(parents=True, exist_ok=True)
        with COMMANDS.open("a", encoding="utf-8") as fh:
            fh.write(time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()) + ": .venv/bin/python "
                     "benchmarks/local_models_methods.py " + shlex.join(sys.argv[1:] if argv is None else list(argv))
                     + "\n")
        run_cells(args)
    print(report(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
