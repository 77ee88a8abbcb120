"""The two action sets of Wake et al.: the learning-from-observation set (Fig. 20, skill
set ``lfo``) and VirtualHome's atomic actions (Table IV, skill set ``virtualhome``).

An answer's ``task_sequence`` holds items such as ``move_object(<juice>, <shelf_top>)`` or
``PutIn(<pie_320>, <stove_312>)``. This module reads them (``parse_item``), writes them
(``format_item``), lists every well-formed item over an environment (the enum a JSON schema
constrains decoding to) and turns items into executor steps. The original LfO prompts have
the model write actions without arguments (``move_hand()``); ``ground_argless`` fills the
arguments in from ``object_name``, the step instructions and ``environment_after``.

In the world layer, below ``methods`` and ``bench``: the Wake method (``methods/wake_prompts``)
and the Wake dataset's reference programs (``sim/vh_programs.py``) both read it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Optional, Sequence

from groundplan.errors import ConfigError
from groundplan.world.wake_env import LFO, VIRTUALHOME, EnvStyle, environment_facts, strip_name

_ITEM = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)\s*;?\s*$", re.DOTALL)


@dataclass(frozen=True)
class ActionSpec:
    name: str  # as prompts write it: move_hand, PutIn
    step: str  # the skill set's action name
    params: tuple[str, ...]  # "object" (manipulable), "any" (asset or object)


@dataclass(frozen=True)
class ParsedItem:
    text: str
    verb: str  # as written
    args: tuple[str, ...]  # names without <>
    spec: Optional[ActionSpec]  # None: not a verb of the action set

    @property
    def ok(self) -> bool:
        return self.spec is not None and len(self.args) == len(self.spec.params)


@dataclass(frozen=True)
class ActionSet:
    name: str
    skillset: str
    style: EnvStyle
    actions: tuple[ActionSpec, ...]
    #: extra spellings accepted when reading (lowercase) -> canonical name
    aliases: Mapping[str, str]
    #: (approach, grasp, release) verbs when every manipulation is one grasp-manipulation-
    #: release unit on one object (LfO); None: actions come in any order (VirtualHome)
    units: Optional[tuple[str, str, str]] = None

    def spec(self, verb: str) -> Optional[ActionSpec]:
        v = verb.strip()
        low = self.aliases.get(v.lower(), v).lower()
        for a in self.actions:
            if a.name.lower() == low:
                return a
        return None

    def parse_item(self, item: str) -> ParsedItem:
        m = _ITEM.match(item) if isinstance(item, str) else None
        if not m:
            return ParsedItem(str(item), str(item).strip(), (), None)
        verb = m.group(1)
        args = tuple(strip_name(a) for a in m.group(2).split(",") if a.strip())
        return ParsedItem(item, verb, args, self.spec(verb))

    def format_item(self, name: str, args: Sequence[str]) -> str:
        return f"{name}({', '.join(f'<{a}>' for a in args)})"

    def items(self, objects: Sequence[str], entities: Sequence[str], *, argless: bool = False) -> list[str]:
        """Every item an answer may contain over these objects (manipulable) and entities."""
        if argless:
            return [f"{a.name}()" for a in self.actions]
        out: list[str] = []
        for a in self.actions:
            pools = [objects if p == "object" else entities for p in a.params]
            combos: list[tuple[str, ...]] = [()]
            for pool in pools:
                combos = [c + (x,) for c in combos for x in pool if x not in c]
            out.extend(self.format_item(a.name, c) for c in combos)
        return out

    def to_step(self, parsed: ParsedItem, resolve: Callable[[str], Optional[str]] = lambda n: n) -> str:
        """The executor step (``"move_object juice shelf_top"``). ``resolve`` maps a name as
        written to the scene's object name (None: unknown, kept as written)."""
        assert parsed.spec is not None
        names = [resolve(a) or a for a in parsed.args]
        return " ".join((parsed.spec.step, *names))


LFO_ACTIONS = ActionSet(
    "lfo", "lfo", LFO,
    (ActionSpec("move_hand", "move_hand", ("any",)),
     ActionSpec("grasp_object", "grasp_object", ("object",)),
     ActionSpec("release_object", "release_object", ("object",)),
     ActionSpec("move_object", "move_object", ("object", "any")),
     ActionSpec("detach_from_plane", "detach_from_plane", ("object",)),
     ActionSpec("attach_to_plane", "attach_to_plane", ("object", "any")),
     ActionSpec("open_by_rotate", "open_by_rotate", ("object",)),
     ActionSpec("adjust_by_rotate", "adjust_by_rotate", ("object",)),
     ActionSpec("close_by_rotate", "close_by_rotate", ("object",)),
     ActionSpec("open_by_slide", "open_by_slide", ("object",)),
     ActionSpec("adjust_by_slide", "adjust_by_slide", ("object",)),
     ActionSpec("close_by_slide", "close_by_slide", ("object",)),
     ActionSpec("wipe_on_plane", "wipe_on_plane", ("object", "any"))),
    {}, units=("move_hand", "grasp_object", "release_object"))

#: Table IV. Step names are the ``virtualhome`` skill set's actions.
VIRTUALHOME_ACTIONS = ActionSet(
    "virtualhome", "virtualhome", VIRTUALHOME,
    (ActionSpec("Walktowards", "walktowards", ("any",)),
     ActionSpec("Grab", "grab", ("object",)),
     ActionSpec("Open", "open", ("any",)),
     ActionSpec("Close", "close", ("any",)),
     ActionSpec("Put", "put", ("object", "any")),
     ActionSpec("PutIn", "putin", ("object", "any")),
     ActionSpec("SwitchOn", "switchon", ("any",)),
     ActionSpec("SwitchOff", "switchoff", ("any",)),
     ActionSpec("Drink", "drink", ("object",))),
    {"walk_towards": "Walktowards", "walk": "Walktowards", "putinside": "PutIn"})

ACTION_SETS: Mapping[str, ActionSet] = {"lfo": LFO_ACTIONS, "virtualhome": VIRTUALHOME_ACTIONS}


def action_set(name: str) -> ActionSet:
    if name not in ACTION_SETS:
        raise ConfigError(f"unknown action set '{name}' (lfo or virtualhome)")
    return ACTION_SETS[name]


# ----------------------------------------------------------------------------- argument-free LfO answers


def _mentions(text: str, entities: Iterable[str]) -> list[str]:
    """Entities named in a step instruction, in order of appearance (``shelf_top`` matches
    "shelf top", "top shelf" does not)."""
    low = f" {text.lower()} "
    found: list[tuple[int, str]] = []
    for e in sorted(set(entities), key=len, reverse=True):
        for variant in {e.lower(), e.lower().replace("_", " ")}:
            i = low.find(variant)
            if i >= 0 and not any(s <= i < s + len(x) for s, x in found):
                found.append((i, e))
                break
    return [e for _, e in sorted(found)]


def ground_argless(sequence: Sequence[str], step_instructions: Sequence[str], object_name: str,
                   environment_after: Mapping, entities: Sequence[str]) -> list[str]:
    """Arguments for an LfO answer written without them (``move_hand()``): the manipulated
    object is ``object_name``; a target (move_object, attach_to_plane, wipe_on_plane, a
    move_hand while holding) is the last entity the step's instruction names other than
    the object, else where ``environment_after`` puts the object."""
    obj = strip_name(object_name)
    dest = None
    for f in environment_facts(environment_after):
        if f[1] == obj and f[0] in ("on", "in"):
            dest = f[2]
    holding = False
    attached_to: Optional[str] = None
    out = []
    for i, item in enumerate(sequence):
        verb = LFO_ACTIONS.parse_item(item).verb
        text = step_instructions[i] if i < len(step_instructions) else ""
        named = [e for e in _mentions(text, entities) if e != obj]
        target = named[-1] if named else dest
        spec = LFO_ACTIONS.spec(verb)
        if spec is None:
            out.append(item)
            continue
        if spec.name == "move_hand":
            args = (target or obj,) if holding else (obj,)
        elif spec.name in ("move_object", "attach_to_plane"):
            args = (obj, target or obj)
            if spec.name == "attach_to_plane":
                attached_to = target
        elif spec.name == "wipe_on_plane":
            args = (obj, attached_to or target or obj)
        else:
            args = (obj,)
        if spec.name == "grasp_object":
            holding = True
        elif spec.name == "release_object":
            holding = False
        out.append(LFO_ACTIONS.format_item(spec.name, args))
    return out


__all__ = ["ActionSpec", "ParsedItem", "ActionSet", "LFO_ACTIONS", "VIRTUALHOME_ACTIONS", "ACTION_SETS",
           "action_set", "ground_argless"]
