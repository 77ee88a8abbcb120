"""RobLM's instruction grounding (Sec. 4.2.3-4.2.6), executed in groundplan's executor on the
``alfred`` skill set.

Task grounding: GotoLocation is a navigation task (A* over the floor plan's navigation grid
to the receptacle's interaction pose); PickupObject, PutObject, SliceObject and ToggleObject
are manipulation tasks (one executor action); HeatObject, CoolObject and CleanObject are
composite tasks expanded into low-level controller actions (open, put, close, toggle on,
toggle off, open, pick up, close - the registry ``COMPOSITE``).

Geometric grounding: a class name is grounded to every instance of that class in the scene;
each match is tried (the executor's state is stored and restored) and the first that works
is kept; for GotoLocation the candidates are ordered by path length and one whose next step
then succeeds is preferred (RobLM is allowed to "try" all possibilities)."""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field
from typing import Callable, Sequence

from groundplan.core.datasets.alfred_text import PlanStep
from groundplan.errors import SceneError
from groundplan.pddl.formula import And, Atom
from groundplan.pddl.goal import parse_goal
from groundplan.sim.executor import Executor
from groundplan.skills.builder import build_task
from groundplan.skills.skillset import load_skillset
from groundplan.world.alfred import AGENT, FloorPlan, load_floorplan, with_all_capabilities
from groundplan.world.scene import Scene

GRID = 0.25

#: composite actions -> low-level controller sequence over (held object, receptacle)
COMPOSITE: dict[str, tuple[str, ...]] = {
    "HeatObject": ("openobject {r}", "put_low {o} {r}", "closeobject {r}", "toggleon_low {r}", "toggleoff_low {r}",
                   "openobject {r}", "pickup_low {o} {r}", "closeobject {r}"),
    "CoolObject": ("openobject {r}", "put_low {o} {r}", "closeobject {r}", "openobject {r}", "pickup_low {o} {r}",
                   "closeobject {r}"),
    "CleanObject": ("put_low {o} {r}", "toggleon_low {r}", "toggleoff_low {r}", "pickup_low {o} {r}"),
}
COMPOSITE_SOURCE = {"HeatObject": "heatsource", "CoolObject": "coolsource", "CleanObject": "watersource"}


class NavGrid:
    """The reachable 0.25 m grid of a floor plan (alfworld's ``-layout.npy``), 4-connected."""

    def __init__(self, points: Sequence[tuple[float, float]]):
        self.cells = {self.cell(x, z) for x, z in points}

    @staticmethod
    def cell(x: float, z: float) -> tuple[int, int]:
        return round(x / GRID), round(z / GRID)

    def snap(self, x: float, z: float) -> tuple[int, int] | None:
        c = self.cell(x, z)
        if c in self.cells:
            return c
        if not self.cells:
            return None
        return min(self.cells, key=lambda d: (d[0] - c[0]) ** 2 + (d[1] - c[1]) ** 2)

    def astar(self, start: tuple[int, int], goal: tuple[int, int]) -> list[tuple[int, int]] | None:
        """Shortest 4-connected path (A*, Manhattan heuristic), or None when unreachable."""
        if start not in self.cells or goal not in self.cells:
            return None
        frontier = [(0, 0, start)]
        came: dict[tuple[int, int], tuple[int, int] | None] = {start: None}
        cost = {start: 0}
        while frontier:
            _, g, cur = heapq.heappop(frontier)
            if cur == goal:
                path = [cur]
                while came[path[-1]] is not None:
                    path.append(came[path[-1]])  # type: ignore[arg-type]
                return path[::-1]
            if g > cost[cur]:
                continue
            for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                nxt = (cur[0] + dx, cur[1] + dz)
                if nxt in self.cells and g + 1 < cost.get(nxt, 1 << 30):
                    cost[nxt] = g + 1
                    came[nxt] = cur
                    heapq.heappush(frontier, (g + 1 + abs(nxt[0] - goal[0]) + abs(nxt[1] - goal[1]), g + 1, nxt))
        return None


@dataclass
class GroundedStep:
    step: PlanStep
    ok: bool
    grounded: list[str] = field(default_factory=list)
    reason: str = ""
    nav_cells: int = 0


@dataclass
class GroundedRun:
    outcomes: list[GroundedStep]
    facts: frozenset
    nav_cells: int

    @property
    def executed(self) -> int:
        return sum(1 for o in self.outcomes if o.ok)


class AlfredWorld:
    """A scene on its floor plan with an executor that also knows the low-level actions."""

    def __init__(self, scene: Scene, floorplan: FloorPlan | None = None):
        skillset = load_skillset("alfred")
        caps = tuple(c.name for c in skillset.capabilities)
        task = build_task(skillset, with_all_capabilities(scene, caps))
        self.scene = scene
        self.domain, self.problem = task.domain, task.problem
        self.executor = Executor(self.domain, self.problem)
        if floorplan is None:
            number = int(scene.name.split("_")[0].replace("FloorPlan", ""))
            floorplan = load_floorplan(number)
        self.nav = NavGrid(floorplan.grid)
        g = scene.geometry[AGENT]
        self.position = self.nav.snap(g[0], g[2])
        self.cls = {o.name: o.cls for o in scene.objects}
        self.receptacles = {loc.name for loc in scene.locations}

    # -- state
    def save(self) -> tuple:
        return self.executor.facts, self.executor.cost, self.position

    def restore(self, state: tuple) -> None:
        self.executor.facts, self.executor.cost, self.position = state

    def holds(self, pred: str, *args: str) -> bool:
        return any(f.predicate == pred and f.args == args for f in self.executor.facts)

    def location(self) -> str | None:
        return next((f.args[1] for f in self.executor.facts if f.predicate == "atlocation" and f.args[0] == AGENT), None)

    def held(self) -> str | None:
        return next((f.args[1] for f in self.executor.facts if f.predicate == "holds" and f.args[0] == AGENT), None)

    def inside(self, host: str) -> list[str]:
        return sorted(f.args[0] for f in self.executor.facts if f.predicate == "inreceptacle" and f.args[1] == host)

    def instances(self, cls: str) -> list[str]:
        return sorted(n for n, c in self.cls.items() if c == cls)

    def within_reach(self) -> list[str]:
        loc = self.location()
        if loc is None:
            return []
        out = self.inside(loc)
        for m in list(out):
            out += self.inside(m)
        return out

    def apply(self, step: str) -> tuple[bool, str]:
        r = self.executor.apply(f"{step} {AGENT}")
        return r.ok, r.reason

    def path_to(self, receptacle: str) -> list[tuple[int, int]] | None:
        g = self.scene.geometry.get(receptacle)
        if g is None or len(g) < 5 or self.position is None:
            return None
        goal = self.nav.snap(g[3], g[4])
        return self.nav.astar(self.position, goal) if goal else None


# ------------------------------------------------------------------ grounding registry
Grounder = Callable[[AlfredWorld, PlanStep], GroundedStep]


def _try(world: AlfredWorld, step: PlanStep, options: list[list[str]], none_reason: str) -> GroundedStep:
    if not options:
        return GroundedStep(step, False, reason=none_reason)
    reasons = []
    for seq in options:
        saved = world.save()
        ok, reason = True, ""
        for s in seq:
            ok, reason = world.apply(s)
            if not ok:
                break
        if ok:
            return GroundedStep(step, True, list(seq))
        world.restore(saved)
        reasons.append(reason)
    return GroundedStep(step, False, reason=reasons[0])


def ground_goto(world: AlfredWorld, step: PlanStep, rest: Sequence[PlanStep] = ()) -> GroundedStep:
    """Navigation: every reachable instance of the class is tried; the one after which the rest
    of the plan executes furthest is kept (ties: the shorter path)."""
    cls = step.args[0]
    here = world.location()
    cands = []
    for r in world.instances(cls):
        if r not in world.receptacles or r == here:
            continue
        path = world.path_to(r)
        if path is not None:
            cands.append((len(path), r, path))
    if not cands:
        why = f"no reachable {cls} in the scene" if world.instances(cls) else f"no {cls} in the scene"
        if here is not None and world.cls.get(here) == cls and len(world.instances(cls)) == 1:
            why = f"the agent is already at {here}"
        return GroundedStep(step, False, reason=why)
    cands.sort()
    best: tuple | None = None
    for n, r, path in cands:
        saved = world.save()
        ok, _reason = world.apply(f"gotolocation {here} {r}")
        if ok:
            world.position = path[-1]
            score = _rollout(world, rest) if rest else 0
            if best is None or score > best[0]:
                best = (score, n, r, path)
        world.restore(saved)
        if best is not None and best[0] == len(rest):
            break
    if best is None:
        return GroundedStep(step, False, reason=f"cannot go to any {cls}")
    _score, n, r, path = best
    world.apply(f"gotolocation {here} {r}")
    world.position = path[-1]
    return GroundedStep(step, True, [f"gotolocation {here} {r}"], nav_cells=n)


def _rollout(world: AlfredWorld, rest: Sequence[PlanStep]) -> int:
    """How many of ``rest`` execute (navigation takes the nearest instance; no nested rollouts)."""
    saved = world.save()
    done = 0
    for s in rest:
        o = ground_goto(world, s, ()) if s.action == "GotoLocation" else ground_step(world, s, ())
        done += o.ok
    world.restore(saved)
    return done


def ground_pickup(world: AlfredWorld, step: PlanStep, _la=None) -> GroundedStep:
    loc = world.location()
    objs = [o for o in world.inside(loc) if world.cls.get(o) == step.args[0]] if loc else []
    return _try(world, step, [[f"pickupobject {o} {loc}"] for o in objs], f"no {step.args[0]} at {loc}")


def ground_put(world: AlfredWorld, step: PlanStep, _la=None) -> GroundedStep:
    if len(step.args) < 2:
        return GroundedStep(step, False, reason="PutObject needs an object and a receptacle")
    held = world.held()
    if held is None or world.cls.get(held) != step.args[0]:
        return GroundedStep(step, False, reason=f"the agent does not hold a {step.args[0]}")
    loc = world.location()
    targets = [loc] if loc and world.cls.get(loc) == step.args[1] else []
    targets += [m for m in world.within_reach() if world.cls.get(m) == step.args[1]]
    return _try(world, step, [[f"putobject {held} {t}"] for t in targets], f"no {step.args[1]} here")


def ground_composite(world: AlfredWorld, step: PlanStep, _la=None) -> GroundedStep:
    held = world.held()
    if held is None or world.cls.get(held) != step.args[0]:
        return GroundedStep(step, False, reason=f"the agent does not hold a {step.args[0]}")
    loc = world.location()
    if loc is None or not world.holds(COMPOSITE_SOURCE[step.action], loc):
        return GroundedStep(step, False, reason=f"{step.action} is not possible at {loc}")
    seq = [s.format(o=held, r=loc) for s in COMPOSITE[step.action]]
    # a closed-door composite needs the door closed first (a receptacle left open is closed)
    if world.holds("opened", loc) and seq[0].startswith("openobject"):
        seq = seq[1:]
    return _try(world, step, [seq], "")


def ground_slice(world: AlfredWorld, step: PlanStep, _la=None) -> GroundedStep:
    knife = world.held()
    objs = [o for o in world.within_reach() if world.cls.get(o) == step.args[0]]
    if knife is None:
        return GroundedStep(step, False, reason="the agent holds no knife")
    return _try(world, step, [[f"sliceobject {o} {knife}"] for o in objs], f"no {step.args[0]} here")


def ground_toggle(world: AlfredWorld, step: PlanStep, _la=None) -> GroundedStep:
    objs = [o for o in world.within_reach() if world.cls.get(o) == step.args[0]]
    return _try(world, step, [[f"toggleobject {o}"] for o in objs], f"no {step.args[0]} here")


GROUNDERS: dict[str, Callable[..., GroundedStep]] = {
    "GotoLocation": ground_goto, "PickupObject": ground_pickup, "PutObject": ground_put,
    "HeatObject": ground_composite, "CoolObject": ground_composite, "CleanObject": ground_composite,
    "SliceObject": ground_slice, "ToggleObject": ground_toggle,
}


def ground_step(world: AlfredWorld, step: PlanStep, rest: Sequence[PlanStep] = ()) -> GroundedStep:
    g = GROUNDERS.get(step.action)
    if g is None:
        return GroundedStep(step, False, reason=f"unknown action {step.action}")
    return g(world, step, rest)


def execute(world: AlfredWorld, steps: Sequence[PlanStep], *, stop_on_failure: bool = False) -> GroundedRun:
    """Ground and execute a class-level plan; a failed step is skipped (the next steps still
    run, as sub-task success is counted per step) unless ``stop_on_failure``."""
    outcomes = []
    for i, s in enumerate(steps):
        o = ground_step(world, s, steps[i + 1:])
        outcomes.append(o)
        if not o.ok and stop_on_failure:
            break
    return GroundedRun(outcomes, world.executor.facts, sum(o.nav_cells for o in outcomes))


def goal_satisfied(goal_pddl: str, facts: frozenset, scene: Scene) -> bool:
    """The goal with each named object replaced by any instance of its class (ALFRED's goals
    are over classes: "a hot apple in the fridge" is met by any apple and any fridge)."""
    f = parse_goal(goal_pddl)
    atoms = [a for a in (f.args if isinstance(f, And) else (f,)) if isinstance(a, Atom)]
    names = sorted({x for a in atoms for x in a.args if x != AGENT})
    cls = {o.name: o.cls for o in scene.objects}
    if any(n not in cls for n in names):
        raise SceneError(f"goal {goal_pddl} names an object the scene lacks", file=scene.source)
    pools = [sorted(m for m, c in cls.items() if c == cls[n]) for n in names]
    for combo in itertools.product(*pools):
        if len(set(combo)) != len(combo):
            continue
        sub = dict(zip(names, combo))
        if all(Atom(a.predicate, tuple(sub.get(x, x) for x in a.args)) in facts for a in atoms):
            return True
    return False
