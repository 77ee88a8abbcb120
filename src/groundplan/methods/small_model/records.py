"""The typed records goal search passes between its stages: a candidate goal and the
search's result."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from groundplan.methods.small_model.mentions import Analysis
from groundplan.pddl.formula import Atom


@dataclass(frozen=True)
class GoalCandidate:
    atoms: tuple[Atom, ...]  # (``clear_off``: also ``Not`` of an atom, added last)
    score: float
    source: str  # single | clauses | count | all
    lm_logprob: Optional[float] = None

    @property
    def text(self) -> str:
        return "(and " + " ".join(a.pddl() for a in self.atoms) + ")"


@dataclass
class SearchResult:
    goals: list[GoalCandidate]
    structure: str
    clauses: tuple[str, ...] = ()
    examples: tuple[tuple[str, float], ...] = ()
    timings: dict[str, float] = field(default_factory=dict)
    lm_usage: Any = None
    request: Any = None  # the Request read from the instruction (None when the scene has no candidates)


@dataclass(frozen=True)
class Request:
    """The request read from an instruction (stages 2 and 3): what the later stages know of it."""

    instruction: str  # the normalised instruction
    text: str  # the words scored: exclusions and kept things cut, a purpose stripped, compounds by their head
    analysis: Optional[Analysis]  # the mentions resolved against the scene: things, groups, exclusions, kept
    acted_on: frozenset[str]  # what a wanted tool is for ("something to bang the pegs in with": the pegs)
    need: bool  # a stated need ("I'm thirsty"), met by one thing
    spill: bool  # a spill said ("I knocked my drink over")
    milky: bool  # milk or cream asked into a drink
    plain: tuple[str, ...]  # the plain needs a colloquial phrasing says ("I'm gasping": thirsty)
    one_clause: bool  # one clause asks for something (a state verb then names the goal)


@dataclass
class Scored:
    """The scored candidate atoms (stage 5)."""

    scores: np.ndarray  # one per candidate atom
    order: list[int]  # the atoms, best first
    near: list  # the nearest solved examples of the pool, with their similarity
    bonus: np.ndarray  # the mention cues' part of the scores
    watered: np.ndarray  # the watering cue's part ("the plant is wilting")
    chill: Optional[GoalCandidate]  # things left out to spoil, chilled
    keep: tuple[Atom, ...]  # kept things where they are
