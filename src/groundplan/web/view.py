"""What the page draws: a scene as JSON (locations, objects with their classes, agents,
the initial facts in the executor's ``(pred a b)`` form) for the SVG drawing, which then
applies each executed step's added / deleted facts."""

from __future__ import annotations

from typing import Any

from groundplan.skills.builder import PlanningTask

#: facts the drawing places things by (others are listed as states)
PLACING = ("on", "in", "inside", "at", "inhand", "liquid_in", "holds", "holds_rh", "holds_lh")


def scene_view(pt: PlanningTask) -> dict[str, Any]:
    scene = pt.scene
    agents = [{"name": a.name, "kind": a.kind, "at": a.location} for a in scene.agents]
    agent_names = {a["name"] for a in agents}
    locations = [loc.name for loc in scene.locations]
    objects = [{"name": n, "type": t} for n, t in sorted(pt.problem.objects.items()) if n not in agent_names]
    facts = sorted(a.pddl() for a in pt.problem.init)
    hidden = sorted(scene.hidden_objects())
    return {"name": scene.name, "description": scene.description, "locations": locations, "agents": agents,
            "objects": objects, "facts": facts, "hidden": hidden, "placing": list(PLACING),
            "skillset": pt.skillset.name if hasattr(pt.skillset, "name") else ""}


__all__ = ["scene_view", "PLACING"]
