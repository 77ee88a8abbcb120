"""A worked example of AutoGPT+P's loop: "I want to drink a glass of milk" in a kitchen with
no milk and no glass (autogptp_complex row 10: simple_kitchen_no_milk.txt, only the table
explored, the user accepts water for milk). Prints the trace: tool selections, Explore,
Suggest Alternative, the Plan tool's goal and the executed plan.

    .venv/bin/python benchmarks/autogptp_worked_example.py --llm replay     # GPT-4's recorded answers
    .venv/bin/python benchmarks/autogptp_worked_example.py --llm embedded   # SmolLM2-135M, offline
"""

from __future__ import annotations

import argparse
import sys

from groundplan.bench.datasets import load_tasks
from groundplan.llm import LLMConfig, build_llm
from groundplan.methods import RunContext, get_method
from groundplan.methods.autogpt_p.replay import AutoGPTPReplayLLM  # noqa: F401 - registers --llm autogptp-replay
from groundplan.planners import PlannerLimits, get_planner


def show(ep) -> None:
    for ev in ep.trace:
        t = ev["type"]
        if t == "tool_call":
            print(f"\n[tool] {ev['tool']} {ev.get('parameter', '')}".rstrip() + ("  (fallback)" if ev.get("fallback")
                                                                                else ""))
        elif t == "explore":
            print(f"  -> {ev['result']}; now visible: {', '.join(ev['revealed']) or 'nothing new'}")
        elif t == "note" and ev.get("what") == "suggest alternative":
            print(f"  affordances the task needs: {ev['relevant']}; rarest: {ev['rarest']}; "
                  f"suggested {ev['missing']} -> {ev['alternative']} ({ev['path']})")
            print(f"  robot: {ev['question'].strip()}  user: {ev['user']}")
        elif t == "llm_call" and ev.get("purpose") == "tool_selection":
            last = ev["text"].strip().splitlines()[-1] if ev["text"].strip() else ""
            print(f"\n[LLM tool selection] ... {last}")
        elif t == "goal":
            print(f"  goal (round {ev['round']}): {' '.join((ev['text'] or 'none').split())} "
                  f"{'ok' if ev['ok'] else 'rejected: ' + str(ev['error'])}")
        elif t == "plan":
            print(f"  Fast Downward: {ev['status']}, cost {ev['cost']}")
            for s in ev["steps"]:
                print(f"    {s}")
        elif t == "result" and "ended_by" in ev:
            print(f"\n[end] goal reached: {ev['success']}; tools {ev['tools']}; cost {ev['cost']}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--llm", choices=("replay", "embedded"), default="replay")
    ap.add_argument("--task", default="complex:10")
    args = ap.parse_args()
    task = next(t for t in load_tasks("autogptp-scenarios") if t.id == args.task)
    cfg = (LLMConfig(backend="autogptp-replay", model="gpt-4", cache=False) if args.llm == "replay"
           else LLMConfig(backend="embedded", n_ctx=8192))
    llm = build_llm(cfg)
    print(f"task: {task.instruction!r}; scene {task.scene_file.rsplit('/', 1)[-1]}; explored {task.extras['explored']}; "
          f"gold goal: {task.goal}")
    ep = get_method("autogpt_p").run(task, RunContext(llm=llm, planner=get_planner(
        "fast-downward", limits=PlannerLimits(timeout=120)), planner_timeout=120))
    show(ep)
    u = ep.usage
    print(f"\n{ep.status}; {u.calls} LLM calls, {u.prompt_tokens}+{u.completion_tokens} tokens, {ep.wall_time:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
