"""Write Domain and Problem as PDDL text (accepted by Fast Downward)."""

from __future__ import annotations

from typing import Optional, Sequence

from groundplan.pddl.formula import TRUE, And, Effect, ForallEffect, Formula, When, _num
from groundplan.pddl.goal import free_variables
from groundplan.pddl.model import Domain, Problem


def push_conditions(effects: Sequence[Effect], condition: Optional[Formula] = None) -> tuple[Effect, ...]:
    """The same effects with every ``when`` pushed inside the ``forall`` effects it contains
    and nested ``when`` merged: ``(when C (and e (forall (?x) f)))`` becomes
    ``(when C (and e)) (forall (?x) (when C f))``. Equivalent, and the shape Fast Downward's
    translator accepts (it fails on a ``forall`` inside a ``when``); effects that already
    have that shape are written as they are. A forall whose variable would capture a free
    variable of the condition is left as it was."""
    out: list[Effect] = []
    plain_at: Optional[int] = None  # under a condition: the plain effects gathered in one when
    plain: list[Effect] = []
    for e in effects:
        if isinstance(e, When):
            cond = e.condition if condition is None else And((condition, e.condition))
            if any(isinstance(x, (When, ForallEffect)) for x in e.effects):
                out.extend(push_conditions(e.effects, cond))
            else:
                out.append(e if condition is None else When(cond, e.effects))
        elif isinstance(e, ForallEffect):
            if condition is not None and {v.name for v in e.vars} & free_variables(condition):
                out.append(When(condition, (e,)))
            else:
                out.append(ForallEffect(e.vars, push_conditions(e.effects, condition)))
        elif condition is None:
            out.append(e)
        else:
            if plain_at is None:
                plain_at = len(out)
            plain.append(e)
    if plain:
        assert condition is not None and plain_at is not None
        out.insert(plain_at, When(condition, tuple(plain)))
    return tuple(out)


def _types_block(domain: Domain) -> str:
    # one "child - parent" line per (child, parent) edge; FD takes the union of parents
    lines = []
    for t in sorted(domain.types.parents):
        parents = sorted(domain.types.parents[t]) or ["object"]
        for p in parents:
            lines.append(f"    {t} - {p}")
    return "  (:types\n" + "\n".join(lines) + "\n  )"


def write_domain(domain: Domain, *, comments: bool = True) -> str:
    out = [f"(define (domain {domain.name})",
           "  (:requirements " + " ".join(domain.requirements) + ")",
           _types_block(domain)]
    if domain.constants:
        out.append("  (:constants " + " ".join(f"{c} - {t}" for c, t in sorted(domain.constants.items())) + ")")
    preds = ["  (:predicates"]
    for p in domain.predicates:
        if comments and p.comment:
            preds.append(f"    ; {p.comment}")
        preds.append("    " + p.pddl())
    declared = {p.name for p in domain.predicates}
    for d in domain.derived:  # PDDL wants derived heads declared too (a skill set may leave them out)
        if d.predicate.name not in declared:
            declared.add(d.predicate.name)
            preds.append("    " + d.predicate.pddl())
    preds.append("  )")
    out.append("\n".join(preds))
    if domain.functions:
        out.append("  (:functions " + " ".join(f.pddl() + " - number" for f in domain.functions) + ")")
    for d in domain.derived:
        out.append(f"  (:derived {d.predicate.pddl()}\n    {d.condition.pddl()})")
    for a in domain.actions:
        pre = a.precondition if a.precondition != TRUE else And(())
        eff = " ".join(e.pddl() for e in push_conditions(a.effects))
        out.append(f"  (:action {a.name}\n    :parameters ({' '.join(p.pddl() for p in a.parameters)})\n"
                   f"    :precondition {pre.pddl()}\n    :effect (and {eff}))")
    out.append(")")
    return "\n".join(out) + "\n"


def write_problem(problem: Problem, *, goal_override: str | None = None, with_goal: bool = True) -> str:
    objs = "\n".join(f"    {o} - {t}" for o, t in problem.objects.items())
    init = [f"    {a.pddl()}" for a in sorted(problem.init, key=lambda a: (a.predicate, a.args))]
    init += [f"    (= {f.pddl()} {_num(v)})" for f, v in problem.numeric_init.items()]
    out = [f"(define (problem {problem.name})", f"  (:domain {problem.domain_name})",
           f"  (:objects\n{objs}\n  )", "  (:init\n" + "\n".join(init) + "\n  )"]
    if with_goal:
        goal = goal_override if goal_override is not None else (
            problem.goal.pddl() if problem.goal is not None else "(and)")
        out.append(f"  (:goal {goal})")
    if problem.metric:
        out.append(f"  (:metric {problem.metric})")
    out.append(")")
    return "\n".join(out) + "\n"
