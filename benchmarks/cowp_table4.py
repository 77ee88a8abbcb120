"""COWP's Table 4 from a results file: task completion % and situation handling % of COWP
and the five baselines, next to the paper's numbers (GPT-3, text-davinci-003), plus the
per-task breakdown (the data of the paper's Figs. 8 and 9), the situations met and how many
of them the robot's skills could still solve.

Runs are made with ``groundplan bench run cowp --method M [--llm embedded] --db DB``; this
script reads every ``<method>@cowp@<backend>`` run in DB (the default run ids):

    .venv/bin/python benchmarks/cowp_table4.py --db results/cowp.sqlite [--md out.md] [--json out.json]

Counting: a trial completes when the task's goal holds in the true world at the end (an
object the acceptability table does not accept in a role cannot play it, so a plan relying
on one fails); situation handling = completed trials among the trials that met a
situation. "Solvable" means a plan existed in the true world right after the situation arose
(an accepted substitute, the second object, or an accepted appliance fix was at hand).
Only trials present for every compared run are counted when ``--common`` is given."""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any, Optional

from groundplan.bench.store import ResultStore

PAPER = {  # Table 4 of Ding et al. (GPT-3 text-davinci-003, 12 tasks, human raters)
    "cowp": (67.8, 36.9), "cowp_progprompt": (61.8, 30.1), "cowp_im": (54.0, 22.1), "cowp_ek": (55.1, 17.3),
    "cowp_cw": (44.3, 0.0), "cowp_lmzsp": (10.2, 0.0),
}
COLUMNS = [("cowp", "COWP (ours)"), ("cowp_progprompt", "ProgPrompt"), ("cowp_im", "Inner Monologue"),
           ("cowp_ek", "EK"), ("cowp_cw", "CW"), ("cowp_lmzsp", "LMZSP")]
EXTRA = [("cowp_gpt3", "COWP, GPT-3 replay"), ("cowp_oracle", "COWP, oracle")]
TASKS = [("drinking_water", "Serve water"), ("setting_table", "Set table"), ("cleaning_floor", "Clean floor"),
         ("grasping_plate", "Wash plate"), ("drinking_soda", "Serve coke"), ("eating_dinner", "Eating dinner")]


def trial_record(row) -> dict[str, Any]:
    res = next((e for e in reversed(row.trace) if e.get("type") == "result"), {})
    calls = [e for e in row.trace if e.get("type") == "llm_call" and e.get("purpose") != "predicate generator"]
    replay = sum(1 for e in calls if (e.get("usage") or {}).get("source") == "replay")
    approx = sum(1 for e in calls if e.get("finish_reason") == "replay-approximate")
    # completion and situation handling as groundplan.core.metrics defined them when the row was stored
    return {"task": row.task_id, "seed": row.seed, "subset": row.subset,
            "success": bool(row.metrics.get("completed", row.success)),
            "met": bool(row.metrics.get("situation_met")), "handled": bool(row.metrics.get("situation_handled")),
            "solvable": res.get("solvable"),
            "situation": res.get("situation"), "calls": len(calls), "replayed": replay - approx, "approx": approx,
            "status": row.status, "seconds": float(row.wall_time)}


def load(db: Path) -> dict[str, dict[str, Any]]:
    """run id -> {method, backend, model, trials: [records]} for the cowp runs in ``db``."""
    out: dict[str, dict[str, Any]] = {}
    with ResultStore(db, must_exist=True) as store:
        for r in store.runs():
            if r["dataset"] != "cowp":
                continue
            rows = list(store.episodes([r["run_id"]], with_trace=True))
            out[r["run_id"]] = {"method": r["method"], "backend": r["backend"], "model": r["model"],
                                "trials": [trial_record(x) for x in rows]}
    return out


def stats(trials: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(trials)
    met = [t for t in trials if t["met"]]
    solv = [t for t in met if t["solvable"]]
    done = sum(t["success"] for t in trials)
    handled = sum(t["handled"] for t in met)
    return {"n": n, "completion": 100.0 * done / n if n else None, "met": len(met),
            "handling": 100.0 * handled / len(met) if met else None, "handled": handled,
            "solvable": len(solv), "handled_of_solvable": sum(t["handled"] for t in solv),
            "covered": sum(1 for t in met if t["calls"] and t["replayed"] + t["approx"] == t["calls"]),
            "covered_exact": sum(1 for t in met if t["calls"] and t["replayed"] == t["calls"]),
            "median_seconds": statistics.median(t["seconds"] for t in trials) if trials else None,
            "per_task": sorted({sum(1 for x in trials if x["subset"] == k) for k in {t["subset"] for t in trials}})}


def pick(runs: dict[str, dict[str, Any]], method: str, backend: Optional[str]) -> Optional[str]:
    cands = [rid for rid, r in runs.items() if r["method"] == method and (backend is None or r["backend"] == backend)]
    return sorted(cands)[0] if cands else None


def fmt(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:.1f}"


def build(runs: dict[str, dict[str, Any]], backend: str, common: bool,
          only: Optional[set[str]] = None, first: Optional[int] = None) -> tuple[str, dict[str, Any]]:
    chosen: dict[str, str] = {}
    for m, _ in COLUMNS:
        rid = pick(runs, m, backend if m not in ("cowp_ek", "cowp_cw") else "none")
        if rid and (only is None or m in only):
            chosen[m] = rid
    for m, _ in EXTRA:
        rid = pick(runs, m, None)
        if rid and (only is None or m in only):
            chosen[m] = rid
    trials = {m: runs[rid]["trials"] for m, rid in chosen.items()}
    if first is not None:  # the first K seeded trials of each task (ids task<N>:<k>)
        trials = {m: [t for t in ts if int(t["task"].rsplit(":", 1)[1]) < first] for m, ts in trials.items()}
    if common and trials:
        keys = set.intersection(*({(t["task"], t["seed"]) for t in ts} for ts in trials.values()))
        trials = {m: [t for t in ts if (t["task"], t["seed"]) in keys] for m, ts in trials.items()}
    numbers = {m: stats(ts) for m, ts in trials.items()}
    per_task = {m: {k: stats([t for t in ts if t["subset"] == k]) for k, _ in TASKS} for m, ts in trials.items()}
    lines = [f"## COWP Table 4 (groundplan; LLM methods on `{backend}`, CW, EK, GPT-3 replay and oracle need no LLM)", ""]
    cols = [(m, label) for m, label in COLUMNS + EXTRA if m in numbers]
    lines.append("| | " + " | ".join(label for _, label in cols) + " |")
    lines.append("|---|" + "---|" * len(cols))
    lines.append("| Task completion percentage (%) | " + " | ".join(fmt(numbers[m]["completion"]) for m, _ in cols) + " |")
    lines.append("| Situation handling percentage (%) | " + " | ".join(fmt(numbers[m]["handling"]) for m, _ in cols)
                 + " |")
    lines.append("| paper (GPT-3): completion / handling | " + " | ".join(
        f"{PAPER[m][0]:.1f} / {PAPER[m][1]:.1f}" if m in PAPER else "-" for m, _ in cols) + " |")
    lines.append("| trials / met a situation / solvable | " + " | ".join(
        f"{numbers[m]['n']} / {numbers[m]['met']} / {numbers[m]['solvable']}" for m, _ in cols) + " |")
    lines.append("| handled of the solvable | " + " | ".join(
        f"{numbers[m]['handled_of_solvable']} / {numbers[m]['solvable']}" for m, _ in cols) + " |")
    lines.append("| trials per task | " + " | ".join(
        "/".join(str(x) for x in numbers[m]["per_task"]) for m, _ in cols) + " |")
    lines.append("| median wall seconds per trial (shared machine, see load) | " + " | ".join(
        fmt(numbers[m]["median_seconds"]) for m, _ in cols) + " |")
    lines.append("")
    lines.append("Run ids: " + ", ".join(f"{label}: `{chosen[m]}`" for m, label in cols))
    if "cowp_gpt3" in numbers:
        g = numbers["cowp_gpt3"]
        lines += ["", f"GPT-3 replay coverage: of the {g['met']} trials that met a situation, {g['covered_exact']} "
                  f"had every COWP question answered from GPT-Planner's log word for word, {g['covered']} counting "
                  "choice questions answered from the same question over another object list; the rest used "
                  "fixed defaults (monitor: suitable, acquirer: no) for unlogged prompts. The predicate generator "
                  "is never in the log (a rule names the predicate)."]
        cov = [t for t in trials["cowp_gpt3"] if t["met"] and t["calls"] and t["replayed"] + t["approx"] == t["calls"]]
        if cov:
            lines.append(f"On the covered trials only: situation handling {100.0 * sum(t['success'] for t in cov) / len(cov):.1f}% "
                         f"({sum(t['success'] for t in cov)} of {len(cov)}).")
    lines += ["", "### Per task (the data of the paper's Figs. 8 and 9): completion % / handling % (met)", ""]
    lines.append("| Task | " + " | ".join(label for _, label in cols) + " |")
    lines.append("|---|" + "---|" * len(cols))
    for k, label in TASKS:
        cells = []
        for m, _ in cols:
            s = per_task[m][k]
            cells.append(f"{fmt(s['completion'])} / {fmt(s['handling'])} ({s['met']})" if s["n"] else "-")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n", {"runs": chosen, "overall": numbers, "per_task": per_task}


def main() -> None:
    ap = argparse.ArgumentParser(description="COWP Table 4 from a groundplan results file")
    ap.add_argument("--db", type=Path, action="append",
                    help="results file (repeatable: the trials of one run id are merged over the files, an earlier "
                         "file's trial winning; check agreement with cowp_same_runs.py); default results/cowp.sqlite")
    ap.add_argument("--backend", default="embedded", help="backend of the LLM methods' runs (embedded, openai, ...)")
    ap.add_argument("--common", action="store_true", help="count only trials every run has")
    ap.add_argument("--first", type=int, help="count only the first K trials of each task")
    ap.add_argument("--only", help="comma-separated methods to show (default: every cowp run in DB)")
    ap.add_argument("--md", type=Path, help="write the markdown here")
    ap.add_argument("--json", type=Path, help="write the numbers here")
    a = ap.parse_args()
    runs: dict[str, dict[str, Any]] = {}
    for db in a.db or [Path("results/cowp.sqlite")]:
        for rid, r in load(db).items():
            if rid not in runs:
                runs[rid] = r
                continue
            have = {(t["task"], t["seed"]) for t in runs[rid]["trials"]}
            runs[rid]["trials"] += [t for t in r["trials"] if (t["task"], t["seed"]) not in have]
    only = {m.strip() for m in a.only.split(",") if m.strip()} if a.only else None
    md, numbers = build(runs, a.backend, a.common, only, a.first)
    if a.md:
        a.md.write_text(md, encoding="utf-8")
    if a.json:
        a.json.write_text(json.dumps(numbers, indent=1, default=str) + "\n", encoding="utf-8")
    print(md)


if __name__ == "__main__":
    main()
