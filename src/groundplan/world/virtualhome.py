"""VirtualHome I/O: environment graphs (nodes with class, category, properties and states;
edges ON / INSIDE / CLOSE / FACING / HOLDS_RH / HOLDS_LH / BETWEEN / SITTING) read into
groundplan scenes for the ``virtualhome`` skill set, and written back; VirtualHome scripts
(``<char0> [walk] <kitchen> (205)`` and ``[WALK] <kitchen> (205)``) read and written; a session
that executes script lines with the skill set's evolving-graph semantics and reports the
simulator-style message of a failed line.

Names: node 205 of class ``kitchen`` is the object ``kitchen_205`` (class characters outside
``[a-z0-9_]`` become ``_``); characters are the scene's agents (``character_65``), ``<char0>``
being the one with the smallest id. A script line becomes a groundplan step with the
character last: ``[PUTIN] <salmon> (327) <fridge> (305)`` -> ``putin salmon_327 fridge_305
character_65``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence

from groundplan.errors import InputError, SceneError
from groundplan.pddl.formula import Atom
from groundplan.world.scene import Agent, Scene, SceneObject

#: node state -> predicate (ON / OFF are renamed: ``on`` is the relation)
STATE_PREDICATES: Mapping[str, str] = {
    "CLOSED": "closed", "OPEN": "open", "ON": "switched_on", "OFF": "switched_off", "SITTING": "sitting",
    "LYING": "lying", "DIRTY": "dirty", "CLEAN": "clean", "PLUGGED_IN": "plugged_in", "PLUGGED_OUT": "plugged_out",
    # ProgPrompt's augmented states
    "HEATED": "heated", "WASHED": "washed", "USED": "used",
}
RELATION_PREDICATES: Mapping[str, str] = {
    "ON": "on", "INSIDE": "inside", "BETWEEN": "between", "CLOSE": "close", "FACING": "facing",
    "HOLDS_RH": "holds_rh", "HOLDS_LH": "holds_lh", "SITTING": "sitting_on",
}
PROPERTIES = ("SURFACES", "GRABBABLE", "SITTABLE", "LIEABLE", "HANGABLE", "DRINKABLE", "EATABLE", "RECIPIENT",
              "CUTTABLE", "POURABLE", "CAN_OPEN", "HAS_SWITCH", "READABLE", "LOOKABLE", "CONTAINERS", "CLOTHES",
              "PERSON", "BODY_PART", "COVER_OBJECT", "HAS_PLUG", "HAS_PAPER", "MOVABLE", "CREAM")
CATEGORY_PREDICATES: Mapping[str, str] = {"Rooms": "room", "Food": "food"}
#: room classes the skill set quantifies over (its ``vh_room`` type)
ROOM_CLASSES = frozenset({"bathroom", "bedroom", "dining_room", "home_office", "kitchen", "livingroom",
                          "living_room", "kids_bedroom", "entrance_hall"})
STATE_OF_PREDICATE = {v: k for k, v in STATE_PREDICATES.items()}
RELATION_OF_PREDICATE = {v: k for k, v in RELATION_PREDICATES.items()}
SKILLSET = "virtualhome"


class ScriptError(InputError):
    """A VirtualHome script line that cannot be read or names an object the graph lacks."""


def class_type(class_name: str) -> str:
    """The groundplan class (type) name of a VirtualHome class name."""
    t = re.sub(r"[^a-z0-9_]", "_", class_name.strip().lower().replace(" ", "_"))
    return t if t and not t[0].isdigit() else f"c_{t}"


def object_name(class_name: str, node_id: int) -> str:
    return f"{class_type(class_name)}_{node_id}"


def node_id_of(name: str) -> Optional[int]:
    """``kitchen_205`` -> 205 (None if the name does not end in ``_<id>``)."""
    m = re.search(r"_(\d+)$", name)
    return int(m.group(1)) if m else None


# ---------------------------------------------------------------------------------- graphs


@dataclass(frozen=True)
class VHNode:
    id: int
    class_name: str
    category: Optional[str] = None
    properties: tuple[str, ...] = ()
    states: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)  # prefab_name, bounding_box, ...

    @property
    def name(self) -> str:
        return object_name(self.class_name, self.id)

    def label(self) -> str:
        """The simulator's rendering: ``<fridge> (305)``."""
        return f"<{self.class_name}> ({self.id})"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "class_name": self.class_name, "category": self.category,
                "properties": list(self.properties), "states": list(self.states), **dict(self.extra)}


@dataclass(frozen=True)
class VHGraph:
    nodes: tuple[VHNode, ...]
    edges: tuple[tuple[int, str, int], ...]  # (from_id, RELATION, to_id)
    source: Optional[str] = field(default=None, compare=False)

    @cached_property
    def by_id(self) -> dict[int, VHNode]:
        return {n.id: n for n in self.nodes}

    @cached_property
    def edge_set(self) -> frozenset[tuple[int, str, int]]:
        return frozenset(self.edges)

    def node(self, node_id: int) -> Optional[VHNode]:
        return self.by_id.get(node_id)

    @property
    def characters(self) -> list[VHNode]:
        return sorted((n for n in self.nodes if n.class_name == "character"), key=lambda n: n.id)

    def character(self, index: int = 0) -> VHNode:
        chars = self.characters
        if not 0 <= index < len(chars):
            raise ScriptError(f"the graph has {len(chars)} character(s); <char{index}> is not one of them",
                              file=self.source)
        return chars[index]

    def nodes_of_class(self, class_name: str) -> list[VHNode]:
        return [n for n in self.nodes if n.class_name == class_name]

    @property
    def class_names(self) -> list[str]:
        return sorted({n.class_name for n in self.nodes})

    def edges_from(self, node_id: int, relation: Optional[str] = None) -> list[tuple[int, str, int]]:
        return [e for e in self.edges if e[0] == node_id and (relation is None or e[1] == relation)]

    def room_of(self, node_id: int) -> Optional[VHNode]:
        """The room a node is in (following INSIDE edges), None if it has none."""
        seen: set[int] = set()
        cur = self.node(node_id)
        while cur is not None and cur.id not in seen:
            if cur.category == "Rooms":
                return cur
            seen.add(cur.id)
            targets = [self.node(t) for _, _, t in self.edges_from(cur.id, "INSIDE")]
            rooms = [t for t in targets if t is not None and t.category == "Rooms"]
            if rooms:
                return rooms[0]
            cur = next((t for t in targets if t is not None), None)
        return None

    # -- I/O
    @staticmethod
    def from_dict(d: Mapping[str, Any], *, source: Optional[str] = None) -> "VHGraph":
        where = "the graph"
        try:
            nodes: dict[int, VHNode] = {}
            for k, n in enumerate(d["nodes"]):
                where = f"node {k + 1}"
                extra = {k: v for k, v in n.items() if k not in ("id", "class_name", "category", "properties", "states")}
                nodes[int(n["id"])] = VHNode(int(n["id"]), str(n["class_name"]), n.get("category"),
                                             tuple(str(p).upper() for p in n.get("properties") or ()),
                                             tuple(str(s).upper() for s in n.get("states") or ()), extra)
            where = "the graph"
            edge_list = []
            for k, e in enumerate(d["edges"]):
                where = f"edge {k + 1}"
                edge_list.append((int(e["from_id"]), str(e["relation_type"]).upper(), int(e["to_id"])))
            edges = tuple(dict.fromkeys(edge_list))
        except (KeyError, TypeError, ValueError) as exc:
            raise SceneError(f"not a VirtualHome graph (nodes with id/class_name, edges with from_id/"
                             f"relation_type/to_id): {where}: {exc!r}", file=source,
                             line=_json_item_line(source, where) if source else None) from None
        return VHGraph(tuple(nodes.values()), edges, source)

    def to_dict(self) -> dict[str, Any]:
        return {"nodes": [n.to_dict() for n in self.nodes],
                "edges": [{"from_id": f, "relation_type": r, "to_id": t} for f, r, t in self.edges]}

    @staticmethod
    def load(path: str | Path, *, line: Optional[int] = None) -> "VHGraph":
        """A graph JSON file; ``line`` (0-based) picks one graph of a JSON-lines file."""
        p = Path(path)
        try:
            text = p.read_text()
        except OSError as exc:
            raise SceneError(f"cannot read graph: {exc.strerror}", file=str(p)) from None
        try:
            data = json.loads(text.splitlines()[line]) if line is not None else json.loads(text)
        except (json.JSONDecodeError, IndexError) as exc:
            raise SceneError(f"invalid graph JSON: {exc}", file=str(p), line=None if line is None else line + 1) from None
        return VHGraph.from_dict(data, source=str(p))

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict()))

    def with_changes(self, states: Mapping[int, Iterable[str]], edges: Iterable[tuple[int, str, int]]) -> "VHGraph":
        nodes = tuple(replace(n, states=tuple(states.get(n.id, n.states))) for n in self.nodes)
        return VHGraph(nodes, tuple(edges), self.source)


# ---------------------------------------------------------------------------------- scenes


def graph_facts(graph: VHGraph) -> set[Atom]:
    names = {n.id: n.name for n in graph.nodes}
    facts: set[Atom] = set()
    for n in graph.nodes:
        for s in n.states:
            if s in STATE_PREDICATES:
                facts.add(Atom(STATE_PREDICATES[s], (n.name,)))
        for p in n.properties:
            if p in PROPERTIES:
                facts.add(Atom(p.lower(), (n.name,)))
        if n.category in CATEGORY_PREDICATES:
            facts.add(Atom(CATEGORY_PREDICATES[n.category], (n.name,)))
    for f, r, t in graph.edges:
        if r in RELATION_PREDICATES and f in names and t in names:
            facts.add(Atom(RELATION_PREDICATES[r], (names[f], names[t])))
    return facts


def graph_to_scene(graph: VHGraph, name: str = "virtualhome") -> Scene:
    """The scene of a graph: every node an object of its class (characters are agents)."""
    chars = {n.id for n in graph.characters}
    objects = tuple(SceneObject(n.name, class_type(n.class_name)) for n in graph.nodes if n.id not in chars)
    agents = tuple(Agent(n.name, "robot") for n in graph.characters)
    warnings = [f"room {n.label()} has a class the virtualhome skill set does not list as a room; nothing is "
                f"in it" for n in graph.nodes if n.category == "Rooms" and class_type(n.class_name) not in ROOM_CLASSES]
    return Scene(name=name, objects=objects, agents=agents, facts=frozenset(graph_facts(graph)),
                 description=f"VirtualHome graph ({len(graph.nodes)} nodes, {len(graph.edges)} edges)",
                 source=graph.source, warnings=tuple(warnings))


def _json_item_line(source: str, where: str) -> Optional[int]:
    """The line of the k-th object of the "nodes" / "edges" list in a graph file ("node 3")."""
    parts = where.split()
    if len(parts) != 2 or not parts[1].isdigit():
        return 1
    key, k = '"' + parts[0] + 's"', int(parts[1])
    try:
        text = Path(source).read_text()
    except OSError:
        return None
    pos = text.find(key)
    start = text.find("[", pos) if pos >= 0 else -1
    if start < 0:
        return None
    depth, count, in_str, esc = 0, 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_str:
            esc, in_str = (False, True) if esc else (ch == "\\", ch != '"')
            continue
        if ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if ch == "{" and depth == 2:
                count += 1
                if count == k:
                    return text.count("\n", 0, i) + 1
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                break
    return None


def read_vh_graph_file(path: str | Path) -> VHGraph:
    """A graph JSON file: ``{nodes, edges}``, or EAI's ``{init_graph, final_graph}`` (the
    initial graph)."""
    p = Path(path)
    try:
        data = json.loads(p.read_text())
    except OSError as exc:
        raise SceneError(f"cannot read graph: {exc.strerror}", file=str(p)) from None
    except json.JSONDecodeError as exc:
        raise SceneError(f"invalid graph JSON: {exc}", file=str(p), line=exc.lineno) from None
    if isinstance(data, dict) and "init_graph" in data:
        data = data["init_graph"]
    return VHGraph.from_dict(data, source=str(p))


def read_vh_scene(path: str | Path, *, strict: bool = True) -> Scene:  # noqa: ARG001 - reader signature
    """The scene of a VirtualHome graph file (``load_scene`` reads ``.json`` files with this)."""
    p = Path(path)
    return graph_to_scene(read_vh_graph_file(p), p.stem)


def facts_to_graph(facts: Iterable[Atom], base: VHGraph) -> VHGraph:
    """``base`` with the states and edges of ``facts`` (properties and nodes from ``base``)."""
    ids = {n.name: n.id for n in base.nodes}
    states: dict[int, list[str]] = {n.id: [] for n in base.nodes}
    edges: list[tuple[int, str, int]] = []
    for a in sorted(facts, key=lambda x: (x.predicate, x.args)):
        if a.predicate in STATE_OF_PREDICATE and len(a.args) == 1 and a.args[0] in ids:
            states[ids[a.args[0]]].append(STATE_OF_PREDICATE[a.predicate])
        elif a.predicate in RELATION_OF_PREDICATE and len(a.args) == 2 and all(x in ids for x in a.args):
            edges.append((ids[a.args[0]], RELATION_OF_PREDICATE[a.predicate], ids[a.args[1]]))
    return base.with_changes(states, edges)


# ---------------------------------------------------------------------------------- scripts

_LINE_RE = re.compile(r"^\s*(?:<char(\d+)>\s*)?\[\s*(\w+)\s*\]\s*(.*?)\s*$")
_ARG_RE = re.compile(r"<([^<>]+)>\s*\(\s*([\d.]+)\s*\)")


@dataclass(frozen=True)
class ScriptLine:
    """One script line: ``action`` upper case, ``args`` (class name, node id) pairs."""

    action: str
    args: tuple[tuple[str, int], ...] = ()
    char: Optional[int] = None  # None: no <charN> prefix (char 0)

    def text(self, *, char: Optional[bool] = None, lower: bool = False) -> str:
        """``<char0> [walk] <kitchen> (205)`` (ProgPrompt's form: ``char=True, lower=True``) or
        ``[WALK] <kitchen> (205)``; by default the prefix is written when the line had one."""
        act = self.action.lower() if lower else self.action
        out = f"[{act}]" + "".join(f" <{c}> ({i})" for c, i in self.args)
        with_char = self.char is not None if char is None else char
        return f"<char{self.char or 0}> {out}" if with_char else out

    def __str__(self) -> str:
        return self.text()


def parse_script_line(text: str) -> ScriptLine:
    """Read ``<char0> [walk] <kitchen> (205)``, ``[WALK] <kitchen> (205)`` or EAI's
    ``[WALK] <kitchen> (1.205)`` (the id after the dot)."""
    m = _LINE_RE.match(text or "")
    if not m:
        raise ScriptError(f"not a script line: '{text.strip()}' (expected '[ACTION] <object> (id) ...')")
    rest = m.group(3)
    args = []
    for cls, ident in _ARG_RE.findall(rest):
        try:
            node = int(ident.split(".")[-1])
        except ValueError:
            raise ScriptError(f"bad object id '({ident})' in '{text.strip()}'") from None
        args.append((cls.strip().lower().replace(" ", "_"), node))
    leftover = _ARG_RE.sub("", rest).strip()
    if leftover:
        raise ScriptError(f"cannot read '{leftover}' in '{text.strip()}' (objects are written <class> (id))")
    return ScriptLine(m.group(2).upper(), tuple(args), int(m.group(1)) if m.group(1) is not None else None)


def parse_script(text: str | Sequence[str]) -> list[ScriptLine]:
    """Script lines of a text or list (lines without ``[`` and ``#`` comments are skipped)."""
    lines = text.splitlines() if isinstance(text, str) else list(text)
    return [parse_script_line(x) for x in lines if "[" in x and not x.strip().startswith("#")]


def write_script(lines: Iterable[ScriptLine], *, char: Optional[bool] = None, lower: bool = False) -> str:
    return "\n".join(x.text(char=char, lower=lower) for x in lines)


__all__ = [
    "STATE_PREDICATES", "RELATION_PREDICATES", "PROPERTIES", "CATEGORY_PREDICATES", "ROOM_CLASSES", "ScriptError",
    "class_type", "object_name", "node_id_of", "VHNode", "VHGraph", "graph_facts", "graph_to_scene",
    "facts_to_graph", "read_vh_graph_file", "read_vh_scene", "ScriptLine", "parse_script_line", "parse_script", "write_script",
]
