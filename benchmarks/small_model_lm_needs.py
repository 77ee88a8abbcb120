"""Does the embedded SmolLM2 know which object meets a stated need? (issue 21)

On the need-phrase calibration pairs (benchmarks/data/small_model_train/needs_calibration.yaml, 56
need/class pairs written as development data, 3 scenes of 12 classes each), rank the classes by
the model's log-probability of the class name after a prompt stating the need: raw, and as
pointwise mutual information (minus the log-probability after a neutral sentence); alone
(``w 1000``) and added with weight ``w`` to goalsearch's MiniLM need score (name and class-use
phrases, as shipped). Prints top-1 hits per row.

    GROUNDPLAN_DATA=../shared/data .venv/bin/python benchmarks/small_model_lm_needs.py

Result (2026-11-24, 2 cores): benchmarks/results/small_model/lm_needs.md.
"""
from __future__ import annotations

import time

from small_model_needs_calibration import NeedScorer, calibration_scenes

from groundplan.llm import LLMConfig, build_llm
from groundplan.llm.goal_search import score_continuations

PROMPTS = {
    "A": 'A person says: "{}"\nThe most helpful object to hand them is the',
    "B": 'Person: {}\nRobot: I will bring you the',
}


def combined(lm, prior, mscore, need: str, cls: str, mode: str, w: float) -> float:
    """The model's log-probability of the class name (``pmi``: less its prior after a neutral
    sentence), alone (``w`` 1000) or added with weight ``w`` to the MiniLM need score."""
    lp = lm[need][cls] - (prior[cls] if mode == "pmi" else 0.0)
    return lp if w >= 1000 else mscore(need, cls) + w * lp


def main() -> None:
    pairs, classes, scenes = calibration_scenes()
    mscore = NeedScorer([n for n, _ in pairs])
    names = [" " + c.replace("_", " ") for c in classes]
    llm = build_llm(LLMConfig(cache=False, n_threads=1))
    t0 = time.time()
    for key, prompt in PROMPTS.items():
        prior = dict(zip(classes, score_continuations(llm, prompt.format("Hello."), names).logprobs))
        lm = {n: dict(zip(classes, score_continuations(llm, prompt.format(n), names).logprobs)) for n, _ in pairs}

        for mode in ("raw", "pmi"):
            for w in (0.0, 0.02, 0.05, 0.1, 1000):
                hits = sum(max(cs, key=lambda x, n=n: combined(lm, prior, mscore, n, x, mode, w)) == c
                           for n, c, cs in scenes)
                print(key, mode, "w", w, f"{hits}/{len(scenes)}", flush=True)
    print("time", round(time.time() - t0, 1))


if __name__ == "__main__":
    main()
