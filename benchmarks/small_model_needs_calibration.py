"""Calibrate goalsearch's need phrases (issue 21): in scenes of 12 object classes (the
gold class and 11 others drawn with a fixed seed, 3 scenes per pair), which class's phrases are
nearest the stated need (MiniLM), for name templates x class-use weight x nearest-name uses.

    .venv/bin/python benchmarks/small_model_needs_calibration.py

Data: benchmarks/data/small_model_train/needs_calibration.yaml (development pairs, not held out).
The shipped choice (name templates of knowledge/data/goalsearch/phrases.yaml ``inhand/human``, weight
``SearchOptions.w_class_uses``, ``uses_nearest``) is the best row."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import yaml

from groundplan.knowledge.uses import ClassUses
from groundplan.llm.minilm import shared_minilm

DATA = Path(__file__).resolve().parent / "data" / "small_model_train" / "needs_calibration.yaml"
TEMPLATES = {
    "round 3 (bring/give me)": ["bring me the {}", "give me the {}"],
    "+ I need the X": ["bring me the {}", "give me the {}", "I need the {}"],
    "+ I need / would help (shipped)": ["bring me the {}", "give me the {}", "I need the {}", "the {} would help"],
}


#: the shipped name templates (knowledge/data/goalsearch/phrases.yaml ``inhand/human``)
SHIPPED_TEMPLATES = TEMPLATES["+ I need / would help (shipped)"]


def calibration_scenes(seed: int = 0):
    """The (need, class) pairs and 3 scenes of 12 classes per pair: (need, gold class, classes)."""
    pairs = [(p["need"], p["cls"]) for p in yaml.safe_load(DATA.read_text())["pairs"]]
    classes = sorted({c for _, c in pairs})
    rng = random.Random(seed)
    scenes = [(n, c, [c] + rng.sample([x for x in classes if x != c], 11)) for n, c in pairs for _ in range(3)]
    return pairs, classes, scenes


class NeedScorer:
    """goalsearch's MiniLM need score of a class: the best of its name templates and (weighted)
    its class-use phrases, against the need sentence."""

    def __init__(self, needs):
        self.enc, self.uses = shared_minilm(), ClassUses.load()
        needs = list(dict.fromkeys(needs))
        self.q = dict(zip(needs, self.enc.encode(needs)))

    def __call__(self, need: str, cls: str, tpls=SHIPPED_TEMPLATES, w: float = 0.9, nearest: bool = False) -> float:
        enc, q = self.enc, self.q
        noun = cls.replace("_", " ")
        s = float((enc.encode([t.format(noun) for t in tpls]) @ q[need]).max())
        u = self.uses.of(cls, enc if nearest else None)
        return max(s, w * float((enc.encode(list(u)) @ q[need]).max())) if u else s


def main() -> None:
    pairs, _, scenes = calibration_scenes()
    score = NeedScorer([n for n, _ in pairs])
    uses = score.uses

    print("| name templates | class-use weight | nearest-name uses | top-1 (all) | classes with uses | without |")
    print("|---|---|---|---|---|---|")
    for label, tpls in TEMPLATES.items():
        for w in (1.0, 0.9, 0.8):
            for nearest in (True, False):
                hits = [(c in uses.table, max(cs, key=lambda x: score(n, x, tpls, w, nearest)) == c) for n, c, cs in scenes]
                known = [h for k, h in hits if k]
                unknown = [h for k, h in hits if not k]
                print(f"| {label} | {w} | {'yes' if nearest else 'no'} | {np.mean([h for _, h in hits]):.3f} | "
                      f"{sum(known)}/{len(known)} | {sum(unknown)}/{len(unknown)} |")


if __name__ == "__main__":
    main()
