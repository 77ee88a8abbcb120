"""The VirtualHome side of Wake et al. (Sec. III-C): a task's world from a VirtualHome
graph (the ``virtualhome`` skill set, ``groundplan.world.virtualhome``), the environment
the paper builds from it (the objects the task involves plus, transitively, what they are
ON or INSIDE; objects are the GRABBABLE nodes; IS_OPENABLE / NOT_OPENABLE properties), the
character that executes every step, and goals from reference programs.

A reference program (``WalkTowards(<toaster_309>)``, ``Putin(<pie_320>, <stove_312>)``, ...)
is executed on the graph; the goal is what it changed - relations ON / INSIDE and the
states open / closed / switched on / off / heated / washed - as a conjunction (added facts
hold, removed ones do not). Where the program repeats the same change for several objects
of one class (scenario 9 moves all four plates while its instruction asks for "a plate"),
any one of them will do. What no state shows (drinking; a knife moved to another place
on the same table) is checked on the plan instead: ``required_actions``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from functools import lru_cache
from typing import Any, Mapping, Optional, Sequence

from groundplan.core.task import Task
from groundplan.errors import DatasetError
from groundplan.methods.wake_prompts.actions import VIRTUALHOME_ACTIONS
from groundplan.methods.wake_prompts.feedback import Affordances
from groundplan.methods.wake_prompts.judge import WakeWorld
from groundplan.pddl.formula import Atom
from groundplan.sim.executor import Executor
from groundplan.sim.virtualhome import VHWorld
from groundplan.world.virtualhome import read_vh_graph_file
from groundplan.world.wake_env import VIRTUALHOME, closure, neutral_facts

VOCABULARY: Mapping[str, str] = {"on": "on", "inside": "in"}
#: predicates a reference program's change is read from
GOAL_PREDICATES = frozenset({"on", "inside", "open", "closed", "switched_on", "switched_off", "heated", "washed"})
PHRASES: Mapping[str, str] = {
    "on": "<{0}> is ON(<{1}>)", "inside": "<{0}> is INSIDE(<{1}>)", "open": "<{0}> is open", "closed": "<{0}> is closed",
    "switched_on": "<{0}> is switched on", "switched_off": "<{0}> is switched off", "heated": "<{0}> is heated",
    "washed": "<{0}> is washed", "holds_rh": "<{0}> holds <{1}>", "holds_lh": "<{0}> holds <{1}>", "close": "<{0}> is close to <{1}>",
}
_ITEM = re.compile(r"^\s*(\w+)\s*\((.*)\)\s*$")


@lru_cache(maxsize=8)
def _vh_world(scene_file: str):
    return VHWorld(read_vh_graph_file(scene_file))


def program_steps(program: Sequence[str], character: str) -> list[str]:
    """Reference-program items as executor steps (``Putin(<pie_320>, <stove_312>)`` ->
    ``putin pie_320 stove_312 character_1``)."""
    out = []
    for item in program:
        m = _ITEM.match(item)
        if not m:
            raise DatasetError(f"cannot read program item '{item}'")
        spec = VIRTUALHOME_ACTIONS.spec(m.group(1))
        verb = spec.step if spec else m.group(1).lower()
        args = [a.strip().strip("<>").strip() for a in m.group(2).split(",") if a.strip()]
        out.append(" ".join((verb, *args, character)))
    return out


def program_objects(program: Sequence[str]) -> list[str]:
    """The names a program mentions, in order."""
    out: list[str] = []
    for item in program:
        for a in re.findall(r"<([^<>]+)>", item):
            if a not in out:
                out.append(a.strip())
    return out


def reference_goal(scene_file: str, program: Sequence[str]) -> tuple[str, tuple[str, ...]]:
    """(goal formula, executed steps) of a reference program on a graph; raises
    DatasetError if the program does not execute."""
    w = _vh_world(scene_file)
    ex = Executor(w.domain, w.problem)
    steps = program_steps(program, w.character_name())
    for s in steps:
        r = ex.apply(s)
        if not r.ok:
            raise DatasetError(f"reference step '{s}' fails on {scene_file}: {r.reason}")
    init = frozenset(w.problem.init)
    added = sorted((a for a in ex.facts - init if a.predicate in GOAL_PREDICATES), key=lambda a: (a.predicate, a.args))
    removed = sorted((a for a in init - ex.facts if a.predicate in GOAL_PREDICATES), key=lambda a: (a.predicate, a.args))
    by_obj: dict[str, list[str]] = defaultdict(list)
    for a in added:
        by_obj[a.args[0]].append(a.pddl())
    for a in removed:
        by_obj[a.args[0]].append(f"(not {a.pddl()})")
    # objects of one class changed the same way: any one of them
    cls_of = {o.name: o.cls for o in w.scene.objects}
    groups: dict[tuple, list[str]] = defaultdict(list)
    for obj, lits in by_obj.items():
        own = re.compile(rf"(?<![\w]){re.escape(obj)}(?![\w])")
        pattern = (cls_of.get(obj, obj), tuple(sorted(own.sub("?", lit) for lit in lits)))
        groups[pattern].append(obj)
    parts = []
    for (_, _), objs in sorted(groups.items(), key=lambda kv: kv[1]):
        conj = [" ".join(sorted(by_obj[o])) for o in objs]
        if len(objs) == 1:
            parts.append(conj[0])
        else:
            parts.append("(or " + " ".join(f"(and {c})" for c in conj) + ")")
    return "(and " + " ".join(parts) + ")" if parts else "(and)", tuple(steps)


#: verbs whose effect no state shows: a plan must contain them where the reference has them
STATELESS_VERBS = frozenset({"drink"})


def required_actions(program: Sequence[str], goal: str) -> list[str]:
    """Reference actions a correct plan must execute because the final state cannot show
    them: the stateless ones (Drink), and - when the program changes nothing at all (move
    the knife to another place on the same table) - its grabs."""
    out = []
    for item in program:
        m = _ITEM.match(item)
        verb = m.group(1).lower() if m else ""
        if verb in STATELESS_VERBS or (goal == "(and)" and verb == "grab"):
            spec = VIRTUALHOME_ACTIONS.spec(verb)
            args = [a.strip() for a in m.group(2).split(",")] if m else []
            out.append(f"{spec.name if spec else m.group(1)}({', '.join(args)})")
    return out


def virtualhome_world(task: Task) -> tuple[WakeWorld, Affordances]:
    w = _vh_world(task.scene_file)
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
