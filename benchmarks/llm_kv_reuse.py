"""KV state reuse on alternating prompts: AutoGPT+P's loop (tool selection, goal, tool
selection, ...) on the example kitchen's instructions, with the embedded backend's RAM cache
of KV states off (the default) and on (``kv_cache_mb``), each in its own process: prompt
tokens llama.cpp evaluated, seconds, and whether the answers are the same.

    .venv/bin/python benchmarks/llm_kv_reuse.py [--model smollm2-135m] [--mb 1024]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

KITCHEN = Path(__file__).resolve().parents[1] / "examples" / "scenes" / "kitchen.yaml"
INSTRUCTIONS = ("Bring me the apple", "Put the coke in the fridge", "Throw away the banana", "Bring me the sponge")


def worker(model: str, mb: int) -> dict:
    import llama_cpp

    from groundplan.api import make_planner, user_task
    from groundplan.llm import EmbeddedLLM
    from groundplan.methods import RunContext, get_method

    llm = EmbeddedLLM(model, kv_cache_mb=mb)
    planner = make_planner()
    llama = llm.load()
    llama_cpp.llama_perf_context_reset(llama._ctx.ctx)
    answers = []
    t0 = time.perf_counter()
    for i, instruction in enumerate(INSTRUCTIONS):
        task = user_task(instruction, KITCHEN, task_id=f"k:{i}")  # every location explored: the loop
        ep = get_method("autogpt_p").run(task, RunContext(llm=llm, planner=planner,
                                                          config={"max_rounds": 2, "max_tool_calls": 4}))
        answers.append([e.get("text") for e in ep.trace if e.get("type") == "llm_call"])
    p = llama_cpp.llama_perf_context(llama._ctx.ctx)
    return {"kv_cache_mb": mb, "seconds": time.perf_counter() - t0, "evaluated": int(p.n_p_eval),
            "calls": sum(map(len, answers)), "answers": answers}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="smollm2-135m")
    ap.add_argument("--mb", type=int, default=1024)
    ap.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker is not None:
        sys.stdout.write(json.dumps(worker(args.model, args.worker)) + "\n")
        return
    rows = []
    for mb in (0, args.mb):
        r = subprocess.run([sys.executable, __file__, "--model", args.model, "--worker", str(mb)], capture_output=True,
                           text=True, check=True)
        rows.append(json.loads(r.stdout.strip().splitlines()[-1]))
    print(f"AutoGPT+P loop, {len(INSTRUCTIONS)} kitchen instructions, {args.model}\n")
    print("| kv_cache_mb | LLM calls | prompt tokens evaluated | s | answers |\n|---|---|---|---|---|")
    for r in rows:
        same = "-" if r is rows[0] else ("the same" if r["answers"] == rows[0]["answers"] else "DIFFERENT")
        print(f"| {r['kv_cache_mb']} | {r['calls']} | {r['evaluated']:,} | {r['seconds']:.1f} | {same} |")


if __name__ == "__main__":
    main()
