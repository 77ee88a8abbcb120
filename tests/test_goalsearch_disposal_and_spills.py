"""goalsearch: throwing away only when asked, spills, and the modal "can".
Sentences written for these tests (none from a held-out or evaluation set); scene
tests/data/scenes/lounge.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest
from goalsearch_util import A, searcher
from goalsearch_util import top as _top

from groundplan.methods.small_model.needs import disposal_said, is_disposal_class, spill_said
from groundplan.sim.pipeline import build

DATA = Path(__file__).resolve().parent / "data" / "scenes"


@pytest.fixture(scope="module")
def lounge():
    return build(str(DATA / "lounge.yaml"), oam_file=str(DATA / "lounge.oam.yaml"))


def test_disposal_words_and_classes():
    assert disposal_said("bin the peel") and disposal_said("this yoghurt has gone off")
    assert disposal_said("Throw it away please") and not disposal_said("put the helmet away")
    assert is_disposal_class("trash_can") and is_disposal_class("recycling_bin") and is_disposal_class("bin")
    assert not is_disposal_class("bread_bin") and not is_disposal_class("watering_can")


def test_spill_words():
    assert spill_said("I've knocked my tea over") and spill_said("she sent the juice flying")
    assert spill_said("I spilt milk") and spill_said("the coffee went everywhere")
    assert not spill_said("someone is knocking at the door") and not spill_said("tip the crisps into a bowl")


def test_putting_away_is_not_throwing_away(encoder, lounge):
    assert A("in", "bike_helmet0", "trash_can0") not in _top(encoder, lounge, "put the helmet away")
    assert _top(encoder, lounge, "put the helmet away", disposal_cue=False) == {A("in", "bike_helmet0", "trash_can0")}
    # asked for, it still goes in the bin
    assert _top(encoder, lounge, "throw the banana peel away") == {A("in", "banana_peel0", "trash_can0")}


def test_a_spill_asks_for_something_to_wipe_with(encoder, lounge):
    instruction = "Oh no, I've knocked my coffee all over the table"
    wipers = {frozenset({A("inhand", "sponge0", "human0")}), frozenset({A("inhand", "cloth0", "human0")})}
    assert frozenset(_top(encoder, lounge, instruction)) in wipers
    assert frozenset(_top(encoder, lounge, instruction, spills=False)) not in wipers


def test_the_modal_can_names_no_trash_can(encoder, lounge):
    lex = searcher(encoder).scene(lounge.domain, lounge.problem)[4]
    said = {o for m in lex.mentions("Can you put my helmet on the bench? I can't reach it") for o in m.objects}
    assert "trash_can0" not in said and {"bike_helmet0", "bench0"} <= said
    assert "trash_can0" in {o for m in lex.mentions("put it in the can") for o in m.objects}
    off = searcher(encoder, modal_can=False).scene(lounge.domain, lounge.problem)[4]
    assert "trash_can0" in {o for m in off.mentions("Can you put my helmet on the bench?") for o in m.objects}


def test_into_it_says_in(encoder, lounge):
    # the test dishwasher holds things in it and on its racks (lounge.oam.yaml)
    instruction = "open the dishwasher and load the mug into it"
    assert A("in", "mug0", "dishwasher0") in _top(encoder, lounge, instruction)
    assert A("on", "mug0", "dishwasher0") in _top(encoder, lounge, instruction, pronoun_preps=False)


def test_a_place_after_thats_says_which_one(encoder, lounge):
    text = "bring me the mug that's on the coffee table"
    on = searcher(encoder).scene(lounge.domain, lounge.problem)[4].mentions(text)
    off = searcher(encoder, more_descriptors=False).scene(lounge.domain, lounge.problem)[4].mentions(text)
    assert [m.descriptor for m in on] == [False, True] and [m.descriptor for m in off] == [False, False]


def test_a_kept_object_stays_where_it_is_said_to(encoder, lounge):
    instruction = "bring the basket over to the coffee table but leave the lemon on the counter"
    on, off = _top(encoder, lounge, instruction), _top(encoder, lounge, instruction, kept_places=False)
    assert A("on", "basket0", "coffee_table0") in on and A("on", "lemon0", "counter0") in on
    assert A("in", "lemon0", "basket0") in off
