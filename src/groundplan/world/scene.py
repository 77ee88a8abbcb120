"""The symbolic scene: objects (class + index), agents, locations with contents (hidden
until explored), ground facts, optional geometry."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Mapping, Optional

from groundplan.pddl.formula import Atom

_NAME_RE = re.compile(r"^(.*?)(\d+)$")


def split_name(name: str) -> tuple[str, Optional[int]]:
    """``apple0`` -> (apple, 0); ``grapefruit_soda12`` -> (grapefruit_soda, 12);
    a name without a trailing index keeps its name as class."""
    m = _NAME_RE.match(name)
    if m and m.group(1):
        return m.group(1), int(m.group(2))
    return name, None


@dataclass(frozen=True)
class SceneObject:
    name: str
    cls: str

    @staticmethod
    def from_name(name: str, cls: Optional[str] = None) -> "SceneObject":
        """``apple0`` is an apple; so are ``apple_0`` and ``apple-0`` (the separator before the
        index is not part of the class)."""
        return SceneObject(name, cls or class_of(name))


def class_of(name: str) -> str:
    """The class a scene object's name implies: without its trailing index and a ``_``/``-``
    before it (``mug_1``, ``mug-1`` and ``mug1`` are mugs)."""
    base = split_name(name)[0]
    return base.rstrip("_-") or base


@dataclass(frozen=True)
class Agent:
    name: str
    kind: str  # "robot" | "human"
    location: Optional[str] = None
    cost: float = 1.0
    hands: int = 1
    capabilities: Optional[tuple[str, ...]] = None  # None: the skill set's default for this kind
    #: a small child (scene YAML ``child: true`` on a human, or ``kind: child``): the safety
    #: check (core/safety.py) refuses to give it any hazard
    child: bool = False


@dataclass(frozen=True)
class Location:
    name: str
    contents: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scene:
    name: str
    objects: tuple[SceneObject, ...]
    agents: tuple[Agent, ...]
    facts: frozenset[Atom]
    locations: tuple[Location, ...] = ()
    explored: Optional[frozenset[str]] = None  # None: every location is explored
    geometry: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    description: str = ""
    source: Optional[str] = None
    warnings: tuple[str, ...] = ()
    #: where things were written in ``source`` (1-based lines), for ``file:line`` messages:
    #: ``"fact:on apple0 counter0"``, ``"object:apple0"``, ``"agent:robot0"``
    lines: Mapping[str, int] = field(default_factory=dict, compare=False)

    def line_of(self, kind: str, key: str) -> Optional[int]:
        """The line where the ``kind`` (fact / object / agent) ``key`` was written, if known."""
        return self.lines.get(f"{kind}:{key}")

    # ----------------------------------------------------------------- lookups
    @property
    def object_names(self) -> list[str]:
        return [o.name for o in self.objects]

    def object(self, name: str) -> Optional[SceneObject]:
        for o in self.objects:
            if o.name == name:
                return o
        return None

    def agent(self, name: str) -> Optional[Agent]:
        for a in self.agents:
            if a.name == name:
                return a
        return None

    @property
    def classes(self) -> list[str]:
        return sorted({o.cls for o in self.objects})

    @property
    def location_names(self) -> list[str]:
        return [loc.name for loc in self.locations]

    def location_of(self, obj: str) -> Optional[str]:
        for loc in self.locations:
            if obj in loc.contents or obj == loc.name:
                return loc.name
        return None

    # ----------------------------------------------------------------- exploration
    def hidden_objects(self) -> set[str]:
        """Objects at unexplored locations (the location object itself stays visible)."""
        if self.explored is None:
            return set()
        agents = {a.name for a in self.agents}
        hidden: set[str] = set()
        for loc in self.locations:
            if loc.name not in self.explored:
                hidden |= {o for o in loc.contents if o != loc.name and o not in agents}
        return hidden

    def visible(self) -> "Scene":
        """What the robot perceives: objects at unexplored locations, and facts naming
        them, are removed."""
        hidden = self.hidden_objects()
        if not hidden:
            return self
        objs = tuple(o for o in self.objects if o.name not in hidden)
        facts = frozenset(f for f in self.facts if not (set(f.args) & hidden))
        locs = tuple(Location(loc.name, tuple(c for c in loc.contents if c not in hidden)) for loc in self.locations)
        return replace(self, objects=objs, facts=facts, locations=locs)

    def explore(self, location: str) -> "Scene":
        explored = (self.explored or frozenset()) | {location}
        return replace(self, explored=explored)

    def with_facts(self, facts: frozenset[Atom]) -> "Scene":
        return replace(self, facts=facts)
