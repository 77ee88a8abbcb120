"""PDDL domain and problem as frozen data: types (with multiple parents, as the
AutoGPT+P affordance hierarchy needs), predicates, derived predicates, actions,
objects, initial state, goal and metric."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Mapping, Optional

from groundplan.pddl.formula import Atom, Effect, Formula, TypedVar


@dataclass(frozen=True)
class TypeHierarchy:
    """type -> direct parents. ``object`` is the root. A type may have several parents
    (eq. 9 of AutoGPT+P: a class lies under every affordance it has)."""

    parents: Mapping[str, frozenset[str]]

    @cached_property
    def _closure(self) -> dict[str, frozenset[str]]:
        out: dict[str, frozenset[str]] = {}

        def up(t: str, seen: frozenset[str]) -> frozenset[str]:
            if t in out:
                return out[t]
            acc = {t, "object"}
            for p in self.parents.get(t, ()):
                if p not in seen:
                    acc |= up(p, seen | {t})
            res = frozenset(acc)
            out[t] = res
            return res

        for t in self.parents:
            up(t, frozenset())
        return out

    def supertypes(self, t: str) -> frozenset[str]:
        """All types t belongs to, itself and object included."""
        return self._closure.get(t, frozenset({t, "object"}))

    def is_subtype(self, t: str, of: str) -> bool:
        return of in self.supertypes(t)

    def __contains__(self, t: str) -> bool:
        return t == "object" or t in self.parents

    @property
    def names(self) -> list[str]:
        return sorted(set(self.parents) | {"object"})


@dataclass(frozen=True)
class Predicate:
    name: str
    params: tuple[TypedVar, ...]
    comment: str = ""

    @property
    def arity(self) -> int:
        return len(self.params)

    def pddl(self) -> str:
        return "(" + " ".join([self.name, *(v.pddl() for v in self.params)]) + ")"


@dataclass(frozen=True)
class DerivedPredicate:
    predicate: Predicate
    condition: Formula


@dataclass(frozen=True)
class Action:
    name: str
    parameters: tuple[TypedVar, ...]
    precondition: Formula
    effects: tuple[Effect, ...]
    #: optional ordered failure checks: (condition, message template). When the precondition
    #: fails, the executor reports the template of the first condition that does not hold
    #: (simulator-style messages, e.g. VirtualHome's); empty = the default explanation.
    checks: tuple[tuple[Formula, str], ...] = ()

    def param_names(self) -> list[str]:
        return [p.name for p in self.parameters]


@dataclass(frozen=True)
class Domain:
    name: str
    types: TypeHierarchy
    predicates: tuple[Predicate, ...]
    actions: tuple[Action, ...]
    derived: tuple[DerivedPredicate, ...] = ()
    constants: Mapping[str, str] = field(default_factory=dict)
    functions: tuple[Predicate, ...] = ()
    requirements: tuple[str, ...] = (":strips", ":typing")
    hidden_predicates: frozenset[str] = frozenset()  # "Do not use this predicate" in goals

    @cached_property
    def predicate_map(self) -> dict[str, Predicate]:
        return {p.name: p for p in self.predicates}

    @cached_property
    def action_map(self) -> dict[str, Action]:
        return {a.name: a for a in self.actions}

    @cached_property
    def derived_map(self) -> dict[str, DerivedPredicate]:
        return {d.predicate.name: d for d in self.derived}

    def is_derived(self, name: str) -> bool:
        return name in self.derived_map


@dataclass(frozen=True)
class Problem:
    name: str
    domain_name: str
    objects: Mapping[str, str]  # name -> type
    init: frozenset[Atom]
    goal: Optional[Formula] = None
    numeric_init: Mapping[Atom, float] = field(default_factory=dict)
    metric: Optional[str] = "minimize (total-cost)"

    def with_goal(self, goal: Formula | None) -> "Problem":
        return Problem(self.name, self.domain_name, self.objects, self.init, goal,
                       self.numeric_init, self.metric)

    def with_init(self, init: frozenset[Atom]) -> "Problem":
        return Problem(self.name, self.domain_name, self.objects, init, self.goal,
                       self.numeric_init, self.metric)

    def objects_of_type(self, domain: Domain, t: str) -> list[str]:
        objs = [o for o, ot in self.objects.items() if domain.types.is_subtype(ot, t)]
        objs += [c for c, ct in domain.constants.items() if domain.types.is_subtype(ct, t)]
        return objs

    def type_of(self, domain: Domain, obj: str) -> str | None:
        if obj in self.objects:
            return self.objects[obj]
        return domain.constants.get(obj)
