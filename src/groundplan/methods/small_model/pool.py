"""The example pool: solved instructions the project wrote (package data
``groundplan/data/examples/goalsearch_pool.yaml``), retrieved by sentence-embedding
similarity. Never the evaluation tasks: tests/test_small_model_pool.py checks that no pool
instruction is an instruction of an evaluation set."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from groundplan.methods.small_model.candidates import split_name
from groundplan.pddl.formula import atoms
from groundplan.pddl.goal import parse_goal, to_dnf
from groundplan.schemas import yaml_lines as yaml_fast

POOL_PACKAGE = "groundplan.data.examples"
POOL_FILE = "goalsearch_pool.yaml"


@dataclass(frozen=True)
class Example:
    instruction: str
    goal: str
    #: goal frames (see candidates.frame_of): predicate, agent roles, destination classes
    frames: frozenset[str]
    #: how many atoms a satisfying state needs (1 for a disjunction of single atoms)
    parts: int


def _frame(atom) -> str:
    parts = [atom.predicate]
    for i, a in enumerate(atom.args):
        cls = split_name(a)[0]
        if cls in ("human", "robot"):
            parts.append(cls)
        elif i == 1 and atom.predicate in ("on", "in", "liquid_in"):
            parts.append(cls)
        else:
            parts.append("?")
    return "/".join(parts)


def _parts(goal_text: str) -> int:
    dnf = to_dnf(parse_goal(goal_text))
    return min(len([lit for lit in conj if lit.positive]) for conj in dnf) if dnf else 1


@lru_cache(maxsize=4)
def load_pool(package: str = POOL_PACKAGE, name: str = POOL_FILE) -> tuple[Example, ...]:
    data = yaml_fast.safe_load(resources.files(package).joinpath(name).read_text())
    out = []
    for d in data:
        g = parse_goal(d["goal"])
        out.append(Example(d["instruction"], d["goal"], frozenset(_frame(a) for a in atoms(g)), _parts(d["goal"])))
    return tuple(out)


class Retriever:
    """Nearest pool examples to an instruction (cosine of MiniLM embeddings)."""

    def __init__(self, encoder, pool: tuple[Example, ...] | None = None):
        self.encoder = encoder
        self.pool = pool if pool is not None else load_pool()
        self._emb = encoder.encode([e.instruction for e in self.pool])

    def nearest(self, query_emb: np.ndarray, k: int = 8) -> list[tuple[Example, float]]:
        sims = self._emb @ query_emb
        idx = np.argsort(-sims, kind="stable")[:k]
        return [(self.pool[i], float(sims[i])) for i in idx]


__all__ = ["Example", "Retriever", "load_pool"]
