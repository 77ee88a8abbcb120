"""A GBNF grammar of a PDDL problem for one domain (method ``llm_p_gbnf``): the define /
:domain / :objects / :init / :goal skeleton, atoms only of the domain's predicates with
their arities, object types from the domain's types, numeric facts of its functions. Object
names stay free (the description names them). Decoding ends when the problem closes, so a
small model cannot ramble past it; the grammar does not make the problem right, only
well-formed."""

from __future__ import annotations

from groundplan.pddl.model import Domain

NAME = "[a-zA-Z] [a-zA-Z0-9_-]{0,63}"


def _lit(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def problem_grammar(domain: Domain) -> str:
    preds = [p for p in domain.predicates if p.name not in domain.derived_map]
    atom_alts = []
    for p in preds:
        atom_alts.append(" ".join([_lit(p.name), *(['" " name'] * p.arity)]))
    types = [t for t in domain.types.names if not t.startswith("either-")]
    rules = [
        'root ::= "(define (problem " name ")" nl "(:domain " ' + _lit(domain.name) + ' ")" nl '
        '"(:objects" objdecl+ nl ")" nl "(:init" fact* nl ")" nl "(:goal" nl "(and" goallit+ nl ")" nl ")"'
        + (" metric?" if domain.functions else "") + ' nl ")"',
        'nl ::= "\\n"',
        "name ::= " + NAME,
        'objdecl ::= nl name (" " name){0,30} (" - " type)?',
        "type ::= " + " | ".join(_lit(t) for t in types),
        "atom ::= \"(\" (" + " | ".join(atom_alts) + ") \")\"",
        "goallit ::= nl (atom | \"(not \" atom \")\")",
    ]
    if domain.functions:
        fn_alts = [" ".join([_lit(f.name), *(['" " name'] * len(f.params))]) for f in domain.functions]
        rules += ["fact ::= nl (atom | numeric)",
                  'numeric ::= "(= (" (' + " | ".join(fn_alts) + ') ") " [0-9]{1,4} ")"',
                  'metric ::= nl "(:metric minimize (total-cost))"']
    else:
        rules.append("fact ::= nl atom")
    return "\n".join(rules) + "\n"


__all__ = ["problem_grammar"]


def grammar_text(domain: Domain, problem) -> str:
    """A problem written in the grammar's layout (tests: every gold problem is expressible)."""
    from groundplan.pddl.formula import And, Atom, Not

    by_type: dict[str, list[str]] = {}
    for o, t in problem.objects.items():
        by_type.setdefault(t, []).append(o)
    lines = [f"(define (problem {problem.name})", f"(:domain {domain.name})", "(:objects"]
    for t, objs in by_type.items():
        for i in range(0, len(objs), 31):
            lines.append(" ".join(objs[i:i + 31]) + ("" if t == "object" and not domain.types.parents else f" - {t}"))
    lines += [")", "(:init"]
    lines += [a.pddl() for a in sorted(problem.init, key=lambda a: (a.predicate, a.args))]
    lines += [f"(= {f.pddl()} {int(v)})" for f, v in problem.numeric_init.items()]
    lines += [")", "(:goal", "(and"]
    goal = problem.goal
    for g in (goal.args if isinstance(goal, And) else (goal,)):
        if not isinstance(g, (Atom, Not)):
            raise ValueError(f"goal literal {g.pddl()} is outside the grammar")
        lines.append(g.pddl())
    lines += [")", ")"]
    if problem.metric and domain.functions:
        lines.append("(:metric minimize (total-cost))")
    return "\n".join(lines) + "\n)"
