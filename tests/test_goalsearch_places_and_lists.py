"""goalsearch: a destination said with its own place, a thing said by where it
lies, filling one vessel from another, "open it" after taking a thing out, "put it back", a class
said as one word, bare nouns in a list, the reason a thing is
kept, "the pots and pans", "every empty glass" and "the fruit out of the bowl". Sentences written
for these tests (none from a held-out or evaluation set); scene tests/data/scenes/stove_kitchen.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest
from goalsearch_util import A, searcher
from goalsearch_util import top as _top

from groundplan.sim.pipeline import build

DATA = Path(__file__).resolve().parent / "data" / "scenes"


@pytest.fixture(scope="module")
def kitchen():
    return build(str(DATA / "stove_kitchen.yaml"))


@pytest.mark.parametrize("said,want", [
    ("put the fork that's lying on the table into the box on the counter", {A("in", "fork0", "box0")}),
    ("put both forks in the box over on the counter", {A("in", "fork0", "box0"), A("in", "fork1", "box0")}),
])
def test_a_destination_said_with_its_own_place(encoder, kitchen, said, want):
    assert _top(encoder, kitchen, said) == want
    assert _top(encoder, kitchen, said, dest_locators=False) != want


def test_filling_one_vessel_from_another(encoder, kitchen):
    said = "fill the teapot from the kettle and bring it to me"
    want = {A("liquid_in", "water0", "tea_pot0"), A("inhand", "tea_pot0", "human0")}
    assert _top(encoder, kitchen, said) == want
    assert _top(encoder, kitchen, said, fill_from=False, joined_names=False) != want


def test_a_class_said_as_one_word(encoder, kitchen):
    def named(**opts):
        lex = searcher(encoder, **opts).scene(kitchen.domain, kitchen.problem)[4]
        return [set(m.objects) for m in lex.mentions("hand me the teapot and the tea-pot")]

    assert named() == [{"tea_pot0"}, {"tea_pot0"}]
    assert named(joined_names=False) != [{"tea_pot0"}, {"tea_pot0"}]


def test_open_it_after_taking_it_out(encoder, kitchen):
    said = "get the milk carton out of the fridge, open it and put it on the table"
    want = {A("opened", "milk_carton0"), A("on", "milk_carton0", "table0")}
    assert _top(encoder, kitchen, said) == want
    assert _top(encoder, kitchen, said, open_taken=False) != want


def test_put_back_where_it_was(encoder, kitchen):
    said = "get the milk out of the fridge, pour some into the cup and put the carton back in the fridge"
    want = {A("liquid_in", "milk0", "cup0"), A("in", "milk_carton0", "fridge0")}
    assert _top(encoder, kitchen, said) == want
    assert _top(encoder, kitchen, said, put_back=False) != want


def test_bare_nouns_in_a_list(encoder, kitchen):
    said = "put the cup, plate and knife back in the sink"
    want = {A("in", o, "sink0") for o in ("cup0", "plate0", "knife0")}
    assert _top(encoder, kitchen, said) == want
    assert _top(encoder, kitchen, said, noun_lists=False) != want


def test_the_reason_a_thing_is_kept_asks_for_nothing(encoder, kitchen):
    said = "put the knife and the sponge in the drawer, but leave the mug out, I need it later"
    got = _top(encoder, kitchen, said)
    assert {A("in", "knife0", "drawer0"), A("in", "sponge0", "drawer0")} <= got
    assert A("inhand", "mug0", "human0") not in got
    assert any(a.predicate == "inhand" for a in _top(encoder, kitchen, said, keep_reasons=False))


def test_the_pots_and_pans(encoder, kitchen):
    said = "gather all the pots and pans on the table"
    want = {A("on", "pot0", "table0"), A("on", "pan0", "table0")}
    assert _top(encoder, kitchen, said) == want
    assert _top(encoder, kitchen, said, class_words=False) != want
    assert _top(encoder, kitchen, said, plural_pairs=False) != want


def test_every_empty_glass(encoder, kitchen):
    said = "put every empty glass on the table"
    want = {A("on", "glass1", "table0"), A("on", "glass2", "table0")}
    assert _top(encoder, kitchen, said) == want
    assert _top(encoder, kitchen, said, empty_state=False) != want


def test_the_fruit_out_of_the_bowl_is_all_of_it(encoder, kitchen):
    said = "tip the fruit out of the bowl into the basket"
    want = {A("in", "apple0", "basket0"), A("in", "banana0", "basket0")}
    assert _top(encoder, kitchen, said) == want
    assert _top(encoder, kitchen, said, definite_source=False) != want
