"""`groundplan run` on examples/scenes/kitchen.yaml with every registered method (issue 19).

For each method: is it refused on the household kitchen (and why)? If not, run it on the
embedded model (``--llm embedded``, recorded with ``--record``), then replay that recording
(``--llm replay``) and, for the methods whose answers are text (AutoGPT+P), run it on a
scripted LLM answering what a good model would. Every run's full output goes to
benchmarks/results/run/<method>.<backend>.txt; a table of verdicts to summary.md.

    .venv/bin/python benchmarks/run_kitchen.py                 # every method
    .venv/bin/python benchmarks/run_kitchen.py --methods autogpt_p,goalsearch
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "run"
SCENE = "examples/scenes/kitchen.yaml"
INSTRUCTION = "I am thirsty, bring me a coke and then throw away the banana"
CHECK = "(and (inhand coke0 human0) (in banana0 trash_can0))"
#: what a good model answers AutoGPT+P's two prompts (the tool, then the goal)
SCRIPT = ("SELECTED TOOL: PLAN", "(:goal (and (inhand coke0 human0) (in banana0 trash_can0)))")
#: ... and BrainBody-LLM's: the Brain's plan, then the Body's command per step
BRAINBODY_SCRIPT = ("0: go to the fridge\n1: open the fridge\n2: take the coke out of the fridge\n3: go to the human\n"
                    "4: hand the coke over to the human\n5: go to the table\n6: take the banana out of the bowl\n"
                    "7: go to the trash can\n8: put the banana in the trash can\n9: Done.",
                    "<robot0> [move] <fridge0>", "<robot0> [open] <fridge0>", "<robot0> [take_out] <coke0> <fridge0>",
                    "<robot0> [move] <human0>", "<robot0> [handover] <human0> <coke0>", "<robot0> [move] <table0>",
                    "<robot0> [take_out] <banana0> <bowl0>", "<robot0> [move] <trash_can0>",
                    "<robot0> [putin] <banana0> <trash_can0>")
SCRIPTS = {"autogpt_p": SCRIPT, "autogpt_p_no_correction": SCRIPT, "autogpt_p_naive_alternative": SCRIPT,
           "brainbody": BRAINBODY_SCRIPT, "brainbody_nofb": BRAINBODY_SCRIPT, "brainbody_gbnf": BRAINBODY_SCRIPT}
GP = [sys.executable, "-m", "groundplan.cli.main"]


def gp(args: list[str]) -> tuple[int, str, str, float]:
    t0 = time.perf_counter()
    p = subprocess.run([*GP, *args], cwd=ROOT, capture_output=True, text=True, timeout=3600,
                       env={**os.environ, "NO_COLOR": "1"})
    return p.returncode, p.stdout, p.stderr, time.perf_counter() - t0


def verdict_of(stdout: str, stderr: str) -> str:
    m = re.search(r"^verdict: (.*)$", stdout, flags=re.M)
    if m:
        return m.group(1)
    return " ".join(stderr.strip().splitlines()[-1:]) if stderr.strip() else "?"


def calls_of(stdout: str) -> str:
    m = re.search(r"^LLM: (\d+) calls, (\d+\+\d+) tokens", stdout, flags=re.M)
    return f"{m.group(1)} / {m.group(2)}" if m else "-"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--methods", default="", help="comma-separated (default: every registered method)")
    ap.add_argument("--threads", default="2", help="embedded model threads")
    args = ap.parse_args()
    from groundplan.api import refusal, user_task
    from groundplan.methods import available_methods

    OUT.mkdir(parents=True, exist_ok=True)
    names = [m for m in args.methods.split(",") if m] or available_methods()
    task = user_task(INSTRUCTION, ROOT / SCENE, check=CHECK)
    rows = []
    for name in names:
        why = refusal(name, task)
        if why is not None:
            rc, so, se, secs = gp(["run", "--scene", SCENE, "--method", name, "--check", CHECK, INSTRUCTION])
            rows.append((name, "-", f"refused (exit {rc})", se.strip().removeprefix("error: refused: "), "-", "-"))
            print(name, "refused:", why, flush=True)
            continue
        backends = [("embedded", ["--llm", "embedded", "--threads", args.threads, "--no-cache"])]
        rec = OUT / f"{name}.embedded.json"
        backends[0][1].extend(["--record", str(rec.relative_to(ROOT))])
        for backend, extra in backends + [("replay", None), ("scripted", None)]:
            if backend == "replay":
                transcript = rec.with_suffix(".llm.jsonl")
                if not transcript.exists() or not transcript.read_text().strip():
                    continue  # the method made no LLM call: nothing to replay
                extra = ["--llm", "replay", "--replay", str(transcript.relative_to(ROOT)), "--no-cache"]
                if name.startswith("autogpt_p"):  # the embedded run's answers were grammar-constrained
                    extra += ["--set", "goal_mode=constrained"]
            if backend == "scripted":
                if name not in SCRIPTS:
                    continue
                extra = ["--llm", "scripted", "--no-cache", *[a for s in SCRIPTS[name] for a in ("--script", s)]]
            rc, so, se, secs = gp(["run", "--scene", SCENE, "--method", name, "--check", CHECK, *extra, INSTRUCTION])
            (OUT / f"{name}.{backend}.txt").write_text(f"$ groundplan run --scene {SCENE} --method {name} --check "
                                                      f"'{CHECK}' {' '.join(extra)} '{INSTRUCTION}'\n"
                                                      f"# exit {rc}, {secs:.1f} s\n{so}{se}", encoding="utf-8")
            v = verdict_of(so, se)
            rows.append((name, backend, f"{v} (exit {rc})", "", calls_of(so), f"{secs:.1f}"))
            print(name, backend, v, rc, f"{secs:.1f}s", flush=True)
    old = OUT / "summary.json"
    if old.exists():  # a run of some methods keeps the others' rows
        rows = [tuple(r) for r in json.loads(old.read_text()) if r[0] not in names] + rows
        rows.sort(key=lambda r: r[0])
    lines = ["| method | LLM | verdict | refused because | LLM calls / tokens | seconds |", "|---|---|---|---|---|---|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    (OUT / "summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (OUT / "summary.json").write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
