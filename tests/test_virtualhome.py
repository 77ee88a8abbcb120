"""VirtualHome graph and script I/O, and the `virtualhome` skill set's evolving-graph
semantics on a small hand-written graph."""

from __future__ import annotations

import json

import pytest

from groundplan.errors import SceneError
from groundplan.sim.virtualhome import VHWorld
from groundplan.world import load_scene
from groundplan.world.virtualhome import (
    ScriptError,
    VHGraph,
    facts_to_graph,
    graph_to_scene,
    parse_script,
    parse_script_line,
    write_script,
)


def node(i, cls, cat="Props", props=(), states=()):
    return {"id": i, "class_name": cls, "category": cat, "properties": list(props), "states": list(states)}


def edge(a, r, b):
    return {"from_id": a, "relation_type": r, "to_id": b}


@pytest.fixture()
def graph() -> VHGraph:
    nodes = [
        node(1, "character", "Characters"),
        node(10, "kitchen", "Rooms"), node(20, "livingroom", "Rooms"),
        node(11, "fridge", "Appliances", ["CAN_OPEN", "CONTAINERS", "HAS_PLUG", "HAS_SWITCH"], ["CLOSED", "OFF"]),
        node(12, "salmon", "Food", ["GRABBABLE", "EATABLE"]),
        node(13, "kitchentable", "Furniture", ["SURFACES"]),
        node(14, "microwave", "Appliances", ["CAN_OPEN", "HAS_SWITCH", "CONTAINERS"], ["CLOSED", "OFF"]),
        node(21, "computer", "Electronics", ["HAS_SWITCH", "LOOKABLE"], ["ON"]),
        node(22, "sofa", "Furniture", ["SITTABLE", "LIEABLE", "SURFACES"]),
        node(23, "radio", "Electronics", ["HAS_SWITCH"], ["OFF"]),
    ]
    edges = [edge(1, "INSIDE", 10), edge(11, "INSIDE", 10), edge(12, "INSIDE", 10), edge(12, "ON", 13),
             edge(13, "INSIDE", 10), edge(14, "INSIDE", 10), edge(14, "ON", 13), edge(21, "INSIDE", 20),
             edge(22, "INSIDE", 20), edge(23, "INSIDE", 20), edge(12, "CLOSE", 13), edge(13, "CLOSE", 12)]
    return VHGraph.from_dict({"nodes": nodes, "edges": edges})


def run(world: VHWorld, lines: str):
    s = world.session()
    return s, [s.execute(x) for x in lines.strip().splitlines()]


# ------------------------------------------------------------------------------ scripts


def test_script_lines_read_and_written():
    a = parse_script_line("<char0> [walk] <kitchen> (205)")
    assert (a.action, a.args, a.char) == ("WALK", (("kitchen", 205),), 0)
    b = parse_script_line("[PUTIN] <salmon> (327) <fridge> (305)")
    assert b.args == (("salmon", 327), ("fridge", 305)) and b.char is None
    assert b.text() == "[PUTIN] <salmon> (327) <fridge> (305)"
    assert a.text(lower=True) == "<char0> [walk] <kitchen> (205)"
    assert parse_script_line("[WALK] <dining_room> (1.201)").args == (("dining_room", 201),)  # EAI's ids
    assert parse_script_line("[STANDUP]").args == ()
    lines = parse_script("Drink\nsome description\n\n[WALK] <kitchen> (1)\n# comment [x]\n[FIND] <cup> (2)")
    assert [x.action for x in lines] == ["WALK", "FIND"]
    assert write_script(lines, char=True, lower=True) == "<char0> [walk] <kitchen> (1)\n<char0> [find] <cup> (2)"


@pytest.mark.parametrize("bad", ["walk kitchen", "[WALK] kitchen", "[WALK] <kitchen> (x)", ""])
def test_bad_script_lines_are_reported(bad):
    with pytest.raises(ScriptError):
        parse_script_line(bad)


# ------------------------------------------------------------------------------ graphs


def test_graph_scene_round_trip(graph):
    scene = graph_to_scene(graph)
    assert [a.name for a in scene.agents] == ["character_1"]
    names = {o.name: o.cls for o in scene.objects}
    assert names["fridge_11"] == "fridge"
    facts = {" ".join((f.predicate, *f.args)) for f in scene.facts}
    assert {"closed fridge_11", "switched_off fridge_11", "can_open fridge_11", "room kitchen_10",
            "on salmon_12 kitchentable_13", "inside character_1 kitchen_10", "food salmon_12"} <= facts
    back = facts_to_graph(scene.facts, graph)
    assert back.edge_set == graph.edge_set
    assert {n.id: set(n.states) for n in back.nodes} == {n.id: set(n.states) for n in graph.nodes}


def test_load_scene_reads_graph_json(tmp_path, graph):
    p = tmp_path / "g.json"
    p.write_text(json.dumps(graph.to_dict()))
    assert load_scene(p).object("salmon_12").cls == "salmon"
    q = tmp_path / "eai.json"  # EAI's {init_graph, final_graph}
    q.write_text(json.dumps({"init_graph": graph.to_dict(), "final_graph": graph.to_dict()}))
    assert load_scene(q).agent("character_1") is not None
    bad = tmp_path / "bad.json"
    bad.write_text('{"nodes": [{"id": 1}], "edges": []}')
    with pytest.raises(SceneError, match="not a VirtualHome graph"):
        load_scene(bad)


# ------------------------------------------------------------------------------ semantics


def test_put_salmon_in_fridge(graph):
    s, res = run(VHWorld(graph), """
        [FIND] <salmon> (12)
        [GRAB] <salmon> (12)
        [FIND] <fridge> (11)
        [OPEN] <fridge> (11)
        [PUTIN] <salmon> (12) <fridge> (11)
        [CLOSE] <fridge> (11)""")
    assert all(r.ok for r in res), [r.message for r in res]
    g = s.graph()
    assert (12, "INSIDE", 11) in g.edge_set and "CLOSED" in g.node(11).states
    assert not any(e[1].startswith("HOLDS") for e in g.edges)


def test_simulator_style_failure_messages(graph):
    w = VHWorld(graph)
    s, res = run(w, "[SWITCHOFF] <computer> (21)")
    assert res[0].message == "<character> (1) is not close to <computer> (21) when executing [SWITCHOFF]"
    s, res = run(w, "[FIND] <salmon> (12)\n[GRAB] <salmon> (12)\n[FIND] <fridge> (11)\n[PUTIN] <salmon> (12) <fridge> (11)")
    assert res[3].message == "<fridge> (11) is not open or is not openable when executing [PUTIN]"
    s, res = run(w, "[WALK] <radio> (23)\n[GRAB] <radio> (23)")
    assert res[1].message == "<radio> (23) is not grabbable when executing [GRAB]"
    s, res = run(w, "[GRAB] <salmon> (12)")
    assert res[0].message == "<character> (1) is not close to <salmon> (12) when executing [GRAB]"
    s, res = run(w, "[WALK] <ghost> (99)")
    assert not res[0].ok and "cannot be found" in res[0].message
    s, res = run(w, "[FIND] <salmon> (12)\n[GRAB] <salmon> (12)\n[GRAB] <salmon> (12)")
    assert res[2].message == "<salmon> (12) already grabbed when executing [GRAB]"


def test_walk_find_and_room_semantics(graph):
    s, res = run(VHWorld(graph), "[WALK] <computer> (21)\n[SWITCHOFF] <computer> (21)\n[WALK] <kitchen> (10)")
    assert all(r.ok for r in res)
    g = s.graph()
    assert (1, "INSIDE", 10) in g.edge_set and "OFF" in g.node(21).states
    assert not any(e[0] == 1 and e[1] == "CLOSE" for e in g.edges)  # walking to a room: close to nothing
    # find on something not close walks to it (the evolving graph's FIND)
    s, res = run(VHWorld(graph), "[FIND] <sofa> (22)\n[SIT] <sofa> (22)\n[WALK] <kitchen> (10)\n[STANDUP]\n[WALK] <kitchen> (10)")
    assert [r.ok for r in res] == [True, True, False, True, True]
    assert res[2].message == "<character> (1) is sitting when executing [WALK]"


def test_grab_takes_the_object_along(graph):
    s, res = run(VHWorld(graph), "[FIND] <salmon> (12)\n[GRAB] <salmon> (12)\n[WALK] <sofa> (22)\n[PUTBACK] <salmon> (12) <sofa> (22)")
    assert all(r.ok for r in res)
    g = s.graph()
    assert (12, "ON", 22) in g.edge_set and (12, "INSIDE", 10) in g.edge_set  # inside the room it was carried from
    assert (12, "ON", 13) not in g.edge_set


def test_progprompt_augmented_states(graph):
    s, res = run(VHWorld(graph), """
        [FIND] <salmon> (12)
        [GRAB] <salmon> (12)
        [FIND] <microwave> (14)
        [OPEN] <microwave> (14)
        [PUTIN] <salmon> (12) <microwave> (14)
        [CLOSE] <microwave> (14)
        [SWITCHON] <microwave> (14)""")
    assert all(r.ok for r in res), [r.message for r in res]
    assert "HEATED" in s.graph().node(12).states
