"""Generated household scenes (for speed benchmarks and tests): N objects spread over
counters, tables, shelves and containers, with a robot and a human."""

from __future__ import annotations

import random

from groundplan.pddl.formula import Atom
from groundplan.world.scene import Agent, Location, Scene, SceneObject

FIXTURES = ("counter", "table", "shelf")
CONTAINERS = ("refrigerator", "drawer", "cabinet")
ITEMS = ("apple", "banana", "orange", "tomato", "cucumber", "bread", "cup", "mug", "glass", "bowl", "plate",
         "sponge", "knife", "fork", "spoon", "coke", "soda", "juice", "chips", "energy_bar", "cheese", "box")


def household_scene(n_objects: int, seed: int = 0) -> Scene:
    """A scene with ``n_objects`` objects in all (fixtures included), a robot and a human."""
    rng = random.Random(seed)
    n_fix = max(2, n_objects // 12)
    n_cont = max(1, n_objects // 25)
    fixtures = [f"{FIXTURES[i % len(FIXTURES)]}{i // len(FIXTURES)}" for i in range(n_fix)]
    containers = [f"{CONTAINERS[i % len(CONTAINERS)]}{i // len(CONTAINERS)}" for i in range(n_cont)]
    counts: dict[str, int] = {}
    items = []
    for _ in range(max(0, n_objects - n_fix - n_cont)):
        cls = rng.choice(ITEMS)
        items.append(f"{cls}{counts.get(cls, 0)}")
        counts[cls] = counts.get(cls, 0) + 1
    facts: set[Atom] = set()
    contents: dict[str, list[str]] = {loc: [] for loc in fixtures + containers}
    for it in items:
        loc = rng.choice(fixtures + containers)
        facts.add(Atom("in" if loc in containers else "on", (it, loc)))
        contents[loc].append(it)
    for c in containers:
        if c.startswith(("refrigerator", "drawer", "cabinet")):
            facts.add(Atom("closed", (c,)))
    objects = tuple(SceneObject.from_name(o) for o in fixtures + containers + items)
    agents = (Agent("robot0", "robot", fixtures[0], 1.0), Agent("human0", "human", fixtures[-1], 100.0))
    facts |= {Atom("at", ("robot0", fixtures[0])), Atom("at", ("human0", fixtures[-1]))}
    locations = tuple(Location(loc, tuple(contents[loc])) for loc in fixtures + containers)
    return Scene(f"household{n_objects}_s{seed}", objects, agents, frozenset(facts), locations,
                 description=f"generated household scene with {n_objects} objects")


def random_goals(scene: Scene, k: int, seed: int = 0) -> list[str]:
    """Simple delivery / placement goals over the scene's carriable items."""
    rng = random.Random(seed)
    items = [o.name for o in scene.objects if o.cls in ITEMS]
    fixtures = [o.name for o in scene.objects if o.cls in FIXTURES]
    goals = []
    for i in range(k):
        a = rng.choice(items)
        if i % 3 == 0:
            goals.append(f"and (inhand {a} human0)")
        elif i % 3 == 1:
            goals.append(f"and (on {a} {rng.choice(fixtures)})")
        else:
            b = rng.choice([x for x in items if x != a] or [a])
            goals.append(f"or (inhand {a} human0) (inhand {b} human0)")
    return goals
