"""Skill sets as data files: load and validate a skill-set YAML."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

import yaml

from groundplan.errors import ConfigError, GroundplanError, SkillSetError
from groundplan.pddl.formula import (
    And,
    Atom,
    Effect,
    Formula,
    TypedVar,
    parse_effect,
    parse_formula,
    parse_typed_list,
)
from groundplan.pddl.model import DerivedPredicate, Predicate
from groundplan.pddl.semantics import SemanticCondition, conditions_from_data
from groundplan.pddl.sexpr import parse_one


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
        raise SkillSetError(f"bad declaration '{text}'", file=file)
    return Predicate(expr[0], tuple(TypedVar(n, t) for n, t in parse_typed_list(expr[1:], file=file)))


def _wrap(text: str) -> str:
    t = text.strip()
    return t if t.startswith("(") else f"({t})"


_LABEL_RE = re.compile(r"\{(\w+)\.label\}")


def _label_for(label: str, param: str) -> str:
    return label.replace("{name}", "{%s}" % param).replace("{cls}", "{%s.cls}" % param).replace(
        "{idx}", "{%s.idx}" % param)


def _checks(c: Mapping[str, Any], label: str | None, file: str) -> tuple[tuple[Formula, str], ...]:
    """A capability's ``checks``: ``[{require: "(formula)", message: "template"}]``. Templates
    name parameters as ``{object}`` (the object's name), ``{object.cls}`` (its class),
    ``{object.idx}`` (the number its name ends with) or ``{object.label}`` (the skill set's
    ``object_label`` template, e.g. ``"<{cls}> ({idx})"``)."""
    out = []
    for chk in c.get("checks") or []:
        msg = str(chk["message"])
        if label is not None:
            msg = _LABEL_RE.sub(lambda m: _label_for(label, m.group(1)), msg)
        out.append((parse_formula(parse_one(_wrap(chk["require"]), file=file), file=file), msg))
    return tuple(out)


def _no_yaml_booleans(node: Any, file: str, path: str = "") -> None:
    """YAML 1.1 reads unquoted on/off/yes/no as booleans; in a skill set that is a bug."""
    if isinstance(node, bool):
        raise SkillSetError(f"value at {path or 'top level'} is a boolean; quote names such as \"on\" "
                            f"(YAML reads unquoted on/off/yes/no as true/false)", file=file)
    if isinstance(node, dict):
        for k, v in node.items():
            if isinstance(k, bool):
                raise SkillSetError(f"key {k!r} under {path or 'top level'} is a boolean; quote it", file=file)
            if k not in BOOL_KEYS:
                _no_yaml_booleans(v, file, f"{path}.{k}" if path else str(k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _no_yaml_booleans(v, file, f"{path}[{i}]")


BOOL_KEYS = frozenset({"actor"})  # keys whose values are booleans by design
NAME_FIELDS = ("types", "predicates", "hidden_predicates", "derived", "capabilities", "semantic_conditions",
               "init_implications", "functions")


def parse_skillset(data: Mapping[str, Any], *, file: str) -> SkillSet:
    for key in NAME_FIELDS:
        if isinstance(data, Mapping) and key in data:
            _no_yaml_booleans(data[key], file, key)
    try:
        preds = []
        for p in data.get("predicates", []):
            d = _decl(p["decl"], file)
            preds.append(Predicate(d.name, d.params, p.get("comment", "")))
        derived = []
        for d in data.get("derived", []):
            head = _decl(d["head"], file)
            derived.append(DerivedPredicate(head, parse_formula(parse_one(d["body"], file=file), file=file)))
        caps = []
        label = data.get("object_label")
        for c in data.get("capabilities", []):
            params = tuple(TypedVar("?" + p["name"], p["type"]) for p in c.get("parameters", []))
            checks = _checks(c, label, file)
            if "preconditions" not in c and checks:  # the checks' conjunction is the precondition
                pre: Formula = And(tuple(f for f, _ in checks))
            else:
                pre = parse_formula(parse_one(_wrap(c.get("preconditions", "and")), file=file), file=file)
            eff = parse_effect(parse_one(_wrap(c.get("effects", "and")), file=file), file=file)
            caps.append(Capability(c["name"], params, pre, eff, bool(c.get("actor", True)), float(c.get("cost", 0)),
                                   checks))
        agents = {}
        for kind, a in (data.get("agents") or {}).items():
            capset = a.get("capabilities", "all")
            agents[kind] = AgentProfile(a["type"], float(a.get("cost", 1)),
                                        None if capset == "all" else tuple(capset))
        implications = []
        for imp in data.get("init_implications", []):
            lhs = parse_formula(parse_one(imp["if"], file=file), file=file)
            rhs = parse_formula(parse_one(imp["then"], file=file), file=file)
            implications.append((lhs, rhs))
        cost_effect = parse_effect(parse_one(data["cost_effect"], file=file), file=file) if data.get("cost_effect") else ()
        return SkillSet(
            name=data["name"], domain_name=data.get("domain_name", data["name"]),
            requirements=tuple(data.get("requirements", [":strips", ":typing"])),
            types={k: tuple(v) for k, v in (data.get("types") or {}).items()},
            affordance_types=bool(data.get("affordance_types", False)),
            location_type=data.get("location_type"), actor_type=data.get("actor_type", "actor"),
            capability_type_prefix=data.get("capability_type_prefix", "can_"), agents=agents,
            predicates=tuple(preds), hidden_predicates=frozenset(data.get("hidden_predicates", [])),
            derived=tuple(derived), functions=tuple(_decl(f, file) for f in data.get("functions", [])),
            cost_effect=cost_effect, init_implications=tuple(implications), capabilities=tuple(caps),
            semantic_conditions=conditions_from_data(data.get("semantic_conditions", [])), source=file)
    except GroundplanError:
        raise
    except (KeyError, TypeError, AttributeError) as exc:
        raise SkillSetError(f"malformed skill set: missing or bad field {exc}", file=file) from None


BUILTIN = ("household",)


def load_skillset(name_or_path: str | Path) -> SkillSet:
    """A built-in skill set by name (``household``) or a skill-set YAML file."""
    s = str(name_or_path)
    if s in BUILTIN or (not s.endswith((".yaml", ".yml")) and "/" not in s):
        ref = resources.files("groundplan.skills").joinpath(f"data/{s}.yaml")
        if not ref.is_file():
            raise ConfigError(f"unknown skill set '{s}' (built in: {', '.join(available_skillsets())})")
        return parse_skillset(yaml.safe_load(ref.read_text()), file=f"<skillset {s}>")
    p = Path(s)
    if not p.exists():
        raise SkillSetError("skill-set file not found", file=str(p))
    try:
        data = yaml.safe_load(p.read_text())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
        raise SkillSetError(f"invalid YAML: {problem}", file=str(p),
                            line=mark.line + 1 if mark is not None else None) from None
    return parse_skillset(data, file=str(p))


def available_skillsets() -> list[str]:
    d = resources.files("groundplan.skills").joinpath("data")
    return sorted(x.name[:-5] for x in d.iterdir() if x.name.endswith(".yaml"))
