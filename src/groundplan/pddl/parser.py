"""Parse PDDL domain and problem files into the model (for external domains such as
COWP's dining PDDL and for round-trip tests)."""

from __future__ import annotations

from pathlib import Path

from groundplan.errors import PDDLSyntaxError
from groundplan.pddl.formula import (
    TRUE,
    Atom,
    TypedVar,
    parse_effect,
    parse_formula,
    parse_typed_list,
)
from groundplan.pddl.model import Action, DerivedPredicate, Domain, Predicate, Problem, TypeHierarchy
from groundplan.pddl.sexpr import parse_sexprs


def _sections(expr: list, kind: str, file: str | None) -> tuple[str, list]:
    if not isinstance(expr, list) or len(expr) < 2 or expr[0] != "define":
        raise PDDLSyntaxError(f"expected (define ({kind} NAME) ...)", file=file)
    head = expr[1]
    if not isinstance(head, list) or len(head) != 2 or head[0] != kind:
        raise PDDLSyntaxError(f"expected ({kind} NAME) after define", file=file)
    return head[1], expr[2:]


def parse_domain(text: str, *, file: str | None = None) -> Domain:
    exprs = parse_sexprs(text, file=file)
    if len(exprs) != 1:
        raise PDDLSyntaxError("expected exactly one (define ...) form", file=file)
    name, secs = _sections(exprs[0], "domain", file)
    parents: dict[str, set[str]] = {}
    preds: list[Predicate] = []
    funcs: list[Predicate] = []
    actions: list[Action] = []
    derived_raw: list[tuple[list, list]] = []
    constants: dict[str, str] = {}
    reqs: tuple[str, ...] = ()
    for sec in secs:
        if not isinstance(sec, list) or not sec:
            raise PDDLSyntaxError(f"unexpected token in domain: {sec}", file=file)
        key = sec[0]
        if key == ":requirements":
            reqs = tuple(sec[1:])
        elif key == ":types":
            for child, parent in parse_typed_list(sec[1:], what="type", file=file):
                parents.setdefault(child, set())
                if parent != "object" or child != "object":
                    parents[child].add(parent)
        elif key == ":constants":
            constants.update(parse_typed_list(sec[1:], what="constant", file=file))
        elif key == ":predicates":
            for p in sec[1:]:
                preds.append(Predicate(p[0], tuple(TypedVar(n, t) for n, t in parse_typed_list(p[1:], file=file))))
        elif key == ":functions":
            items = [x for x in sec[1:] if isinstance(x, list)]
            for f in items:
                funcs.append(Predicate(f[0], tuple(TypedVar(n, t) for n, t in parse_typed_list(f[1:], file=file))))
        elif key == ":derived":
            derived_raw.append((sec[1], sec[2]))
        elif key == ":action":
            aname = sec[1]
            fields = dict(zip(sec[2::2], sec[3::2]))
            params = tuple(TypedVar(n, t) for n, t in parse_typed_list(fields.get(":parameters", []), file=file))
            pre = parse_formula(fields[":precondition"], file=file) if ":precondition" in fields else TRUE
            eff = parse_effect(fields.get(":effect", []), file=file)
            actions.append(Action(aname, params, pre, eff))
        else:
            raise PDDLSyntaxError(f"unknown domain section '{key}'", file=file)
    derived = []
    for head, body in derived_raw:
        pred = Predicate(head[0], tuple(TypedVar(n, t) for n, t in parse_typed_list(head[1:], file=file)))
        derived.append(DerivedPredicate(pred, parse_formula(body, file=file)))
        if pred.name not in {p.name for p in preds}:
            preds.append(pred)
    th = TypeHierarchy({k: frozenset(v - {k}) for k, v in parents.items() if k != "object"})
    return Domain(name, th, tuple(preds), tuple(actions), tuple(derived), constants, tuple(funcs), reqs)


def parse_problem(text: str, *, file: str | None = None) -> Problem:
    exprs = parse_sexprs(text, file=file)
    if len(exprs) != 1:
        raise PDDLSyntaxError("expected exactly one (define ...) form", file=file)
    name, secs = _sections(exprs[0], "problem", file)
    dom = ""
    objects: dict[str, str] = {}
    init: set[Atom] = set()
    numeric: dict[Atom, float] = {}
    goal = None
    metric = None
    for sec in secs:
        key = sec[0]
        if key == ":domain":
            dom = sec[1]
        elif key == ":objects":
            objects.update(parse_typed_list(sec[1:], what="object", file=file))
        elif key == ":init":
            for f in sec[1:]:
                if f and f[0] == "=":
                    fn = f[1]
                    fa = Atom(fn[0], tuple(fn[1:])) if isinstance(fn, list) else Atom(fn)
                    numeric[fa] = float(f[2])
                else:
                    a = parse_formula(f, file=file)
                    if not isinstance(a, Atom):
                        raise PDDLSyntaxError(f"initial state holds only atoms, got {a.pddl()}", file=file)
                    init.add(a)
        elif key == ":goal":
            goal = parse_formula(sec[1], file=file)
        elif key == ":metric":
            from groundplan.pddl.sexpr import to_text
            metric = " ".join(to_text(x) for x in sec[1:])
        else:
            raise PDDLSyntaxError(f"unknown problem section '{key}'", file=file)
    return Problem(name, dom, objects, frozenset(init), goal, numeric, metric)


def load_domain(path: str | Path) -> Domain:
    p = Path(path)
    return parse_domain(p.read_text(), file=str(p))


def load_problem(path: str | Path) -> Problem:
    p = Path(path)
    return parse_problem(p.read_text(), file=str(p))
