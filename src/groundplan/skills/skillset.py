"""Skill sets as data files: load and validate a skill-set YAML."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from groundplan.errors import ConfigError, GoalError, InputError, SkillSetError, did_you_mean
from groundplan.knowledge.affordances import affordance_names
from groundplan.pddl.formula import (
    And,
    Atom,
    Effect,
    Formula,
    Imply,
    Increase,
    Literal,
    Not,
    Or,
    TypedVar,
    When,
    parse_effect,
    parse_formula,
    parse_typed_list,
)
from groundplan.pddl.model import DerivedPredicate, Predicate
from groundplan.pddl.semantics import SemanticCondition, conditions_from_data
from groundplan.pddl.sexpr import parse_one
from groundplan.schemas import EMPTY, LineMap, load_yaml, validate


@dataclass(frozen=True)
class Capability:
    name: str
    parameters: tuple[TypedVar, ...]
    precondition: Formula
    effects: tuple[Effect, ...]
    actor: bool = True  # False: an effect of the environment (no actor; fixed ``cost``)
    cost: float = 0.0
    #: ordered failure checks (condition, message template) for simulator-style messages
    checks: tuple[tuple[Formula, str], ...] = ()


@dataclass(frozen=True)
class AgentProfile:
    type: str
    cost: float
    capabilities: tuple[str, ...] | None  # None = all


@dataclass(frozen=True)
class SkillSet:
    name: str
    domain_name: str
    requirements: tuple[str, ...]
    types: Mapping[str, tuple[str, ...]]
    affordance_types: bool
    location_type: str | None
    actor_type: str
    capability_type_prefix: str
    agents: Mapping[str, AgentProfile]
    predicates: tuple[Predicate, ...]
    hidden_predicates: frozenset[str]
    derived: tuple[DerivedPredicate, ...]
    functions: tuple[Predicate, ...]
    cost_effect: tuple[Effect, ...]
    init_implications: tuple[tuple[Atom, Atom], ...]
    capabilities: tuple[Capability, ...]
    semantic_conditions: tuple[SemanticCondition, ...]
    source: str = field(default="", compare=False)

    def capability(self, name: str) -> Capability:
        for c in self.capabilities:
            if c.name == name:
                return c
        raise ConfigError(f"skill set '{self.name}' has no capability '{name}'")


def _decl(text: str, file: str) -> Predicate:
    expr = parse_one(text, file=file)
    if not isinstance(expr, list) or not expr or not isinstance(expr[0], str):
        raise SkillSetError(f"bad declaration '{text}': write (name ?param - type ...)", file=file)
    return Predicate(expr[0], tuple(TypedVar(n, t) for n, t in parse_typed_list(expr[1:], file=file)))


def _wrap(text: str) -> str:
    t = text.strip()
    return t if t.startswith("(") else f"({t})"


_LABEL_RE = re.compile(r"\{(\w+)\.label\}")
_FIELD_RE = re.compile(r"\{(\w+)(?:\.(\w+))?\}")


def _label_for(label: str, param: str) -> str:
    return label.replace("{name}", "{%s}" % param).replace("{cls}", "{%s.cls}" % param).replace(
        "{idx}", "{%s.idx}" % param)


def _no_yaml_booleans(node: Any, file: str, lines: LineMap, path: tuple = ()) -> None:
    """YAML 1.1 reads unquoted on/off/yes/no as booleans; in a skill set that is a bug."""
    where = ".".join(str(k) for k in path) or "top level"
    if isinstance(node, bool):
        raise SkillSetError(f"value at {where} is a boolean; quote names such as \"on\" "
                            f"(YAML reads unquoted on/off/yes/no as true/false)", file=file, line=lines.line(path))
    if isinstance(node, dict):
        for k, v in node.items():
            if isinstance(k, bool):
                raise SkillSetError(f"key {k!r} under {where} is a boolean; quote it", file=file,
                                    line=lines.line(path))
            if k not in BOOL_KEYS:
                _no_yaml_booleans(v, file, lines, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _no_yaml_booleans(v, file, lines, path + (i,))


BOOL_KEYS = frozenset({"actor"})  # keys whose values are booleans by design
NAME_FIELDS = ("types", "predicates", "hidden_predicates", "derived", "capabilities", "semantic_conditions",
               "init_implications", "functions", "agents")


class _Reader:
    """Parses the skill set's PDDL strings, each error located at the field's line."""

    def __init__(self, file: str, lines: LineMap):
        self.file, self.lines = file, lines

    def fail(self, msg: str, path: tuple) -> SkillSetError:
        return SkillSetError(msg, file=self.file, line=self.lines.line(path))

    def parse(self, fn, text: str, path: tuple):
        where = ".".join(str(k) if not isinstance(k, int) else f"[{k}]" for k in path).replace(".[", "[")
        if isinstance(text, str) and not text.isascii():  # Fast Downward reads ASCII PDDL only
            bad = next(c for c in text if not c.isascii())
            plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
            raise self.fail(f"{where}: non-ASCII letter '{bad}' in '{' '.join(text.split())}'; PDDL names are "
                            f"ASCII (did you mean '{' '.join(plain.split())}'?)", path)
        try:
            return fn(text)
        except (InputError, GoalError) as exc:
            detail = re.sub(r" \(?(first )?opened on line \d+\)?| on line \d+", "", getattr(exc, "detail", str(exc)))
            raise self.fail(f"{where}: {detail} in '{' '.join(str(text).split())}'", path) from None

    def decl(self, text: str, path: tuple) -> Predicate:
        return self.parse(lambda s: _decl(s, self.file), text, path)

    def formula(self, text: str, path: tuple) -> Formula:
        return self.parse(lambda s: parse_formula(parse_one(_wrap(s), file=self.file), file=self.file), text, path)

    def effect(self, text: str, path: tuple) -> tuple[Effect, ...]:
        return self.parse(lambda s: parse_effect(parse_one(_wrap(s), file=self.file), file=self.file), text, path)


def parse_skillset(data: Mapping[str, Any], *, file: str, lines: LineMap = EMPTY) -> SkillSet:
    """A skill set from its YAML data, checked against the ``skillset`` schema and for
    consistency (see :func:`check_skillset`); errors are ``file:line: message``."""
    if not isinstance(data, Mapping):
        raise SkillSetError("a skill set must be a YAML mapping with name, types, predicates and capabilities",
                            file=file, line=lines.line(()))
    for key in NAME_FIELDS:
        if key in data:
            _no_yaml_booleans(data[key], file, lines, (key,))
    validate(dict(data), "skillset", file=file, lines=lines, error=SkillSetError, top_word="section")
    r = _Reader(file, lines)
    preds = []
    for i, p in enumerate(data.get("predicates", [])):
        d = r.decl(p["decl"], ("predicates", i))
        preds.append(Predicate(d.name, d.params, p.get("comment", "")))
    derived = []
    for i, d in enumerate(data.get("derived", [])):
        head = r.decl(d["head"], ("derived", i, "head"))
        derived.append(DerivedPredicate(head, r.formula(d["body"], ("derived", i, "body"))))
    caps = []
    label = data.get("object_label")
    for i, c in enumerate(data.get("capabilities", [])):
        params = tuple(TypedVar("?" + p["name"], p["type"]) for p in c.get("parameters", []))
        checks = []
        for j, chk in enumerate(c.get("checks") or []):
            msg = str(chk["message"])
            if label is not None:
                msg = _LABEL_RE.sub(lambda m: _label_for(label, m.group(1)), msg)
            checks.append((r.formula(chk["require"], ("capabilities", i, "checks", j, "require")), msg))
        if "preconditions" not in c and checks:  # the checks' conjunction is the precondition
            pre: Formula = And(tuple(f for f, _ in checks))
        else:
            pre = r.formula(c.get("preconditions", "and"), ("capabilities", i, "preconditions"))
        eff = r.effect(c.get("effects", "and"), ("capabilities", i, "effects"))
        caps.append(Capability(c["name"], params, pre, eff, bool(c.get("actor", True)), float(c.get("cost", 0)),
                               tuple(checks)))
    agents = {}
    for kind, a in (data.get("agents") or {}).items():
        capset = a.get("capabilities", "all")
        agents[kind] = AgentProfile(a["type"], float(a.get("cost", 1)), None if capset == "all" else tuple(capset))
    implications = []
    for i, imp in enumerate(data.get("init_implications", [])):
        lhs = r.formula(imp["if"], ("init_implications", i, "if"))
        rhs = r.formula(imp["then"], ("init_implications", i, "then"))
        implications.append((lhs, rhs))
    cost_effect = r.effect(data["cost_effect"], ("cost_effect",)) if data.get("cost_effect") else ()
    functions = tuple(r.decl(f, ("functions", i)) for i, f in enumerate(data.get("functions", [])))
    sk = SkillSet(
        name=data["name"], domain_name=data.get("domain_name", data["name"]),
        requirements=tuple(data.get("requirements", [":strips", ":typing"])),
        types={k: tuple(v) for k, v in (data.get("types") or {}).items()},
        affordance_types=bool(data.get("affordance_types", False)),
        location_type=data.get("location_type"), actor_type=data.get("actor_type", "actor"),
        capability_type_prefix=data.get("capability_type_prefix", "can_"), agents=agents,
        predicates=tuple(preds), hidden_predicates=frozenset(data.get("hidden_predicates", [])),
        derived=tuple(derived), functions=functions,
        cost_effect=cost_effect, init_implications=tuple(implications), capabilities=tuple(caps),
        semantic_conditions=conditions_from_data(data.get("semantic_conditions", [])), source=file)
    check_skillset(sk, data, r)
    return sk


def check_skillset(sk: SkillSet, data: Mapping[str, Any], r: _Reader) -> None:
    """Everything Fast Downward would trip over, and more, as one located line: duplicate
    names, unknown types, unknown predicates or functions, wrong arity, variables no
    parameter or quantifier binds, effects on derived predicates, unknown capability names."""
    def dup(names: list[str], what: str, path_of) -> None:
        seen: dict[str, int] = {}
        for i, n in enumerate(names):
            if n in seen:
                raise r.fail(f"{what} '{n}' declared twice (first as entry {seen[n] + 1})", path_of(i))
            seen[n] = i

    dup([p.name for p in sk.predicates], "predicate", lambda i: ("predicates", i))
    dup([c.name for c in sk.capabilities], "capability", lambda i: ("capabilities", i, "name"))
    dup([c.name for c in sk.semantic_conditions], "semantic condition", lambda i: ("semantic_conditions", i, "name"))
    decl_arity = {p.name: p.arity for p in sk.predicates}
    for i, d in enumerate(sk.derived):
        n = d.predicate.name
        if n in decl_arity and decl_arity[n] != d.predicate.arity:
            raise r.fail(f"derived predicate '{n}' has {d.predicate.arity} parameters, but its declaration under "
                         f"predicates has {decl_arity[n]}", ("derived", i, "head"))
    dup([d.predicate.name for d in sk.derived], "derived predicate", lambda i: ("derived", i, "head"))

    cap_types = {f"{sk.capability_type_prefix}{c.name}" for c in sk.capabilities if c.actor}
    # a type and a predicate of one name: PDDL allows it, Fast Downward's translator does not
    # (it warns "name clash between type and predicate" and then fails on the task)
    pred_names = {p.name for p in sk.predicates}
    for i, c in enumerate(sk.capabilities):
        t = f"{sk.capability_type_prefix}{c.name}"
        if c.actor and t in pred_names:
            raise r.fail(f"capability '{c.name}' makes the agent type '{t}' (capability_type_prefix "
                         f"'{sk.capability_type_prefix}'), which is also the name of a predicate; Fast Downward "
                         f"cannot plan with a type and a predicate of one name: choose another capability_type_prefix",
                         ("capabilities", i, "name"))
    for t in sk.types:
        if t in pred_names:
            raise r.fail(f"type '{t}' is also the name of a predicate; Fast Downward cannot plan with a type and a "
                         f"predicate of one name: rename one of them", ("types", t))
    types = {"object", sk.actor_type, *sk.types, *cap_types, *(a.type for a in sk.agents.values())}
    if sk.location_type:
        types.add(sk.location_type)
    if sk.affordance_types:
        types |= set(affordance_names())

    def type_ok(t: str, path: tuple, what: str) -> None:
        """Without affordance types a skill set may name scene classes as types (virtualhome's
        ``is_microwave ?x - microwave``): an undeclared type is then an error only when it is
        close to a declared one (a misspelling)."""
        if t in types:
            return
        hint = did_you_mean(t, types, cutoff=0.6 if sk.affordance_types else 0.85)
        if sk.affordance_types or hint:
            raise r.fail(f"{what} has unknown type '{t}'{hint} (declare it under types)", path)

    for t, parents in sk.types.items():
        for p in parents:
            type_ok(p, ("types", t), f"type '{t}'")
    for t in sk.types:  # a type must not be its own ancestor (cube: [cube], a: [b] with b: [a])
        seen, todo = set(), list(sk.types.get(t, ()))
        while todo:
            p = todo.pop()
            if p == t:
                raise r.fail(f"type '{t}' is its own ancestor (its parents lead back to it); a type's parents "
                             f"are more general types, ending at object", ("types", t))
            if p not in seen:
                seen.add(p)
                todo.extend(sk.types.get(p, ()))
    arity = {p.name: p.arity for p in sk.predicates} | {d.predicate.name: d.predicate.arity for d in sk.derived}
    params_of = {p.name: p for p in sk.predicates} | {d.predicate.name: d.predicate for d in sk.derived}
    for i, p in enumerate(sk.predicates):
        for v in p.params:
            type_ok(v.type, ("predicates", i), f"parameter {v.name} of predicate '{p.name}'")
    funcs = {f.name: f.arity for f in sk.functions}
    for i, f in enumerate(sk.functions):
        for v in f.params:
            type_ok(v.type, ("functions", i), f"parameter {v.name} of function '{f.name}'")

    def atom_ok(a: Atom, bound: Mapping[str, str], path: tuple) -> None:
        if a.predicate == "=":
            if len(a.args) != 2:
                raise r.fail(f"'=' takes 2 arguments, got {len(a.args)} in {a.pddl()}", path)
        elif a.predicate not in arity:
            raise r.fail(f"unknown predicate '{a.predicate}' in {a.pddl()}{did_you_mean(a.predicate, arity)}", path)
        elif len(a.args) != arity[a.predicate]:
            raise r.fail(f"predicate '{a.predicate}' takes {arity[a.predicate]} arguments "
                         f"{params_of[a.predicate].pddl()}, got {len(a.args)} in {a.pddl()}", path)
        for x in a.args:
            if not x.startswith("?"):
                raise r.fail(f"'{x}' in {a.pddl()} is not a variable (write ?{x}; a skill set names no objects)", path)
            if x not in bound:
                raise r.fail(f"variable {x} in {a.pddl()} is bound by no parameter{did_you_mean(x, bound)} "
                             f"(parameters: {', '.join(bound) or 'none'})", path)

    def formula_ok(f: Formula, bound: Mapping[str, str], path: tuple) -> None:
        if isinstance(f, Atom):
            atom_ok(f, bound, path)
        elif isinstance(f, Not):
            formula_ok(f.arg, bound, path)
        elif isinstance(f, (And, Or)):
            for g in f.args:
                formula_ok(g, bound, path)
        elif isinstance(f, Imply):
            formula_ok(f.left, bound, path)
            formula_ok(f.right, bound, path)
        else:  # Exists / Forall
            for v in f.vars:
                type_ok(v.type, path, f"variable {v.name}")
            formula_ok(f.body, {**bound, **{v.name: v.type for v in f.vars}}, path)

    def effects_ok(effs, bound: Mapping[str, str], path: tuple) -> None:
        for e in effs:
            if isinstance(e, Literal):
                atom_ok(e.atom, bound, path)
                if e.atom.predicate in {d.predicate.name for d in sk.derived}:
                    raise r.fail(f"effect {e.pddl()} changes the derived predicate '{e.atom.predicate}'", path)
            elif isinstance(e, Increase):
                for fa in (e.function, e.value):
                    if isinstance(fa, Atom):
                        if fa.predicate not in funcs:
                            raise r.fail(f"unknown function '{fa.predicate}' in {e.pddl()}"
                                         f"{did_you_mean(fa.predicate, funcs)} (declare it under functions)", path)
                        if len(fa.args) != funcs[fa.predicate]:
                            raise r.fail(f"function '{fa.predicate}' takes {funcs[fa.predicate]} arguments, "
                                         f"got {len(fa.args)} in {e.pddl()}", path)
                        for x in fa.args:
                            if x not in bound:
                                raise r.fail(f"variable {x} in {e.pddl()} is bound by no parameter", path)
            elif isinstance(e, When):
                formula_ok(e.condition, bound, path)
                effects_ok(e.effects, bound, path)
            else:  # ForallEffect
                for v in e.vars:
                    type_ok(v.type, path, f"variable {v.name}")
                effects_ok(e.effects, {**bound, **{v.name: v.type for v in e.vars}}, path)

    for i, d in enumerate(sk.derived):
        for v in d.predicate.params:
            type_ok(v.type, ("derived", i, "head"), f"parameter {v.name} of derived predicate '{d.predicate.name}'")
        formula_ok(d.condition, {v.name: v.type for v in d.predicate.params}, ("derived", i, "body"))
    actor_bound = {"?actor": sk.actor_type}
    if sk.cost_effect:
        effects_ok(sk.cost_effect, actor_bound, ("cost_effect",))
    raw_caps = data.get("capabilities", [])
    for i, c in enumerate(sk.capabilities):
        raw = raw_caps[i]
        names = [p.name for p in c.parameters] + (["?actor"] if c.actor else [])
        for j, n in enumerate(names):
            if n in names[:j]:
                extra = " (?actor is added to every capability with an actor)" if n == "?actor" else ""
                raise r.fail(f"capability '{c.name}' has two parameters named {n[1:]}{extra}",
                             ("capabilities", i, "parameters", min(j, len(c.parameters) - 1)))
        bound = {p.name: p.type for p in c.parameters}
        for j, p in enumerate(c.parameters):
            type_ok(p.type, ("capabilities", i, "parameters", j), f"parameter {p.name} of '{c.name}'")
        if c.actor:
            bound["?actor"] = sk.actor_type
        if "preconditions" in raw or not c.checks:
            formula_ok(c.precondition, bound, ("capabilities", i, "preconditions"))
        for j, (f, msg) in enumerate(c.checks):
            path = ("capabilities", i, "checks", j)
            formula_ok(f, bound, path + ("require",))
            for m in _FIELD_RE.finditer(msg):
                if f"?{m.group(1)}" not in bound:
                    raise r.fail(f"message of '{c.name}' names {{{m.group(1)}}}, which is not a parameter"
                                 f"{did_you_mean(m.group(1), [b[1:] for b in bound])}", path + ("message",))
        effects_ok(c.effects, bound, ("capabilities", i, "effects"))
    cap_names = [c.name for c in sk.capabilities if c.actor]
    for kind, a in sk.agents.items():
        for j, cn in enumerate(a.capabilities or ()):
            if cn not in cap_names:
                raise r.fail(f"agent kind '{kind}' has capability '{cn}', which the skill set does not define"
                             f"{did_you_mean(cn, cap_names) or ' (its capabilities: ' + ', '.join(cap_names) + ')'}",
                             ("agents", kind, "capabilities", j))
    for h in sorted(sk.hidden_predicates):
        if h not in arity:
            idx = list(data.get("hidden_predicates", [])).index(h)
            raise r.fail(f"hidden predicate '{h}' is not declared{did_you_mean(h, arity)}", ("hidden_predicates", idx))
    for i, (lhs, rhs) in enumerate(sk.init_implications):
        for f, key in ((lhs, "if"), (rhs, "then")):
            if not isinstance(f, Atom):
                raise r.fail(f"init_implications[{i}].{key} must be one atom, got {f.pddl()}",
                             ("init_implications", i, key))
        lvars = {x: "object" for x in lhs.args if x.startswith("?")}
        atom_ok(lhs, lvars, ("init_implications", i, "if"))
        atom_ok(rhs, lvars, ("init_implications", i, "then"))
    for i, sc in enumerate(sk.semantic_conditions):
        for j, pn in enumerate(sc.predicates):
            if pn not in arity:
                raise r.fail(f"semantic condition '{sc.name}' names unknown predicate '{pn}'{did_you_mean(pn, arity)}",
                             ("semantic_conditions", i, "predicates", j))
        if sc.kind == "mutex" and len(sc.predicates) != 2:
            raise r.fail(f"semantic condition '{sc.name}' (mutex) needs exactly 2 predicates",
                         ("semantic_conditions", i, "predicates"))


BUILTIN = ("household",)


def load_skillset(name_or_path: str | Path) -> SkillSet:
    """A built-in skill set by name (``household``) or a skill-set YAML file."""
    s = str(name_or_path)
    if s in BUILTIN or (not s.endswith((".yaml", ".yml")) and "/" not in s):
        ref = resources.files("groundplan.skills").joinpath(f"data/{s}.yaml")
        if not ref.is_file():
            raise ConfigError(f"unknown skill set '{s}'{did_you_mean(s, available_skillsets())} "
                              f"(built in: {', '.join(available_skillsets())})")
        file = f"<skillset {s}>"
        data, lines = load_yaml(ref.read_text(), file=file, error=SkillSetError)
        return parse_skillset(data, file=file, lines=lines)
    p = Path(s)
    if not p.exists():
        raise SkillSetError("skill-set file not found", file=str(p))
    data, lines = load_yaml(p.read_text(), file=str(p), error=SkillSetError)
    return parse_skillset(data, file=str(p), lines=lines)


def available_skillsets() -> list[str]:
    d = resources.files("groundplan.skills").joinpath("data")
    return sorted(x.name[:-5] for x in d.iterdir() if x.name.endswith(".yaml"))
