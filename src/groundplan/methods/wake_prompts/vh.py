"""The VirtualHome side of Wake et al. (Sec. III-C): a task's world from a VirtualHome
graph (the ``virtualhome`` skill set, ``groundplan.world.virtualhome``), the environment
the paper builds from it (the objects the task involves plus, transitively, what they are
ON or INSIDE; objects are the GRABBABLE nodes; IS_OPENABLE / NOT_OPENABLE properties), the
character that executes every step. Goals from reference programs (``reference_goal``,
``required_actions``) live in ``groundplan.sim.vh_programs`` (the Wake dataset writes its
gold goals with them) and are re-exported here.

A reference program (``WalkTowards(<toaster_309>)``, ``Putin(<pie_320>, <stove_312>)``, ...)
is executed on the graph; the goal is what it changed - relations ON / INSIDE and the
states open / closed / switched on / off / heated / washed - as a conjunction (added facts
hold, removed ones do not). Where the program repeats the same change for several objects
of one class (scenario 9 moves all four plates while its instruction asks for "a plate"),
any one of them will do. What no state shows (drinking; a knife moved to another place
on the same table) is checked on the plan instead: ``required_actions``.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Mapping, Optional

from groundplan.core.task import Task
from groundplan.errors import DatasetError
from groundplan.methods.wake_prompts.feedback import Affordances
from groundplan.methods.wake_prompts.judge import WakeWorld
from groundplan.pddl.formula import Atom
from groundplan.sim.vh_programs import (
    GOAL_PREDICATES,
    STATELESS_VERBS,
    program_objects,
    program_steps,
    reference_goal,
    required_actions,
    vh_world,
)
from groundplan.world.wake_env import VIRTUALHOME, closure, neutral_facts

VOCABULARY: Mapping[str, str] = {"on": "on", "inside": "in"}
PHRASES: Mapping[str, str] = {
    "on": "<{0}> is ON(<{1}>)", "inside": "<{0}> is INSIDE(<{1}>)", "open": "<{0}> is open", "closed": "<{0}> is closed",
    "switched_on": "<{0}> is switched on", "switched_off": "<{0}> is switched off", "heated": "<{0}> is heated",
    "washed": "<{0}> is washed", "holds_rh": "<{0}> holds <{1}>", "holds_lh": "<{0}> holds <{1}>", "close": "<{0}> is close to <{1}>",
}


def virtualhome_world(task: Task) -> tuple[WakeWorld, Affordances]:
    w = vh_world(task.scene_file)
    scene = w.scene
    names = {o.name for o in scene.objects}
    facts = frozenset(w.problem.init)
    props: dict[str, set[str]] = defaultdict(set)
    for f in facts:
        if len(f.args) == 1:
            props[f.args[0]].add(f.predicate)
    keep = task.extras.get("keep")
    if keep:
        missing = [k for k in keep if k not in names]
        if missing:
            raise DatasetError(f"task object '{missing[0]}' is not a node of the graph", file=task.scene_file)
        depth = task.extras.get("support_depth")
        entities = closure(neutral_facts(facts, VOCABULARY), keep, max_depth=None if depth is None else int(depth))
    else:
        entities = [o.name for o in scene.objects]
    manip = frozenset(e for e in entities if "grabbable" in props[e])
    by_class: dict[str, list[str]] = defaultdict(list)
    for o in scene.objects:
        by_class[o.cls].append(o.name)

    def resolve(written: str) -> Optional[str]:
        n = written.strip().lower()
        if n in names:
            return n
        if n in by_class and len(by_class[n]) == 1:  # "<fridge>" for the only fridge
            return by_class[n][0]
        return None

    properties = {e: ("IS_OPENABLE",) if "can_open" in props[e] else ("NOT_OPENABLE",) for e in entities}
    world = WakeWorld(w.planning_task, tuple(entities), manip, style=VIRTUALHOME, vocabulary=VOCABULARY,
                      resolve=resolve, properties=properties, phrases=dict(PHRASES),
                      step_suffix=(w.character_name(),))
    aff = Affordances(openable=lambda n: "can_open" in props.get(n, ()),
                      container=lambda n: "containers" in props.get(n, ()),
                      switchable=lambda n: "has_switch" in props.get(n, ()),
                      is_on=lambda n, fs: Atom("switched_on", (n,)) in fs,
                      is_open=lambda n, fs: Atom("open", (n,)) in fs)
    return world, aff


def answer_names(env: Mapping[str, Any]) -> list[str]:
    return [str(x).strip("<>") for x in list(env.get("assets", [])) + list(env.get("objects", []))]


__all__ = ["virtualhome_world", "reference_goal", "required_actions", "STATELESS_VERBS", "program_steps", "program_objects", "VOCABULARY", "PHRASES",
           "GOAL_PREDICATES"]
