"""goalsearch's goal adapter (issue 21): training text, training, and a quick look.

    .venv/bin/python benchmarks/small_model_adapter.py data --sets heldout,heldout-b,...,tuning3 --out /tmp/ga/train.jsonl
    .venv/bin/python benchmarks/small_model_adapter.py train --data /tmp/ga/train.jsonl --out /tmp/ga/run1 --steps 600
    .venv/bin/python benchmarks/small_model_adapter.py show --adapter /tmp/ga/run1 --sets heldout-r --limit 10

The training text is (scene text, instruction) -> one goal: the task's gold goal with each
disjunction replaced by its first alternative (a gold goal lists every acceptable outcome; the
first is the one its author meant first). Sets are the names ``small_model_heldout.py`` takes.
Never train on a set that is to be measured blind, nor on SayCan or the plan-tool sets (the
papers' evaluation sets): ``data`` refuses them (``BLIND``)."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: never training text: the papers' evaluation sets and the held-out sets measured blind after the adapter was tried
BLIND = ("saycan", "plan-tool", "heldout-aa", "heldout-aa-oracle")


def _sexpr(text: str):
    toks = text.replace("(", " ( ").replace(")", " ) ").split()
    pos = 0

    def read():
        nonlocal pos
        t = toks[pos]
        pos += 1
        if t != "(":
            return t
        out = []
        while toks[pos] != ")":
            out.append(read())
        pos += 1
        return out

    return read()


def _first_alternative(e) -> list:
    """The literals of the first alternative of a gold formula (a conjunction, flattened)."""
    if isinstance(e, str):
        return []
    head = e[0]
    if head == "or":
        return _first_alternative(e[1])
    if head == "and":
        return [lit for x in e[1:] for lit in _first_alternative(x)]
    return [e]


def _text(e) -> str:
    return e if isinstance(e, str) else "(" + " ".join(_text(x) for x in e) + ")"


def simple_goal(gold: str) -> str:
    lits = _first_alternative(_sexpr(gold))
    body = " ".join(_text(x) for x in lits)
    return f"(and {body})"


def _unknown_set(sets: list[str]) -> bool:
    """Print one line for the first set name the benchmark does not know (``tasks_for`` would
    silently read another set) and say so."""
    from small_model_heldout import SET_NAMES

    from groundplan.errors import did_you_mean

    bad = [s for s in sets if s not in SET_NAMES]
    if bad:
        print(f"error: unknown set '{bad[0]}'{did_you_mean(bad[0], SET_NAMES)}", file=sys.stderr)
    return bool(bad)


def cmd_data(a) -> int:
    from small_model_heldout import tasks_for

    from groundplan.methods.small_model.adapter import prompt_text, scene_text
    from groundplan.sim.pipeline import build

    sets = [s for s in a.sets.split(",") if s]
    if _unknown_set(sets):
        return 2
    refused = [s for s in sets if s in BLIND]
    if refused:
        print(f"refused: {refused[0]} is an evaluation set (never training text)", file=sys.stderr)
        return 2
    scenes: dict = {}
    rows = []
    for s in sets:
        for t in tasks_for(s):
            key = (t.scene_file, t.oam_file)
            if key not in scenes:
                scenes[key] = scene_text(build(t.scene_file, oam_file=t.oam_file, strict=False).problem)
            rows.append({"set": s, "task": t.id, "prompt": prompt_text(scenes[key], t.instruction),
                         "goal": simple_goal(t.goal)})
        print(f"{s}: {sum(r['set'] == s for r in rows)} examples", flush=True)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    with a.out.open("w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    print(f"{len(rows)} examples, {len(scenes)} scenes -> {a.out}")
    return 0


def cmd_train(a) -> int:
    import torch

    from groundplan.methods.roblm.lm import next_batch, optimizer_step
    from groundplan.methods.small_model.adapter import (
        LoraConfig,
        add_lora,
        completion_text,
        load_base,
        save_adapter,
    )

    rows = [json.loads(x) for x in a.data.read_text().splitlines() if x.strip()]
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rng = random.Random(a.seed)
    model, tok = load_base()
    cfg = LoraConfig(rank=a.rank, alpha=a.alpha, top_layers=a.top_layers)
    params = add_lora(model, cfg)
    print(f"{len(rows)} examples; {sum(p.numel() for p in params)} adapter parameters", flush=True)
    eos = tok.eos_token
    enc = []
    for r in rows:
        p = tok(r["prompt"], add_special_tokens=False)["input_ids"]
        c = tok(completion_text(r["goal"], eos), add_special_tokens=False)["input_ids"]
        keep = max(0, a.max_len - len(c))
        p = p[-keep:] if keep else []
        enc.append((p + c, [-100] * len(p) + c))
    opt = torch.optim.AdamW(params, lr=a.lr, weight_decay=0.0)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / a.warmup) * max(0.1, 1 - s / max(1, a.steps)))
    order: list[int] = []
    t0 = time.perf_counter()
    log = (a.out / "train_log.jsonl")
    a.out.mkdir(parents=True, exist_ok=True)
    logf = log.open("w")
    model.train()
    pad = tok.eos_token_id
    for step in range(1, a.steps + 1):
        batch = next_batch(enc, order, a.batch_size, rng)
        n = max(len(x) for x, _ in batch)
        inp = torch.full((len(batch), n), pad, dtype=torch.long)
        lab = torch.full((len(batch), n), -100, dtype=torch.long)
        att = torch.zeros((len(batch), n), dtype=torch.long)
        for i, (x, y) in enumerate(batch):
            inp[i, : len(x)] = torch.tensor(x)
            lab[i, : len(y)] = torch.tensor(y)
            att[i, : len(x)] = 1
        # the frozen bottom layers build no autograd graph: nothing below the first adapter needs a gradient
        # the output projection (49k words) only where a goal token is predicted
        h = model.model(input_ids=inp, attention_mask=att).last_hidden_state[:, :-1]
        want = lab[:, 1:]
        sel = want != -100
        loss = torch.nn.functional.cross_entropy(model.lm_head(h[sel]), want[sel])
        rec = optimizer_step(loss, opt, sched, params, step=step, t0=t0, tokens=int(att.sum()))
        logf.write(json.dumps(rec) + "\n")
        logf.flush()
        if step % 10 == 0 or step == 1:
            print(rec, flush=True)
        out_of_time = a.max_minutes is not None and time.perf_counter() - t0 > a.max_minutes * 60
        if step % a.checkpoint_every == 0 or step == a.steps or out_of_time:
            save_adapter(model, a.out / f"checkpoint-{step}", cfg,
                         {"step": step, "examples": len(rows), "data": str(a.data), "sets": sorted({r["set"] for r in rows}),
                          "lr": a.lr, "batch_size": a.batch_size, "max_len": a.max_len, "seed": a.seed,
                          "train_seconds": round(time.perf_counter() - t0, 1), "final_loss": rec["loss"],
                          "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())})
        if out_of_time:
            break
    return 0


def cmd_show(a) -> int:
    from small_model_heldout import tasks_for

    from groundplan.methods.small_model.adapter import GoalAdapter
    from groundplan.sim.pipeline import build

    if _unknown_set(a.sets.split(",")):
        return 2
    ad = GoalAdapter(a.adapter)
    for s in a.sets.split(","):
        for t in tasks_for(s)[: a.limit]:
            pt = build(t.scene_file, oam_file=t.oam_file, strict=False)
            t0 = time.perf_counter()
            g = ad.goal(pt.problem, t.instruction)
            print(f"{t.id} {time.perf_counter() - t0:.2f}s {t.instruction!r}\n   -> {g}\n   gold {simple_goal(t.goal)}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data", help="write training text (jsonl) from sets")
    d.add_argument("--sets", required=True)
    d.add_argument("--out", type=Path, required=True)
    t = sub.add_parser("train", help="train a LoRA adapter on training text")
    t.add_argument("--data", type=Path, required=True)
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--steps", type=int, default=600)
    t.add_argument("--batch-size", type=int, default=8)
    t.add_argument("--lr", type=float, default=1e-3)
    t.add_argument("--warmup", type=int, default=20)
    t.add_argument("--rank", type=int, default=8)
    t.add_argument("--alpha", type=float, default=16.0)
    t.add_argument("--top-layers", type=int, default=12)
    t.add_argument("--max-len", type=int, default=640)
    t.add_argument("--threads", type=int, default=1)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--checkpoint-every", type=int, default=100)
    t.add_argument("--max-minutes", type=float, default=None)
    s = sub.add_parser("show", help="print the adapter's goals for a few tasks")
    s.add_argument("--adapter", type=Path, required=True)
    s.add_argument("--sets", required=True)
    s.add_argument("--limit", type=int, default=10)
    a = ap.parse_args()
    from groundplan.errors import GroundplanError

    try:
        return {"data": cmd_data, "train": cmd_train, "show": cmd_show}[a.cmd](a)
    except GroundplanError as exc:  # a missing adapter, a bad scene: one line, nothing half-written claimed
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
