"""goalsearch: a need never met by what holds already, a later step that
closes a thing, "all but one", a state verb over a group, a wish about two named things, "this
mug is filthy", heating what a vessel holds, a liquid carried in its carton, and "the box
that's on the table" / "the other one", a clause with a state verb, and clauses that come to
one atom. Sentences
written for these tests (none from a held-out or evaluation set); scene
tests/data/scenes/stove_kitchen.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest
from goalsearch_util import A
from goalsearch_util import top as _top

from groundplan.sim.pipeline import build

DATA = Path(__file__).resolve().parent / "data" / "scenes"


@pytest.fixture(scope="module")
def kitchen():
    return build(str(DATA / "stove_kitchen.yaml"))


CASES = [
    ("need_holds", "it is chilly in here with that door open", {A("closed", "door0")}),
    ("closing_steps", "open the drawer, put both forks on the counter, then shut it again",
     {A("on", "fork0", "counter0"), A("on", "fork1", "counter0"), A("closed", "drawer0")}),
    ("closing_steps", "open the kettle, pour the water into the cup and put the lid back on",
     {A("liquid_in", "water0", "cup0"), A("closed", "kettle0")}),
    ("all_but_one", "put the glasses on the table, all but one", None),
    ("group_states", "scrub the two forks on the table, then put the knife in the drawer",
     {A("clean", "fork0"), A("clean", "fork1"), A("in", "knife0", "drawer0")}),
    ("wish_pairs", "I want both the pot and the pan up on the counter",
     {A("on", "pot0", "counter0"), A("on", "pan0", "counter0")}),
    ("dirty_named", "ugh, this mug is all grubby", {A("clean", "mug0")}),
    ("heat_contents", "pour the water from the kettle into the pot, set the pot on the counter and get it heating",
     {A("liquid_in", "water0", "pot0"), A("on", "pot0", "counter0"), A("liquid_warm", "water0")}),
    ("liquid_carried", "open the fridge, take the milk out and put it on the counter",
     {A("opened", "fridge0"), A("on", "milk_carton0", "counter0")}),
    ("state_clauses", "boil the kettle, then bring the mug over to the counter",
     {A("liquid_warm", "water0"), A("on", "mug0", "counter0")}),
    ("state_clauses", "boil the kettle, and while it heats up, carry the forks to the counter",
     {A("liquid_warm", "water0"), A("on", "fork0", "counter0"), A("on", "fork1", "counter0")}),
    ("one_atom_clauses", "there's a spoon on the table. pick it up and hand it to me, would you",
     {A("inhand", "spoon0", "human0")}),
    ("which_one", "put the knife in the box that's on the table", {A("in", "knife0", "box1")}),
    ("which_one", "stack the box that's on the counter on top of the other one", {A("on", "box0", "box1")}),
]


#: options shipped off (one_atom_clauses: "shut the fridge, somebody left it open" opens it)
OFF_BY_DEFAULT = {"one_atom_clauses"}


def test_one_atom_clauses_is_off_as_shipped(encoder, kitchen):
    said = "shut the fridge, somebody has left it open"
    assert _top(encoder, kitchen, said) == {A("closed", "fridge0")}
    assert _top(encoder, kitchen, said, one_atom_clauses=True) == {A("opened", "fridge0")}  # (it holds: why it is off)


@pytest.mark.parametrize("option,said,want", CASES, ids=[f"{c[0]}-{k}" for k, c in enumerate(CASES)])
def test_closing_and_count_options(encoder, kitchen, option, said, want):
    if option in OFF_BY_DEFAULT:  # on for this check, then off as shipped
        got = _top(encoder, kitchen, said, **{option: True})
        assert got == want and _top(encoder, kitchen, said) != want
        return
    got = _top(encoder, kitchen, said)
    if want is None:  # all but one: two of the three glasses on the table, the third where it is
        assert len(got) == 2 and all(a.predicate == "on" and a.args[1] == "table0" for a in got)
        assert {a.args[0] for a in got} < {"glass0", "glass1", "glass2"}
        assert len(_top(encoder, kitchen, said, **{option: False})) == 3
    else:
        assert got == want
        assert _top(encoder, kitchen, said, **{option: False}) != want


def test_kettle_going_is_boiling_it():
    from groundplan.methods.small_model.needs import plain_idioms

    assert plain_idioms("get the kettle going, please") == "boil the kettle, please"
    assert plain_idioms("set the kettle boiling") == "boil the kettle"
    assert plain_idioms("get the kettle on the stove") == "get the kettle on the stove"
