"""Parse PDDL domain and problem files into the model: external domains such as COWP's dining
PDDL, round-trip tests, and full IPC domains and problems for ``groundplan plan --domain D
--problem P`` (STRIPS, typing with ``either``, constants, negative preconditions, equality,
quantifiers, conditional effects, action costs).

``parse_domain`` / ``parse_problem`` read the text; ``load_task`` also checks the two
against each other (unknown predicate, object or type, wrong arity, an argument of the wrong
type, undeclared variables) and names ``file:line`` of the first fault, with a did-you-mean
where a close name exists."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterator, Mapping

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
from groundplan.pddl.sexpr import SList, line_of, parse_sexprs, to_text

#: logical and effect heads that are not predicates
_CONNECTIVES = frozenset({"and", "or", "not", "imply", "exists", "forall", "when"})
_NUMERIC_EFFECTS = frozenset({"increase", "decrease", "assign", "scale-up", "scale-down"})
_ACTION_FIELDS = frozenset({":parameters", ":precondition", ":effect"})
_DOMAIN_SECTIONS = frozenset({":requirements", ":types", ":constants", ":predicates", ":functions", ":derived",
                              ":action"})
_PROBLEM_SECTIONS = frozenset({":domain", ":requirements", ":objects", ":init", ":goal", ":metric"})


def _err(msg: str, expr, file: str | None, line: int | None = None) -> PDDLSyntaxError:
    return PDDLSyntaxError(msg, file=file, line=line if line is not None else line_of(expr))


def _relined(exc: PDDLSyntaxError, expr, file: str | None) -> PDDLSyntaxError:
    """An error raised without a line gets the line of the expression being parsed."""
    if exc.line is not None or line_of(expr) is None:
        return exc
    return PDDLSyntaxError(exc.detail, file=file or exc.file, line=line_of(expr))


def _did_you_mean(name: str, known) -> str:
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _sections(expr: list, kind: str, file: str | None) -> tuple[str, list]:
    if not isinstance(expr, list) or len(expr) < 2 or expr[0] != "define":
        raise _err(f"expected (define ({kind} NAME) ...)", expr, file)
    head = expr[1]
    if not isinstance(head, list) or len(head) != 2 or head[0] != kind:
        found = to_text(head)[:60] if head else "nothing"
        raise _err(f"expected ({kind} NAME) after define, found {found}", head, file, line_of(expr))
    return head[1], expr[2:]


def _one_define(text: str, file: str | None, kind: str) -> list:
    exprs = parse_sexprs(text, file=file)
    if len(exprs) != 1:
        where = line_of(exprs[1]) if len(exprs) > 1 else None
        what = "nothing" if not exprs else f"{len(exprs)} top-level forms"
        raise PDDLSyntaxError(f"expected exactly one (define ({kind} ...)) form, found {what}", file=file, line=where)
    return exprs[0]


# ----------------------------------------------------------------------------- either types

def _either_name(expr: list) -> str:
    return "either-" + "-".join(sorted(str(x) for x in expr[1:]))


def _resolve_either(expr, unions: dict[str, tuple[str, ...]], file: str | None):
    """Replace every ``(either t1 t2 ...)`` with a named union type ``either-t1-t2``; the
    member types get it as one more parent (the type hierarchy allows several), so an
    object of any member type fits a parameter of the union."""
    if not isinstance(expr, list):
        return expr
    if expr and expr[0] == "either":
        members = tuple(expr[1:])
        if not members or any(isinstance(m, list) for m in members):
            raise _err("(either ...) takes one or more type names", expr, file)
        name = _either_name(expr)
        unions[name] = members
        return name
    return SList((_resolve_either(e, unions, file) for e in expr), line=line_of(expr))


# ----------------------------------------------------------------------------- domain

@dataclass(frozen=True)
class DomainInfo:
    """What the checks need beyond the model: where things are declared and used."""

    domain: Domain
    file: str | None
    line_of_action: Mapping[str, int | None] = field(default_factory=dict)
    #: names used as constants in action bodies without a :constants declaration -> first line
    implicit_constants: Mapping[str, int | None] = field(default_factory=dict)


def parse_domain(text: str, *, file: str | None = None) -> Domain:
    return parse_domain_info(text, file=file).domain


def parse_domain_info(text: str, *, file: str | None = None, check: bool = False) -> DomainInfo:
    """Parse a domain. ``check``: also check every action and derived predicate against the
    declared predicates, functions, types, parameters and constants."""
    unions: dict[str, tuple[str, ...]] = {}
    tree = _resolve_either(_one_define(text, file, "domain"), unions, file)
    name, secs = _sections(tree, "domain", file)
    parents: dict[str, set[str]] = {}
    preds: list[Predicate] = []
    funcs: list[Predicate] = []
    actions: list[Action] = []
    action_lines: dict[str, int | None] = {}
    derived_raw: list[tuple[list, list]] = []
    constants: dict[str, str] = {}
    reqs: tuple[str, ...] | None = None
    for sec in secs:
        if not isinstance(sec, list) or not sec:
            raise _err(f"unexpected token in domain: {to_text(sec)[:60]}", sec, file, line_of(tree))
        key = sec[0]
        try:
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
                    if not isinstance(p, list) or not p or isinstance(p[0], list):
                        raise _err(f"expected (name ?arg ...) in :predicates, found {to_text(p)[:60]}", p, file,
                                   line_of(sec))
                    preds.append(Predicate(p[0], tuple(TypedVar(n, t) for n, t in parse_typed_list(p[1:], file=file))))
            elif key == ":functions":
                for f in (x for x in sec[1:] if isinstance(x, list)):
                    funcs.append(Predicate(f[0], tuple(TypedVar(n, t) for n, t in parse_typed_list(f[1:], file=file))))
            elif key == ":derived":
                if len(sec) != 3 or not isinstance(sec[1], list) or not sec[1]:
                    raise _err("(:derived (name ?args) condition) expected", sec, file)
                derived_raw.append((sec[1], sec[2]))
            elif key == ":action":
                act = _parse_action(sec, file)
                if act.name in action_lines:
                    raise _err(f"action '{act.name}' is defined twice (first on line {action_lines[act.name]})",
                               sec, file)
                actions.append(act)
                action_lines[act.name] = line_of(sec)
            elif key == ":durative-action":
                raise _err("durative actions (temporal PDDL) are not supported", sec, file)
            else:
                raise _err(f"unknown domain section '{key}'{_did_you_mean(str(key), _DOMAIN_SECTIONS)}", sec, file)
        except PDDLSyntaxError as exc:
            raise _relined(exc, sec, file) from None
    for union, members in unions.items():
        parents.setdefault(union, set()).add("object")
        for m in members:
            parents.setdefault(m, set()).add(union)
    for t in list(parents):  # a member declared only through a union still sits under object
        for p in list(parents[t]):
            parents.setdefault(p, set())
    derived = []
    for head, body in derived_raw:
        try:
            pred = Predicate(head[0], tuple(TypedVar(n, t) for n, t in parse_typed_list(head[1:], file=file)))
            derived.append(DerivedPredicate(pred, parse_formula(body, file=file)))
        except PDDLSyntaxError as exc:
            raise _relined(exc, head, file) from None
        if pred.name not in {p.name for p in preds}:
            preds.append(pred)
    th = TypeHierarchy({k: frozenset(v - {k}) for k, v in parents.items() if k != "object"})
    if reqs is None:  # no :requirements section: what the text uses
        reqs = (":strips", ":typing") if parents else (":strips",)
    domain = Domain(name, th, tuple(preds), tuple(actions), tuple(derived), constants, tuple(funcs), reqs)
    info = DomainInfo(domain, file, action_lines)
    if check:
        info = replace(info, implicit_constants=_check_domain(domain, secs, file))
    return info


def _parse_action(sec: list, file: str | None) -> Action:
    if len(sec) < 2 or isinstance(sec[1], list):
        raise _err("(:action NAME :parameters (...) :precondition ... :effect ...) expected", sec, file)
    aname = sec[1]
    rest = sec[2:]
    if len(rest) % 2:
        raise _err(f"action '{aname}': every field needs a value (':parameters (...)', ':effect (...)')", sec, file)
    fields = {}
    for k, v in zip(rest[::2], rest[1::2]):
        if not isinstance(k, str) or k not in _ACTION_FIELDS:
            raise _err(f"action '{aname}': unknown field '{to_text(k)[:40]}'"
                       f"{_did_you_mean(str(k), _ACTION_FIELDS)}", v, file, line_of(v) or line_of(sec))
        fields[k] = v
    params_raw = fields.get(":parameters", [])
    if not isinstance(params_raw, list):
        raise _err(f"action '{aname}': :parameters needs a list (?x - type ...)", sec, file)
    params = tuple(TypedVar(n, t) for n, t in parse_typed_list(params_raw, file=file))
    for p in params:
        if not p.name.startswith("?"):
            raise _err(f"action '{aname}': parameter '{p.name}' must start with '?'", params_raw, file, line_of(sec))
    try:
        pre = parse_formula(fields[":precondition"], file=file) if ":precondition" in fields else TRUE
    except PDDLSyntaxError as exc:
        raise _relined(exc, fields[":precondition"], file) from None
    try:
        eff = parse_effect(fields.get(":effect", []), file=file)
    except PDDLSyntaxError as exc:
        raise _relined(exc, fields.get(":effect", sec), file) from None
    return Action(aname, params, pre, eff)


def _atoms_in(expr, *, effect: bool) -> Iterator[tuple[list, dict[str, str]]]:
    """(atom s-expression, variables bound inside it by forall / exists) for every atom of a
    condition or effect; the function terms of numeric effects are not atoms."""
    def walk(e, bound: dict[str, str]):
        if not isinstance(e, list) or not e or isinstance(e[0], list):
            return
        head = e[0]
        if head in ("exists", "forall") and len(e) == 3 and isinstance(e[1], list):
            inner = {**bound, **dict(parse_typed_list(e[1]))}
            yield from walk(e[2], inner)
        elif head in _CONNECTIVES:
            for sub in e[1:]:
                yield from walk(sub, bound)
        elif effect and head in _NUMERIC_EFFECTS:
            return
        else:
            yield e, bound
    yield from walk(expr, {})


def _check_domain(domain: Domain, secs: list, file: str | None) -> dict[str, int | None]:
    preds = domain.predicate_map
    funcs = {f.name: f for f in domain.functions}
    types = domain.types
    implicit: dict[str, int | None] = {}

    def check_type(t: str, where) -> None:
        if t not in types:
            raise _err(f"unknown type '{t}'{_did_you_mean(t, types.names)}", where, file)

    for t, ps in types.parents.items():
        for p in ps:
            if p not in types:
                raise _err(f"type '{t}' has an undeclared parent '{p}'", secs[0] if secs else None, file)
    for sec in secs:
        key = sec[0]
        if key == ":predicates":
            for p in sec[1:]:
                for _, t in parse_typed_list(p[1:]):
                    check_type(t, p)
        elif key == ":constants":
            for _, t in parse_typed_list(sec[1:]):
                check_type(t, sec)
        elif key == ":action":
            act = domain.action_map[sec[1]]
            params = {p.name: p.type for p in act.parameters}
            for p in act.parameters:
                check_type(p.type, sec)
            fields = dict(zip(sec[2::2], sec[3::2]))
            for fld, is_eff in ((":precondition", False), (":effect", True)):
                if fld not in fields:
                    continue
                for atom, bound in _atoms_in(fields[fld], effect=is_eff):
                    _check_atom(atom, {**params, **bound}, preds, domain.constants, implicit, file,
                                f"action '{act.name}'", line_of(fields[fld]))
                if is_eff:
                    _check_numeric_effects(fields[fld], funcs, file, act.name)
        elif key == ":derived":
            head, body = sec[1], sec[2]
            scope = dict(parse_typed_list(head[1:]))
            for atom, bound in _atoms_in(body, effect=False):
                _check_atom(atom, {**scope, **bound}, preds, domain.constants, implicit, file,
                            f"derived predicate '{head[0]}'", line_of(sec))
    return implicit


def _check_atom(atom: list, scope: Mapping[str, str], preds: Mapping[str, Predicate], constants: Mapping[str, str],
                implicit: dict[str, int | None], file: str | None, owner: str, fallback_line: int | None) -> None:
    line = line_of(atom) or fallback_line
    name = atom[0]
    args = atom[1:]
    for a in args:
        if isinstance(a, list):
            raise _err(f"{owner}: argument {to_text(a)[:40]} of '{name}' is a nested expression", atom, file, line)
    if name == "=":
        if len(args) != 2:
            raise _err(f"{owner}: (= a b) takes two arguments, got {len(args)}", atom, file, line)
    elif name not in preds:
        raise _err(f"{owner}: unknown predicate '{name}'{_did_you_mean(name, preds)}", atom, file, line)
    elif len(args) != preds[name].arity:
        sig = " ".join(p.name for p in preds[name].params)
        raise _err(f"{owner}: '{name}' takes {preds[name].arity} arguments ({name} {sig}), got {len(args)}",
                   atom, file, line)
    for a in args:
        if a.startswith("?"):
            if a not in scope:
                raise _err(f"{owner}: variable '{a}' in ({name} ...) is not a parameter"
                           f"{_did_you_mean(a, scope)}", atom, file, line)
        elif a not in constants:
            implicit.setdefault(a, line)


def _check_numeric_effects(expr, funcs: Mapping[str, Predicate], file: str | None, aname: str) -> None:
    def walk(e):
        if not isinstance(e, list) or not e:
            return
        if e[0] in _NUMERIC_EFFECTS:
            fn = e[1] if len(e) > 1 else None
            fname = fn[0] if isinstance(fn, list) and fn else fn
            if fname not in funcs:
                raise _err(f"action '{aname}': '{e[0]}' of undeclared function '{fname}' (declare it in "
                           f":functions){_did_you_mean(str(fname), funcs)}", e, file)
            return
        for sub in e[1:]:
            walk(sub)
    walk(expr)


# ----------------------------------------------------------------------------- problem

def parse_problem(text: str, *, file: str | None = None) -> Problem:
    return _parse_problem_tree(_one_define(text, file, "problem"), file)


def _parse_problem_tree(tree: list, file: str | None) -> Problem:
    name, secs = _sections(tree, "problem", file)
    dom = ""
    objects: dict[str, str] = {}
    init: set[Atom] = set()
    numeric: dict[Atom, float] = {}
    goal = None
    metric = None
    for sec in secs:
        if not isinstance(sec, list) or not sec:
            raise _err(f"unexpected token in problem: {to_text(sec)[:60]}", sec, file, line_of(tree))
        key = sec[0]
        try:
            if key == ":domain":
                if len(sec) != 2 or isinstance(sec[1], list):
                    raise _err("(:domain NAME) expected", sec, file)
                dom = sec[1]
            elif key == ":requirements":
                pass
            elif key == ":objects":
                objects.update(parse_typed_list(sec[1:], what="object", file=file))
            elif key == ":init":
                for f in sec[1:]:
                    if isinstance(f, list) and f and f[0] == "=":
                        if len(f) != 3:
                            raise _err(f"(= (function args) value) expected, found {to_text(f)[:60]}", f, file)
                        fn = f[1]
                        fa = Atom(fn[0], tuple(fn[1:])) if isinstance(fn, list) else Atom(fn)
                        try:
                            numeric[fa] = float(f[2])
                        except (TypeError, ValueError):
                            raise _err(f"value of {to_text(fn)} must be a number, got {to_text(f[2])[:30]}",
                                       f, file) from None
                    else:
                        try:
                            a = parse_formula(f, file=file)
                        except PDDLSyntaxError as exc:
                            raise _relined(exc, f, file) from None
                        if not isinstance(a, Atom):
                            raise _err(f"initial state holds only atoms, got {a.pddl()[:60]}", f, file)
                        init.add(a)
            elif key == ":goal":
                if len(sec) != 2:
                    raise _err(f"(:goal FORMULA) takes one formula, got {len(sec) - 1}", sec, file)
                try:
                    goal = parse_formula(sec[1], file=file)
                except PDDLSyntaxError as exc:
                    raise _relined(exc, sec[1], file) from None
            elif key == ":metric":
                metric = " ".join(to_text(x) for x in sec[1:])
            else:
                raise _err(f"unknown problem section '{key}'{_did_you_mean(str(key), _PROBLEM_SECTIONS)}", sec,
                           file)
        except PDDLSyntaxError as exc:
            raise _relined(exc, sec, file) from None
    return Problem(name, dom, objects, frozenset(init), goal, numeric, metric)


def load_domain(path: str | Path) -> Domain:
    p = Path(path)
    return parse_domain(_read(p), file=str(p))


def load_problem(path: str | Path) -> Problem:
    p = Path(path)
    return parse_problem(_read(p), file=str(p))


def _read(p: Path) -> str:
    try:
        return p.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise PDDLSyntaxError("file not found", file=str(p)) from None
    except (IsADirectoryError, PermissionError) as exc:
        raise PDDLSyntaxError(f"cannot read: {exc.strerror}", file=str(p)) from None


# ----------------------------------------------------------------------------- a checked task

@dataclass(frozen=True)
class PDDLTask:
    """A domain and a problem read from files and checked against each other."""

    domain: Domain
    problem: Problem
    domain_file: str | None = None
    problem_file: str | None = None
    warnings: tuple[str, ...] = ()


def load_task(domain_path: str | Path, problem_path: str | Path) -> PDDLTask:
    """Read and check a domain and a problem file (see :func:`check_task`)."""
    dp, pp = Path(domain_path), Path(problem_path)
    return check_task(_read(dp), _read(pp), domain_file=str(dp), problem_file=str(pp))


def check_task(domain_text: str, problem_text: str, *, domain_file: str | None = None,
               problem_file: str | None = None) -> PDDLTask:
    """Parse both texts and check them: every type, predicate, function, variable and object
    is declared, arities match, init and goal arguments fit the predicates' types. The first
    fault raises PDDLSyntaxError naming ``file:line``. A name the domain's actions use as a
    constant without declaring it (IPC tyreworld's ``wrench``; older Fast Downward releases
    accepted that) becomes a domain constant of the type the problem gives it, with a warning."""
    info = parse_domain_info(domain_text, file=domain_file, check=True)
    tree = _one_define(problem_text, problem_file, "problem")
    problem = _parse_problem_tree(tree, problem_file)
    domain = info.domain
    warnings: list[str] = []
    if info.implicit_constants:
        constants = dict(domain.constants)
        objects = dict(problem.objects)
        for c, line in info.implicit_constants.items():
            if c not in objects:
                raise PDDLSyntaxError(f"'{c}' is used as a constant in an action but is neither declared in "
                                      f":constants nor an object of the problem{_did_you_mean(c, objects)}",
                                      file=domain_file, line=line)
            constants[c] = objects.pop(c)
            warnings.append(f"{domain_file or 'domain'}:{line}: '{c}' is used as a constant but not declared in "
                            f":constants; taken as a constant of type {constants[c]} from the problem's objects")
        domain = replace(domain, constants=constants)
        problem = Problem(problem.name, problem.domain_name, objects, problem.init, problem.goal,
                          problem.numeric_init, problem.metric)
    if problem.domain_name and problem.domain_name != domain.name:
        warnings.append(f"{problem_file or 'problem'}: (:domain {problem.domain_name}) but the domain is named "
                        f"'{domain.name}'")
    _check_problem(domain, problem, tree, problem_file)
    return PDDLTask(domain, problem, domain_file, problem_file, tuple(warnings))


def _check_problem(domain: Domain, problem: Problem, tree: list, file: str | None) -> None:
    types = domain.types
    preds = domain.predicate_map
    funcs = {f.name: f for f in domain.functions}
    known = {**problem.objects, **domain.constants}
    _, secs = _sections(tree, "problem", file)
    goal_seen = False
    for sec in secs:
        key = sec[0]
        if key == ":objects":
            for o, t in parse_typed_list(sec[1:], what="object"):
                if t not in types:
                    raise _err(f"object '{o}' has unknown type '{t}'{_did_you_mean(t, types.names)}", sec, file)
        elif key == ":init":
            for f in sec[1:]:
                if f[0] == "=":
                    fn = f[1]
                    fname = fn[0] if isinstance(fn, list) else fn
                    if fname not in funcs:
                        raise _err(f"(= ...) of undeclared function '{fname}'{_did_you_mean(fname, funcs)}", f, file)
                    fargs = fn[1:] if isinstance(fn, list) else []
                    for a in fargs:
                        if a not in known:
                            raise _err(f"unknown object '{a}' in {to_text(f)}{_did_you_mean(a, known)}", f, file)
                    continue
                if f[0] in domain.derived_map:
                    raise _err(f"'{f[0]}' is a derived predicate; it cannot be set in :init", f, file)
                _check_ground_atom(f, {}, domain, known, file, "init")
        elif key == ":goal":
            goal_seen = True
            for atom, bound in _atoms_in(sec[1], effect=False):
                _check_ground_atom(atom, bound, domain, known, file, "goal")
    if not goal_seen:
        raise _err("the problem has no (:goal ...) section", tree, file)
    del preds


def _check_ground_atom(atom: list, bound: Mapping[str, str], domain: Domain, known: Mapping[str, str],
                       file: str | None, where: str) -> None:
    preds = domain.predicate_map
    name, args = atom[0], atom[1:]
    if isinstance(name, list):
        raise _err(f"{where}: expected a predicate name, found '('", atom, file)
    if name == "=":
        if len(args) != 2:
            raise _err(f"{where}: (= a b) takes two arguments, got {len(args)}", atom, file)
        sig = None
    elif name not in preds:
        raise _err(f"{where}: unknown predicate '{name}'{_did_you_mean(name, preds)}", atom, file)
    else:
        sig = preds[name]
        if len(args) != sig.arity:
            params = " ".join(p.name for p in sig.params)
            raise _err(f"{where}: '{name}' takes {sig.arity} arguments ({name} {params}), got {len(args)}: "
                       f"{to_text(atom)}", atom, file)
    for i, a in enumerate(args):
        if isinstance(a, list):
            raise _err(f"{where}: argument {to_text(a)[:40]} of '{name}' is a nested expression", atom, file)
        if a.startswith("?"):
            if a not in bound:
                raise _err(f"{where}: variable '{a}' is not bound by forall / exists", atom, file)
            t = bound[a]
        elif a not in known:
            raise _err(f"{where}: unknown object '{a}' in {to_text(atom)}{_did_you_mean(a, known)}", atom, file)
        else:
            t = known[a]
        if sig is not None:
            want = sig.params[i].type
            if not domain.types.is_subtype(t, want) and not (a.startswith("?") and domain.types.is_subtype(want, t)):
                raise _err(f"{where}: {to_text(atom)}: '{a}' is a {t}, but argument {i + 1} of '{name}' must be a "
                           f"{want}", atom, file)


__all__ = ["parse_domain", "parse_domain_info", "parse_problem", "load_domain", "load_problem", "load_task",
           "check_task", "PDDLTask", "DomainInfo"]
