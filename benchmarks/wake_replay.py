"""Wake et al.'s recorded GPT-3.5 outputs judged by groundplan's executor (Tables II, III, VI).

For every recorded answer of the original repository (read from the data directory): is it
executable in the ``virtualhome`` skill set, and does the reference program's change hold
afterwards? Printed next to the paper's tables and next to the original's own per-file
verdict (``was_execution_successful``: VirtualHome's Unity simulator, executability only).

    .venv/bin/python benchmarks/wake_replay.py [--json out.json] [--md out.md]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from groundplan.bench.datasets import load_tasks
from groundplan.methods.wake_prompts.replay import (
    PAPER_TABLE_II,
    PAPER_TABLE_III,
    PAPER_TABLE_VI,
    judge_folder,
    our_feedback_class,
    recorded_feedback_class,
    rounds_to_success,
)


def trial_table(title: str, verdicts: dict, paper: dict | None, lines: list[str]) -> dict:
    keys = sorted(verdicts)
    lines.append(f"### {title}\n")
    lines.append("| | " + " | ".join(str(k) for k in keys) + " | total |")
    lines.append("|---" * (len(keys) + 2) + "|")
    n_trials = max(len(v) for v in verdicts.values())
    summary = {"ours": [], "ours_exec": [], "recorded_exec": [], "paper": []}
    for t in range(n_trials):
        row = [int(verdicts[k][t].success) for k in keys]
        summary["ours"].append(sum(row))
        lines.append(f"| trial {t + 1}: ours (exec. and correct) | " + " | ".join(map(str, row)) + f" | {sum(row)}/{len(keys)} |")
    for t in range(n_trials):
        row = [int(verdicts[k][t].executable) for k in keys]
        summary["ours_exec"].append(sum(row))
        lines.append(f"| trial {t + 1}: ours (executable) | " + " | ".join(map(str, row)) + f" | {sum(row)}/{len(keys)} |")
    for t in range(n_trials):
        row = [int(bool(verdicts[k][t].recorded_executable)) for k in keys]
        summary["recorded_exec"].append(sum(row))
        lines.append(f"| trial {t + 1}: original's simulator (executable) | " + " | ".join(map(str, row))
                     + f" | {sum(row)}/{len(keys)} |")
    if paper:
        for t in range(n_trials):
            row = [paper[k][t] for k in keys]
            summary["paper"].append(sum(row))
            lines.append(f"| trial {t + 1}: paper | " + " | ".join(map(str, row)) + f" | {sum(row)}/{len(keys)} |")
    lines.append("")
    disagreements = []
    for k in keys:
        for t, v in enumerate(verdicts[k]):
            ref = paper[k][t] if paper else None
            if ref is not None and int(v.success) != ref:
                why = v.reason or (f"goal not reached: {', '.join(v.unsatisfied)}" if v.correct is False else "")
                disagreements.append(f"- scenario {k}, trial {t + 1}: ours {int(v.success)}, paper {ref} "
                                     f"({' '.join(v.items)}){': ' + why if why else ''}")
    if disagreements:
        lines.append("Disagreements with the paper:\n")
        lines.extend(disagreements)
        lines.append("")
    return summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--md", type=Path)
    args = ap.parse_args(argv)
    lines = ["# Wake et al.: the recorded GPT-3.5 outputs judged by groundplan's executor\n"]
    out: dict = {}
    vh = load_tasks("wake-vh")
    hl = load_tasks("wake-vh-highlevel")
    var = load_tasks("wake-vh-variation")

    tp = judge_folder("task_planning", vh)
    out["table_ii"] = trial_table("Table II (14 scenarios x 5 trials, temperature 2.0)", tp, PAPER_TABLE_II, lines)
    hv = judge_folder("highlevel", hl)
    out["table_vi"] = trial_table("Table VI (higher-level instructions)", hv, PAPER_TABLE_VI, lines)
    vv = judge_folder("variation", var, by="paraphrase")
    out["variation"] = trial_table("Paraphrases of scenario 5 (10 x 5 trials; the paper: \"consistent\", data not shown)",
                                   vv, None, lines)

    fb = judge_folder("feedback", vh)
    lines.append("### Table III (feedback rounds to a successful sequence, temperature 0)\n")
    keys = sorted(fb)
    lines.append("| | " + " | ".join(str(k) for k in keys) + " |")
    lines.append("|---" * (len(keys) + 1) + "|")
    ours = {k: rounds_to_success(fb[k]) for k in keys}
    recorded = {k: len(fb[k]) - 1 for k in keys}
    lines.append("| paper | " + " | ".join(str(PAPER_TABLE_III[k]) for k in keys) + " |")
    lines.append("| recorded conversation (files - 1) | " + " | ".join(str(recorded[k]) for k in keys) + " |")
    lines.append("| ours: first round our judge accepts | "
                 + " | ".join("-" if ours[k] is None else str(ours[k]) for k in keys) + " |")
    lines.append("")
    lines.append("Per round: our judge's verdict, the original's recorded feedback and what our automatic feedback "
                 "system (Sec. III-C) sends for the same answer, with the kind of error each names:\n")
    lines.append("| scenario | round | our verdict | recorded feedback | kind | our feedback | kind |")
    lines.append("|---|---|---|---|---|---|---|")
    agree = total = 0
    for k in keys:
        for v in fb[k]:
            why = v.reason or (f"goal not reached: {', '.join(v.unsatisfied)}" if v.correct is False else "ok")
            rec = v.recorded_feedback.replace("You are wrong! Modify your answer.", "").strip()
            ours = v.our_feedback[1].replace("You are wrong! Modify your answer.", "").strip()
            rc, oc = recorded_feedback_class(v.recorded_feedback), our_feedback_class(v.our_feedback[0])
            if rec:
                total += 1
                agree += rc == oc
            cell = lambda t: t.replace("\n", " ").replace("|", "\\|") or "-"  # noqa: E731
            lines.append(f"| {k} | {v.index} | {'success' if v.success else 'fail'} ({cell(why)}) | {cell(rec)} | "
                         f"{rc or '-'} | {cell(ours)} | {oc or '-'} |")
    lines += ["", f"Our feedback names the same kind of error as the recorded one in {agree} of {total} rounds.", ""]
    out["table_iii"] = {"paper": PAPER_TABLE_III, "recorded": recorded, "ours": ours,
                        "feedback_kind_agreement": [agree, total]}
    text = "\n".join(lines)
    sys.stdout.write(text + "\n")
    if args.md:
        args.md.write_text(text + "\n")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
