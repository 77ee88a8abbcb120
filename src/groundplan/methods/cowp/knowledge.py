"""The robot's action knowledge and beliefs, as COWP changes them at run time.

``Knowledge`` is immutable: each change returns a new one (so the knowledge acquirer can try
an object and an appliance on two copies and keep one). The changes are COWP's three:

* ``with_precondition``: the plan monitor's constraint, ``(not (cup_is_dirty ?c))`` added to
  an action's precondition (paper Fig. 5); when the situation's object is not an argument
  of the action a parameter of its type is added (GPT-Planner's step 2: ``?w - water``);
  the belief ``(cup_is_dirty cup1)`` is added to the state;
* ``with_role``: an object effect from the knowledge acquirer, "a bowl can be a container
  to fill water" (Fig. 6) - the object's class becomes a subtype of the role's type and the
  object takes the role object's initial facts (GPT-Planner's plan_modifier_add_effect_object);
* ``with_fixer``: an appliance effect, "a dishwasher can make a cup clean" - a variant of
  ``operate`` for that appliance whose effect removes the situation's predicate.

Actions that gained parameters execute as their base action: ``to_base`` drops the added
arguments (they are always appended last)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Optional

from groundplan.pddl.formula import And, Atom, Formula, Literal, Not, TypedVar
from groundplan.pddl.model import Action, Domain, Predicate, Problem, TypeHierarchy  # noqa: F401
from groundplan.pddl.writer import write_domain
from groundplan.planners.base import PlanResult
from groundplan.sim.executor import Executor

from .world import Trial, parse_step


@dataclass(frozen=True)
class Knowledge:
    domain: Domain
    objects: Mapping[str, str]
    facts: frozenset[Atom]
    initial: frozenset[Atom]
    goal: Formula
    base: Mapping[str, tuple[str, int]]  # action -> (action it executes as, its arity)
    changes: tuple[Mapping[str, Any], ...] = ()
    name: str = "cowp"
    _n: int = field(default=0, compare=False)

    @classmethod
    def from_trial(cls, trial: Trial) -> "Knowledge":
        d = trial.domain
        return cls(d, dict(trial.problem.objects), trial.problem.init, trial.problem.init, trial.spec.goal,
                   {a.name: (a.name, len(a.parameters)) for a in d.actions}, name=trial.problem.name)

    # ------------------------------------------------------------------ views
    def problem(self) -> Problem:
        return Problem(self.name, self.domain.name, dict(self.objects), self.facts, self.goal, {}, None)

    def type_of(self, obj: str) -> Optional[str]:
        return self.objects.get(obj)

    def plan(self, planner: Any, timeout: Optional[float] = None) -> PlanResult:
        return planner.plan(self.domain, self.problem(), timeout=timeout)

    def to_base(self, step: str) -> str:
        name, args = parse_step(step)
        base, n = self.base.get(name, (name, len(args)))
        return " ".join((base, *args[:n]))

    def goal_holds(self) -> bool:
        return Executor(self.domain, self.problem(), self.facts).goal_report(self.goal).success

    def action_pddl(self, name: str) -> str:
        """One action as PDDL text (for traces and the docs)."""
        d = replace(self.domain, actions=(self.domain.action_map[name],))
        text = write_domain(d, comments=False)
        start = text.index("(:action")
        return text[start:].rstrip().removesuffix(")").rstrip()

    # ------------------------------------------------------------------ beliefs
    def apply(self, step: str) -> "Knowledge":
        """Mirror a step the robot executed (its effects on the believed state)."""
        ex = Executor(self.domain, self.problem(), self.facts)
        r = ex.apply(step)
        return replace(self, facts=ex.facts) if r.ok else self

    def with_fact(self, atom: Atom) -> "Knowledge":
        return replace(self, facts=self.facts | {atom})

    def with_object(self, name: str, typ: str) -> "Knowledge":
        types = self.domain.types
        if typ not in types:
            parents = dict(types.parents)
            parents[typ] = frozenset({"object"})
            types = TypeHierarchy(parents)
        return replace(self, domain=replace(self.domain, types=types), objects={**self.objects, name: typ})

    def _declare(self, pred: str, params: tuple[TypedVar, ...]) -> tuple["Knowledge", str]:
        """Declare a predicate (a fresh name if ``pred`` exists with another arity)."""
        existing = self.domain.predicate_map.get(pred)
        name = pred
        k = 1
        while existing is not None and existing.arity != len(params):
            name = f"{pred}_{k}"
            k += 1
            existing = self.domain.predicate_map.get(name)
        if existing is not None:
            return self, name
        d = replace(self.domain, predicates=(*self.domain.predicates, Predicate(name, params)))
        return replace(self, domain=d), name

    def _replace_action(self, new: Action) -> Domain:
        return replace(self.domain, actions=tuple(new if a.name == new.name else a for a in self.domain.actions))

    # ------------------------------------------------------------------ COWP's changes
    def with_precondition(self, step: str, pred: str, target: str) -> tuple["Knowledge", str]:
        """Add ``(not (pred ?x))`` to the action of ``step`` where ?x is the parameter bound to
        ``target`` (a new parameter of target's type if none is), and ``(pred target)`` to the
        state. Returns the new knowledge and the predicate's name."""
        name, args = parse_step(step)
        act = self.domain.action_map[name]
        k, pred = self._declare(pred, (TypedVar("?x", "object"),))
        if target in args and args.index(target) < len(act.parameters):
            var = act.parameters[args.index(target)].name
            params = act.parameters
        else:
            typ = k.type_of(target) or "object"
            var = f"?sit{k._n}"
            params = (*act.parameters, TypedVar(var, typ))
            k = replace(k, _n=k._n + 1)
        lit = Not(Atom(pred, (var,)))
        pre = And((*act.precondition.args, lit)) if isinstance(act.precondition, And) else And((act.precondition, lit))
        new = replace(act, parameters=params, precondition=pre)
        k = replace(k, domain=k._replace_action(new))
        k = k.with_fact(Atom(pred, (target,)))
        change = {"kind": "precondition", "action": name, "added": lit.pddl(), "belief": f"({pred} {target})"}
        return replace(k, changes=(*k.changes, change)), pred

    def with_role(self, obj: str, like: str, exclude: Optional[str] = None) -> "Knowledge":
        """``obj`` can do what ``like`` does: its class becomes a subtype of like's type and it
        takes like's initial facts (except the situation's predicate ``exclude``)."""
        role = self.type_of(like) or "object"
        cls = self.type_of(obj) or obj
        parents = dict(self.domain.types.parents)
        parents[cls] = frozenset(set(parents.get(cls, frozenset({"object"}))) | {role})
        copied = {Atom(f.predicate, tuple(obj if a == like else a for a in f.args))
                  for f in self.initial if like in f.args and f.predicate != exclude}
        d = replace(self.domain, types=TypeHierarchy(parents))
        change = {"kind": "effect", "object": obj, "role": role, "like": like,
                  "facts": sorted(a.pddl() for a in copied)}
        return replace(self, domain=d, facts=self.facts | copied, initial=self.initial | copied,
                       changes=(*self.changes, change))

    def with_fixer(self, appliance: str, pred: str, target: str) -> "Knowledge":
        """Operating ``appliance`` removes ``(pred ?x)`` from objects of target's type."""
        op = self.domain.action_map.get("operate")
        if op is None:
            return self
        typ = self.type_of(target) or "object"
        k, fixes = self._declare(f"fixes_{pred}", (TypedVar("?a", "appliance"),))
        name = f"operate_{pred}"
        var = "?sitx"
        params = (*op.parameters, TypedVar(var, typ))
        pre = And((*op.precondition.args, Atom(fixes, (op.parameters[0].name,)))) \
            if isinstance(op.precondition, And) else And((op.precondition, Atom(fixes, (op.parameters[0].name,))))
        new = replace(op, name=name, parameters=params, precondition=pre,
                      effects=(*op.effects, Literal(Atom(pred, (var,)), False)))
        actions = tuple(a for a in k.domain.actions if a.name != name) + (new,)
        d = replace(k.domain, actions=actions)
        change = {"kind": "appliance", "appliance": appliance, "action": name,
                  "effect": f"(not ({pred} {var}))", "of": typ}
        return replace(k, domain=d, facts=k.facts | {Atom(fixes, (appliance,))},
                       base={**k.base, name: ("operate", len(op.parameters))},
                       changes=(*k.changes, change))


__all__ = ["Knowledge"]
