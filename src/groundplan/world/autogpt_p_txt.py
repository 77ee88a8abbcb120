"""Reader for the AutoGPT+P scene ``.txt`` format::

    SCENE-DESCRIPTION
    OBJECTS
    coke:0            -> object coke0 of class coke
    END-OBJECTS
    RELATIONS
    on coke:0 counter:1
    at robot:0 counter:1
    END-RELATIONS
    LOCATIONS
    counter1 coke:0 counter:1
    END-LOCATIONS

``robot`` and ``human`` objects are agents (robot0, human0); the robot exists even when
the OBJECTS section does not list it."""

from __future__ import annotations

from pathlib import Path

from groundplan.errors import SceneError, did_you_mean
from groundplan.pddl.formula import Atom
from groundplan.world.scene import Agent, Location, Scene, SceneObject

SECTIONS = ("SCENE-DESCRIPTION", "OBJECTS", "RELATIONS", "LOCATIONS")
AGENT_CLASSES = {"robot": "robot", "human": "human"}
DEFAULT_COSTS = {"robot": 1.0, "human": 100.0}
#: what a strict loading error says the user can do (``--lenient`` loads such a scene)
LENIENT_HINT = "--lenient drops"


def _obj(token: str, file: str, line: int) -> tuple[str, str]:
    if ":" not in token:
        raise SceneError(f"object '{token}' must be written class:index (e.g. coke:0)", file=file, line=line)
    cls, _, idx = token.rpartition(":")
    if not cls or not idx.isdigit():
        raise SceneError(f"object '{token}' must be written class:index (e.g. coke:0)", file=file, line=line)
    return f"{cls}{int(idx)}", cls


def read_autogpt_p_scene(path: str | Path, *, strict: bool = True, name: str | None = None) -> Scene:
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as exc:
        raise SceneError(f"cannot read scene: {exc.strerror}", file=str(p)) from None
    return parse_autogpt_p_scene(text, file=str(p), strict=strict, name=name or p.stem)


def parse_autogpt_p_scene(text: str, *, file: str = "<scene>", strict: bool = True, name: str = "scene") -> Scene:
    section: str | None = None
    seen: set[str] = set()
    description: list[str] = []
    objects: dict[str, str] = {}
    obj_lines: dict[str, int] = {}
    relations: list[tuple[int, str, list[tuple[str, str]]]] = []
    locations: list[tuple[int, str, list[tuple[str, str]]]] = []
    warnings: list[str] = []
    geometry: dict[str, tuple[float, ...]] = {}
    section_line = 0
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        # tolerate files concatenated without a trailing newline
        if line.startswith("END-") and section and line.startswith(f"END-{section}"):
            rest = line[len(f"END-{section}"):].strip()
            section = None
            if not rest:
                continue
            line = rest
        if line in SECTIONS:
            if line in seen:
                raise SceneError(f"section {line} appears twice", file=file, line=lineno)
            seen.add(line)
            section = line
            section_line = lineno
            continue
        if line.startswith("END-"):
            raise SceneError(f"'{line}' does not close the open section ({section or 'none'})", file=file, line=lineno)
        if section is None:
            raise SceneError(f"unknown section or line outside a section: '{line}' "
                             f"(expected one of {', '.join(SECTIONS)})", file=file, line=lineno)
        toks = line.split()
        if section == "SCENE-DESCRIPTION":
            description.append(line)
        elif section == "OBJECTS":
            # class:index, optionally followed by :x1,y1,z1,x2,y2,z2 (a bounding box)
            parts = line.replace(" ", "").split(":")
            if len(parts) == 3:
                try:
                    geometry[f"{parts[0]}{int(parts[1])}"] = tuple(float(x) for x in parts[2].split(","))
                except ValueError:
                    raise SceneError(f"bad bounding box in '{line}' (expected numbers separated by commas)",
                                     file=file, line=lineno) from None
                parts = parts[:2]
            if len(parts) != 2 or len(toks) != 1 and len(parts) != 2:
                raise SceneError(f"OBJECTS lines hold one class:index, got '{line}'", file=file, line=lineno)
            n, c = _obj(":".join(parts), file, lineno)
            objects[n] = c
            obj_lines.setdefault(n, lineno)
        elif section == "RELATIONS":
            if len(toks) < 2:
                raise SceneError(f"relation '{line}' needs a predicate and at least one object", file=file, line=lineno)
            relations.append((lineno, toks[0], [_obj(t, file, lineno) for t in toks[1:]]))
        elif section == "LOCATIONS":
            locations.append((lineno, toks[0], [_obj(t, file, lineno) for t in toks[1:]]))
    if section is not None:
        raise SceneError(f"section {section} opened here is not closed (END-{section} missing)", file=file,
                         line=section_line)
    last = len(text.splitlines())
    for required in ("OBJECTS", "RELATIONS"):
        if required not in seen:
            raise SceneError(f"section {required} missing (end of file)", file=file, line=last)

    # agents: robot0 always exists; every human object is an agent
    agent_names = {n for n, c in objects.items() if c in AGENT_CLASSES}
    for _, _pred, args in relations:
        for n, c in args:
            if c in AGENT_CLASSES:
                agent_names.add(n)
                objects.setdefault(n, c)
    if not any(objects.get(n) == "robot" for n in agent_names):
        objects["robot0"] = "robot"
        agent_names.add("robot0")

    facts: set[Atom] = set()
    fact_lines: dict[str, int] = {}  # for file:line when the builder checks the facts
    agent_loc: dict[str, str] = {}
    for lineno, pred, args in relations:
        names = [n for n, _ in args]
        unknown = [n for n in names if n not in objects]
        if unknown:
            msg = f"relation '{pred} {' '.join(names)}' names unknown object '{unknown[0]}'{did_you_mean(unknown[0], objects)}"
            if strict:
                raise SceneError(msg + f" (not in OBJECTS; {LENIENT_HINT} the relation with a warning)", file=file,
                                 line=lineno)
            warnings.append(f"{file}:{lineno}: {msg}; relation dropped")
            continue
        if pred == "at" and len(names) == 2 and names[0] in agent_names:
            agent_loc[names[0]] = names[1]
        facts.add(Atom(pred, tuple(names)))
        fact_lines.setdefault(f"fact:{pred} {' '.join(names)}", lineno)

    locs: list[Location] = []
    for lineno, lname, members in locations:
        contents = []
        for n, _ in members:
            if n not in objects:
                msg = f"location '{lname}' lists unknown object '{n}'"
                if strict:
                    raise SceneError(msg + f" (not in OBJECTS; {LENIENT_HINT} it with a warning)", file=file,
                                     line=lineno)
                warnings.append(f"{file}:{lineno}: {msg}; dropped")
                continue
            contents.append(n)
        locs.append(Location(lname, tuple(contents)))
    loc_names = {loc.name for loc in locs}
    for a, where in agent_loc.items():
        if locs and where not in loc_names and where not in objects:
            raise SceneError(f"agent {a} is at '{where}', which is neither a location nor an object", file=file)

    agents = tuple(Agent(n, AGENT_CLASSES[objects[n]], agent_loc.get(n), DEFAULT_COSTS[AGENT_CLASSES[objects[n]]])
                   for n in sorted(agent_names))
    objs = tuple(SceneObject(n, c) for n, c in objects.items() if n not in agent_names)
    return Scene(name=name, objects=objs, agents=agents, facts=frozenset(facts), locations=tuple(locs),
                 description=" ".join(description), source=file, warnings=tuple(warnings),
                 geometry=geometry, lines=fact_lines)
