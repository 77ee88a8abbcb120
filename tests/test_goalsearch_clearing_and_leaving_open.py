"""goalsearch: "don't leave the fridge open", a thing asked about ("have we
got any of those crackers left?"), what a smell is of, "the two things on the side table",
emptying a bottle into a pot, "but not the pear in the cupboard", "all the food from the table"
(the sandwich on a plate there too) and "clear the side table" (off it, in nobody's hand). Sentences written for
these tests (none from a held-out or evaluation set); scenes tests/data/scenes/staff_room.yaml and
tests/data/scenes/stove_kitchen.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest
from goalsearch_util import A
from goalsearch_util import top as _top

from groundplan.pddl.formula import Not
from groundplan.sim.pipeline import build

DATA = Path(__file__).resolve().parent / "data" / "scenes"


@pytest.fixture(scope="module")
def room():
    return build(str(DATA / "staff_room.yaml"))


@pytest.fixture(scope="module")
def kitchen():
    return build(str(DATA / "stove_kitchen.yaml"))


CASES = [
    ("negated_leave", "take a pear from the cupboard, and don't leave the cupboard open",
     {A("inhand", "pear2", "human0"), A("closed", "cupboard0")}),
    ("negated_leave", "grab me a cracker and make sure the cupboard isn't left open",
     {A("inhand", "cracker0", "human0"), A("at", "robot0", "cupboard0"), A("closed", "cupboard0")}),
    ("have_any", "I'm peckish. Are there any of those crackers left?", {A("inhand", "cracker0", "human0")}),
    ("smell_cause", "it reeks of varnish in here", {A("opened", "window0")}),
    ("counted_things", "carry the two things on the side table over to the counter",
     {A("on", "remote0", "counter0"), A("on", "magazine0", "counter0")}),
    ("empty_into", "tip the water bottle out into the pot, then put the bottle on the counter",
     {A("liquid_in", "water0", "pot0"), A("on", "bottle0", "counter0")}),
    ("located_exclusions", "put the fruit in the bowl, but not the pear in the cupboard",
     {A("in", "pear0", "bowl0"), A("in", "pear1", "bowl0"), A("in", "orange0", "bowl0")}),
    ("located_exclusions", "move the fruit to the counter except the pear that's in the cupboard",
     {A("on", "pear0", "counter0"), A("on", "pear1", "counter0"), A("on", "orange0", "counter0")}),
    ("nested_sources", "put all the food from the table in the bowl",
     {A("in", "pear0", "bowl0"), A("in", "pear1", "bowl0"), A("in", "orange0", "bowl0"), A("in", "sandwich0", "bowl0")}),
]


def _off(o: str) -> set:
    return {Not(A("on", o, "side_table0")), Not(A("inhand", o, "robot0")), Not(A("inhand", o, "human0"))}


#: clear_off: the things off the place and in nobody's hand (negative literals)
CLEARS = [
    ("clear the side table", _off("remote0") | _off("magazine0")),
    ("clear the side table, but leave the remote where it is", {A("on", "remote0", "side_table0")} | _off("magazine0")),
    ("take the magazine off the side table, would you", _off("magazine0")),
    ("clear the side table please", _off("remote0") | _off("magazine0")),
]


@pytest.mark.parametrize("option,said,want", CASES, ids=[f"{c[0]}-{k}" for k, c in enumerate(CASES)])
def test_leaving_open_and_counting_options(encoder, room, option, said, want):
    assert _top(encoder, room, said) == want
    assert _top(encoder, room, said, **{option: False}) != want


@pytest.mark.parametrize("said,want", CLEARS, ids=[f"clear_off-{k}" for k in range(len(CLEARS))])
def test_clear_off(encoder, room, said, want):
    assert _top(encoder, room, said) == want
    assert _top(encoder, room, said, clear_off=False) != want


def test_clear_off_text_does_not_depend_on_set_order(encoder, room):
    # the initial state is a frozenset: the literals come in the things' name order, whatever the hash seed
    from goalsearch_util import searcher

    res = searcher(encoder).search("clear the side table", room.domain, room.problem)
    assert res.goals[0].text.index("magazine0") < res.goals[0].text.index("remote0")


def test_clear_off_with_a_destination_is_a_placing(encoder, room):
    assert _top(encoder, room, "take the magazine off the side table and put it on the counter") == \
        {A("on", "magazine0", "counter0")}
    assert not any(isinstance(a, Not) for a in _top(encoder, room, "get the remote off the side table for me"))
    # "leave it on the counter" says where it goes (no kept thing)
    assert _top(encoder, room, "take the magazine off the side table and leave it on the counter") == \
        {A("on", "magazine0", "counter0")}


def test_counted_things_needs_the_definite_article():
    # "take two things off the rack": any two, not everything there
    from groundplan.methods.small_model.normalise import _COUNTED_THINGS

    assert _COUNTED_THINGS.search("bring the two things on the coffee table over")
    assert _COUNTED_THINGS.search("move both items on the shelf")
    assert not _COUNTED_THINGS.search("take two things off the hook rack and bring them over")


def test_fridge_door_left_open_closes_the_fridge(encoder, kitchen):
    # "the fridge door" is the fridge's door, not the room's door; the milk is fetched as well
    got = _top(encoder, kitchen, "hand me the milk, and don't leave the fridge door open")
    assert A("closed", "fridge0") in got and A("closed", "door0") not in got and A("opened", "fridge0") not in got


def test_leaving_open_asked_for_is_no_closing(encoder, kitchen):
    assert A("closed", "fridge0") not in _top(encoder, kitchen, "leave the fridge open, I'm about to restock it")


def test_empty_into_needs_a_liquid(encoder, room):
    # the bowl holds no liquid: "empty" stays a placing word, not a pouring
    from groundplan.methods.small_model.normalise import _EMPTY_INTO

    assert _EMPTY_INTO.search("empty the bowl into the pot")
    assert all(a.predicate != "liquid_in" for a in _top(encoder, room, "empty the bowl into the pot"))


def test_hot_room_is_cooled_with_the_window(encoder, room):
    assert _top(encoder, room, "phew, it's sweltering in here") == {A("opened", "window0")}


def test_cutting_is_a_state_verb(encoder, room):
    assert _top(encoder, room, "the pears still need cutting") == {A("chopped", "pear0"), A("chopped", "pear1"),
                                                                   A("chopped", "pear2")}
