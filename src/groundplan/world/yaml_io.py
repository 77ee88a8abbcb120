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

from groundplan.errors import SceneError, did_you_mean
from groundplan.pddl.formula import Atom
from groundplan.schemas import load_yaml, validate
from groundplan.world.scene import Agent, Location, Scene, SceneObject, class_of

KNOWN_KEYS = {"name", "description", "objects", "agents", "locations", "facts", "explored", "geometry"}


def read_yaml_scene(path: str | Path, *, strict: bool = True) -> Scene:
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as exc:
        raise SceneError(f"cannot read scene: {exc.strerror}", file=str(p)) from None
    return parse_yaml_scene(text, file=str(p), strict=strict, default_name=p.stem)


def parse_yaml_scene(text: str, *, file: str = "<scene>", strict: bool = True, default_name: str = "scene") -> Scene:
    """Read a scene, checked against the ``scene`` schema (groundplan/schemas) and for
    consistency: every name once, every location, fact argument and agent position an
    object or agent of the scene. Errors are ``file:line: message`` with a did-you-mean."""
    data, lm = load_yaml(text, file=file, error=SceneError)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SceneError("a scene must be a YAML mapping with objects, agents, locations and facts", file=file,
                         line=lm.line(()))
    facts_in = data.get("facts")
    if isinstance(facts_in, list):  # YAML 1.1 reads the unquoted predicate of [on, apple0, counter0] as true
        data = {**data, "facts": [["on", *f[1:]] if isinstance(f, list) and f and f[0] is True else f
                                  for f in facts_in]}
    validate(data, "scene", file=file, lines=lm, error=SceneError, top_word="section")

    def err(msg: str, *path) -> SceneError:
        return SceneError(msg, file=file, line=lm.line(path))

    lines: dict[str, int] = {}
    objects: list[SceneObject] = []
    first: dict[str, int] = {}
    for i, item in enumerate(data.get("objects") or []):
        o = SceneObject.from_name(item) if isinstance(item, str) else SceneObject.from_name(item["name"], item.get("class"))
        if o.name in first:
            raise err(f"object '{o.name}' listed twice (first as object {first[o.name] + 1})", "objects", i)
        first[o.name] = i
        objects.append(o)
        lines[f"object:{o.name}"] = lm.line(("objects", i)) or 0
    names = set(first)

    agents: list[Agent] = []
    for i, item in enumerate(data.get("agents") or []):
        name = item["name"]
        kind = item.get("kind", class_of(name))
        child = kind == "child" or item.get("child") is True  # a child is a human the safety check guards
        kind = "human" if kind == "child" else kind
        if kind not in ("robot", "human"):
            raise err(f"agent '{name}' has kind '{kind}', expected robot, human or child (give kind: robot, "
                      "kind: human or kind: child)", "agents", i)
        if child and kind != "human":
            raise err(f"agent '{name}' is a robot marked child: true (only a human can be a child)", "agents", i, "child")
        if name in names or any(a.name == name for a in agents):
            raise err(f"agent '{name}' has the name of another {'object' if name in names else 'agent'}",
                      "agents", i, "name")
        caps = item.get("capabilities")
        agents.append(Agent(name=name, kind=kind, location=item.get("at"),
                            cost=float(item.get("cost", 1.0 if kind == "robot" else 100.0)),
                            hands=int(item.get("hands", 1)),
                            capabilities=tuple(caps) if caps is not None else None, child=child))
        lines[f"agent:{name}"] = lm.line(("agents", i)) or 0
    agent_names = {a.name for a in agents}
    known = names | agent_names

    def unknown(what: str, name: str) -> str:
        return f"{what} unknown object '{name}'{did_you_mean(name, known)}"

    locations: list[Location] = []
    for lname, contents in (data.get("locations") or {}).items():
        lname = str(lname)
        if lname not in known:
            raise err(f"location '{lname}' is not an object of the scene{did_you_mean(lname, known)} "
                      f"(add it to objects)", "locations", lname)
        contents = [str(c) for c in (contents or [])]
        for j, c in enumerate(contents):
            if c not in known:
                raise err(unknown(f"location '{lname}' lists", c), "locations", lname, j)
        locations.append(Location(lname, tuple(c for c in contents if c != lname)))
    loc_names = {loc.name for loc in locations}

    facts: set[Atom] = set()
    warnings: list[str] = []
    for i, item in enumerate(data.get("facts") or []):
        toks = item.split() if isinstance(item, str) else [str(x) for x in item]
        line = lm.line(("facts", i)) or 0
        fact = " ".join(toks)
        for t in toks[1:]:
            if t not in known:
                msg = unknown(f"fact '{fact}' names", t)
                if strict:
                    raise SceneError(msg, file=file, line=line or None)
                warnings.append(msg)
                break
        else:
            atom = Atom(toks[0], tuple(toks[1:]))
            if atom in facts:
                raise SceneError(f"fact '{fact}' given twice", file=file, line=line or None)
            facts.add(atom)
            lines[f"fact:{fact}"] = line
    for i, a in enumerate(agents):
        if a.location is not None:
            if a.location not in known:
                raise err(f"agent '{a.name}' is at unknown location '{a.location}'{did_you_mean(a.location, known)}",
                          "agents", i, "at")
            facts.add(Atom("at", (a.name, a.location)))
            lines[f"fact:at {a.name} {a.location}"] = lm.line(("agents", i, "at")) or 0
    explored = data.get("explored")
    if explored is not None:
        for i, e in enumerate(explored):
            if e not in loc_names:
                raise err(f"explored location '{e}' is not in locations{did_you_mean(e, loc_names)}", "explored", i)
    geometry: dict[str, tuple[float, ...]] = {}
    for k, v in (data.get("geometry") or {}).items():
        if str(k) not in known:
            raise err(f"geometry of unknown object '{k}'{did_you_mean(k, known)}", "geometry", k)
        geometry[str(k)] = tuple(float(x) for x in v)
    return Scene(name=str(data.get("name", default_name)), objects=tuple(objects), agents=tuple(agents),
                 facts=frozenset(facts), locations=tuple(locations),
                 explored=frozenset(explored) if explored is not None else None, geometry=geometry,
                 description=str(data.get("description", "")), source=file, warnings=tuple(warnings),
                 lines={k: v for k, v in lines.items() if v})


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
        d["cost"] = int(a.cost) if float(a.cost).is_integer() else a.cost
        if a.hands != 1:
            d["hands"] = a.hands
        if a.capabilities is not None:
            d["capabilities"] = list(a.capabilities)
        if a.child:
            d["child"] = True
        out["agents"].append(d)
    out["locations"] = {loc.name: list(loc.contents) for loc in scene.locations}
    out["facts"] = sorted(" ".join((f.predicate, *f.args)) for f in scene.facts if f not in agent_facts)
    if scene.explored is not None:
        out["explored"] = sorted(scene.explored)
    if scene.geometry:
        out["geometry"] = {k: list(v) for k, v in scene.geometry.items()}
    return out


def write_yaml_scene(scene: Scene, path: str | Path | None = None) -> str:
    """The scene as groundplan YAML: short lists inline, facts one per line, no line wrapped
    (``scene show S > s.yaml`` loads back as the same scene)."""
    parts = []
    for key, value in scene_to_dict(scene).items():
        block = key == "facts" or not isinstance(value, (list, dict))
        parts.append(yaml.safe_dump({key: value}, sort_keys=False, default_flow_style=False if block else None,
                                    width=1_000_000, allow_unicode=True))
    text = "".join(parts)
    if path is not None:
        Path(path).write_text(text)
    return text
