"""Small-model planning (issue 10): goalsearch with the embedded SmolLM2-135M on AutoGPT+P's
SayCan set (104 tasks, 8 families) and plan-tool sets, and the ablation: the
embedding-only baseline, the language model alone, and each technique switched off in turn.

    .venv/bin/python benchmarks/small_model_ablation.py run full --sets saycan,plan-tool
    .venv/bin/python benchmarks/small_model_ablation.py run no-lm no-retrieval ... --sets saycan
    .venv/bin/python benchmarks/small_model_ablation.py report          # tables from the saved runs
    .venv/bin/python benchmarks/small_model_ablation.py list            # the variants

One process, one task at a time, tasks in dataset order (as a user would meet them: the
first task of a scene pays for its candidate embeddings). Per task: success (the plan for
the chosen goal, executed, satisfies the gold goal; the gold goal is read only for that),
wall time and CPU time of the whole episode (scene build, search, LM, planning, execution).
The LLM disk cache is off, so every model call is really made. Results go to
``--out`` (default benchmarks/results/small_model/ablation/, not tracked), one JSON file per
variant and set; the runs behind REPORT.md are packed in small_model/ablation.tar.xz, which
``report`` reads too (``results_archive.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import results_archive  # a sibling script (benchmarks/ is sys.path[0] when run as a script)

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "small_model" / "ablation"

#: name -> (description, method config, uses the LLM)
VARIANTS: dict[str, tuple[str, dict, bool]] = {
    "full": ("goalsearch: everything on (the default)", {}, True),
    "embedding-baseline": ("single atoms ranked by MiniLM similarity only (the issue's baseline)",
                           {"retrieval": False, "decomposition": False, "lm_scoring": False, "use_phrases": False,
                            "source_phrases": False, "self_correction": False, "holds_penalty": 0.0}, False),
    "lm-scoring-alone": ("SayCan-style: every candidate atom scored by SmolLM2 log-probability, zero-shot, "
                         "no embeddings / examples / decomposition",
                         {"embeddings": False, "retrieval": False, "decomposition": False, "lm_margin": 0.0,
                          "lm_top": 100000, "w_lm": 1.0, "self_correction": False}, True),
    "lm-grammar-alone": ("SmolLM2 writes the goal under the goal grammar (AutoGPT+P's goal prompt), "
                         "no search", {}, True),
    "no-lm": ("minus LM scoring", {"lm_scoring": False}, False),
    "no-embeddings": ("minus phrase embeddings (pool prior + LM only)", {"embeddings": False}, True),
    "no-retrieval": ("minus retrieved examples (frame prior and few-shot context)", {"retrieval": False}, True),
    "no-decomposition": ("minus decomposition (single atoms only)", {"decomposition": False}, True),
    "no-self-correction": ("minus self-correction (plan only the first goal)", {"self_correction": False}, True),
    "no-affordance-pruning": ("minus affordance pruning of candidates", {"affordance_pruning": False}, True),
    "no-extra-phrases": ("minus 'from <place>' and 'something to <use>' phrases",
                         {"use_phrases": False, "source_phrases": False}, True),
    "no-cascade": ("LM reranks every task (no confidence cascade)", {"lm_margin": 0.0}, True),
    "clause-context-0.3": ("a clause's atom weighs the whole instruction at 0.3 instead of 0.5",
                           {"w_clause_context": 0.3}, True),
}


#: SayCan's own plan success per family with PaLM-540B, as AutoGPT+P's Table IV reports it
#: (its "Average" 0.81 is the mean over the eight families)
SAYCAN_PALM = (0.93, 0.60, 0.93, 0.93, 0.64, 0.73, 0.73, 1.00)


def tasks_for(set_name: str):
    from groundplan.bench.datasets.autogpt_p import plan_tool_tasks, saycan_tasks

    return saycan_tasks() if set_name == "saycan" else plan_tool_tasks()


def run_grammar_alone(task, llm, planner):
    """The language model alone: AutoGPT+P's goal prompt, decoded under the goal grammar."""
    from groundplan.errors import GroundplanError
    from groundplan.llm import propose_goal
    from groundplan.methods.base import execute_and_score
    from groundplan.prompts.autogpt_p import goal_prompt
    from groundplan.sim.pipeline import build, plan_and_check

    try:
        pt = build(task.scene_file, oam_file=task.oam_file, strict=False)
        prop = propose_goal(llm, goal_prompt(pt.domain, pt.problem, task.instruction), pt.domain, pt.problem,
                            constrained=True)
        if not prop.ok:
            return False, prop.goal_text
        goal = prop.goal.pddl()
        out = plan_and_check(pt, goal, planner, typecheck=False)
        if out.status != "solved":
            return False, goal
        return bool(execute_and_score(pt, out.plan, task).success), goal
    except GroundplanError as exc:
        return False, f"error: {exc}"


def run_variant(name: str, set_name: str, out_dir: Path, limit: int | None = None,
                per_family: int | None = None) -> dict:
    from groundplan.llm import LLMConfig, build_llm
    from groundplan.methods import RunContext, get_method
    from groundplan.planners import get_planner

    desc, config, uses_llm = VARIANTS[name]
    tasks = tasks_for(set_name)[:limit] if limit else tasks_for(set_name)
    if per_family:
        seen: dict[str, int] = {}
        tasks = [t for t in tasks if seen.setdefault(t.subset, 0) < per_family and not seen.update(
            {t.subset: seen[t.subset] + 1})]
    planner = get_planner("fast-downward")
    llm = build_llm(LLMConfig(cache=False)) if uses_llm else None
    method = get_method("goalsearch")
    ctx = RunContext(llm=llm, planner=planner, config=config)
    t_load = time.perf_counter()
    if llm is not None:
        from groundplan.llm.goal_search import _innermost

        b = _innermost(llm)
        if hasattr(b, "load"):
            b.load()
    if name != "lm-grammar-alone" and (config.get("embeddings", True) or config.get("retrieval", True)):
        method.searcher(config)  # loads MiniLM and embeds the example pool
    load_s = time.perf_counter() - t_load
    rows = []
    for t in tasks:
        w0, c0 = time.perf_counter(), time.process_time()
        if name == "lm-grammar-alone":
            ok, goal = run_grammar_alone(t, llm, planner)
            status, calls = ("success" if ok else "failure"), 1
        else:
            ep = method.run(t, ctx)
            ok, goal, status, calls = ep.success, ep.goal, ep.status, ep.usage.model_calls
        rows.append({"task": t.id, "family": t.subset, "instruction": t.instruction, "success": bool(ok),
                     "goal": goal, "status": status, "llm_calls": calls,
                     "wall_s": round(time.perf_counter() - w0, 4), "cpu_s": round(time.process_time() - c0, 4)})
        print(f"{name} {t.id} {'ok ' if ok else 'BAD'} {rows[-1]['wall_s']:.2f}s {t.instruction[:60]!r} -> {goal}",
              flush=True)
    res = {"variant": name, "description": desc + (f" [first {per_family} tasks per family]" if per_family else ""),
           "config": config, "set": set_name, "load_s": round(load_s, 3),
           "loadavg_1m": os.getloadavg()[0], "rows": rows}
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"{name}@{set_name}.json").write_text(json.dumps(res, indent=1))
    return res


def _summary(res: dict) -> dict:
    rows = res["rows"]
    fams: dict[str, list[bool]] = {}
    for r in rows:
        fams.setdefault(r["family"], []).append(r["success"])
    return {"success": sum(r["success"] for r in rows) / len(rows), "n": len(rows),
            "families": {f: sum(v) / len(v) for f, v in fams.items()},
            "family_n": {f: len(v) for f, v in fams.items()},
            "median_wall": statistics.median(r["wall_s"] for r in rows),
            "median_cpu": statistics.median(r["cpu_s"] for r in rows),
            "mean_wall": statistics.mean(r["wall_s"] for r in rows),
            "p90_wall": sorted(r["wall_s"] for r in rows)[int(0.9 * (len(rows) - 1))],
            "llm_share": sum(1 for r in rows if r["llm_calls"]) / len(rows)}


def report(out_dir: Path) -> str:
    runs = {}
    for res in results_archive.read_all_json(out_dir, "*@*.json").values():  # packed runs and new ones
        runs[(res["variant"], res["set"])] = res
    lines = []
    for set_name in ("saycan", "plan-tool"):
        have = [v for v in VARIANTS if (v, set_name) in runs]
        if not have:
            continue
        sums = {v: _summary(runs[(v, set_name)]) for v in have}
        fams = list(sums[have[0]]["families"])
        lines.append(f"## {set_name}: success per family\n")
        short = [f.replace("saycan_", "") for f in fams]
        lines.append("| variant | " + " | ".join(short) + " | all tasks | family mean | median s | median CPU s "
                     "| tasks with LM |")
        lines.append("|---" * (len(fams) + 6) + "|")
        if set_name == "saycan" and len(fams) == len(SAYCAN_PALM):
            lines.append("| SayCan, PaLM-540B (AutoGPT+P Table IV) | " + " | ".join(f"{x:.2f}" for x in SAYCAN_PALM)
                         + f" | | **{sum(SAYCAN_PALM) / len(SAYCAN_PALM):.3f}** | | | |")
        for v in have:
            s = sums[v]
            cells = [f"{s['families'].get(f, float('nan')):.2f}" for f in fams]
            macro = sum(s["families"].values()) / len(s["families"])
            lines.append(f"| {v} | " + " | ".join(cells) + f" | **{s['success']:.3f}** | {macro:.3f} | "
                         f"{s['median_wall']:.2f} | {s['median_cpu']:.2f} | {s['llm_share']:.0%} |")
        lines.append("")
        lines.append("n per family: " + ", ".join(f"{f.replace('saycan_', '')} {sums[have[0]]['family_n'][f]}"
                                                   for f in fams))
        lines.append("")
        for v in have:
            r = runs[(v, set_name)]
            lines.append(f"- {v}: {r['description']}; model load {r['load_s']} s; load average at the end "
                         f"{r['loadavg_1m']:.1f}; mean {sums[v]['mean_wall']:.2f} s, p90 {sums[v]['p90_wall']:.2f} s")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("variants", nargs="+", choices=list(VARIANTS))
    r.add_argument("--sets", default="saycan", help="comma-separated: saycan, plan-tool")
    r.add_argument("--limit", type=int)
    r.add_argument("--per-family", type=int, help="only the first K tasks of each family (for slow variants)")
    r.add_argument("--out", type=Path, default=OUT)
    rp = sub.add_parser("report")
    rp.add_argument("--out", type=Path, default=OUT)
    sub.add_parser("list")
    args = ap.parse_args()
    if args.cmd == "list":
        for k, (d, c, u) in VARIANTS.items():
            print(f"{k:24s} {'LLM ' if u else '    '} {d}  {c}")
        return 0
    if args.cmd == "report":
        print(report(args.out))
        return 0
    for v in args.variants:
        for s in args.sets.split(","):
            res = run_variant(v, s, args.out, args.limit, args.per_family)
            sm = _summary(res)
            print(f"== {v}@{s}: success {sm['success']:.3f} median {sm['median_wall']:.2f} s "
                  f"(CPU {sm['median_cpu']:.2f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
