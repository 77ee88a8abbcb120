"""Local-model speed: per installed model, prefill and decode tokens/s and the latency of
AutoGPT+P's goal call (its prompt and goal grammar, as the method sends them) through
groundplan's embedded backend (its defaults; ``--configs`` adds groundplan-repack /
groundplan-norepack, llama.cpp's weight repacking forced on / off), beside bare
llama-cpp-python with its default settings (only the context raised to fit the prompt) on
the same prompts, in the same run. Each configuration runs in its own process, one after
another, so they share the machine's state; with ``--repeat N`` the configurations
alternate N times and the table shows medians (on a busy machine one pass is noise).

- prefill / decode: llama.cpp's own counters (``llama_perf_context``) over a fresh context
  (the goal prompt, then up to 64 answer tokens without grammar);
- goal call: three instructions in one scene; "cold" is the first call after loading,
  "warm" the mean of the next two (the scene's prompt prefix is already in the KV cache).

    .venv/bin/python benchmarks/llm_speed.py [--models smollm2-135m qwen2.5-coder-1.5b] [--repeat 3] [--out FILE.md]
    make llm-speed
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "examples" / "scenes" / "kitchen.yaml"
INSTRUCTIONS = ("Bring me the apple", "Put the coke in the fridge", "Throw away the banana")
#: groundplan: its defaults (repacking where it pays: docs/models.md); -repack / -norepack force it
CONFIGS = ("bare", "groundplan", "groundplan-repack", "groundplan-norepack")
N_CTX = 4096
DECODE_TOKENS = 64


def _prompts():
    from groundplan.llm.grammar import goal_grammar
    from groundplan.prompts.autogpt_p import goal_prompt
    from groundplan.sim.pipeline import build

    pt = build(str(SCENE), strict=False)
    g = goal_grammar(pt.domain, pt.problem)
    return [goal_prompt(pt.domain, pt.problem, i) for i in INSTRUCTIONS], g.gbnf, g.max_tokens


def _perf(llama):
    import llama_cpp

    return llama_cpp.llama_perf_context(llama._ctx.ctx)


def _prefill_decode(llama) -> dict:
    import llama_cpp

    prompts, _, _ = _prompts()
    llama.reset()
    llama_cpp.llama_perf_context_reset(llama._ctx.ctx)
    out = llama.create_chat_completion([{"role": "user", "content": prompts[0]}], max_tokens=DECODE_TOKENS,
                                       temperature=0.0)
    p = _perf(llama)
    return {"prompt_tokens": int(p.n_p_eval), "prefill_tps": p.n_p_eval / (p.t_p_eval_ms / 1000.0),
            "decode_tokens": int(p.n_eval), "decode_tps": p.n_eval / (p.t_eval_ms / 1000.0) if p.n_eval else None,
            "free_answer": out["choices"][0]["message"]["content"][:60]}


def worker(config: str, model: str) -> dict:
    if config == "groundplan-norepack":
        os.environ["GROUNDPLAN_LLAMA_EXTRA_BUFTS"] = "0"
    elif config == "groundplan-repack":
        os.environ["GROUNDPLAN_LLAMA_EXTRA_BUFTS"] = "1"
    elif config == "groundplan":
        os.environ.pop("GROUNDPLAN_LLAMA_EXTRA_BUFTS", None)
    from groundplan.llm.models import resolve_model

    path = resolve_model(model).path
    prompts, gbnf, max_tokens = _prompts()
    t0 = time.perf_counter()
    if config == "bare":
        import llama_cpp

        llama = llama_cpp.Llama(model_path=str(path), n_ctx=N_CTX, verbose=False)
        load_s = time.perf_counter() - t0
        grammar = llama_cpp.LlamaGrammar.from_string(gbnf, verbose=False)

        def goal(prompt: str) -> str:
            out = llama.create_chat_completion([{"role": "user", "content": prompt}], grammar=grammar,
                                               max_tokens=max_tokens, temperature=0.0, seed=0)
            return out["choices"][0]["message"]["content"]
        threads = llama.n_threads
        repack = True
    else:
        from groundplan.llm import EmbeddedLLM
        from groundplan.llm._llamacpp import extra_bufts_enabled

        emb = EmbeddedLLM(model, n_ctx=N_CTX)
        llama = emb.load()
        load_s = time.perf_counter() - t0

        def goal(prompt: str) -> str:
            return emb.constrained(prompt, grammar=gbnf, max_tokens=max_tokens, seed=0).text
        threads = emb.n_threads
        repack = extra_bufts_enabled()
    times, answers = [], []
    for prompt in prompts:
        t = time.perf_counter()
        answers.append(goal(prompt))
        times.append(time.perf_counter() - t)
    res = {"config": config, "model": model, "threads": threads, "repack": repack, "load_s": load_s,
           "goal_cold_s": times[0], "goal_warm_s": sum(times[1:]) / len(times[1:]), "answers": answers}
    res.update(_prefill_decode(llama))
    return res


def _median(rs: list[dict]) -> dict:
    """The runs of one configuration: numbers as medians, the rest from the first run."""
    out = dict(rs[0])
    for k, v in rs[0].items():
        if isinstance(v, float):
            vals = sorted(r[k] for r in rs if r.get(k) is not None)
            out[k] = vals[len(vals) // 2] if vals else None
    out["passes"] = len(rs)
    return out


def _fmt(v, spec: str) -> str:
    return "-" if v is None else format(v, spec)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", nargs="*", help="model names (default: every installed model)")
    ap.add_argument("--configs", nargs="*", default=["bare", "groundplan"], choices=CONFIGS)
    ap.add_argument("--repeat", type=int, default=1, help="alternate the configurations this often; medians")
    ap.add_argument("--out", type=Path, help="also write the table (markdown) here")
    ap.add_argument("--worker", nargs=2, metavar=("CONFIG", "MODEL"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        sys.stdout.write(json.dumps(worker(*args.worker)) + "\n")
        return
    from groundplan.llm._llamacpp import cpu_flags, extra_bufts_safe
    from groundplan.llm.models import MODELS, is_installed

    models = args.models or [m.name for m in MODELS.values() if is_installed(m)]
    runs: dict[tuple[str, str], list[dict]] = {}
    for rep in range(args.repeat):
        for model in models:
            for config in args.configs:
                r = subprocess.run([sys.executable, __file__, "--worker", config, model], capture_output=True,
                                   text=True)
                if r.returncode != 0:
                    print(f"{model} {config}: failed: {(r.stderr.strip().splitlines() or ['?'])[-1]}",
                          file=sys.stderr)
                    continue
                runs.setdefault((model, config), []).append(json.loads(r.stdout.strip().splitlines()[-1]))
                print(f"{model} {config} pass {rep + 1}: done", file=sys.stderr, flush=True)
    rows = [_median(rs) for rs in runs.values()]
    flags = cpu_flags()
    lines = [f"CPU: {os.cpu_count()} cores; AMX {'reported' if 'amx_tile' in flags else 'not reported'}; "
             f"repacking safe: {extra_bufts_safe()}; load average at the end: "
             f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; medians of {args.repeat} alternating pass(es)", "",
             "| model | configuration | threads | repack | load s | prompt tokens | prefill tok/s | decode tok/s "
             "| goal call cold s | goal call warm s | same goals as bare |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    bare = {r["model"]: r["answers"] for r in rows if r["config"] == "bare"}
    for r in rows:
        same = "-" if r["config"] == "bare" or r["model"] not in bare else \
            f"{sum(a == b for a, b in zip(r['answers'], bare[r['model']]))}/{len(r['answers'])}"
        lines.append(f"| {r['model']} | {r['config']} | {r['threads']} | {'on' if r['repack'] else 'off'} | "
                     f"{r['load_s']:.2f} | {r['prompt_tokens']} | {_fmt(r['prefill_tps'], '.1f')} | "
                     f"{_fmt(r['decode_tps'], '.1f')} | {r['goal_cold_s']:.2f} | {r['goal_warm_s']:.2f} | {same} |")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
