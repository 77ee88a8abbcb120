"""AutoGPT+P's memory M = (S, R, L, l_Pi, instruction history, known alternatives, last plan)
(Sec. IV-B) over a simulated world, and the two tools that change it without planning:
Explore and the simulated user who answers substitution questions.

The world is the full scene (contents of unexplored locations included); the robot perceives
only explored locations: as in the original's logs, the objects of an unexplored location -
the location object itself too - and every relation naming them stay out of the memory
until the location is explored. Executed plans change the world."""

from __future__ import annotations

import csv
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Optional, Sequence

from groundplan.errors import DatasetError, GroundplanError
from groundplan.knowledge.oam import OAM
from groundplan.pddl.formula import Atom
from groundplan.sim.executor import Executor
from groundplan.skills.builder import PlanningTask, build_task
from groundplan.skills.skillset import SkillSet
from groundplan.world.scene import Location, Scene


def perceived_scene(world: Scene, explored: Optional[frozenset[str]]) -> Scene:
    """What the robot has perceived: objects at unexplored locations (the location object
    included) and facts naming them are left out. ``explored=None``: everything."""
    if explored is None or not world.locations:
        return replace(world, explored=None)
    agents = {a.name for a in world.agents}
    located: set[str] = set()
    seen: set[str] = set()
    for loc in world.locations:
        members = {loc.name, *loc.contents}
        located |= members
        if loc.name in explored:
            seen |= members  # an object listed at several locations is seen from any of them
    hidden = located - seen - agents
    objs = tuple(o for o in world.objects if o.name not in hidden)
    facts = frozenset(f for f in world.facts if not (set(f.args) & hidden))
    locs = tuple(Location(loc.name, tuple(c for c in loc.contents if c not in hidden))
                 for loc in world.locations if loc.name in explored)
    return replace(world, objects=objs, facts=facts, locations=locs, explored=None)


def _fact_text(a: Atom) -> str:
    return " ".join((a.predicate, *a.args))


@dataclass(frozen=True)
class Memory:
    """M of Alg. 1. ``world`` is the simulation (ground truth); S, R and l_Pi are what the
    robot perceives of it (``scene``); L are the world's locations."""

    world: Scene
    explored: Optional[frozenset[str]]  # None: everything explored
    request: str  # the current user request (rewritten when an alternative is accepted)
    history: tuple[str, ...] = ()  # earlier user requests
    alternatives: tuple[tuple[str, str], ...] = ()  # known alternatives (missing, substitute)
    last_plan: tuple[str, ...] = ()
    executed: tuple[str, ...] = ()  # every executed action of the episode
    cost: float = 0.0  # cost of every executed action
    last_plan_cost: float = 0.0

    @property
    def scene(self) -> Scene:
        return perceived_scene(self.world, self.explored)

    @property
    def locations(self) -> list[str]:
        return self.world.location_names

    @property
    def unexplored(self) -> list[str]:
        if self.explored is None:
            return []
        return [loc for loc in self.world.location_names if loc not in self.explored]

    def agent_locations(self) -> dict[str, str]:
        out = {}
        for f in self.scene.facts:
            if f.predicate == "at" and len(f.args) == 2 and self.world.agent(f.args[0]) is not None:
                out[f.args[0]] = f.args[1]
        return out

    # ------------------------------------------------------------------ renderings

    def object_names(self) -> list[str]:
        """Objects as the memory lists them: scene objects, then the humans (not the robot)."""
        sc = self.scene
        humans = [a.name for a in sc.agents if a.kind == "human"]
        return [o.name for o in sc.objects if o.name not in humans] + humans

    def relations(self) -> list[str]:
        return [_fact_text(f) for f in sorted(self.scene.facts, key=lambda a: (a.predicate, a.args))]

    def classes(self) -> list[str]:
        """Object classes in the memory, in scene order (humans as ``human``)."""
        sc = self.scene
        out = list(dict.fromkeys(o.cls for o in sc.objects))
        if any(a.kind == "human" for a in sc.agents) and "human" not in out:
            out.append("human")
        return out

    # ------------------------------------------------------------------ planning tasks

    def planning_task(self, skillset: SkillSet, oam: OAM) -> PlanningTask:
        """Domain and problem of what the robot perceives (the Plan tool's closed world)."""
        return build_task(skillset, self.scene, oam, strict=False, visible_only=False)

    def world_task(self, skillset: SkillSet, oam: OAM) -> PlanningTask:
        return build_task(skillset, replace(self.world, explored=None), oam, strict=False, visible_only=False)

    # ------------------------------------------------------------------ updates

    def executed_plan(self, skillset: SkillSet, oam: OAM, plan: Sequence[str], recorder: Any = None
                      ) -> tuple["Memory", tuple[str, ...], Optional[str], float]:
        """Execute ``plan`` in the world: (new memory, executed steps, failure reason, cost);
        each action is a ``step`` event (facts added and deleted, or why it failed) in
        ``recorder`` when given."""
        wt = self.world_task(skillset, oam)
        ex = Executor(wt.domain, wt.problem)
        done: list[str] = []
        failure = None
        for i, step in enumerate(plan):
            r = ex.apply(step)
            if recorder is not None:
                if r.ok:
                    recorder.event("step", index=len(self.executed) + i, action=r.step, ok=True, added=r.added,
                                   deleted=r.deleted, cost=r.cost)
                else:
                    recorder.event("step", index=len(self.executed) + i, action=r.step, ok=False, reason=r.reason)
            if not r.ok:
                failure = f"{r.step}: {r.reason}"
                break
            done.append(r.step)
        world = self.world.with_facts(frozenset(ex.facts))
        mem = replace(self, world=world, last_plan=tuple(plan), executed=self.executed + tuple(done),
                      cost=self.cost + ex.cost, last_plan_cost=ex.cost)
        return mem, tuple(done), failure, ex.cost

    def with_alternative(self, missing: str, substitute: str) -> "Memory":
        """Record an accepted alternative; the request is rewritten with it, as the original
        did ("I want an apple" -> "I want an banana"). Not a new request: history stays."""
        return replace(self, alternatives=self.alternatives + ((missing, substitute),),
                       request=self.request.replace(missing, substitute))

    def with_request(self, request: str) -> "Memory":
        """A new user request; the current one goes to the instruction history."""
        return replace(self, request=request, history=self.history + (self.request,))


def explore(memory: Memory, location: str, *, move_robot: bool = False,
            robot: str = "robot0") -> tuple[Memory, str]:
    """The Explore tool: reveal an unexplored location's contents. Returns the memory and
    the result line the tool selection sees next."""
    loc = location.strip().strip(".,;:'\"`")
    if loc not in memory.locations:
        return memory, f"{loc} cannot be explored. Possible destinations: {', '.join(memory.unexplored)}"
    if memory.explored is None or loc in memory.explored:
        return memory, f"{loc} was already explored"
    mem = replace(memory, explored=memory.explored | {loc})
    if move_robot:
        facts = frozenset(f for f in mem.world.facts if not (f.predicate == "at" and f.args[:1] == (robot,)))
        mem = replace(mem, world=mem.world.with_facts(facts | {Atom("at", (robot, loc))}))
    return mem, f"explored {loc}"


# --------------------------------------------------------------------------- the simulated user


@dataclass(frozen=True)
class SimulatedUser:
    """Answers "can I use X instead of Y?" with yes when (Y, X) is an allowed substitution
    of the scenario (``allowed_substitutions/*.csv``: ``missing,substitution`` rows)."""

    allowed: frozenset[tuple[str, str]] = field(default_factory=frozenset)

    @classmethod
    def from_file(cls, path: Optional[str | Path]) -> "SimulatedUser":
        if not path:
            return cls()
        p = Path(path)
        if not p.exists():
            raise DatasetError("allowed-substitutions file not found", file=str(p))
        pairs = set()
        with p.open(newline="") as fh:
            for i, row in enumerate(csv.reader(fh), start=1):
                if not row or (i == 1 and row[:2] == ["missing", "substitution"]):
                    continue
                if len(row) < 2:
                    raise DatasetError("expected 'missing,substitution'", file=str(p), line=i)
                pairs.add((row[0].strip(), row[1].strip()))
        return cls(frozenset(pairs))

    def answer(self, missing: str, alternative: Optional[str]) -> str:
        return "yes" if alternative is not None and (missing, alternative) in self.allowed else "no"


__all__ = ["Memory", "perceived_scene", "explore", "SimulatedUser", "GroundplanError"]
