"""What object classes are used for, as stated needs (``data/class_uses.yaml``): knowledge per
class that lets an instruction naming a need ("I'm parched", "the floor needs sweeping") reach
the object that meets it, for every class, not per instruction.

A class the file lacks gets the uses of its head noun (``coffee_mug`` -> ``mug``, the rule of
the affordance inference, ``infer.head_class``), else, when an embedder is given, of the known
class whose name is nearest by sentence embedding (at least ``min_sim``), else none.

    uses = ClassUses.load()
    uses.of("coke")                    # ("I am thirsty", "I want a cold fizzy drink")
    uses.of("paper_cup", embedder)     # the uses of "cup"
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping, Optional

import numpy as np

from groundplan.knowledge.infer import Embedder, head_class
from groundplan.schemas import yaml_lines as yaml_fast


@dataclass(frozen=True)
class ClassUses:
    table: Mapping[str, tuple[str, ...]]
    #: nearest-name fallback: the least cosine similarity of class names
    min_sim: float = 0.6
    _names: dict[str, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)

    @classmethod
    def load(cls) -> "ClassUses":
        return _load()

    def of(self, cls: str, embedder: Optional[Embedder] = None) -> tuple[str, ...]:
        """The uses of ``cls`` (a class name as scenes spell it), via its head noun or the
        nearest class name when the file lacks it."""
        direct = self.direct(cls)
        if direct:
            return direct
        near = self.nearest(cls.lower(), embedder)
        return self.table[near] if near is not None else ()

    def direct(self, cls: str) -> tuple[str, ...]:
        """The uses the file gives ``cls`` or its head noun; () when it knows neither."""
        key = cls.lower()
        if key in self.table:
            return self.table[key]
        head = head_class(key, self.table)
        return self.table[head] if head is not None else ()

    def nearest(self, cls: str, embedder: Optional[Embedder]) -> Optional[str]:
        if embedder is None or not self.table:
            return None
        known = sorted(self.table)
        emb = self._names.get(id(embedder))
        if emb is None:
            emb = self._names[id(embedder)] = np.asarray(embedder.encode([k.replace("_", " ") for k in known]))
        q = np.asarray(embedder.encode([cls.replace("_", " ")]))[0]
        sims = emb @ q
        i = int(np.argmax(sims))
        return known[i] if float(sims[i]) >= self.min_sim else None


@lru_cache(maxsize=1)
def _load() -> ClassUses:
    text = resources.files("groundplan.knowledge").joinpath("data/class_uses.yaml").read_text()
    data = yaml_fast.safe_load(text) or {}
    table = {str(k).lower(): tuple([v] if isinstance(v, str) else v) for k, v in data.items()}
    return ClassUses(table)


__all__ = ["ClassUses"]
