"""ALFRED scenes from the AI2-THOR FloorPlan layouts the PyPI package alfworld ships
(alfworld/gen/layouts: per floor plan the reachable navigation grid ``-layout.npy``, the
object classes ``-objects.json`` and every receptacle with its position and interaction pose
``-openable.json``), read at run time from the installed package, never copied.

A floor plan gives rooms, receptacles and their positions; the objects that can be moved
are placed into receptacles that can contain them (alfworld.gen.constants.
VAL_RECEPTACLE_OBJECTS) by a seeded random generator, as ALFRED's own generator does.
Object knowledge (heatable, coolable, ...) comes from alfworld.gen.constants too."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from groundplan.errors import ConfigError, SceneError
from groundplan.pddl.formula import Atom
from groundplan.world.scene import Agent, Location, Scene, SceneObject

AGENT = "robot0"
START = "start0"
#: receptacle classes whose layout name differs from the receptacle objects go into
RENAME = {"Sink": "SinkBasin", "Bathtub": "BathtubBasin"}
LAMPS = ("DeskLamp", "FloorLamp")
LAMP_HOSTS = ("desk", "sidetable", "dresser", "coffeetable", "tvstand", "shelf", "countertop", "diningtable")


def _alfworld() -> Any:
    try:
        import alfworld.gen.constants as constants
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ConfigError("the alfred scenes need the PyPI package alfworld (pip install 'groundplan[roblm]' "
                          f"or pip install --no-deps alfworld==0.4.2): {exc}") from None
    return constants


def layouts_dir() -> Path:
    c = _alfworld()
    return Path(c.__file__).resolve().parent / "layouts"


def room_type(number: int) -> str:
    for room, rng in _alfworld().SCENE_TYPE.items():
        if number in rng:
            return room
    raise SceneError(f"FloorPlan{number} has no room type in alfworld.gen.constants.SCENE_TYPE")


def floorplan_numbers(split: str) -> list[int]:
    """``train`` (ALFRED's training floor plans, also used for valid-seen) or ``unseen``
    (the held-out floor plans of ALFRED's valid/test unseen), as alfworld.gen.constants lists them."""
    c = _alfworld()
    if split in ("train", "seen", "valid_seen"):
        nums = list(c.TRAIN_SCENE_NUMBERS)
    elif split in ("unseen", "valid_unseen"):
        nums = list(c.TEST_SCENE_NUMBERS)
    else:
        raise ConfigError(f"unknown floor-plan split '{split}' (train, unseen)")
    return [n for n in nums if (layouts_dir() / f"FloorPlan{n}-openable.json").is_file()]


def cls_name(thor_class: str) -> str:
    """AI2-THOR class -> groundplan class (``CounterTop`` -> ``countertop``)."""
    return RENAME.get(thor_class, thor_class).lower()


_WORD_FIX = {"sinkbasin": "sink", "bathtubbasin": "bathtub", "tvstand": "tv stand", "cd": "cd",
             "garbagecan": "garbage can", "countertop": "counter"}


def words(cls: str, thor: Mapping[str, str] | None = None) -> str:
    """A class in words for goal sentences (``alarmclock`` -> ``alarm clock``)."""
    if cls in _WORD_FIX:
        return _WORD_FIX[cls]
    thor = thor or knowledge().thor_names
    name = thor.get(cls, cls)
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).lower()


@dataclass(frozen=True)
class ObjectKnowledge:
    """Per groundplan class: what ALFRED allows (from alfworld.gen.constants)."""

    can_contain: Mapping[str, frozenset[str]]  # receptacle class -> object classes
    heatable: frozenset[str]
    coolable: frozenset[str]
    cleanable: frozenset[str]
    toggleable: frozenset[str]
    sliceable: frozenset[str]
    movable_receptacles: frozenset[str]
    receptacles: frozenset[str]
    thor_names: Mapping[str, str]

    def sliceable_names(self, scene: Scene) -> set[str]:
        return {o.name for o in scene.objects if o.cls in self.sliceable}

    @property
    def pickupable(self) -> frozenset[str]:
        out: set[str] = set()
        for objs in self.can_contain.values():
            out |= objs
        return frozenset(out - (self.receptacles - self.movable_receptacles))


@lru_cache(maxsize=1)
def knowledge() -> ObjectKnowledge:
    c = _alfworld()
    low = {k: frozenset(cls_name(x) for x in v) for k, v in c.VAL_ACTION_OBJECTS.items()}
    cc = {cls_name(r): frozenset(cls_name(o) for o in objs if not o.endswith("Sliced"))
          for r, objs in c.VAL_RECEPTACLE_OBJECTS.items()}
    thor = {cls_name(n): RENAME.get(n, n) for n in list(c.OBJECTS) + list(c.RECEPTACLES)}
    return ObjectKnowledge(cc, low["Heatable"], low["Coolable"], low["Cleanable"], low["Toggleable"],
                           low["Sliceable"], frozenset(cls_name(x) for x in c.MOVABLE_RECEPTACLES),
                           frozenset(cls_name(x) for x in c.RECEPTACLES) | {"sinkbasin", "bathtubbasin"}, thor)


@dataclass(frozen=True)
class FloorPlan:
    """One AI2-THOR floor plan: receptacles with positions and interaction poses, the
    object classes it has, and its reachable navigation grid (0.25 m)."""

    number: int
    room: str
    receptacles: tuple[tuple[str, str, tuple[float, float, float], tuple[float, float, float, float]], ...]
    object_classes: tuple[str, ...]
    grid: tuple[tuple[float, float], ...]

    @property
    def name(self) -> str:
        return f"FloorPlan{self.number}"


@lru_cache(maxsize=256)
def load_floorplan(number: int) -> FloorPlan:
    d = layouts_dir()
    op = d / f"FloorPlan{number}-openable.json"
    if not op.is_file():
        raise SceneError(f"no layout for FloorPlan{number} in the installed alfworld package", file=str(op))
    try:
        recs = json.loads(op.read_text())
        classes = json.loads((d / f"FloorPlan{number}-objects.json").read_text())
    except json.JSONDecodeError as exc:
        raise SceneError(f"invalid JSON: {exc}", file=str(op)) from None
    import numpy as np

    grid = np.load(d / f"FloorPlan{number}-layout.npy")
    counters: dict[str, int] = {}
    out = []
    keys = set(recs)
    for key in sorted(recs):
        parts = key.split("|")
        if len(parts) not in (4, 5):
            raise SceneError(f"receptacle id '{key}' is not Class|x|y|z[|Part]", file=str(op))
        if len(parts) == 4 and any(k.startswith(key + "|") for k in keys):
            continue  # a sink / bathtub whose basin is listed: the basin is the receptacle
        cls = cls_name(parts[4] if len(parts) == 5 else parts[0])
        idx = counters.get(cls, 0)
        counters[cls] = idx + 1
        pos = (float(parts[1]), float(parts[2]), float(parts[3]))
        pose = tuple(float(v) for v in recs[key])
        out.append((f"{cls}{idx}", cls, pos, pose))
    return FloorPlan(number, room_type(number), tuple(out), tuple(cls_name(c) for c in classes),
                     tuple((float(x), float(z)) for x, z in grid))


def generate_scene(number: int, seed: int, *, max_instances: int = 2) -> Scene:
    """A scene on FloorPlan<number>: its receptacles, the movable objects of its object
    list placed at random into receptacles that can hold them, lamps on furniture, the
    agent at a random reachable grid point (``start0``). Geometry: ``name -> (x, y, z)``;
    the agent and ``start0`` also carry the yaw; receptacles carry their interaction pose
    as ``(x, y, z, pose_x, pose_z, yaw)``."""
    fp = load_floorplan(number)
    kn = knowledge()
    rng = random.Random(f"{number}:{seed}")
    objects: list[SceneObject] = []
    facts: set[Atom] = set()
    geometry: dict[str, tuple[float, ...]] = {}
    rec_by_cls: dict[str, list[str]] = {}
    for name, cls, pos, pose in fp.receptacles:
        objects.append(SceneObject(name, cls))
        rec_by_cls.setdefault(cls, []).append(name)
        geometry[name] = (*pos, pose[0], pose[1], pose[2])
    rec_names = {r[0]: r for r in fp.receptacles}
    contents: dict[str, list[str]] = {n: [] for n in rec_names}
    counters: dict[str, int] = {}

    def add(cls: str, host: str) -> str:
        idx = counters.get(cls, 0)
        counters[cls] = idx + 1
        name = f"{cls}{idx}"
        objects.append(SceneObject(name, cls))
        facts.add(Atom("inreceptacle", (name, host)))
        hx, hy, hz = geometry[host][:3]
        geometry[name] = (round(hx + rng.uniform(-0.08, 0.08), 3), round(hy + rng.uniform(0.0, 0.05), 3),
                          round(hz + rng.uniform(-0.08, 0.08), 3))
        contents.setdefault(host, []).append(name)
        return name

    movable = []
    for cls in sorted(set(fp.object_classes)):
        if cls in kn.pickupable:
            hosts = [r for r, _c, _p, _q in fp.receptacles if cls in kn.can_contain.get(_c, ())]
            if not hosts:
                continue
            for _ in range(rng.randint(1, max_instances)):
                movable.append(add(cls, rng.choice(hosts)))
        elif cls in {cls_name(x) for x in LAMPS}:
            hosts = [n for c in LAMP_HOSTS for n in rec_by_cls.get(c, [])]
            if hosts:
                add(cls, rng.choice(hosts))
    # static knowledge facts
    present = {o.cls for o in objects}
    by_cls: dict[str, list[str]] = {}
    for o in objects:
        by_cls.setdefault(o.cls, []).append(o.name)
    for o in objects:
        c = o.cls
        for pred, group in (("heatable", kn.heatable), ("coolable", kn.coolable), ("cleanable", kn.cleanable),
                            ("toggleable", kn.toggleable), ("sliceable", kn.sliceable)):
            if c in group:
                facts.add(Atom(pred, (o.name,)))
        if c in kn.pickupable:
            facts.add(Atom("pickupable", (o.name,)))
        if c in kn.movable_receptacles:
            facts.add(Atom("isreceptacleobject", (o.name,)))
        if c in ("knife", "butterknife"):
            facts.add(Atom("cutter", (o.name,)))
        if c in ("fridge", "microwave", "cabinet", "drawer", "safe", "box", "laundryhamper"):
            if o.name in rec_names:
                facts.add(Atom("openable", (o.name,)))
        for pred, cl in (("heatsource", "microwave"), ("coolsource", "fridge"), ("watersource", "sinkbasin"),
                         ("watersource", "bathtubbasin")):
            if c == cl:
                facts.add(Atom(pred, (o.name,)))
        holdable = kn.can_contain.get(c)
        if holdable:
            for oc in holdable & present:
                for inner in by_cls[oc]:
                    if inner != o.name:
                        facts.add(Atom("cancontain", (o.name, inner)))
    x, z = rng.choice(fp.grid) if fp.grid else (0.0, 0.0)
    yaw = float(rng.choice((0, 90, 180, 270)))
    objects.append(SceneObject(START, "start"))
    geometry[START] = (x, 0.9, z, yaw)
    geometry[AGENT] = (x, 0.9, z, yaw)
    facts.add(Atom("atlocation", (AGENT, START)))
    agent = Agent(AGENT, "robot", location=START)
    locations = tuple(Location(n, tuple(contents.get(n, ()))) for n in rec_names)
    return Scene(name=f"{fp.name}_s{seed}", objects=tuple(objects), agents=(agent,), facts=frozenset(facts),
                 locations=locations, geometry=geometry, description=fp.room,
                 source=f"alfworld:{fp.name} seed {seed}")


def with_all_capabilities(scene: Scene, capabilities: tuple[str, ...]) -> Scene:
    """The same scene whose agent may use the low-level controller actions too."""
    from dataclasses import replace

    agents = tuple(replace(a, capabilities=capabilities) for a in scene.agents)
    return replace(scene, agents=agents)
