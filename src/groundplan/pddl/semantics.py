"""AutoGPT+P semantic conditions (Alg. 4): facts that cannot hold together in one goal
state. Conditions are data (declared in the skill set); the check transforms the goal to
DNF, finds the disjunct with the fewest violated conditions, and reports the most general
of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

from groundplan.errors import GoalError, GoalErrorKind
from groundplan.pddl.formula import Formula, Literal
from groundplan.pddl.goal import Conjunct, to_dnf
from groundplan.pddl.model import Domain, Problem


@dataclass(frozen=True)
class SemanticCondition:
    """kind:
    - ``exclusive``: for one value of the ``key`` argument, at most one positive atom over
      ``predicates`` (optionally only when one of them is ``trigger``);
    - ``mutex``: the two ``predicates`` never hold on the same arguments;
    - ``irreflexive``: ``predicates`` never relate an object to itself;
    - ``contradiction``: a literal and its negation.
    ``generality``: lower is more general (reported first)."""

    name: str
    kind: str
    message: str
    predicates: tuple[str, ...] = ()
    key: int = 0
    trigger: Optional[str] = None
    generality: int = 10

    def violated(self, conj: Conjunct) -> bool:
        pos = [lit.atom for lit in conj if lit.positive]
        if self.kind == "contradiction":
            s = {lit.atom for lit in conj if lit.positive}
            return any((not lit.positive) and lit.atom in s for lit in conj)
        if self.kind == "irreflexive":
            return any(a.predicate in self.predicates and len(a.args) >= 2 and a.args[0] == a.args[1] for a in pos)
        if self.kind == "mutex":
            p, q = self.predicates
            ps = {a.args for a in pos if a.predicate == p}
            return any(a.predicate == q and a.args in ps for a in pos)
        if self.kind == "exclusive":
            groups: dict[str, list] = {}
            for a in pos:
                if a.predicate in self.predicates and len(a.args) > self.key:
                    groups.setdefault(a.args[self.key], []).append(a)
            for atoms in groups.values():
                if len(set(atoms)) > 1 and (self.trigger is None or any(a.predicate == self.trigger for a in atoms)):
                    return True
            return False
        raise ValueError(f"unknown semantic condition kind '{self.kind}'")


def violations(conj: Conjunct, conditions: Sequence[SemanticCondition]) -> list[SemanticCondition]:
    return [c for c in conditions if c.violated(conj)]


def check_semantics(goal: Formula, domain: Domain, problem: Problem,
                    conditions: Sequence[SemanticCondition], *, max_disjuncts: int | None = None) -> None:
    """Raise GoalError(SEMANTIC) with the condition's message if no disjunct satisfies
    all conditions (Algorithm 4)."""
    if not conditions:
        return
    dnf = to_dnf(goal, objects_of_type=lambda t: problem.objects_of_type(domain, t), max_disjuncts=max_disjuncts)
    best: Optional[list[SemanticCondition]] = None
    for conj in dnf:
        failed = violations(conj, conditions)
        if not failed:
            return
        if best is None or len(failed) < len(best):
            best = failed
    if best:
        most_general = min(best, key=lambda c: c.generality)
        raise GoalError(GoalErrorKind.SEMANTIC, f"goal: semantic condition '{most_general.name}' violated: "
                        f"{most_general.message}", feedback=most_general.message)


def conditions_from_data(items: Iterable[dict]) -> tuple[SemanticCondition, ...]:
    out = []
    for it in items:
        out.append(SemanticCondition(name=it["name"], kind=it["kind"], message=it["message"],
                                     predicates=tuple(it.get("predicates", ())), key=int(it.get("key", 0)),
                                     trigger=it.get("trigger"), generality=int(it.get("generality", 10))))
    return tuple(out)


__all__ = ["SemanticCondition", "check_semantics", "conditions_from_data", "violations", "Literal"]
