"""goalsearch: a drink gone cold is warmed in its own cup and handed back
(``served_warm``); food said to be about to spoil goes into the fridge, all of a plural or a kind
(``spoiling``); a liquid said to be dirty or foul is poured away into the sink (``foul_liquid``); a
need for a drink is met with a drink served, warmed for a hot one (``served_drink``); a mess on the
floor is met with a broom, or a mop when it is wet (``floor_tools``); a drink too strong, or a
splash of milk asked for, has milk poured into the cup (``milk_added``); a plate with the apple on
it is set down where the person is, since nothing is picked up with a thing on it (``loaded_set_down``);
a later clause that fetches a thing and names no destination hands it over (``clause_fetch``). Sentences written for these
tests (none from a held-out or evaluation set); scene tests/data/scenes/tea_room.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest
from goalsearch_util import A, searcher

from groundplan.sim.pipeline import build

DATA = Path(__file__).resolve().parent / "data" / "scenes"


@pytest.fixture(scope="module")
def room():
    return build(str(DATA / "tea_room.yaml"))


def _first(encoder, scene, said, **opts):
    return set(searcher(encoder, **opts).search(said, scene.domain, scene.problem).goals[0].atoms)


def test_a_drink_gone_cold_is_warmed_in_its_cup_and_handed_back(encoder, room):
    atoms = _first(encoder, room, "Ugh, my tea has gone cold again.")
    assert {A("liquid_warm", "tea0"), A("liquid_in", "tea0", "mug0"), A("inhand", "mug0", "human0")} <= atoms
    off = _first(encoder, room, "Ugh, my tea has gone cold again.", served_warm=False, served_drink=False)
    assert A("inhand", "mug0", "human0") not in off


def test_water_in_a_kettle_said_cold_is_not_handed_over(encoder, room):
    atoms = _first(encoder, room, "The water in the kettle has gone cold.")
    assert A("inhand", "kettle0", "human0") not in atoms


def test_food_about_to_spoil_goes_in_the_fridge_all_of_it(encoder, room):
    atoms = _first(encoder, room, "Those bananas will go soft sitting in this heat.")
    assert {A("in", "banana0", "refrigerator0"), A("in", "banana1", "refrigerator0")} <= atoms
    assert not [a for a in atoms if a.predicate == "warm"]


def test_a_foul_liquid_is_poured_down_the_sink(encoder, room):
    atoms = _first(encoder, room, "The water in that bowl has gone cloudy and it smells.")
    assert A("liquid_in", "water1", "sink0") in atoms
    off = _first(encoder, room, "The water in that bowl has gone cloudy and it smells.", foul_liquid=False)
    assert A("liquid_in", "water1", "sink0") not in off


def test_a_drink_gone_cold_is_not_poured_away(encoder, room):
    atoms = _first(encoder, room, "The tea in my mug has gone cold.")
    assert A("liquid_in", "tea0", "sink0") not in atoms


def test_a_need_for_a_hot_drink_is_served_warm_in_a_cup(encoder, room):
    atoms = _first(encoder, room, "Brr, something hot to drink would be lovely right now.")
    warmed = [a for a in atoms if a.predicate == "liquid_warm"]
    assert warmed, atoms
    handed = [a.args[0] for a in atoms if a.predicate == "inhand" and a.args[1] == "human0"]
    assert handed and handed[0] in ("mug0", "glass0")
    assert A("liquid_in", warmed[0].args[0], handed[0]) in atoms


def test_thirst_is_met_with_water_in_a_glass_not_the_kettle(encoder, room):
    atoms = _first(encoder, room, "I'm absolutely parched.")
    assert A("inhand", "kettle0", "human0") not in atoms
    handed = [a.args[0] for a in atoms if a.predicate == "inhand" and a.args[1] == "human0"]
    assert handed, atoms
    if handed[0] == "glass0":
        assert [a for a in atoms if a.predicate == "liquid_in" and a.args[1] == "glass0"]


@pytest.mark.parametrize("said,tool", [("There's mud all over the floor by the door.", "broom0"),
                                       ("Somebody's left a puddle on the kitchen floor.", "mop0")])
def test_a_mess_on_the_floor_is_met_with_a_floor_tool(encoder, room, said, tool):
    assert A("inhand", tool, "human0") in _first(encoder, room, said)


@pytest.mark.parametrize("said", ["This tea is far too strong for me.", "Could I have a splash of milk in my tea?"])
def test_milk_goes_into_the_cup_of_tea(encoder, room, said):
    atoms = _first(encoder, room, said)
    assert A("liquid_in", "milk0", "mug0") in atoms
    assert not [a for a in atoms if a.predicate == "inhand" and a.args[0] in ("sponge0", "mop0")]  # (no spill)


def test_a_loaded_plate_is_set_down_where_the_person_is(encoder, room, planner):
    from groundplan.methods.small_model.search import plan_instruction

    said = "Put the apple on the plate and bring it over to me."
    atoms = _first(encoder, room, said)
    assert {A("on", "apple0", "plate0"), A("on", "plate0", "table0")} <= atoms
    assert A("inhand", "plate0", "human0") not in atoms
    assert A("inhand", "plate0", "human0") in _first(encoder, room, said, loaded_set_down=False)
    goal, outcome, _ = plan_instruction(said, room, planner, encoder=encoder)
    assert outcome.status == "solved" and "(on plate0 table0)" in goal


def test_a_fetch_clause_hands_the_thing_over(encoder, room):
    said = "Take the glass to the sink and fetch the milk, would you?"
    atoms = _first(encoder, room, said)
    assert {A("in", "glass0", "sink0"), A("inhand", "milk_carton0", "human0")} <= atoms
    assert A("liquid_in", "milk0", "sink0") in _first(encoder, room, said, clause_fetch=False)
