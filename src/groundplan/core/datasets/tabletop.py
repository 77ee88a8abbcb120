"""BrainBody-LLM's Franka tabletop experiment (Sec. 5, Table 4): seven pick-and-place tasks
with cubes and cylinders of named colours, named target locations with coordinates, and a
workspace outside of which the arm cannot grasp or place ("X is out of the workspace of the
robot"). The scenes are written for groundplan (the paper does not publish its MuJoCo
scenes); each has a checker of the arrangement the instruction asks for, and a gold plan:
the plan a planner would first write (for tasks 3-7 it runs into an unreachable object or
location) and, for each error, the plan a good Brain writes from the error step on - the
oracle Brain the loop is proven with.

Coordinates are grid units: x < 0 is the left side, x > 0 the right side; the workspace is
|x| <= 3 and 0 <= y <= 3.

In the core layer, below ``methods`` and ``bench``: the brainbody-tabletop dataset lists
these tasks (``franka_tasks``), BrainBody-LLM's tabletop environment
(``methods/brainbody/tabletop.py``) executes and checks them.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional, Sequence

from groundplan.core.datasets.progprompt import cache_dir
from groundplan.core.task import Task
from groundplan.pddl.formula import Atom
from groundplan.world.scene import Agent, Location, Scene, SceneObject
from groundplan.world.yaml_io import write_yaml_scene

WORKSPACE = (-3.0, 3.0, 0.0, 3.0)  # x_min, x_max, y_min, y_max
ROBOT = "rob0"
SPECTRUM = ("red", "orange", "yellow", "green", "blue", "indigo", "violet")
REDDISH = frozenset({"red", "crimson", "maroon", "scarlet", "pink"})
ACTIONS = ("grasp", "move", "return to base")


def in_workspace(xy: tuple[float, float], ws: tuple[float, float, float, float] = WORKSPACE) -> bool:
    return ws[0] <= xy[0] <= ws[1] and ws[2] <= xy[1] <= ws[3]


@dataclass(frozen=True)
class TabletopTask:
    number: int
    instruction: str
    objects: Mapping[str, tuple[float, float]]  # name (colour_shape) -> start position
    locations: Mapping[str, tuple[float, float]]  # target locations
    checker: Callable[[Mapping[str, tuple[float, float]], Mapping[str, tuple[float, float]]], tuple[bool, str]]
    plan: tuple[str, ...]  # the first plan (gold steps)
    replans: Mapping[int, tuple[str, ...]] = field(default_factory=dict)  # error step -> new steps from it
    unreachable: str = "No"
    difficulty: str = "Easy"

    @property
    def feedback_needed(self) -> int:
        return len(self.replans)


def shape(name: str) -> str:
    return name.rsplit("_", 1)[-1]


def colour(name: str) -> str:
    return name.rsplit("_", 1)[0]


def _cubes(final: Mapping[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    return {o: p for o, p in final.items() if shape(o) == "cube"}


# ------------------------------------------------------------------------------------ checkers


def check_cubes_right(final, start) -> tuple[bool, str]:
    cubes = _cubes(final)
    left = [c for c, p in cubes.items() if p[0] <= 0]
    moved = [o for o, p in final.items() if shape(o) != "cube" and p != start[o]]
    if left:
        return False, f"cubes not on the right: {', '.join(sorted(left))}"
    if moved:
        return False, f"only the cubes were to move, but {', '.join(moved)} moved"
    return True, "all cubes on the right"


def check_letter_l(final, start) -> tuple[bool, str]:
    cells = set(_cubes(final).values())
    if len(cells) != len(_cubes(final)):
        return False, "two cubes share a cell"
    for cx, cy in cells:  # corner: bottom of the vertical bar, left end of the horizontal one
        up = 0
        while (cx, cy + up + 1) in cells:
            up += 1
        right = 0
        while (cx + right + 1, cy) in cells:
            right += 1
        shape_cells = {(cx, cy + k) for k in range(up + 1)} | {(cx + k, cy) for k in range(right + 1)}
        if up >= 1 and right >= 1 and shape_cells == cells:
            return True, f"L with corner at {(cx, cy)}"
    return False, f"the cubes at {sorted(cells)} do not form an L"


def check_rainbow_line(final, start) -> tuple[bool, str]:
    cubes = _cubes(final)
    ys = {p[1] for p in cubes.values()}
    if len(ys) != 1:
        return False, f"the cubes are not in one row (rows {sorted(ys)})"
    if ys != {1.0}:
        return False, f"the row y={ys.pop()} is not the centre row y=1"
    order = [colour(c) for c, _ in sorted(cubes.items(), key=lambda kv: kv[1][0])]
    ranks = [SPECTRUM.index(c) for c in order if c in SPECTRUM]
    if ranks != sorted(ranks) or len(ranks) != len(order):
        return False, f"left to right the colours are {order}"
    return True, "rainbow order in the centre row"


def check_one_each_side(final, start) -> tuple[bool, str]:
    if len(set(final.values())) != len(final):
        return False, "two objects share a location"
    for side, test in (("left", lambda p: p[0] < 0), ("right", lambda p: p[0] > 0)):
        objs = [o for o, p in final.items() if test(p)]
        n_cube = sum(1 for o in objs if shape(o) == "cube")
        n_cyl = sum(1 for o in objs if shape(o) == "cylinder")
        if (n_cube, n_cyl) != (1, 1):
            return False, f"the {side} side has {n_cube} cube(s) and {n_cyl} cylinder(s)"
    return True, "one cube and one cylinder on each side"


def _collinear(a, b, c) -> bool:
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]) == 0


def check_reddish_triangle(final, start) -> tuple[bool, str]:
    right = {o: p for o, p in _cubes(final).items() if p[0] > 0}
    red = {o: p for o, p in right.items() if colour(o) in REDDISH}
    other = [o for o in right if colour(o) not in REDDISH]
    if other:
        return False, f"non-reddish cubes on the right: {other}"
    if len(red) != 3:
        return False, f"{len(red)} reddish cubes on the right (a triangle needs 3)"
    a, b, c = red.values()
    if _collinear(a, b, c):
        return False, "the three reddish cubes are in a line"
    return True, "triangle of reddish cubes on the right"


def check_plus(final, start) -> tuple[bool, str]:
    cells = set(_cubes(final).values())
    for cx, cy in cells:
        plus = {(cx, cy), (cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)}
        if plus <= cells:
            return True, f"plus centred at {(cx, cy)}"
    return False, f"no plus among the cubes at {sorted(cells)}"


def check_segregated(final, start) -> tuple[bool, str]:
    sides: dict[str, set[str]] = {}
    for o, p in final.items():
        if p[0] == 0:
            return False, f"{o} is on the centre line"
        sides.setdefault(shape(o), set()).add("left" if p[0] < 0 else "right")
    if any(len(s) != 1 for s in sides.values()):
        return False, "a shape is on both sides: " + ", ".join(f"{k} {sorted(v)}" for k, v in sides.items())
    if len({next(iter(s)) for s in sides.values()}) != len(sides):
        return False, "cubes and cylinders share a side"
    return True, "cubes and cylinders on different sides"


# ------------------------------------------------------------------------------------ the 7 tasks


def _pick_place(pairs: Sequence[tuple[str, str]], *, end: bool = True) -> tuple[str, ...]:
    steps = []
    for obj, loc in pairs:
        steps += [f"grasp {obj.replace('_', ' ')}", f"move {obj.replace('_', ' ')} to {loc}"]
    return tuple(steps + (["return to base"] if end else []))


TASKS: tuple[TabletopTask, ...] = (
    TabletopTask(
        1, "Move the cubes to the right side of the environment only.",
        {"red_cube": (-2, 1), "green_cube": (-2, 2), "blue_cube": (-1, 2), "yellow_cylinder": (-1, 1)},
        {"location_A": (1, 1), "location_B": (2, 1), "location_C": (1, 2), "location_D": (2, 2)},
        check_cubes_right,
        _pick_place([("red_cube", "location_A"), ("green_cube", "location_B"), ("blue_cube", "location_C")])),
    TabletopTask(
        2, "Use the cubes to form the shape of the capital letter 'L'. The shape consists of a horizontal and a "
           "vertical line intersecting at a right angle.",
        {"red_cube": (-3, 0), "orange_cube": (-2, 0), "yellow_cube": (-1, 0), "green_cube": (-3, 3),
         "blue_cube": (-2, 3)},
        {"location_A": (1, 3), "location_B": (1, 2), "location_C": (1, 1), "location_D": (2, 1), "location_E": (3, 1),
         "location_F": (2, 2)},
        check_letter_l,
        _pick_place([("red_cube", "location_A"), ("orange_cube", "location_B"), ("yellow_cube", "location_C"),
                     ("green_cube", "location_D"), ("blue_cube", "location_E")]),
        difficulty="Medium"),
    TabletopTask(
        3, "Arrange cubes in a horizontal line in the center of the work space, ordering them from left to right "
           "based on their color in sequence of the visible spectrum.",
        {"red_cube": (2, 3), "orange_cube": (-3, 3), "yellow_cube": (0, 3), "green_cube": (-1, 3), "blue_cube": (3, 3),
         "indigo_cube": (1, 3), "violet_cube": (-2, 3)},
        {"location_A": (-3, 1), "location_B": (-2, 1), "location_C": (-1, 1), "location_D": (0, 1),
         "location_E": (1, 1), "location_F": (2, 1), "location_G": (4, 1), "location_H": (3, 1)},
        check_rainbow_line,
        _pick_place(list(zip([f"{c}_cube" for c in SPECTRUM],
                             ["location_A", "location_B", "location_C", "location_D", "location_E", "location_F",
                              "location_G"]))),
        {13: ("move violet cube to location_H", "return to base")},
        unreachable="Yes", difficulty="Medium"),
    TabletopTask(
        4, "Arrange objects in the scene such that left and right side of the environment has exactly one cube and "
           "one cylinder. Each object needs to be assigned a unique location.",
        {"red_cube": (-1, 3), "blue_cube": (-2, 3), "green_cylinder": (-3, 3), "yellow_cylinder": (-4, 2)},
        {"location_A": (1, 1), "location_B": (2, 1), "location_C": (-1, 1), "location_D": (-2, 1)},
        check_one_each_side,
        _pick_place([("red_cube", "location_A"), ("yellow_cylinder", "location_B")]),
        {2: ("grasp green cylinder", "move green cylinder to location_B", "return to base")},
        unreachable="Yes", difficulty="Medium"),
    TabletopTask(
        5, "Create a triangle in the right part of the working space using reddish cubes.",
        {"scarlet_cube": (-5, 2), "red_cube": (-2, 3), "crimson_cube": (-1, 3), "maroon_cube": (-3, 3),
         "blue_cube": (-2, 2), "green_cube": (-1, 2)},
        {"location_A": (1, 1), "location_B": (3, 1), "location_C": (2, 4), "location_D": (2, 2), "location_E": (2, 0)},
        check_reddish_triangle,
        _pick_place([("scarlet_cube", "location_A"), ("red_cube", "location_B"), ("crimson_cube", "location_C")]),
        {0: ("grasp maroon cube", "move maroon cube to location_A", "grasp red cube", "move red cube to location_B",
             "grasp crimson cube", "move crimson cube to location_C", "return to base"),
         5: ("move crimson cube to location_D", "return to base")},
        unreachable="Yes", difficulty="Hard"),
    TabletopTask(
        6, "Create a plus sign in the working place using the cubes.",
        {"white_cube": (-5, 1), "red_cube": (-3, 3), "orange_cube": (-2, 3), "yellow_cube": (-1, 3),
         "green_cube": (-3, 0), "black_cube": (-2, 0)},
        {"location_A": (2, 2), "location_B": (1, 2), "location_C": (3, 2), "location_D": (2, 3), "location_E": (2, 1),
         "location_F": (4, 2), "location_G": (0, 2)},
        check_plus,
        _pick_place([("white_cube", "location_A"), ("red_cube", "location_B"), ("orange_cube", "location_C"),
                     ("yellow_cube", "location_D"), ("green_cube", "location_E")]),
        {0: ("grasp black cube", "move black cube to location_A", "grasp red cube", "move red cube to location_B",
             "grasp orange cube", "move orange cube to location_C", "grasp yellow cube",
             "move yellow cube to location_D", "grasp green cube", "move green cube to location_E", "return to base")},
        unreachable="Yes", difficulty="Hard"),
    TabletopTask(
        7, "Segregate objects based on geometric shapes into left and right part of work space. Objects of different "
           "shapes should not be on the same part of work space.",
        {"red_cube": (-2, 2), "blue_cube": (2, 2), "green_cylinder": (-1, 2), "yellow_cylinder": (1, 3),
         "purple_cylinder": (-5, 2)},
        {"location_A": (1, 1), "location_B": (2, 1), "location_C": (-1, 1), "location_D": (-2, 1)},
        check_segregated,
        _pick_place([("green_cylinder", "location_A"), ("purple_cylinder", "location_B"), ("red_cube", "location_C")]),
        {2: ("grasp green cylinder", "move green cylinder to location_C", "grasp yellow cylinder",
             "move yellow cylinder to location_D", "grasp red cube", "move red cube to location_B", "return to base")},
        unreachable="Yes", difficulty="Hard"),
)


def task_by_number(n: int) -> TabletopTask:
    return next(t for t in TASKS if t.number == n)


# ------------------------------------------------------------------------------------ scenes


def spot_name(obj: str) -> str:
    return f"spot_{obj}"


def build_scene(t: TabletopTask) -> Scene:
    objects = [SceneObject(o, shape(o)) for o in t.objects]
    locs = {**{spot_name(o): p for o, p in t.objects.items()}, **{k.lower(): v for k, v in t.locations.items()}}
    objects += [SceneObject(name, "location") for name in locs]
    facts = {Atom("at", (o, spot_name(o))) for o in t.objects}
    facts |= {Atom("in_workspace", (name,)) for name, p in locs.items() if in_workspace(p)}
    facts.add(Atom("at_base", (ROBOT,)))
    geometry = {name: tuple(float(x) for x in p) for name, p in locs.items()}
    return Scene(name=f"franka_task{t.number}", objects=tuple(objects), agents=(Agent(ROBOT, "robot"),),
                 facts=frozenset(facts), locations=tuple(Location(n) for n in locs), geometry=geometry,
                 description=t.instruction)


def franka_tasks() -> list[Task]:
    """The 7 tasks as bench tasks (scene YAML files written to the cache directory)."""
    out = []
    for t in TASKS:
        text = write_yaml_scene(build_scene(t))
        p = cache_dir() / f"franka-task{t.number}-{hashlib.sha256(text.encode()).hexdigest()[:12]}.yaml"
        if not p.is_file():
            p.write_text(text)
        gold = [{"step": s, "command": step_command(s)} for s in t.plan]
        out.append(Task(id=f"task{t.number}", dataset="franka-tabletop", instruction=t.instruction, scene_file=str(p),
                        goal=None, skillset="tabletop", subset=t.difficulty.lower(),
                        extras={"number": t.number, "unreachable": t.unreachable, "difficulty": t.difficulty,
                                "gold_plan": gold, "feedback_needed": t.feedback_needed}))
    return out


# ------------------------------------------------------------------------------------ commands


def step_command(step: str) -> Optional[str]:
    """A gold step in the Body's syntax: ``grasp red cube`` -> ``<rob0> [grasp] <red_cube>``."""
    s = step.strip().lower()
    if s.startswith("return"):
        return f"<{ROBOT}> [return to base]"
    m = re.match(r"grasp (\w+) (cube|cylinder)$", s)
    if m:
        return f"<{ROBOT}> [grasp] <{m.group(1)}_{m.group(2)}>"
    m = re.match(r"move (\w+) (cube|cylinder) to (location_\w+)$", s)
    if m:
        return f"<{ROBOT}> [move] <{m.group(1)}_{m.group(2)}> <{m.group(3)}>"
    return None


__all__ = ["WORKSPACE", "ROBOT", "SPECTRUM", "REDDISH", "ACTIONS", "TASKS", "TabletopTask", "in_workspace", "shape", "colour",
           "task_by_number", "spot_name", "build_scene", "franka_tasks", "step_command",
           "check_cubes_right", "check_letter_l", "check_one_each_side", "check_plus", "check_rainbow_line", "check_reddish_triangle", "check_segregated"]
