"""goalsearch: spills that say where they went, a state verb about a vessel,
"anything bar X", food left out, a group's other clauses, compounds and states that say which
thing, and set phrases. Sentences written for these tests (none from a held-out or evaluation
set); scene tests/data/scenes/kitchen_diner.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest
from goalsearch_util import A
from goalsearch_util import top as _top

from groundplan.methods.small_model.needs import plain_idioms
from groundplan.sim.pipeline import build

DATA = Path(__file__).resolve().parent / "data" / "scenes"


@pytest.fixture(scope="module")
def flat():
    return build(str(DATA / "kitchen_diner.yaml"))


def test_a_spill_that_soaks_into_something_is_still_a_need(encoder, flat):
    said = "Oh no, the milk's gone everywhere and it's soaking into the tablecloth"
    wipers = {frozenset({A("inhand", "towel0", "human0")}), frozenset({A("inhand", "sponge0", "human0")})}
    assert frozenset(_top(encoder, flat, said)) in wipers
    assert frozenset(_top(encoder, flat, said, spill_needs=False)) not in wipers


def test_boiling_the_kettle_warms_its_water(encoder, flat):
    assert _top(encoder, flat, "could you boil the kettle") == {A("liquid_warm", "water0")}
    assert _top(encoder, flat, "could you boil the kettle", vessel_contents=False) != {A("liquid_warm", "water0")}


def test_bringing_a_heated_liquid_brings_its_vessel(encoder, flat):
    said = "pour some milk into the mug, heat it up and bring it over to me"
    assert A("inhand", "mug0", "human0") in _top(encoder, flat, said)
    assert A("inhand", "mug0", "human0") not in _top(encoder, flat, said, vessel_contents=False)


def test_anything_bar_excludes(encoder, flat):
    said = "fetch me a drink from the fridge, anything bar the cola"
    assert A("inhand", "cola0", "human0") not in _top(encoder, flat, said)
    assert _top(encoder, flat, said, bar_cue=False) == {A("inhand", "cola0", "human0")}


def test_food_left_out_goes_in_the_fridge(encoder, flat):
    said = "that milk has been sitting out on the counter all morning"
    assert _top(encoder, flat, said) == {A("in", "milk_carton0", "fridge0")}
    assert _top(encoder, flat, said, left_out=False) != {A("in", "milk_carton0", "fridge0")}


def test_a_groups_pronoun_keeps_the_other_clauses(encoder, flat):
    said = "take the spoons out of the rack, put them in the sink, then put the rack on the shelf"
    want = {A("in", "spoon0", "sink0"), A("in", "spoon1", "sink0"), A("on", "dish_rack0", "shelf0")}
    assert _top(encoder, flat, said) == want
    assert A("on", "dish_rack0", "shelf0") not in _top(encoder, flat, said, group_other_clauses=False)


def test_a_compound_said_names_the_scenes_class_of_its_head(encoder, flat):
    assert _top(encoder, flat, "pop the apple in my lunchbox") == {A("in", "apple0", "box0")}
    assert _top(encoder, flat, "pop the apple in my lunchbox", said_compounds=False) != {A("in", "apple0", "box0")}


def test_the_open_one_is_the_one_that_is_open(encoder, flat):
    assert _top(encoder, flat, "put the apple in the open box") == {A("in", "apple0", "box1")}
    assert _top(encoder, flat, "close the box that's open") == {A("closed", "box1")}
    assert _top(encoder, flat, "put the apple in the open box", state_descriptors=False) == {A("in", "apple0", "box0")}


def test_set_phrases_in_plain_words(encoder, flat):
    assert plain_idioms("Put the kettle on, love.") == "boil the kettle, love."
    assert plain_idioms("could you get the door") == "could you open the door"
    assert plain_idioms("put the kettle on the stove") == "put the kettle on the stove"  # no set phrase
    assert _top(encoder, flat, "put the kettle on") == {A("liquid_warm", "water0")}
    assert _top(encoder, flat, "put the kettle on", idioms=False) != {A("liquid_warm", "water0")}


def test_a_need_met_by_a_state(encoder, flat):
    from groundplan.methods.small_model.needs import need_states, paraphrase_needs

    assert ("opened", "window") in need_states(paraphrase_needs("ugh, the fumes in here"))
    assert ("closed", "window") in need_states(paraphrase_needs("there's a horrible draught"))
    said = "it reeks of burnt toast in here"
    assert _top(encoder, flat, said) in ({A("opened", "window0")}, {A("opened", "door0")})
    assert _top(encoder, flat, said, need_states=False) not in ({A("opened", "window0")}, {A("opened", "door0")})


def test_something_to_eat_with_is_cutlery(encoder, flat):
    got = _top(encoder, flat, "I've got a bowl of cereal here but nothing to eat it with")
    assert got in ({A("inhand", "spoon0", "human0")}, {A("inhand", "spoon1", "human0")})


def test_a_state_word_as_an_adjective_says_which(encoder, flat):
    assert _top(encoder, flat, "put the clean mug on the table") == {A("on", "mug1", "table0")}
    assert _top(encoder, flat, "put the clean mug on the table", state_descriptors=False) != {A("on", "mug1", "table0")}


def test_a_named_liquid_put_where_nothing_is_poured_goes_in_its_vessel(encoder, flat):
    assert _top(encoder, flat, "put the milk back in the fridge") == {A("in", "milk_carton0", "fridge0")}
    assert _top(encoder, flat, "put some milk in the mug") == {A("liquid_in", "milk0", "mug0")}
    assert _top(encoder, flat, "put the milk back in the fridge", vessel_contents=False) != \
        {A("in", "milk_carton0", "fridge0")}


def test_a_desk_or_a_minibar_is_the_scenes_table_or_fridge(encoder, flat):
    assert _top(encoder, flat, "put the spoons on my desk") == {A("on", "spoon0", "table0"), A("on", "spoon1", "table0")}
    assert _top(encoder, flat, "put the milk carton in the minibar") == {A("in", "milk_carton0", "fridge0")}


def test_what_a_tool_is_for_is_not_handed_over(encoder, flat):
    wipers = ({A("inhand", "sponge0", "human0")}, {A("inhand", "towel0", "human0")})
    for said in ("give me something I can clean the mugs with", "hand me something to wipe the box with"):
        assert _top(encoder, flat, said) in wipers
        assert _top(encoder, flat, said, tool_purpose=False) not in wipers


def test_the_modified_one_is_the_compound_class(encoder, flat):
    from goalsearch_util import searcher

    said = "hand me a cup, just not the tea one"
    assert _top(encoder, flat, said) == {A("inhand", "plastic_cup0", "human0")}
    on = searcher(encoder).scene(flat.domain, flat.problem)[4]
    off = searcher(encoder, said_compounds=False).scene(flat.domain, flat.problem)[4]
    assert any(m.objects == frozenset({"tea_cup0"}) for m in on.mentions(said))
    assert not any(m.objects == frozenset({"tea_cup0"}) for m in off.mentions(said))


def test_what_a_container_holds_says_which_container(encoder, flat):
    from goalsearch_util import searcher

    lex = searcher(encoder).scene(flat.domain, flat.problem)[4]
    ms = lex.mentions("put the rack of spoons on the shelf")
    spoons = next(m for m in ms if "spoon0" in m.objects)
    assert spoons.descriptor and any(m.objects == frozenset({"dish_rack0"}) for m in ms)
    off = searcher(encoder, state_descriptors=False).scene(flat.domain, flat.problem)[4]
    assert not any(m.descriptor for m in off.mentions("put the rack of spoons on the shelf"))


def test_a_statement_beside_a_request_adds_nothing(encoder, flat):
    said = "I'm gasping, pour some milk into the mug"
    assert _top(encoder, flat, said) == {A("liquid_in", "milk0", "mug0")}
    assert _top(encoder, flat, said, statement_clauses=False) != {A("liquid_in", "milk0", "mug0")}
