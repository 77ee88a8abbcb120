"""Evaluate formulas on a state: basic facts plus derived predicates (evaluated lazily,
query-driven, with a cycle guard), equality and quantifiers over the problem's objects.
Goal satisfaction on the DNF and goal-condition recall (best disjunct)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from groundplan.pddl.formula import And, Atom, Exists, Forall, Formula, Imply, Literal, Not, Or, substitute
from groundplan.pddl.goal import to_dnf
from groundplan.pddl.model import Domain, Problem


@dataclass(frozen=True)
class State:
    facts: frozenset[Atom]
    numeric: dict = field(default_factory=dict, compare=False, hash=False)


class Evaluator:
    """Answers ``holds(formula)`` on one state. Create one per state; memoises derived atoms."""

    def __init__(self, domain: Domain, problem: Problem, facts: frozenset[Atom]):
        self.domain = domain
        self.problem = problem
        self.facts = facts
        self._memo: dict[Atom, bool] = {}
        self._active: set[Atom] = set()
        self._type_cache: dict[str, list[str]] = {}

    def objects_of_type(self, t: str) -> list[str]:
        if t not in self._type_cache:
            self._type_cache[t] = self.problem.objects_of_type(self.domain, t)
        return self._type_cache[t]

    def atom(self, a: Atom) -> bool:
        if a.predicate == "=":
            return a.args[0] == a.args[1]
        d = self.domain.derived_map.get(a.predicate)
        if d is None:
            return a in self.facts
        if a in self._memo:
            return self._memo[a]
        if a in self._active:
            return False  # least fixpoint: a cycle does not support itself
        # arguments must fit the derived predicate's parameter types
        for arg, p in zip(a.args, d.predicate.params):
            t = self.problem.type_of(self.domain, arg)
            if t is None or not self.domain.types.is_subtype(t, p.type):
                self._memo[a] = False
                return False
        self._active.add(a)
        try:
            value = self.holds(substitute(d.condition, dict(zip((p.name for p in d.predicate.params), a.args))))
        finally:
            self._active.discard(a)
        if not self._active:  # only memoise results not depending on an open cycle
            self._memo[a] = value
        return value

    def holds(self, f: Formula) -> bool:
        if isinstance(f, Atom):
            return self.atom(f)
        if isinstance(f, Not):
            return not self.holds(f.arg)
        if isinstance(f, And):
            return all(self.holds(x) for x in f.args)
        if isinstance(f, Or):
            return any(self.holds(x) for x in f.args)
        if isinstance(f, Imply):
            return (not self.holds(f.left)) or self.holds(f.right)
        combos = itertools.product(*[self.objects_of_type(v.type) for v in f.vars])
        bodies = (substitute(f.body, {v.name: o for v, o in zip(f.vars, c)}) for c in combos)
        if isinstance(f, Exists):
            return any(self.holds(b) for b in bodies)
        assert isinstance(f, Forall)
        return all(self.holds(b) for b in bodies)

    def literal(self, lit: Literal) -> bool:
        return self.atom(lit.atom) == lit.positive


def condition_recall(satisfied: int, total: int) -> float:
    """Goal-condition recall of one conjunction: satisfied / total conditions; a conjunction
    without conditions holds (1.0). The one rule every goal evaluator uses (it is
    ``groundplan.core.metrics.gcr``)."""
    return satisfied / total if total else 1.0


@dataclass(frozen=True)
class GoalReport:
    success: bool
    gcr: float  # goal-condition recall of the best disjunct
    satisfied: tuple[str, ...]  # literals of the best disjunct that hold
    unsatisfied: tuple[str, ...]


def evaluate_goal(goal: Formula, domain: Domain, problem: Problem, facts: frozenset[Atom]) -> GoalReport:
    ev = Evaluator(domain, problem, facts)
    dnf = to_dnf(goal, objects_of_type=ev.objects_of_type)
    best: tuple[float, list[str], list[str]] | None = None
    for conj in dnf:
        sat = [lit.pddl() for lit in conj if ev.literal(lit)]
        uns = [lit.pddl() for lit in conj if not ev.literal(lit)]
        ratio = condition_recall(len(sat), len(conj))
        if best is None or ratio > best[0]:
            best = (ratio, sat, uns)
        if ratio == 1.0:
            break
    if best is None:  # empty disjunction: unsatisfiable
        return GoalReport(False, 0.0, (), ())
    return GoalReport(best[0] == 1.0, best[0], tuple(best[1]), tuple(best[2]))
