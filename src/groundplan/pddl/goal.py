"""Goal text -> formula, goal checking against a domain and problem with messages an LLM
can act on (AutoGPT+P's self-correction feedback), and DNF."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Callable, Optional

from groundplan.errors import GoalError, GoalErrorKind, PDDLSyntaxError, did_you_mean
from groundplan.limits import current as current_limits
from groundplan.pddl.formula import (
    And,
    Atom,
    Exists,
    Forall,
    Formula,
    Imply,
    Literal,
    Not,
    Or,
    TypedVar,
    depth,
    parse_formula,
    size,
)
from groundplan.pddl.model import Domain, Problem
from groundplan.pddl.sexpr import parse_sexprs

FORMAT_FEEDBACK = "Your previous answer did not contain a goal in the correct format. Please correct your answer"


@dataclass(frozen=True)
class GoalLimits:
    """Resource bounds on a goal. The defaults in force come from the configuration
    (groundplan.limits: goal_max_chars, goal_max_depth, goal_max_size, goal_max_disjuncts)."""

    max_chars: int = 20_000
    max_depth: int = 30
    max_size: int = 5_000
    max_disjuncts: int = 5_000

    @classmethod
    def configured(cls) -> "GoalLimits":
        lim = current_limits()
        return cls(lim.goal_max_chars, lim.goal_max_depth, lim.goal_max_size, lim.goal_max_disjuncts)


DEFAULT_LIMITS = GoalLimits()


def parse_goal(text: str, *, limits: GoalLimits | None = None) -> Formula:
    """Parse a goal in standard PDDL ``(and (inhand apple0 human0))``, wrapped in
    ``(:goal ...)``, or in the AutoGPT+P form ``and (inhand apple0 human0)``. ``limits``:
    the configured ones (:class:`GoalLimits`) unless given."""
    limits = limits or GoalLimits.configured()
    if text is None:
        raise GoalError(GoalErrorKind.SYNTAX, "empty goal", feedback=FORMAT_FEEDBACK)
    text = text.strip()
    if len(text) > limits.max_chars:
        raise GoalError(GoalErrorKind.TOO_LARGE, f"goal text longer than {limits.max_chars} characters (limit goal_max_chars)",
                        feedback=FORMAT_FEEDBACK)
    if not text:
        raise GoalError(GoalErrorKind.SYNTAX, "empty goal", feedback=FORMAT_FEEDBACK)
    if not text.startswith("("):
        text = f"({text})"
    # every node but a variable list opens a parenthesis: refuse a too-large goal before parsing it
    nodes = text.count("(") - text.count("(?") - 1
    if nodes > limits.max_size:
        raise GoalError(GoalErrorKind.TOO_LARGE, f"goal has about {nodes} nodes, more than {limits.max_size} (limit goal_max_size)",
                        feedback="Your previous goal was too large. Please give a shorter goal")
    try:
        exprs = parse_sexprs(text, max_depth=limits.max_depth + 2)
    except PDDLSyntaxError as exc:
        kind = GoalErrorKind.PARENTHESES if "parenthes" in exc.detail else GoalErrorKind.SYNTAX
        if "nesting deeper" in exc.detail:
            kind = GoalErrorKind.TOO_LARGE
        raise GoalError(kind, f"goal: {exc.detail}",
                        feedback=f"{FORMAT_FEEDBACK} ({exc.detail})") from None
    if len(exprs) != 1:
        raise GoalError(GoalErrorKind.PARENTHESES,
                        f"goal: expected one expression, found {len(exprs)} (unbalanced parentheses?)",
                        feedback=f"{FORMAT_FEEDBACK} (the goal must be a single expression)")
    expr = exprs[0]
    # (:goal and (p a) (q b)) - the AutoGPT+P form inside a goal wrapper
    if isinstance(expr, list) and len(expr) > 2 and expr[0] == ":goal" and isinstance(expr[1], str):
        expr = expr[1:]
    # unwrap (:goal X) and ((...)) wrappers
    while isinstance(expr, list) and expr and (expr[0] == ":goal" or (len(expr) == 1 and isinstance(expr[0], list))):
        expr = expr[1] if expr[0] == ":goal" and len(expr) == 2 else expr[0]
        if isinstance(expr, list) and expr == [":goal"]:
            break
    try:
        f = parse_formula(expr)
    except PDDLSyntaxError as exc:
        raise GoalError(GoalErrorKind.SYNTAX, f"goal: {exc.detail}",
                        feedback=f"{FORMAT_FEEDBACK} ({exc.detail})") from None
    if size(f) > limits.max_size:
        raise GoalError(GoalErrorKind.TOO_LARGE, f"goal has {size(f)} nodes, more than {limits.max_size} (limit goal_max_size)",
                        feedback="Your previous goal was too large. Please give a shorter goal")
    if depth(f) > limits.max_depth:
        raise GoalError(GoalErrorKind.TOO_LARGE, f"goal nested {depth(f)} deep, more than {limits.max_depth} (limit goal_max_depth)",
                        feedback="Your previous goal was nested too deeply. Please give a flatter goal")
    return f


_GOAL_RE = re.compile(r"\(\s*:goal", re.IGNORECASE)


def extract_goal_text(answer: str) -> Optional[str]:
    """Find the goal in a free-text LLM answer: the last ``(:goal ...)`` block, else the
    last balanced expression starting with (and / (or / (not or an atom. Linear in the
    answer's length (one pass matches every parenthesis)."""
    if not answer:
        return None
    match = matching_parentheses(answer)
    starts = [m.start() for m in _GOAL_RE.finditer(answer)]
    for s in reversed(starts):
        if s in match:
            return answer[s:match[s] + 1]
    # fall back: last balanced top-level parenthesised expression
    best = None
    i = 0
    while i < len(answer):
        if answer[i] == "(" and i in match:
            best = answer[i:match[i] + 1]
            i = match[i] + 1
            continue
        i += 1
    return best


def matching_parentheses(text: str) -> dict[int, int]:
    """Position of each ``(`` -> position of its ``)`` (unclosed ones are left out)."""
    stack: list[int] = []
    out: dict[int, int] = {}
    for j, ch in enumerate(text):
        if ch == "(":
            stack.append(j)
        elif ch == ")" and stack:
            out[stack.pop()] = j
    return out


# ----------------------------------------------------------------------------- checking

def check_goal(goal: Formula, domain: Domain, problem: Problem, *, allow_quantifiers: bool = True,
               allow_hidden: bool = True, typecheck: bool = True) -> None:
    """Raise GoalError (kind, one-line message, LLM feedback) if the goal does not fit.
    With ``typecheck=False`` ill-typed atoms are accepted (they can never hold), as the
    original AutoGPT+P checker did - used to replay its data faithfully."""
    try:
        _check(goal, domain, problem, {}, allow_quantifiers, allow_hidden)
    except GoalError as exc:
        if typecheck or exc.kind != GoalErrorKind.WRONG_TYPE:
            raise
        _check(goal, domain, problem, {}, allow_quantifiers, allow_hidden, types=False)


def _check(f: Formula, domain: Domain, problem: Problem, bound: dict[str, str],
           allow_q: bool, allow_hidden: bool, types: bool = True) -> None:
    if isinstance(f, Atom):
        _check_atom(f, domain, problem, bound, allow_hidden, types)
    elif isinstance(f, Not):
        _check(f.arg, domain, problem, bound, allow_q, allow_hidden, types)
    elif isinstance(f, (And, Or)):
        for a in f.args:
            _check(a, domain, problem, bound, allow_q, allow_hidden, types)
    elif isinstance(f, Imply):
        _check(f.left, domain, problem, bound, allow_q, allow_hidden, types)
        _check(f.right, domain, problem, bound, allow_q, allow_hidden, types)
    elif isinstance(f, (Exists, Forall)):
        if not allow_q:
            raise GoalError(GoalErrorKind.VARIABLE, "goal uses a quantified variable, which is not allowed here",
                            feedback="Your previous answer contained typing with a '?' Which is not allowed in "
                                     "the goal specification. Please correct your answer without the use of '?'")
        inner = dict(bound)
        for v in f.vars:
            if v.type not in domain.types:
                hint = did_you_mean(v.type, domain.types.names)
                raise GoalError(GoalErrorKind.WRONG_TYPE, f"goal: unknown type '{v.type}' for variable {v.name}{hint}",
                                feedback=f"Your previous answer used the type {v.type}, however this type does "
                                         f"not exist in the domain.{_suggest(hint)} Please correct your answer")
            inner[v.name] = v.type
        _check(f.body, domain, problem, inner, allow_q, allow_hidden, types)


def _check_atom(a: Atom, domain: Domain, problem: Problem, bound: dict[str, str], allow_hidden: bool,
                types: bool = True) -> None:
    if a.predicate == "=":
        if len(a.args) != 2:
            raise GoalError(GoalErrorKind.WRONG_ARITY, f"goal: '=' takes 2 arguments, got {len(a.args)}",
                            predicate="=")
        for arg in a.args:
            _obj_type(arg, domain, problem, bound)
        return
    pred = domain.predicate_map.get(a.predicate)
    if pred is None:
        usable = [n for n in domain.predicate_map if n not in domain.hidden_predicates or allow_hidden]
        hint = did_you_mean(a.predicate, usable)
        raise GoalError(GoalErrorKind.UNKNOWN_PREDICATE, f"goal: unknown predicate '{a.predicate}' in {a.pddl()}{hint}",
                        predicate=a.predicate,
                        feedback=f"Your previous answer contained the predicate {a.predicate}, however this "
                                 f"predicate does not exist in the domain.{_suggest(hint)} Please correct your answer")
    if not allow_hidden and a.predicate in domain.hidden_predicates:
        raise GoalError(GoalErrorKind.UNKNOWN_PREDICATE, f"goal: predicate '{a.predicate}' may not be used in goals",
                        predicate=a.predicate,
                        feedback=f"Your previous answer contained the predicate {a.predicate}, which must not be "
                                 f"used in a goal. Please correct your answer")
    if len(a.args) != pred.arity:
        raise GoalError(GoalErrorKind.WRONG_ARITY,
                        f"goal: predicate '{a.predicate}' takes {pred.arity} arguments {pred.pddl()}, "
                        f"got {len(a.args)} in {a.pddl()}",
                        predicate=a.predicate,
                        feedback=f"Your previous answer used the predicate {a.predicate} with {len(a.args)} "
                                 f"arguments, however it takes {pred.arity}: {pred.pddl()}. Please correct your answer")
    for i, (arg, param) in enumerate(zip(a.args, pred.params)):
        t = _obj_type(arg, domain, problem, bound)
        if types and arg.startswith("?"):
            # a variable fits if some object of its type has the parameter's type
            cands = problem.objects_of_type(domain, t)
            if cands and not any(domain.types.is_subtype(problem.type_of(domain, c) or "object", param.type)
                                 for c in cands):
                raise GoalError(GoalErrorKind.WRONG_TYPE,
                                f"goal: argument {i + 1} of '{a.predicate}' must be a {param.type}, but no "
                                f"{t} is one in {a.pddl()}", predicate=a.predicate, obj=arg)
        elif types and not domain.types.is_subtype(t, param.type):
            raise GoalError(GoalErrorKind.WRONG_TYPE,
                            f"goal: argument {i + 1} of '{a.predicate}' must be a {param.type}, "
                            f"but {arg} is a {t} in {a.pddl()}",
                            predicate=a.predicate, obj=arg,
                            feedback=f"Your previous answer used {arg} as argument {i + 1} of the predicate "
                                     f"{a.predicate}, which needs an object of type {param.type}, however {arg} "
                                     f"is not a {param.type}. Please correct your answer")


def _suggest(hint: str) -> str:
    """`` (did you mean apple0?)`` -> `` Did you mean apple0?`` for the LLM's feedback."""
    return f" {hint.strip()[1:-1].capitalize()}" if hint else ""


def _obj_type(arg: str, domain: Domain, problem: Problem, bound: dict[str, str]) -> str:
    if arg.startswith("?"):
        if arg in bound:
            return bound[arg]
        raise GoalError(GoalErrorKind.VARIABLE, f"goal: unbound variable '{arg}'", obj=arg,
                        feedback="Your previous answer contained typing with a '?' Which is not allowed in the "
                                 "goal specification. Please correct your answer without the use of '?'")
    t = problem.type_of(domain, arg)
    if t is None:
        hint = did_you_mean(arg, problem.objects)
        raise GoalError(GoalErrorKind.UNKNOWN_OBJECT, f"goal: unknown object '{arg}'{hint}", obj=arg,
                        feedback=f"Your previous answer contained the object {arg}, however this object does not "
                                 f"exist in the scene.{_suggest(hint)} Please correct your answer")
    return t


# ----------------------------------------------------------------------------- DNF

Conjunct = tuple[Literal, ...]


def to_dnf(f: Formula, *, objects_of_type: Callable[[str], list[str]] | None = None,
           max_disjuncts: int | None = None) -> tuple[Conjunct, ...]:
    """Disjunctive normal form as a tuple of conjunctions of literals. Quantifiers are
    expanded over the objects of their type (``objects_of_type`` must then be given).
    Raises GoalError(TOO_LARGE) beyond ``max_disjuncts``."""
    if max_disjuncts is None:
        max_disjuncts = current_limits().goal_max_disjuncts
    return tuple(_dnf(_nnf(f, True, objects_of_type), max_disjuncts))


def _nnf(f: Formula, pos: bool, oot) -> Formula:
    if isinstance(f, Atom):
        return f if pos else Not(f)
    if isinstance(f, Not):
        return _nnf(f.arg, not pos, oot)
    if isinstance(f, And):
        args = tuple(_nnf(a, pos, oot) for a in f.args)
        return And(args) if pos else Or(args)
    if isinstance(f, Or):
        args = tuple(_nnf(a, pos, oot) for a in f.args)
        return Or(args) if pos else And(args)
    if isinstance(f, Imply):
        return _nnf(Or((Not(f.left), f.right)), pos, oot)
    if oot is None:
        raise GoalError(GoalErrorKind.VARIABLE, "quantified goal needs the scene's objects to expand")
    from groundplan.pddl.formula import substitute
    combos = itertools.product(*[oot(v.type) for v in f.vars])
    bodies = tuple(_nnf(substitute(f.body, {v.name: o for v, o in zip(f.vars, c)}), pos, oot) for c in combos)
    conj = isinstance(f, Forall) == pos
    return And(bodies) if conj else Or(bodies)


def _dnf(f: Formula, cap: int) -> list[Conjunct]:
    if isinstance(f, Atom):
        return [(Literal(f, True),)]
    if isinstance(f, Not):
        return [(Literal(f.arg, False),)]  # NNF: arg is an atom
    if isinstance(f, Or):
        out: list[Conjunct] = []
        for a in f.args:
            out.extend(_dnf(a, cap))
            if len(out) > cap:
                raise GoalError(GoalErrorKind.TOO_LARGE, f"goal has more than {cap} disjuncts in DNF (limit goal_max_disjuncts)",
                                feedback="Your previous goal has too many alternatives. Please give a simpler goal")
        return out
    # And
    acc: list[Conjunct] = [()]
    for a in f.args:
        parts = _dnf(a, cap)
        if len(acc) * len(parts) > cap:
            raise GoalError(GoalErrorKind.TOO_LARGE, f"goal has more than {cap} disjuncts in DNF (limit goal_max_disjuncts)",
                            feedback="Your previous goal has too many alternatives. Please give a simpler goal")
        acc = [x + y for x in acc for y in parts]
    return [tuple(dict.fromkeys(c)) for c in acc]


def free_variables(f: Formula) -> set[str]:
    out: set[str] = set()

    def walk(g: Formula, bound: frozenset[str]) -> None:
        if isinstance(g, Atom):
            out.update(a for a in g.args if a.startswith("?") and a not in bound)
        elif isinstance(g, Not):
            walk(g.arg, bound)
        elif isinstance(g, (And, Or)):
            for x in g.args:
                walk(x, bound)
        elif isinstance(g, Imply):
            walk(g.left, bound)
            walk(g.right, bound)
        else:
            walk(g.body, bound | {v.name for v in g.vars})

    walk(f, frozenset())
    return out


__all__ = ["parse_goal", "check_goal", "to_dnf", "extract_goal_text", "GoalLimits", "TypedVar"]
