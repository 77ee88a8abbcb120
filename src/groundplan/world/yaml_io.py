"""groundplan's own YAML scene format (read and write)::

    name: small_kitchen
    description: A kitchen with an apple on the counter.
    objects: [apple0, counter0, table0, fridge0]      # class = name without index
    agents:
      - {name: robot0, kind: robot, at: counter0, cost: 1}
      - {name: human0, kind: human, at: table0, cost: 100}
    locations:                                       # location -> objects there
      counter0: [apple0]
      table0: []
    facts:
      - on apple0 counter0
      - closed fridge0
    explored: [counter0, table0]                     # optional; default all
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from groundplan.errors import SceneError
from groundplan.pddl.formula import Atom
from groundplan.world.scene import Agent, Location, Scene, SceneObject, split_name

KNOWN_KEYS = {"name", "description", "objects", "agents", "locations", "facts", "explored", "geometry"}


def _line_of(text: str, needle: str) -> int | None:
    for i, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return i
    return None


def read_yaml_scene(path: str | Path, *, strict: bool = True) -> Scene:
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as exc:
        raise SceneError(f"cannot read scene: {exc.strerror}", file=str(p)) from None
    return parse_yaml_scene(text, file=str(p), strict=strict, default_name=p.stem)


def parse_yaml_scene(text: str, *, file: str = "<scene>", strict: bool = True, default_name: str = "scene") -> Scene:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise SceneError(f"invalid YAML: {getattr(exc, 'problem', exc)}", file=file,
                         line=mark.line + 1 if mark else None) from None
    if not isinstance(data, dict):
        raise SceneError("a scene must be a YAML mapping with objects, agents, locations and facts", file=file)
    unknown = set(data) - KNOWN_KEYS
    if unknown:
        key = sorted(unknown)[0]
        raise SceneError(f"unknown section '{key}' (expected one of {', '.join(sorted(KNOWN_KEYS))})",
                         file=file, line=_line_of(text, f"{key}:"))

    def err(msg: str, needle: str | None = None) -> SceneError:
        return SceneError(msg, file=file, line=_line_of(text, needle) if needle else None)

    objects: list[SceneObject] = []
    for item in data.get("objects") or []:
        if isinstance(item, str):
            objects.append(SceneObject.from_name(item))
        elif isinstance(item, dict) and "name" in item:
            objects.append(SceneObject.from_name(str(item["name"]), item.get("class")))
        else:
            raise err(f"bad object entry {item!r}: write a name like apple0 or {{name: x, class: c}}", str(item))
    names = {o.name for o in objects}
    if len(names) != len(objects):
        dup = next(o.name for o in objects if sum(1 for x in objects if x.name == o.name) > 1)
        raise err(f"object '{dup}' listed twice", dup)

    agents: list[Agent] = []
    for item in data.get("agents") or []:
        if not isinstance(item, dict) or "name" not in item:
            raise err(f"bad agent entry {item!r}: needs at least name and kind", str(item))
        kind = item.get("kind", split_name(str(item["name"]))[0])
        if kind not in ("robot", "human"):
            raise err(f"agent '{item['name']}' has kind '{kind}', expected robot or human", str(item["name"]))
        caps = item.get("capabilities")
        agents.append(Agent(name=str(item["name"]), kind=kind, location=item.get("at"),
                            cost=float(item.get("cost", 1.0 if kind == "robot" else 100.0)),
                            hands=int(item.get("hands", 1)),
                            capabilities=tuple(caps) if caps is not None else None))
    agent_names = {a.name for a in agents}
    known = names | agent_names

    locations: list[Location] = []
    for lname, contents in (data.get("locations") or {}).items():
        lname = str(lname)
        contents = [str(c) for c in (contents or [])]
        for c in contents:
            if c not in known:
                raise err(f"location '{lname}' lists unknown object '{c}'", lname)
        if lname not in known:
            raise err(f"location '{lname}' is not an object of the scene (add it to objects)", lname)
        locations.append(Location(lname, tuple(c for c in contents if c != lname)))
    loc_names = {loc.name for loc in locations}

    facts: set[Atom] = set()
    warnings: list[str] = []
    for item in data.get("facts") or []:
        toks = item.split() if isinstance(item, str) else [str(x) for x in item]
        if len(toks) < 2:
            raise err(f"fact '{item}' needs a predicate and at least one object", str(item))
        for t in toks[1:]:
            if t not in known:
                msg = f"fact '{' '.join(toks)}' names unknown object '{t}'"
                if strict:
                    raise err(msg, " ".join(toks))
                warnings.append(msg)
                break
        else:
            facts.add(Atom(toks[0], tuple(toks[1:])))
    for a in agents:
        if a.location is not None:
            if a.location not in known:
                raise err(f"agent '{a.name}' is at unknown location '{a.location}'", a.name)
            facts.add(Atom("at", (a.name, a.location)))
    explored = data.get("explored")
    if explored is not None:
        bad = [e for e in explored if e not in loc_names]
        if bad:
            raise err(f"explored location '{bad[0]}' is not in locations", str(bad[0]))
    geometry: dict[str, tuple[float, ...]] = {}
    for k, v in (data.get("geometry") or {}).items():
        geometry[str(k)] = tuple(float(x) for x in v)
    return Scene(name=str(data.get("name", default_name)), objects=tuple(objects), agents=tuple(agents),
                 facts=frozenset(facts), locations=tuple(locations),
                 explored=frozenset(explored) if explored is not None else None, geometry=geometry,
                 description=str(data.get("description", "")), source=file, warnings=tuple(warnings))


def scene_to_dict(scene: Scene) -> dict[str, Any]:
    agent_facts = {Atom("at", (a.name, a.location)) for a in scene.agents if a.location}
    out: dict[str, Any] = {"name": scene.name}
    if scene.description:
        out["description"] = scene.description
    out["objects"] = [o.name if SceneObject.from_name(o.name).cls == o.cls else {"name": o.name, "class": o.cls}
                      for o in scene.objects]
    out["agents"] = []
    for a in scene.agents:
        d: dict[str, Any] = {"name": a.name, "kind": a.kind}
        if a.location:
            d["at"] = a.location
        d["cost"] = a.cost
        if a.hands != 1:
            d["hands"] = a.hands
        if a.capabilities is not None:
            d["capabilities"] = list(a.capabilities)
        out["agents"].append(d)
    out["locations"] = {loc.name: list(loc.contents) for loc in scene.locations}
    out["facts"] = sorted(" ".join((f.predicate, *f.args)) for f in scene.facts if f not in agent_facts)
    if scene.explored is not None:
        out["explored"] = sorted(scene.explored)
    if scene.geometry:
        out["geometry"] = {k: list(v) for k, v in scene.geometry.items()}
    return out


def write_yaml_scene(scene: Scene, path: str | Path | None = None) -> str:
    text = yaml.safe_dump(scene_to_dict(scene), sort_keys=False, default_flow_style=None, width=100)
    if path is not None:
        Path(path).write_text(text)
    return text
