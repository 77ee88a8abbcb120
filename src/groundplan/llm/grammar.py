"""Grammars for constrained output.

``goal_grammar(domain, problem)`` writes a GBNF grammar whose sentences are exactly the
goal formulas that fit the domain and the scene: only declared (non-hidden) predicates,
only objects of the problem, each argument of its parameter's type, with and / or nesting
over literals (an atom or ``(not atom)``) up to a bounded depth and width. A goal decoded
under it cannot be malformed, and because the language is finite the grammar knows its
longest sentence, so a token budget that can never cut a goal short is known too.

``json_schema_grammar(schema)`` converts a JSON schema to GBNF with llama.cpp's converter
(for methods whose papers ask for JSON)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping, Optional

from groundplan.llm.errors import LLMConfigError, LLMError
from groundplan.pddl.model import Domain, Problem


@dataclass(frozen=True)
class GoalGrammarOptions:
    #: and / or levels above the literals (2 allows (and (or a b) (or c d)))
    max_depth: int = 2
    #: most children of one and / or
    max_args: int = 4
    allow_or: bool = True
    allow_not: bool = True
    #: allow predicates the domain marks "Do not use this predicate"
    allow_hidden: bool = False
    #: use only these predicates (None: every declared one)
    predicates: Optional[tuple[str, ...]] = None
    #: wrap the goal as ``(:goal ...)``, the form AutoGPT+P's prompt example shows (small
    #: models follow the example's form more readily); parse_goal unwraps it
    wrap_goal: bool = True


DEFAULT_GOAL_GRAMMAR = GoalGrammarOptions()


@dataclass(frozen=True)
class GoalGrammar:
    gbnf: str
    #: length in characters of the longest goal the grammar accepts (a safe max_tokens)
    max_chars: int
    #: predicates the grammar offers
    predicates: tuple[str, ...]
    #: predicates left out because some parameter type has no object in the scene
    unavailable: tuple[str, ...]

    @property
    def max_tokens(self) -> int:
        """A token budget that cannot cut a goal short (every token is at least one
        character), plus one for the end-of-sequence token."""
        return self.max_chars + 1


def gbnf_literal(text: str) -> str:
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


class _Names:
    """Unique GBNF rule names ([a-zA-Z0-9-]) for arbitrary PDDL names."""

    def __init__(self) -> None:
        self.used: dict[str, str] = {}
        self.taken: set[str] = {"root", "formula", "literal", "atom"}

    def get(self, prefix: str, name: str) -> str:
        k = f"{prefix}:{name}"
        if k in self.used:
            return self.used[k]
        base = f"{prefix}-" + (re.sub(r"[^a-zA-Z0-9]+", "-", name).strip("-").lower() or "x")
        cand, i = base, 2
        while cand in self.taken:
            cand, i = f"{base}-{i}", i + 1
        self.taken.add(cand)
        self.used[k] = cand
        return cand


def goal_grammar(domain: Domain, problem: Problem, options: GoalGrammarOptions = DEFAULT_GOAL_GRAMMAR) -> GoalGrammar:
    if options.max_depth < 0 or options.max_args < 1:
        raise LLMConfigError("goal grammar: max_depth must be >= 0 and max_args >= 1")
    names = _Names()
    wanted = set(options.predicates) if options.predicates is not None else None
    if wanted is not None:
        unknown = sorted(wanted - set(domain.predicate_map))
        if unknown:
            raise LLMConfigError(f"goal grammar: unknown predicate '{unknown[0]}'")

    type_rules: dict[str, tuple[str, list[str]]] = {}  # type -> (rule, objects)

    def objects_rule(t: str) -> Optional[str]:
        if t not in type_rules:
            objs = sorted(set(problem.objects_of_type(domain, t)))
            type_rules[t] = (names.get("t", t), objs)
        rule, objs = type_rules[t]
        return rule if objs else None

    atom_rules: list[tuple[str, str]] = []  # (rule name, body)
    offered: list[str] = []
    unavailable: list[str] = []
    atom_len = 0
    for p in domain.predicates:
        if wanted is not None and p.name not in wanted:
            continue
        if not options.allow_hidden and p.name in domain.hidden_predicates:
            continue
        arg_rules = [objects_rule(v.type) for v in p.params]
        if any(r is None for r in arg_rules):
            unavailable.append(p.name)
            continue
        parts = [gbnf_literal(f"({p.name}" + (" " if p.params else ""))]
        for i, r in enumerate(arg_rules):
            if i:
                parts.append('" "')
            parts.append(r)  # type: ignore[arg-type]
        parts.append('")"')
        atom_rules.append((names.get("a", p.name), " ".join(parts)))
        offered.append(p.name)
        longest_args = sum(max(len(o) for o in type_rules[v.type][1]) for v in p.params)
        atom_len = max(atom_len, 1 + len(p.name) + len(p.params) + longest_args + 1)
    if not atom_rules:
        raise LLMError("no goal can be written for this scene: no usable predicate has objects of its "
                       "parameter types" + (f" (unavailable: {', '.join(unavailable)})" if unavailable else ""))

    lines = []
    connectives = ["and"] + (["or"] if options.allow_or else [])
    # levels: f0 = literal, f{d} = f{d-1} | (and f{d-1} ...) | (or ...)
    lengths = [atom_len + (len("(not )") if options.allow_not else 0)]
    for d in range(1, options.max_depth + 1):
        prev = "literal" if d == 1 else f"formula-{d - 1}"
        alts = [prev]
        for c in connectives:
            rest = f' (" " {prev}){{0,{options.max_args - 1}}}' if options.max_args > 1 else ""
            alts.append(f'"({c} " {prev}{rest} ")"')
        lines.append(f"formula-{d} ::= " + " | ".join(alts))
        child = lengths[-1]
        lengths.append(max(child, len("(and ") + options.max_args * child + (options.max_args - 1) + 1))
    top = f"formula-{options.max_depth}" if options.max_depth > 0 else "literal"
    head = [f'root ::= "(:goal " {top} ")"' if options.wrap_goal else f"root ::= {top}"]
    if options.wrap_goal:
        lengths.append(lengths[-1] + len("(:goal )"))
    head.append('literal ::= atom | "(not " atom ")"' if options.allow_not else "literal ::= atom")
    head.append("atom ::= " + " | ".join(r for r, _ in atom_rules))
    body = [f"{r} ::= {b}" for r, b in atom_rules]
    body += [f"{rule} ::= " + " | ".join(gbnf_literal(o) for o in objs)
             for rule, objs in type_rules.values() if objs]
    text = "\n".join(head + lines + body) + "\n"
    return GoalGrammar(text, lengths[-1], tuple(offered), tuple(unavailable))


def json_schema_grammar(schema: Mapping[str, Any] | str) -> str:
    """GBNF for a JSON schema, by llama.cpp's converter (needs llama-cpp-python)."""
    text = schema if isinstance(schema, str) else json.dumps(schema)
    from groundplan.llm._llamacpp import import_llama_cpp

    import_llama_cpp()
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    try:
        return json_schema_to_gbnf(text)
    except Exception as exc:  # the converter raises plain Exceptions / ValueErrors
        raise LLMConfigError(f"cannot convert the JSON schema to a grammar: {' '.join(str(exc).split())[:200]}") \
            from None
