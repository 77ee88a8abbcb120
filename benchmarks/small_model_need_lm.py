"""Would a language model rank implicit needs better? (issue 21, a diagnostic)

Implicit needs are goalsearch's weakest family on every blind set (f 20/36, g 24/37, h 22/35
with the code of that time), and the oracle rerank (small_model_oracle_rerank.py) showed that the
right object is usually among the first 20 candidates but ranked low. This script asks
whether a second scorer, combined with goalsearch's score, puts it first:

* ``smollm2``: SayCan-style, with the embedded SmolLM2-135M through groundplan's own scoring
  path (llm.goal_search.score_continuations): the pointwise mutual information of the object's
  name after ``Someone says: "<instruction>" To help, the robot hands them the`` against the
  same after a neutral sentence;
* ``gemma``: the same with Gemma-3-270M (a base model; ``--model`` a GGUF file, read through
  transformers, since this llama.cpp build crashes on it);
* ``mpnet``: all-mpnet-base-v2 sentence embeddings (``--model`` its directory) in place of
  MiniLM's similarity of the instruction to the candidate's phrases (names and class uses).

Instances: the instructions of the seen sets that goalsearch treats as needs (a need statement
or a request naming no object), with the first ``--k`` candidates. A candidate is labelled right
when the task's check goal holds in the initial state with the candidate's one atom made true
(an approximation of planning and executing it; multi-atom candidates are left out). Blind sets
are refused.

    python benchmarks/small_model_need_lm.py dump --sets heldout,heldout-b,...,tuning3dev
    python benchmarks/small_model_need_lm.py score smollm2
    python benchmarks/small_model_need_lm.py score gemma --model /path/gemma-3-270m-q4_k_m.gguf
    python benchmarks/small_model_need_lm.py report     # -> results/small_model/need_lm.md
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import small_model_heldout as H

OUT = H.ROOT / "benchmarks" / "results" / "small_model" / "need_lm"
BLIND = ("heldout-g", "heldout-h", "heldout-i", "heldout-j", "heldout-k", "heldout-l", "heldout-m", "heldout-n",
         "heldout-o", "heldout-p", "heldout-q", "heldout-r", "heldout-s", "heldout-t", "heldout-u", "heldout-v", "heldout-w", "heldout-x", "heldout-y", "heldout-z", "heldout-aa")
PROMPT = 'Someone says: "{}"\nTo help, the robot hands them the'
NEUTRAL = 'Someone says: "Hello."\nTo help, the robot hands them the'
WEIGHTS = (0.0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0)


def _label(atom, gold, pt) -> bool:
    from groundplan.pddl.formula import Atom
    from groundplan.pddl.state import evaluate_goal

    facts = set(pt.problem.init)
    if atom.predicate == "inhand":  # handed over: no longer where it was
        facts = {f for f in facts if not (f.predicate in ("on", "in", "inhand") and f.args[0] == atom.args[0])}
    opposite = {"opened": "closed", "closed": "opened"}.get(atom.predicate)
    if opposite:
        facts.discard(Atom(opposite, atom.args))
    facts.add(atom)
    return evaluate_goal(gold, pt.domain, pt.problem, frozenset(facts)).success


def dump(sets: list[str], k: int) -> list[dict]:
    from groundplan.methods import get_method
    from groundplan.methods.small_model.mentions import analyze
    from groundplan.methods.small_model.needs import is_need_statement, strip_purpose
    from groundplan.pddl.goal import parse_goal
    from groundplan.sim.pipeline import build

    searcher = get_method("goalsearch").searcher({"max_goals": k})
    o = searcher.options
    out = []
    for name in sets:
        for t in H.tasks_for(name):
            pt = build(t.scene_file, oam_file=t.oam_file, strict=False)
            view, cands, _, _, lex = searcher.scene(pt.domain, pt.problem)
            an = analyze(t.instruction, view, lex, negation=o.negation, groups=o.mention_groups,
                         keep=o.keep_in_place, singular_all=o.singular_all, mass_groups=o.mass_groups)
            need = is_need_statement(strip_purpose(an.text))
            if not need and an.named:
                continue
            by_atom = {c.atom: c for c in cands}
            gold = parse_goal(t.goal)
            rows = []
            for g in searcher.search(t.instruction, pt.domain, pt.problem).goals:
                c = by_atom.get(g.atoms[0]) if len(g.atoms) == 1 else None
                if c is None:
                    continue
                rows.append({"goal": g.text, "score": g.score, "right": _label(c.atom, gold, pt),
                             "frame": c.frame, "name": view.cls(c.focus).replace("_", " "),
                             "phrases": list(c.phrases), "n_uses": c.n_uses})
            out.append({"set": name, "id": t.id, "family": t.subset, "instruction": t.instruction,
                        "need": need, "cands": rows})
    return out


def _smollm2(threads: int):
    from groundplan.llm.embedded import EmbeddedLLM
    from groundplan.llm.goal_search import score_continuations

    llm = EmbeddedLLM(n_threads=threads)
    return lambda prompt, conts: list(score_continuations(llm, prompt, conts).logprobs)


def _gemma(path: str, threads: int):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.set_num_threads(threads)
    p = Path(path)
    tok = AutoTokenizer.from_pretrained(str(p.parent), gguf_file=p.name)
    model = AutoModelForCausalLM.from_pretrained(str(p.parent), gguf_file=p.name, dtype=torch.float32).eval()

    @torch.no_grad()
    def score(prompt: str, conts: list[str]) -> list[float]:
        pre = tok(prompt, add_special_tokens=True)["input_ids"]
        seqs = [pre + tok(c, add_special_tokens=False)["input_ids"] for c in conts]
        ids = torch.zeros(len(seqs), max(map(len, seqs)), dtype=torch.long)
        mask = torch.zeros_like(ids)
        for i, s in enumerate(seqs):
            ids[i, :len(s)] = torch.tensor(s)
            mask[i, :len(s)] = 1
        lp = torch.log_softmax(model(input_ids=ids, attention_mask=mask).logits.float(), -1)
        return [sum(lp[i, j - 1, s[j]].item() for j in range(len(pre), len(s))) for i, s in enumerate(seqs)]
    return score


def score_lm(data: list[dict], score) -> list[dict]:
    """Per instance: goalsearch's scores, labels, and the PMI of each handed-over object's name."""
    neutral: dict[str, float] = {}
    out = []
    for d in data:
        cs = d["cands"]
        names = sorted({f" {c['name']}." for c in cs if c["frame"] == "inhand/?/human"})
        pmi: dict[str, float] = {}
        if names:
            said = dict(zip(names, score(PROMPT.format(d["instruction"]), names)))
            new = [n for n in names if n not in neutral]
            if new:
                neutral.update(zip(new, score(NEUTRAL, new)))
            pmi = {n: said[n] - neutral[n] for n in names}
        extra = [pmi.get(f" {c['name']}.") if c["frame"] == "inhand/?/human" else None for c in cs]
        out.append({**_keys(d), "extra": extra})
    return out


def score_mpnet(data: list[dict], model_dir: str, threads: int) -> list[dict]:
    """Per instance: mpnet's best phrase similarity minus MiniLM's, for every candidate."""
    import torch
    from sentence_transformers import SentenceTransformer

    from groundplan.llm.minilm import shared_minilm

    torch.set_num_threads(threads)
    mp = SentenceTransformer(model_dir, device="cpu")
    ml = shared_minilm(None)
    texts = sorted({d["instruction"] for d in data} | {p for d in data for c in d["cands"] for p in c["phrases"]})

    def unit(v):
        v = np.asarray(v, dtype=np.float64)
        return v / np.linalg.norm(v, axis=1, keepdims=True)
    e_mp = dict(zip(texts, unit(mp.encode(texts, batch_size=64))))
    e_ml = dict(zip(texts, unit(ml.encode(texts))))

    def best(e, q, c):
        n, u = len(c["phrases"]), c["n_uses"]
        return max(float(e[q] @ e[p]) * (0.9 if i >= n - u else 1.0) for i, p in enumerate(c["phrases"]))
    return [{**_keys(d), "extra": [best(e_mp, d["instruction"], c) - best(e_ml, d["instruction"], c)
                                   for c in d["cands"]]} for d in data]


def _keys(d: dict) -> dict:
    return {"set": d["set"], "id": d["id"], "scores": [c["score"] for c in d["cands"]],
            "right": [c["right"] for c in d["cands"]]}


def top1(rows: list[dict], w: float, alone: bool = False) -> dict[str, list[int]]:
    """Right answers per set when the candidates are ranked by score + w * (extra - best extra)."""
    per: dict[str, list[int]] = {}
    for r in rows:
        if not r["scores"] or not any(r["right"]):
            continue  # no right candidate: no ranking helps
        vals = [x for x in r["extra"] if x is not None]
        top = max(vals) if vals else 0.0
        adj = np.array([0.0 if x is None else max(x - top, -10.0) for x in r["extra"]])
        s = np.array(r["scores"])
        if alone and vals:  # the second scorer's best among the candidates it scores
            i = max((j for j, x in enumerate(r["extra"]) if x is not None), key=lambda j: (r["extra"][j], -j))
        else:
            i = int(np.argmax(s + w * adj))
        per.setdefault(r["set"], [0, 0])
        per[r["set"]][0] += r["right"][i]
        per[r["set"]][1] += 1
    return per


def report() -> str:
    lines = ["# Implicit needs: does a second scorer rank them better? (issue 21, round 7)", "",
             "`python benchmarks/small_model_need_lm.py report`. Instances: need-mode instructions of the seen sets "
             "with a right candidate among goalsearch's first k; top-1 right out of them. `w`: the weight of the "
             "second scorer (its value minus the instance's best); `alone`: the second scorer alone among handed "
             "objects.", ""]
    for f in sorted(OUT.glob("*.scores.json")):
        rows = json.loads(f.read_text())
        sets = sorted({r["set"] for r in rows})
        lines += [f"## {f.name.removesuffix('.scores.json')}", "",
                  "| w | total | " + " | ".join(sets) + " |", "|---|---|" + "---|" * len(sets)]
        # (mpnet's value is a difference of two similarities: alone it ranks nothing)
        for w in (*WEIGHTS, *(() if f.name.startswith("mpnet") else ("alone",))):
            per = top1(rows, 0.0 if w == "alone" else float(w), alone=w == "alone")
            total = sum(v[0] for v in per.values())
            n = sum(v[1] for v in per.values())
            lines.append(f"| {w} | {total}/{n} | " + " | ".join(f"{per.get(s, [0, 0])[0]}/{per.get(s, [0, 0])[1]}"
                                                               for s in sets) + " |")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("--sets", default="heldout,heldout-b,heldout-c,heldout-d,heldout-e,heldout-f,tuning3dev")
    d.add_argument("--k", type=int, default=12)
    s = sub.add_parser("score")
    s.add_argument("scorer", choices=("smollm2", "gemma", "mpnet"))
    s.add_argument("--model", default=None)
    s.add_argument("--threads", type=int, default=1)
    sub.add_parser("report")
    a = ap.parse_args()
    inst = OUT / "instances.json"
    if a.cmd == "dump":
        sets = [x.strip() for x in a.sets.split(",") if x.strip()]
        blind = [x for x in sets if x.removesuffix("-oracle") in BLIND]
        if blind:
            print(f"refused: {blind[0]} is kept blind (measure it with small_model_heldout.py only)", file=sys.stderr)
            return 2
        OUT.mkdir(parents=True, exist_ok=True)
        inst.write_text(json.dumps(dump(sets, a.k), indent=0))
        return 0
    if a.cmd == "score":
        if not inst.is_file():
            print(f"{inst}: run 'dump' first", file=sys.stderr)
            return 2
        if a.scorer != "smollm2" and not a.model:
            print(f"score {a.scorer}: --model is required", file=sys.stderr)
            return 2
        data = json.loads(inst.read_text())
        rows = score_mpnet(data, a.model, a.threads) if a.scorer == "mpnet" else \
            score_lm(data, _smollm2(a.threads) if a.scorer == "smollm2" else _gemma(a.model, a.threads))
        (OUT / f"{a.scorer}.scores.json").write_text(json.dumps(rows))
        return 0
    if not OUT.is_dir():
        print(f"{OUT}: run 'dump' and 'score' first", file=sys.stderr)
        return 2
    text = report()
    (OUT.parent / "need_lm.md").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
