"""Graph2NL (RobLM, Chalvatzaki et al. Sec. 3.6): an object-scene graph with distance, yaw
and pitch edge attributes, mapped to natural language (or to one symbol per word, Table 1),
along the paths from the agent to the target object (search depth 2).

Steps, as in the paper: (1) a node for the agent and one per object with its position; (2)
optionally domain knowledge: dependent nodes (an object and the receptacle holding it, and
objects near a receptacle) are connected; (3) the agent is connected to every reachable node
(every receptacle when domain knowledge is given, every node otherwise); (4) the paths from
the agent to the target of depth 2 are found; (5) each edge on a path is written as three
words (distance, pitch, yaw), or as three symbols in the condensed form.

The four RobLM contexts (Sec. 4.2.7) are built here too: ``none``, ``scene_knowledge`` (the
objects of the PDDL problem), ``scene_graph`` (Graph2NL paths to the target) and ``full``
(Graph2NL relations of all objects)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

from groundplan.errors import SceneError
from groundplan.world.scene import Scene

#: Table 1: lower bound (m) -> (word, symbol), checked from the top
DISTANCE = ((5.0, "distant", "a"), (4.0, "far", "b"), (3.0, "reachable", "c"), (2.0, "near", "d"),
            (1.0, "close", "e"), (0.5, "closer", "f"), (0.1, "next", "g"), (float("-inf"), "in", "h"))
YAW = (((45.0, 135.0), "right", "i"), ((135.0, 225.0), "back", "j"), ((225.0, 315.0), "left", "k"))
YAW_FRONT = ("front", "l")  # 315 to 45
PITCH_ABOVE, PITCH_BELOW = ("above", "m"), ("below", "n")
AGENT_NODE = "agent"
CONTEXTS = ("none", "scene_knowledge", "scene_graph", "full")


def distance_word(d: float) -> tuple[str, str]:
    for lower, word, sym in DISTANCE:
        if d > lower:
            return word, sym
    return DISTANCE[-1][1], DISTANCE[-1][2]


def yaw_word(deg: float) -> tuple[str, str]:
    deg %= 360.0
    for (lo, hi), word, sym in YAW:
        if lo <= deg < hi:
            return word, sym
    return YAW_FRONT


def pitch_word(deg: float) -> tuple[str, str]:
    return PITCH_ABOVE if deg >= 0 else PITCH_BELOW


def vocabulary() -> dict[str, list[str]]:
    """Table 1's words and symbols."""
    return {"distance": [w for _, w, _ in DISTANCE], "yaw": [w for _, w, _ in YAW] + [YAW_FRONT[0]],
            "pitch": [PITCH_ABOVE[0], PITCH_BELOW[0]],
            "symbols": [s for *_, s in DISTANCE] + [s for *_, s in YAW] + [YAW_FRONT[1], PITCH_ABOVE[1], PITCH_BELOW[1]]}


@dataclass(frozen=True)
class Relation:
    distance: float
    yaw: float  # degrees, clockwise from the source's heading (0 = front, 90 = right)
    pitch: float  # degrees, positive = target above the source

    def words(self) -> str:
        return f"{distance_word(self.distance)[0]} {pitch_word(self.pitch)[0]} {yaw_word(self.yaw)[0]}"

    def symbols(self) -> str:
        return distance_word(self.distance)[1] + pitch_word(self.pitch)[1] + yaw_word(self.yaw)[1]


def relation(src: tuple[float, ...], dst: tuple[float, ...], heading: float = 0.0) -> Relation:
    """Geometric relation of ``dst`` seen from ``src`` (positions ``(x, y, z)``, y up, AI2-THOR
    axes; ``heading`` the source's yaw in degrees, AI2-THOR's rotation about y)."""
    dx, dy, dz = dst[0] - src[0], dst[1] - src[1], dst[2] - src[2]
    dist = math.sqrt(dx * dx + dy * dy + dz * dz)
    azimuth = math.degrees(math.atan2(dx, dz))  # 0 = +z, 90 = +x (AI2-THOR rotation convention)
    yaw = (azimuth - heading) % 360.0
    horiz = math.hypot(dx, dz)
    pitch = math.degrees(math.atan2(dy, horiz)) if dist > 1e-9 else 0.0
    return Relation(dist, yaw, pitch)


@dataclass(frozen=True)
class SceneGraph:
    positions: Mapping[str, tuple[float, float, float]]  # node -> position
    classes: Mapping[str, str]  # node -> class word shown in the text
    heading: float
    edges: Mapping[str, frozenset[str]]  # directed adjacency
    room: str

    def rel(self, a: str, b: str) -> Relation:
        return relation(self.positions[a], self.positions[b], self.heading if a == AGENT_NODE else 0.0)


def scene_graph(scene: Scene, *, domain_knowledge: bool = True, near: float = 2.0,
                agent: str | None = None) -> SceneGraph:
    """The object-scene graph of a scene with geometry (steps 1-3)."""
    geo = scene.geometry
    agent = agent or (scene.agents[0].name if scene.agents else None)
    if agent is None or agent not in geo:
        raise SceneError(f"scene {scene.name} has no agent position for Graph2NL", file=scene.source)
    pos: dict[str, tuple[float, float, float]] = {AGENT_NODE: tuple(geo[agent][:3])}  # type: ignore[dict-item]
    classes: dict[str, str] = {AGENT_NODE: AGENT_NODE}
    heading = float(geo[agent][3]) if len(geo[agent]) > 3 else 0.0
    receptacles = {loc.name for loc in scene.locations}
    for o in scene.objects:
        if o.name in geo and o.cls != "start":
            pos[o.name] = tuple(geo[o.name][:3])  # type: ignore[assignment]
            classes[o.name] = o.cls
    holder = {f.args[0]: f.args[1] for f in scene.facts if f.predicate == "inreceptacle"}
    edges: dict[str, set[str]] = {n: set() for n in pos}
    nodes = [n for n in pos if n != AGENT_NODE]
    if domain_knowledge:
        edges[AGENT_NODE] |= {n for n in nodes if n in receptacles}
        for o, r in holder.items():
            if o in pos and r in pos:
                edges[r].add(o)
        for r in receptacles & set(pos):
            for o in nodes:
                if o != r and o not in receptacles and relation(pos[r], pos[o]).distance <= near:
                    edges[r].add(o)
    else:
        edges[AGENT_NODE] |= set(nodes)
        for a in nodes:
            edges[a] |= {b for b in nodes if b != a}
    return SceneGraph(pos, classes, heading, {k: frozenset(v) for k, v in edges.items()}, scene.description or "Room")


def paths_to(graph: SceneGraph, target: str, *, depth: int = 2, max_paths: int = 5) -> list[list[str]]:
    """Paths from the agent to ``target`` of at most ``depth`` edges (step 4), shortest
    geometric length first."""
    if target not in graph.positions:
        raise SceneError(f"Graph2NL target '{target}' is not a node of the scene graph")
    found: list[list[str]] = []

    def walk(path: list[str]) -> None:
        last = path[-1]
        if last == target and len(path) > 1:
            found.append(list(path))
            return
        if len(path) > depth:
            return
        for nxt in sorted(graph.edges.get(last, ())):
            if nxt not in path:
                walk(path + [nxt])

    walk([AGENT_NODE])

    def length(p: list[str]) -> float:
        return sum(graph.rel(a, b).distance for a, b in zip(p, p[1:]))

    found.sort(key=lambda p: (len(p) != depth + 1, graph.rel(p[-2], p[-1]).distance, length(p)))
    return found[:max_paths]


def path_text(graph: SceneGraph, path: list[str], *, condensed: bool = True) -> str:
    """``- fnk sink dnj soapbar`` (condensed) or ``- closer below left sink near below back soapbar``."""
    parts = ["-"]
    for a, b in zip(path, path[1:]):
        r = graph.rel(a, b)
        parts.append(r.symbols() if condensed else r.words())
        parts.append(graph.classes[b])
    return " ".join(parts)


def graph2nl(scene: Scene, target: str, *, condensed: bool = True, depth: int = 2, max_paths: int = 5,
             domain_knowledge: bool = True) -> str:
    """The scene-graph context: ``[Room= - path - path ...]`` (step 5)."""
    g = scene_graph(scene, domain_knowledge=domain_knowledge)
    lines = [path_text(g, p, condensed=condensed) for p in paths_to(g, target, depth=depth, max_paths=max_paths)]
    return f"[{g.room}= " + " ".join(lines) + "]"


def full_context(scene: Scene, *, condensed: bool = True) -> str:
    """Geometric relations of all objects: each object through the receptacle holding it,
    each empty receptacle directly from the agent."""
    g = scene_graph(scene)
    holder = {f.args[0]: f.args[1] for f in scene.facts if f.predicate == "inreceptacle"}
    lines = []
    held = set(holder.values())
    for o in sorted(g.positions):
        if o == AGENT_NODE:
            continue
        r = holder.get(o)
        if r in g.positions and r in g.edges.get(AGENT_NODE, ()):
            lines.append(path_text(g, [AGENT_NODE, r, o], condensed=condensed))
        elif o in g.edges.get(AGENT_NODE, ()) and o not in held:
            lines.append(path_text(g, [AGENT_NODE, o], condensed=condensed))
    return f"[{g.room}= " + " ".join(lines) + "]"


def scene_knowledge(scene: Scene) -> str:
    """The objects of the PDDL problem, as classes."""
    classes = sorted({o.cls for o in scene.objects if o.cls != "start"})
    return f"[{scene.description or 'Room'}= " + ", ".join(classes) + "]"


CONTEXT_BUILDERS: dict[str, Callable[[Scene, str], str | None]] = {
    "none": lambda scene, target: None,
    "scene_knowledge": lambda scene, target: scene_knowledge(scene),
    "scene_graph": lambda scene, target: graph2nl(scene, target),
    "full": lambda scene, target: full_context(scene),
}


def context(kind: str, scene: Scene, target: str) -> str | None:
    try:
        build = CONTEXT_BUILDERS[kind]
    except KeyError:
        raise SceneError(f"unknown RobLM context '{kind}' (one of {', '.join(CONTEXTS)})") from None
    return build(scene, target)
