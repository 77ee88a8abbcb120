"""Goal and condition formulas (atoms, and / or / not / imply, exists / forall) and
action effects, with parsing from s-expressions and writing back to PDDL."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Union

from groundplan.errors import PDDLSyntaxError


@dataclass(frozen=True)
class TypedVar:
    name: str  # with leading '?'
    type: str = "object"

    def pddl(self) -> str:
        return f"{self.name} - {self.type}"


@dataclass(frozen=True)
class Atom:
    predicate: str
    args: tuple[str, ...] = ()

    def pddl(self) -> str:
        return "(" + " ".join((self.predicate, *self.args)) + ")"

    def substitute(self, binding: dict[str, str]) -> "Atom":
        return Atom(self.predicate, tuple(binding.get(a, a) for a in self.args))

    def __str__(self) -> str:
        return self.pddl()


@dataclass(frozen=True)
class Not:
    arg: "Formula"

    def pddl(self) -> str:
        return f"(not {self.arg.pddl()})"


@dataclass(frozen=True)
class And:
    args: tuple["Formula", ...]

    def pddl(self) -> str:
        return "(and " + " ".join(a.pddl() for a in self.args) + ")" if self.args else "(and)"


@dataclass(frozen=True)
class Or:
    args: tuple["Formula", ...]

    def pddl(self) -> str:
        return "(or " + " ".join(a.pddl() for a in self.args) + ")" if self.args else "(or)"


@dataclass(frozen=True)
class Imply:
    left: "Formula"
    right: "Formula"

    def pddl(self) -> str:
        return f"(imply {self.left.pddl()} {self.right.pddl()})"


@dataclass(frozen=True)
class Exists:
    vars: tuple[TypedVar, ...]
    body: "Formula"

    def pddl(self) -> str:
        return f"(exists ({' '.join(v.pddl() for v in self.vars)}) {self.body.pddl()})"


@dataclass(frozen=True)
class Forall:
    vars: tuple[TypedVar, ...]
    body: "Formula"

    def pddl(self) -> str:
        return f"(forall ({' '.join(v.pddl() for v in self.vars)}) {self.body.pddl()})"


Formula = Union[Atom, Not, And, Or, Imply, Exists, Forall]

TRUE = And(())


# ----------------------------------------------------------------------------- effects

@dataclass(frozen=True)
class Literal:
    atom: Atom
    positive: bool = True

    def pddl(self) -> str:
        return self.atom.pddl() if self.positive else f"(not {self.atom.pddl()})"


@dataclass(frozen=True)
class Increase:
    function: Atom  # e.g. Atom("total-cost") ; value is a term: number or function atom
    value: Union[float, Atom]

    def pddl(self) -> str:
        v = self.value.pddl() if isinstance(self.value, Atom) else _num(self.value)
        return f"(increase {self.function.pddl()} {v})"


@dataclass(frozen=True)
class When:
    condition: Formula
    effects: tuple["Effect", ...]

    def pddl(self) -> str:
        return f"(when {self.condition.pddl()} (and {' '.join(e.pddl() for e in self.effects)}))"


@dataclass(frozen=True)
class ForallEffect:
    vars: tuple[TypedVar, ...]
    effects: tuple["Effect", ...]

    def pddl(self) -> str:
        return (f"(forall ({' '.join(v.pddl() for v in self.vars)}) "
                f"(and {' '.join(e.pddl() for e in self.effects)}))")


Effect = Union[Literal, Increase, When, ForallEffect]


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


# ----------------------------------------------------------------------------- parsing

def parse_typed_list(items: list, *, default: str = "object", what: str = "parameter",
                     file: str | None = None) -> list[tuple[str, str]]:
    """``?a ?b - t ?c`` -> [(?a, t), (?b, t), (?c, object)]. Supports (either ...) by
    taking the first type."""
    out: list[tuple[str, str]] = []
    pending: list[str] = []
    i = 0
    while i < len(items):
        tok = items[i]
        if tok == "-":
            if i + 1 >= len(items) or not pending:
                raise PDDLSyntaxError(f"dangling '-' in {what} list", file=file)
            t = items[i + 1]
            if isinstance(t, list):
                if not t or t[0] != "either" or len(t) < 2:
                    raise PDDLSyntaxError(f"bad type {t} in {what} list", file=file)
                t = t[1]
            out.extend((p, t) for p in pending)
            pending = []
            i += 2
        elif isinstance(tok, list):
            raise PDDLSyntaxError(f"unexpected '(' in {what} list", file=file)
        else:
            pending.append(tok)
            i += 1
    out.extend((p, default) for p in pending)
    return out


def parse_formula(expr, *, file: str | None = None) -> Formula:
    if isinstance(expr, str):
        raise PDDLSyntaxError(f"expected '(' before '{expr}'", file=file)
    if not expr:
        return TRUE
    head = expr[0]
    if isinstance(head, list):
        raise PDDLSyntaxError("expected a predicate or connective, found '('", file=file)
    if head == "and":
        return And(tuple(parse_formula(e, file=file) for e in expr[1:]))
    if head == "or":
        return Or(tuple(parse_formula(e, file=file) for e in expr[1:]))
    if head == "not":
        if len(expr) != 2:
            raise PDDLSyntaxError(f"'not' takes one argument, got {len(expr) - 1}", file=file)
        return Not(parse_formula(expr[1], file=file))
    if head == "imply":
        if len(expr) != 3:
            raise PDDLSyntaxError("'imply' takes two arguments", file=file)
        return Imply(parse_formula(expr[1], file=file), parse_formula(expr[2], file=file))
    if head in ("exists", "forall"):
        if len(expr) != 3 or not isinstance(expr[1], list):
            raise PDDLSyntaxError(f"'{head}' needs a variable list and a body", file=file)
        vs = tuple(TypedVar(n, t) for n, t in parse_typed_list(expr[1], file=file))
        body = parse_formula(expr[2], file=file)
        return Exists(vs, body) if head == "exists" else Forall(vs, body)
    for a in expr[1:]:
        if isinstance(a, list):
            raise PDDLSyntaxError(f"argument of '{head}' is a nested expression; "
                                  f"atoms take object names", file=file)
    return Atom(head, tuple(expr[1:]))


def parse_effect(expr, *, file: str | None = None) -> tuple[Effect, ...]:
    if isinstance(expr, str):
        raise PDDLSyntaxError(f"expected '(' before '{expr}' in an effect", file=file)
    if not expr:
        return ()
    head = expr[0]
    arity = {"not": 1, "increase": 2, "when": 2, "forall": 2}.get(head) if isinstance(head, str) else None
    if arity is not None and len(expr) != arity + 1:
        raise PDDLSyntaxError(f"'{head}' in an effect takes {arity} argument{'s' * (arity != 1)}, "
                              f"got {len(expr) - 1}", file=file)
    if head == "forall" and not isinstance(expr[1], list):
        raise PDDLSyntaxError("'forall' in an effect needs a variable list and an effect", file=file)
    if head == "and":
        out: list[Effect] = []
        for e in expr[1:]:
            out.extend(parse_effect(e, file=file))
        return tuple(out)
    if head == "not":
        inner = parse_formula(expr[1], file=file)
        if not isinstance(inner, Atom):
            raise PDDLSyntaxError("only atoms can be negated in an effect", file=file)
        return (Literal(inner, False),)
    if head == "increase":
        fn = expr[1]
        fn_atom = Atom(fn[0], tuple(fn[1:])) if isinstance(fn, list) else Atom(fn)
        val = expr[2]
        if isinstance(val, list):
            value: Union[float, Atom] = Atom(val[0], tuple(val[1:]))
        else:
            try:
                value = float(val)
            except ValueError as exc:
                raise PDDLSyntaxError(f"bad increase value '{val}'", file=file) from exc
        return (Increase(fn_atom, value),)
    if head == "when":
        return (When(parse_formula(expr[1], file=file), parse_effect(expr[2], file=file)),)
    if head == "forall":
        vs = tuple(TypedVar(n, t) for n, t in parse_typed_list(expr[1], file=file))
        return (ForallEffect(vs, parse_effect(expr[2], file=file)),)
    atom = parse_formula(expr, file=file)
    if not isinstance(atom, Atom):
        raise PDDLSyntaxError(f"unsupported effect '{head}'", file=file)
    return (Literal(atom, True),)


# ----------------------------------------------------------------------------- helpers

def atoms(f: Formula) -> Iterator[Atom]:
    if isinstance(f, Atom):
        yield f
    elif isinstance(f, Not):
        yield from atoms(f.arg)
    elif isinstance(f, (And, Or)):
        for a in f.args:
            yield from atoms(a)
    elif isinstance(f, Imply):
        yield from atoms(f.left)
        yield from atoms(f.right)
    elif isinstance(f, (Exists, Forall)):
        yield from atoms(f.body)


def size(f: Formula) -> int:
    if isinstance(f, Atom):
        return 1
    if isinstance(f, Not):
        return 1 + size(f.arg)
    if isinstance(f, (And, Or)):
        return 1 + sum(size(a) for a in f.args)
    if isinstance(f, Imply):
        return 1 + size(f.left) + size(f.right)
    return 1 + size(f.body)


def depth(f: Formula) -> int:
    if isinstance(f, Atom):
        return 1
    if isinstance(f, Not):
        return 1 + depth(f.arg)
    if isinstance(f, (And, Or)):
        return 1 + max((depth(a) for a in f.args), default=0)
    if isinstance(f, Imply):
        return 1 + max(depth(f.left), depth(f.right))
    return 1 + depth(f.body)


def substitute(f: Formula, binding: dict[str, str]) -> Formula:
    if isinstance(f, Atom):
        return f.substitute(binding)
    if isinstance(f, Not):
        return Not(substitute(f.arg, binding))
    if isinstance(f, And):
        return And(tuple(substitute(a, binding) for a in f.args))
    if isinstance(f, Or):
        return Or(tuple(substitute(a, binding) for a in f.args))
    if isinstance(f, Imply):
        return Imply(substitute(f.left, binding), substitute(f.right, binding))
    inner = {k: v for k, v in binding.items() if k not in {x.name for x in f.vars}}
    return type(f)(f.vars, substitute(f.body, inner))
