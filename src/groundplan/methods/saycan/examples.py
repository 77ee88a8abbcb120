"""SayCan's few-shot examples: instruction-plan pairs from the SayCan dataset's plan file
(``saycan/saycan_plan_v0_l.tsv`` in the data directory), read at run time (never copied into
the repository). Held out: every pair whose instruction is one of SayCan's 101 evaluation
queries (or their AutoGPT+P rewordings, compared without the "how would you" / "can you"
framing and punctuation) is left out, and so is the task's own instruction."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional

from groundplan.datadir import data_dir
from groundplan.errors import DatasetError

PLANS = "saycan_plan_v0_l.tsv"
QUERIES = "saycan_initial_condition_for_dataset_v0.tsv"
_FRAMING = re.compile(r"^(how would you|can you|could you|would you|please)\s+")


def norm(text: str) -> str:
    """Lower case, punctuation and the polite framing removed."""
    t = re.sub(r"[^a-z0-9 ]+", " ", text.lower().replace("\u2019", "'").replace("'", ""))
    t = " ".join(t.split())
    while True:
        n = _FRAMING.sub("", t)
        if n == t:
            return t
        t = n


@dataclass(frozen=True)
class Example:
    instruction: str
    steps: tuple[str, ...]

    def render(self) -> str:
        return numbered(self.steps)


def numbered(steps: tuple[str, ...] | list[str]) -> str:
    return ", ".join(f"{i}. {s}" for i, s in enumerate(steps, start=1))


def _steps(text: str) -> tuple[str, ...]:
    parts = re.split(r"(?:^|,\s*)\d+\.\s*", text.strip())
    return tuple(p.strip().rstrip(".").strip() for p in parts if p.strip())


def _rows(path: Path) -> list[list[str]]:
    if not path.exists():
        raise DatasetError("SayCan data file not found (SayCan's few-shot examples come from it)", file=str(path))
    with path.open(newline="", encoding="utf-8") as fh:
        return [r for r in csv.reader(fh, delimiter="\t")][1:]


@lru_cache(maxsize=4)
def held_out(root: Optional[str] = None) -> frozenset[str]:
    """Normalised evaluation instructions (the 101 queries)."""
    base = Path(root) if root else data_dir() / "saycan"
    return frozenset(norm(r[1]) for r in _rows(base / QUERIES) if len(r) > 1 and r[1].strip())


@lru_cache(maxsize=4)
def example_pool(root: Optional[str] = None) -> tuple[Example, ...]:
    """The plan pairs that are not evaluation instructions, in file order."""
    base = Path(root) if root else data_dir() / "saycan"
    bad = held_out(root)
    out = []
    for r in _rows(base / PLANS):
        if len(r) < 2 or not r[0].strip() or norm(r[0]) in bad:
            continue
        steps = _steps(r[1])
        if steps:
            out.append(Example(r[0].strip(), steps))
    return tuple(out)


def few_shot(instruction: str, k: int, root: Optional[str] = None) -> tuple[Example, ...]:
    """The first ``k`` pool examples whose instruction differs from ``instruction``."""
    own = norm(instruction)
    return tuple(e for e in example_pool(root) if norm(e.instruction) != own)[:k]


__all__ = ["Example", "norm", "numbered", "held_out", "example_pool", "few_shot"]
