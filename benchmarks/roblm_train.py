"""Fine-tune RobLM on the ALFRED-style dataset (CPU). Writes checkpoints, the training log and
the sample texts into --out (outside the repository).

    nice -n 10 .venv/bin/python benchmarks/roblm_train.py --train /tmp/roblm/train.jsonl \
        --out /tmp/roblm/run1 --contexts none scene_graph --steps 400 --max-minutes 45
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from functools import lru_cache
from pathlib import Path

from groundplan.bench.datasets.alfred import read_jsonl
from groundplan.methods.roblm.lm import TrainConfig, load_model, train
from groundplan.methods.roblm.textformat import sample_text
from groundplan.world.alfred import generate_scene
from groundplan.world.graph2nl import context


@lru_cache(maxsize=512)
def scene_of(fp: int, seed: int):
    return generate_scene(fp, seed)


def texts_for(samples, contexts) -> list[str]:
    out = []
    for s in samples:
        scene = scene_of(s.floorplan, s.seed)
        for c in contexts:
            out.append(sample_text(s.goal_text, context(c, scene, s.target), s.plan))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--contexts", nargs="+", default=["none", "scene_graph"])
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--max-len", type=int, default=192)
    ap.add_argument("--top-layers", type=int, default=None)
    ap.add_argument("--checkpoint-every", type=int, default=50)
    ap.add_argument("--max-minutes", type=float, default=None)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0, help="batch order (use another seed when resuming from a checkpoint)")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--limit", type=int, default=None, help="use the first N samples")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    samples = read_jsonl(a.train)[: a.limit]
    texts = texts_for(samples, a.contexts)
    (a.out / "train_texts.txt").write_text("\n".join(texts) + "\n")
    print(f"{len(samples)} samples, {len(texts)} texts in {time.perf_counter() - t0:.1f} s", flush=True)
    t1 = time.perf_counter()
    lm = load_model(a.model, texts=texts)
    load_s = time.perf_counter() - t1
    print(f"model {lm.name} loaded in {load_s:.1f} s", flush=True)
    cfg = TrainConfig(steps=a.steps, batch_size=a.batch_size, lr=a.lr, max_len=a.max_len,
                      checkpoint_every=a.checkpoint_every, train_top_layers=a.top_layers, max_minutes=a.max_minutes,
                      threads=a.threads, warmup=a.warmup, seed=a.seed)
    log = (a.out / "train_log.jsonl").open("w")

    def on_step(rec: dict) -> None:
        log.write(json.dumps(rec) + "\n")
        log.flush()
        if rec["step"] % 5 == 0 or rec["step"] == 1:
            print(rec, flush=True)

    res = train(lm, texts, cfg, out_dir=a.out, log=on_step)
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    summary = {"model": lm.name, "samples": len(samples), "texts": len(texts), "contexts": a.contexts,
               "config": cfg.__dict__, "load_seconds": round(load_s, 1), "train_seconds": round(res["seconds"], 1),
               "steps_done": res["steps"], "final_loss": res["final_loss"], "uptime_at_end": uptime,
               "command": "nice -n 10 .venv/bin/python benchmarks/roblm_train.py " + " ".join(
                   f"--{k.replace('_', '-')} {' '.join(map(str, v)) if isinstance(v, list) else v}"
                   for k, v in vars(a).items() if v is not None)}
    (a.out / "summary.json").write_text(json.dumps(summary, indent=1))
    print(summary, flush=True)


if __name__ == "__main__":
    main()
