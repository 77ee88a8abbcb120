"""Does the embedded SmolLM2 know which object meets a stated need? (issue 21, round 5)

On the round-4 calibration pairs (benchmarks/data/small_model_train/needs_calibration.yaml, 56
need/class pairs written as development data, 3 scenes of 12 classes each), rank the classes by
the model's log-probability of the class name after a prompt stating the need: raw, and as
pointwise mutual information (minus the log-probability after a neutral sentence); alone
(``w 1000``) and added with weight ``w`` to goalsearch's MiniLM need score (name and class-use
phrases, as shipped). Prints top-1 hits per row.

    GROUNDPLAN_DATA=../shared/data .venv/bin/python benchmarks/small_model_lm_needs.py

Result (2026-11-24, 2 cores): benchmarks/results/small_model/lm_needs.md.
"""
import random
import time
from pathlib import Path

import yaml

from groundplan.knowledge.uses import ClassUses
from groundplan.llm import LLMConfig, build_llm
from groundplan.llm.goal_search import score_continuations
from groundplan.llm.minilm import shared_minilm

DATA = Path(__file__).resolve().parent / "data" / "small_model_train" / "needs_calibration.yaml"
pairs = [(p["need"], p["cls"]) for p in yaml.safe_load(DATA.read_text())["pairs"]]
enc, uses = shared_minilm(), ClassUses.load()
classes = sorted({c for _, c in pairs})
rng = random.Random(0)
scenes = [(n, c, [c] + rng.sample([x for x in classes if x != c], 11)) for n, c in pairs for _ in range(3)]
q = dict(zip([n for n, _ in pairs], enc.encode([n for n, _ in pairs])))
tpls = ["bring me the {}", "give me the {}", "I need the {}", "the {} would help"]
def mscore(need, cls):
    noun = cls.replace("_", " ")
    s = float((enc.encode([t.format(noun) for t in tpls]) @ q[need]).max())
    u = uses.of(cls, None)
    return max(s, 0.9 * float((enc.encode(list(u)) @ q[need]).max())) if u else s
def _combined(lm, prior, need, cls, mode, w):
    lp = lm[need][cls] - (prior[cls] if mode == "pmi" else 0)
    return lp if w >= 1000 else mscore(need, cls) + w * lp


llm = build_llm(LLMConfig(cache=False, n_threads=1))
PROMPTS = {
 "A": 'A person says: "{}"\nThe most helpful object to hand them is the',
 "B": 'Person: {}\nRobot: I will bring you the',
}
t0 = time.time()
for key, P in PROMPTS.items():
    lm = {}
    neutral = score_continuations(llm, P.format("Hello."), [" " + c.replace("_", " ") for c in classes])
    prior = dict(zip(classes, neutral.logprobs if hasattr(neutral, "logprobs") else neutral.sums))
    for n, _ in pairs:
        r = score_continuations(llm, P.format(n), [" " + c.replace("_", " ") for c in classes])
        vals = r.logprobs if hasattr(r, "logprobs") else r.sums
        lm[n] = dict(zip(classes, vals))
    for mode in ("raw", "pmi"):
        for w in (0.0, 0.02, 0.05, 0.1, 1000):
            hits = 0
            for n, c, cs in scenes:
                hits += max(cs, key=lambda x, n=n, mode=mode, w=w: _combined(lm, prior, n, x, mode, w)) == c
            print(key, mode, "w", w, f"{hits}/{len(scenes)}", flush=True)
print("time", time.time() - t0)
