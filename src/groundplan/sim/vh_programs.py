"""Goals from reference programs on a VirtualHome graph (Wake et al., Sec. III-C).

A reference program (``WalkTowards(<toaster_309>)``, ``Putin(<pie_320>, <stove_312>)``, ...)
is executed on the graph; the goal is what it changed - relations ON / INSIDE and the
states open / closed / switched on / off / heated / washed - as a conjunction (added facts
hold, removed ones do not). Where the program repeats the same change for several objects
of one class (scenario 9 moves all four plates while its instruction asks for "a plate"),
any one of them will do. What no state shows (drinking; a knife moved to another place
on the same table) is checked on the plan instead: ``required_actions``.

In the sim layer, below ``methods`` and ``bench``: the Wake dataset (``bench/datasets/wake.py``)
writes its gold goals with it, the Wake method (``methods/wake_prompts/vh.py``) builds its
VirtualHome world on ``vh_world``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from functools import lru_cache
from typing import Sequence

from groundplan.errors import DatasetError
from groundplan.sim.executor import Executor
from groundplan.sim.virtualhome import VHWorld
from groundplan.world.virtualhome import read_vh_graph_file
from groundplan.world.wake_actions import VIRTUALHOME_ACTIONS

#: predicates a reference program's change is read from
GOAL_PREDICATES = frozenset({"on", "inside", "open", "closed", "switched_on", "switched_off", "heated", "washed"})
#: verbs whose effect no state shows: a plan must contain them where the reference has them
STATELESS_VERBS = frozenset({"drink"})
_ITEM = re.compile(r"^\s*(\w+)\s*\((.*)\)\s*$")


@lru_cache(maxsize=8)
def vh_world(scene_file: str) -> VHWorld:
    """The VirtualHome world of a graph file (cached: a dataset and its episodes share it)."""
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
    w = vh_world(scene_file)
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


__all__ = ["vh_world", "program_steps", "program_objects", "reference_goal", "required_actions", "STATELESS_VERBS",
           "GOAL_PREDICATES"]
