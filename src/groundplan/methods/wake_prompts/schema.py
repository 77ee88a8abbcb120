"""The answer of Wake et al. (Fig. 5): a JSON dictionary

    {"task_cohesion": {"task_sequence": [...], "step_instructions": [...], "object_name": "<juice>"},
     "environment_before": {...}, "environment_after": {...},
     "instruction_summary": "...", "question": ""}

``answer_schema`` writes the JSON schema decoding is constrained to where the backend
allows it: actions only from the action list over the environment's entities, the
manipulated object one of its objects, ``environment_before`` the environment given (as
the prompt asks the model to copy it), ``environment_after`` the same entities with each
object in one state of the STATE LIST. ``structure_schema`` is the looser schema every
answer is validated against (also unconstrained ones and recorded ones);
``extract_answer`` reads a dictionary out of free text (a ```` ```python ```` block, a Python
literal with single quotes, a trailing comma); ``answer_problems`` lists what is wrong with
one in words the model can act on.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

import jsonschema

from groundplan.errors import GroundplanError
from groundplan.limits import current as current_limits
from groundplan.llm.grammar import gbnf_literal
from groundplan.methods.wake_prompts.prompts import FULL_KEYS
from groundplan.world.wake_actions import ActionSet, ActionSpec
from groundplan.world.wake_env import (
    RELATIONS,
    UNARY,
    EnvStyle,
    display_name,
    environment_entities,
    environment_problems,
    environments_equal,
    strip_name,
)

#: string limits in the constrained schema (a small model otherwise rambles until max_tokens)
STEP_TEXT_MAX = 80
SUMMARY_MAX = 120
QUESTION_MAX = 120
MAX_STEPS = 12
#: grasp-manipulation-release units: units per answer, manipulations per unit
MAX_UNITS = 2
MAX_UNIT_MANIPULATIONS = 8


def _string(max_len: Optional[int]) -> dict[str, Any]:
    return {"type": "string", "maxLength": max_len} if max_len else {"type": "string"}


def state_options(entity: str, entities: Sequence[str], style: EnvStyle) -> list[str]:
    """Every state of the style's STATE LIST an entity can be in (relations to the others)."""
    out: list[str] = []
    others = [e for e in entities if e != entity]
    for p in RELATIONS:
        if p in style.expresses and p != "next_to":
            out.extend(style.templates[p].format(display_name(o)) for o in others)
    for p in UNARY:
        if p in style.expresses:
            out.append(style.templates[p])
    return out


def environment_schema(env: Mapping[str, Any], style: EnvStyle, *, pin: bool = False) -> dict[str, Any]:
    """``pin``: exactly ``env``. Otherwise assets and their states as given (assets do not
    move), each object in one state (LfO) or a list of up to two states (VirtualHome)."""
    if pin:
        return {"const": json.loads(json.dumps(env))}
    assets, objects = list(env.get("assets", [])), list(env.get("objects", []))
    names = [strip_name(x) for x in assets + objects]
    obj_props: dict[str, Any] = {}
    for o in objects:
        opts = state_options(strip_name(o), names, style)
        if style.list_states:
            obj_props[o] = {"type": "array", "items": {"enum": opts}, "minItems": 0, "maxItems": 3}
        else:
            obj_props[o] = {"enum": opts}
    props: dict[str, Any] = {
        "assets": {"const": assets},
        "asset_states": {"const": json.loads(json.dumps(env.get("asset_states", {})))},
        "objects": {"const": objects},
        "object_states": {"type": "object", "properties": obj_props,
                          "required": [o for o in objects if o in env.get("object_states", {})],
                          "additionalProperties": False},
    }
    for key in ("asset_properties", "object_properties"):
        if key in env:
            props[key] = {"const": json.loads(json.dumps(env[key]))}
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


def answer_schema(env: Mapping[str, Any], actions: ActionSet, *, keys: Sequence[str] = FULL_KEYS,
                  argless: bool = False, pin_before: bool = True, max_steps: int = MAX_STEPS) -> dict[str, Any]:
    """The schema constrained decoding uses for one instruction in ``env``."""
    assets = [strip_name(a) for a in env.get("assets", [])]
    objects = [strip_name(o) for o in env.get("objects", [])]
    items = actions.items(objects, assets + objects, argless=argless)
    tc_props: dict[str, Any] = {
        "task_sequence": {"type": "array", "items": {"enum": items}, "minItems": 1, "maxItems": max_steps},
        "step_instructions": {"type": "array", "items": _string(STEP_TEXT_MAX), "minItems": 1,
                              "maxItems": max_steps},
    }
    if "question" in keys or "environment_before" in keys:  # the five-key format has object_name
        tc_props["object_name"] = {"enum": [display_name(o) for o in objects]} if objects else {"type": "string"}
    props: dict[str, Any] = {"task_cohesion": {"type": "object", "properties": tc_props, "required": list(tc_props),
                                               "additionalProperties": False}}
    for k in keys:
        if k == "environment_before":
            props[k] = environment_schema(env, actions.style, pin=pin_before)
        elif k == "environment_after":
            props[k] = environment_schema(env, actions.style)
        elif k == "instruction_summary":
            props[k] = _string(SUMMARY_MAX)
        elif k == "question":
            props[k] = _string(QUESTION_MAX)
    return {"type": "object", "properties": {k: props[k] for k in keys if k in props}, "required": list(keys),
            "additionalProperties": False}


def _lit(text: str) -> str:
    return gbnf_literal(text)


def _alts(options: Sequence[str]) -> str:
    return " | ".join(_lit(o) for o in options) if options else '""'


def _item_rule(a: ActionSpec, first: Optional[str] = None) -> str:
    """GBNF for one task-sequence item of action ``a`` (``"move_object(" obj ", " any ")"``,
    with its quotes): each argument the ``obj`` or ``any`` rule, or the first one fixed to
    the display name ``first``."""
    parts = [_lit(f'"{a.name}(')]
    for k, p in enumerate(a.params):
        if k:
            parts.append(_lit(", "))
        parts.append(_lit(first) if k == 0 and first is not None else "obj" if p == "object" else "any")
    parts.append(_lit(')"'))
    return " ".join(parts)


def unit_rules(objects: Sequence[str], actions: ActionSet, rules: dict[str, str]) -> str:
    """Rules for a task sequence made of grasp-manipulation-release units (LfO, Fig. 20:
    approach the object, grasp it, manipulate it, release it), each unit on one object:
    ``move_hand(<juice>), grasp_object(<juice>), ..., release_object(<juice>)``. Adds the
    rules to ``rules`` and returns the sequence rule's body. The manipulations are every
    other action over the unit's object (its second argument any entity)."""
    assert actions.units is not None
    approach, grasp, release = actions.units
    unit_names = []
    for k, o in enumerate(objects):
        name = display_name(o)
        manip = [_item_rule(a, first=name) for a in actions.actions
                 if a.name not in actions.units and a.params and a.params[0] == "object"]
        rules[f"manip-{k}"] = " | ".join(f"( {m} )" for m in manip)
        head = _lit(f'"{approach}({name})", "{grasp}({name})"')
        tail = _lit(f', "{release}({name})"')
        rules[f"unit-{k}"] = f'{head} (", " manip-{k}){{1,{MAX_UNIT_MANIPULATIONS}}} {tail}'
        unit_names.append(f"unit-{k}")
    rules["unit"] = " | ".join(unit_names)
    return f'"[" unit (", " unit){{0,{MAX_UNITS - 1}}} "]"'


def answer_grammar(env: Mapping[str, Any], actions: ActionSet, *, keys: Sequence[str] = FULL_KEYS,
                   argless: bool = False, pin_before: bool = True, max_steps: int = MAX_STEPS,
                   text_max: int = STEP_TEXT_MAX, units: bool = False) -> str:
    """GBNF for the same answers ``answer_schema`` allows, in one fixed layout (the one the
    prompt's examples show: one top-level key per line, no free whitespace), with the keys
    in the paper's order. Decoding wastes no tokens on layout, and the order is kept (a JSON
    schema sent as canonical JSON has its keys sorted). ``units``: where the action set has
    grasp-manipulation-release units (LfO), the task sequence is made of them
    (``unit_rules``)."""
    style = actions.style
    assets = [strip_name(a) for a in env.get("assets", [])]
    objects = [strip_name(o) for o in env.get("objects", [])]
    names = assets + objects
    rules: dict[str, str] = {}
    rules["any"] = _alts([display_name(n) for n in names])
    rules["obj"] = _alts([display_name(n) for n in objects]) if objects else rules["any"]
    verbs = []
    for i, a in enumerate(actions.actions):
        r = f"act-{i}"
        if argless:
            rules[r] = _lit(f'"{a.name}()"')
        else:
            rules[r] = _item_rule(a)
        verbs.append(r)
    rules["item"] = " | ".join(verbs)
    def text_rule(n: int) -> str:
        return '"\\"" [^"\\\\\\n] ' + f"[^\"\\\\\\n]{{0,{n - 1}}}" + ' "\\""'

    rules["text"] = text_rule(text_max)
    more = max_steps - 1
    if units and actions.units is not None and not argless and objects:
        rules["sequence"] = unit_rules(objects, actions, rules)
    else:
        rules["sequence"] = f'"[" item (", " item){{0,{more}}} "]"'
    rules["steps"] = f'"[" text (", " text){{0,{more}}} "]"'

    def env_rule(prefix: str, pinned: bool) -> str:
        if pinned:
            return _lit(json.dumps(env))
        head = {k: env[k] for k in ("assets", "asset_states", "objects") if k in env}
        text = json.dumps(head)[:-1] + ', "object_states": {'
        parts = [_lit(text)]
        listed = [o for o in objects if display_name(o) in env.get("object_states", {})]
        for k, o in enumerate(listed):
            opts = state_options(o, names, style)
            r = f"{prefix}-state-{k}"
            if style.list_states:
                rules[r + "-one"] = _alts([json.dumps(x) for x in opts])
                rules[r] = f'"[" ({r}-one (", " {r}-one){{0,2}})? "]"'
            else:
                rules[r] = _alts([json.dumps(x) for x in opts])
            parts.append(_lit((", " if k else "") + json.dumps(display_name(o)) + ": "))
            parts.append(r)
        tail = "}"
        for key in ("asset_properties", "object_properties"):
            if key in env:
                tail += f', "{key}": ' + json.dumps(env[key])
        parts.append(_lit(tail + "}"))
        return " ".join(parts)

    tc = ['"{\\"task_cohesion\\": {\\"task_sequence\\": " sequence']
    tc.append('",\\n \\"step_instructions\\": " steps')
    if "question" in keys or "environment_before" in keys:
        rules["objname"] = _alts([json.dumps(display_name(o)) for o in objects]) if objects else "text"
        tc.append('",\\n \\"object_name\\": " objname')
    body = [" ".join(tc) + ' "}"']
    for k in keys:
        if k == "task_cohesion":
            continue
        lead = _lit(f', "{k}": ' if k == "question" else f',\n "{k}": ')
        if k == "environment_before":
            rules["env-before"] = env_rule("before", pin_before)
            body.append(f"{lead} env-before")
        elif k == "environment_after":
            rules["env-after"] = env_rule("after", False)
            body.append(f"{lead} env-after")
        elif k == "instruction_summary":
            rules["summary"] = '"\\"\\"" | ' + text_rule(SUMMARY_MAX)
            body.append(f"{lead} summary")
        else:
            rules["question"] = '"\\"\\"" | ' + text_rule(QUESTION_MAX)
            body.append(f"{lead} question")
    root = "root ::= " + " ".join(body) + ' "}"'
    return "\n".join([root] + [f"{k} ::= {v}" for k, v in rules.items()]) + "\n"


def format_answer(answer: Mapping[str, Any], keys: Optional[Sequence[str]] = None) -> str:
    """An answer dictionary written in the layout ``answer_grammar`` decodes (and the
    prompt's examples show): task_cohesion first, one top-level key per line. ``keys``
    default: those of the five (Fig. 5) the answer has, in the paper's order."""
    keys = keys if keys is not None else [k for k in FULL_KEYS if k in answer]
    tc = answer["task_cohesion"]
    lines = ['{"task_cohesion": {"task_sequence": ' + json.dumps(tc["task_sequence"]) + ",",
             ' "step_instructions": ' + json.dumps(tc["step_instructions"]) + ("," if "object_name" in tc else "}")]
    if "object_name" in tc:
        lines.append(' "object_name": ' + json.dumps(tc["object_name"]) + "}")
    rest = [k for k in keys if k != "task_cohesion"]
    text = "\n".join(lines)
    for k in rest:
        sep = ", " if k == "question" else ",\n "
        text += f'{sep}"{k}": ' + json.dumps(answer[k])
    return text + "}"


def structure_schema(keys: Sequence[str] = FULL_KEYS) -> dict[str, Any]:
    """Shape only: what every answer (constrained or not, recorded or live) must have."""
    env = {"type": "object", "properties": {"assets": {"type": "array"}, "objects": {"type": "array"},
                                            "asset_states": {"type": "object"}, "object_states": {"type": "object"}},
           "required": ["assets", "objects", "object_states"]}
    props: dict[str, Any] = {
        "task_cohesion": {"type": "object", "properties": {
            "task_sequence": {"type": "array", "items": {"type": "string"}},
            "step_instructions": {"type": "array", "items": {"type": "string"}},
            "object_name": {"type": "string"}}, "required": ["task_sequence", "step_instructions"]},
        "environment_before": env, "environment_after": env,
        "instruction_summary": {"type": "string"}, "question": {"type": "string"},
    }
    return {"type": "object", "properties": {k: props[k] for k in keys}, "required": list(keys)}


# ----------------------------------------------------------------------------- reading answers

_FENCE = re.compile(r"```(?:python|json|py)?\s*\n?(.*?)```", re.DOTALL)


class AnswerFormatError(GroundplanError, ValueError):
    """The text holds no readable dictionary."""


#: candidate dictionaries tried when reading an answer (its size and depth are bounded by the
#: configured limits answer_max_chars and answer_max_depth, groundplan.limits)
MAX_CANDIDATES = 50


def _balanced(text: str, start: int) -> Optional[str]:
    depth, nest, in_str, esc, quote = 0, 0, False, False, ""
    max_depth = current_limits().answer_max_depth
    for i in range(start, len(text)):
        ch = text[i]
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == quote:
                in_str = False
            continue
        if ch in "\"'":
            in_str, quote = True, ch
        elif ch in "[{":
            depth += ch == "{"
            nest += 1
            if nest > max_depth:
                raise AnswerFormatError(f"the dictionary is nested deeper than {max_depth} levels "
                                       "(limit answer_max_depth)")
        elif ch == "]":
            nest -= 1
        elif ch == "}":
            nest -= 1
            depth -= 1
            if depth == 0:
                return text[start:i + 1]
    return None


def _loads(candidate: str) -> Any:
    try:
        return json.loads(candidate)
    except RecursionError:
        raise AnswerFormatError("the dictionary is nested too deeply") from None
    except json.JSONDecodeError:
        pass
    cleaned = re.sub(r",(\s*[\]}])", r"\1", candidate)
    try:
        return json.loads(cleaned)
    except RecursionError:
        raise AnswerFormatError("the dictionary is nested too deeply") from None
    except json.JSONDecodeError:
        pass
    try:
        lit = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", re.sub(r"\bnull\b", "None", cleaned)))
        return ast.literal_eval(lit)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):  # TypeError: {[1]: 2}, {[1]}
        raise AnswerFormatError("the dictionary is not valid JSON or a Python literal") from None


def extract_answer(text: str) -> dict[str, Any]:
    """The answer dictionary in ``text`` (a fenced block first, else the first balanced
    ``{...}``). Raises AnswerFormatError."""
    if len(text) > current_limits().answer_max_chars:
        raise AnswerFormatError(f"the answer is longer than {current_limits().answer_max_chars} characters "
                                "(limit answer_max_chars)")
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    last_error: Optional[Exception] = None
    tried = 0
    for c in candidates:
        start = c.find("{")
        while start >= 0 and tried < MAX_CANDIDATES:
            tried += 1
            block = _balanced(c, start)
            if block is None:
                break
            try:
                value = _loads(block)
            except AnswerFormatError as exc:
                last_error = exc
            else:
                if isinstance(value, dict):
                    return value
            start = c.find("{", start + 1)
    if last_error is not None:
        raise AnswerFormatError(str(last_error))
    raise AnswerFormatError("no dictionary found in the answer")


@dataclass(frozen=True)
class AnswerView:
    """Typed access to an answer dictionary (absent parts are empty)."""

    data: Mapping[str, Any]

    @property
    def task_cohesion(self) -> Mapping[str, Any]:
        tc = self.data.get("task_cohesion")
        return tc if isinstance(tc, Mapping) else {}

    @property
    def sequence(self) -> list[str]:
        seq = self.task_cohesion.get("task_sequence")
        return [str(x) for x in seq] if isinstance(seq, list) else []

    @property
    def step_instructions(self) -> list[str]:
        s = self.task_cohesion.get("step_instructions")
        return [str(x) for x in s] if isinstance(s, list) else []

    @property
    def object_name(self) -> str:
        return str(self.task_cohesion.get("object_name") or "")

    @property
    def environment_before(self) -> Optional[Mapping[str, Any]]:
        e = self.data.get("environment_before")
        return e if isinstance(e, Mapping) else None

    @property
    def environment_after(self) -> Optional[Mapping[str, Any]]:
        e = self.data.get("environment_after")
        return e if isinstance(e, Mapping) else None

    @property
    def summary(self) -> str:
        return str(self.data.get("instruction_summary") or "")

    @property
    def question(self) -> str:
        q = self.data.get("question")
        return q.strip() if isinstance(q, str) else ""


def answer_problems(answer: Mapping[str, Any], env: Mapping[str, Any], actions: ActionSet, *,
                    keys: Sequence[str] = FULL_KEYS, argless: bool = False) -> list[str]:
    """What is wrong with an answer, in words (empty: well-formed). Checks the shape
    (``structure_schema``), the rules of the instruction template that can be checked
    without executing (equal lengths, defined verbs, known names) and the environments."""
    probs: list[str] = []
    try:
        jsonschema.validate(answer, structure_schema(keys))
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "the answer"
        probs.append(f"{where}: {exc.message}")
        return probs
    view = AnswerView(answer)
    seq, steps = view.sequence, view.step_instructions
    if not seq:
        probs.append('"task_sequence" is empty')
    if len(seq) != len(steps):
        probs.append(f'the length of "step_instructions" ({len(steps)}) must be the same as the length of '
                     f'"task_sequence" ({len(seq)})')
    assets, objects = environment_entities(env)
    known = assets | objects
    for item in seq:
        p = actions.parse_item(item)
        if p.spec is None:
            probs.append(f'"{item}" is not an action of the "ROBOT ACTION LIST"')
        elif not argless and len(p.args) != len(p.spec.params):
            probs.append(f'"{item}": {p.spec.name} takes {len(p.spec.params)} argument(s)')
        elif not argless:
            unknown = [a for a in p.args if a not in known]
            if unknown:
                probs.append(f'"{item}" names <{unknown[0]}>, which is not in the environment')
    if view.object_name and strip_name(view.object_name) not in objects and "object_name" in view.task_cohesion:
        probs.append(f'object_name {view.object_name} is not one of the "objects"')
    if "environment_before" in keys and view.environment_before is not None:
        if not environments_equal(view.environment_before, env):
            probs.append('"environment_before" is not the environment given')
    if view.environment_after is not None:
        probs.extend(f"environment_after: {p}" for p in environment_problems(view.environment_after))
    return probs


__all__ = ["answer_schema", "answer_grammar", "format_answer", "environment_schema", "structure_schema", "extract_answer", "AnswerFormatError",
           "AnswerView", "answer_problems", "state_options", "MAX_STEPS"]
