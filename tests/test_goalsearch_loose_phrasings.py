"""goalsearch: things placed nowhere, "all" as an intensifier, a need's cause,
phrasings said loosely, "and" between things, a place said as a pronoun or by what it holds, a
negated subject, a container said by its contents, goals that hold already, "along with". Sentences
written for these tests (none from a held-out or evaluation set); scene tests/data/scenes/small_kitchen.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest
from goalsearch_util import A
from goalsearch_util import top as _top

from groundplan.methods.small_model.needs import paraphrase_needs, plain_idioms
from groundplan.methods.small_model.normalise import _along_with
from groundplan.sim.pipeline import build

DATA = Path(__file__).resolve().parent / "data" / "scenes"
THIRST = "I am thirsty and want something to drink"


@pytest.fixture(scope="module")
def kitchen():
    return build(str(DATA / "small_kitchen.yaml"))


def test_a_thing_placed_nowhere_is_in_no_group(encoder, kitchen):
    said = "put all the fruit into the basket"
    assert _top(encoder, kitchen, said) == {A("in", "apple0", "basket0"), A("in", "banana0", "basket0")}
    assert A("in", "banana1", "basket0") in _top(encoder, kitchen, said, unplaced=False)


def test_all_as_an_intensifier_makes_no_group(encoder, kitchen):
    said = "my hands are all sticky from peeling the fruit"
    assert _top(encoder, kitchen, said) == {A("inhand", "towel0", "human0")}
    assert _top(encoder, kitchen, said, adverb_all=False) == {A("inhand", "apple0", "human0"),
                                                              A("inhand", "banana0", "human0")}


def test_a_needs_cause_is_not_what_it_asks_for(encoder, kitchen):
    said = "my fingers are sticky after handling the knives"
    assert _top(encoder, kitchen, said) == {A("inhand", "towel0", "human0")}
    assert A("inhand", "towel0", "human0") not in _top(encoder, kitchen, said, cause_context=False)


def test_phrasings_match_loosely():
    assert paraphrase_needs("my throat feels so dry", loose=True) == (THIRST,)
    assert paraphrase_needs("my throat feels so dry") == ()
    # a phrasing of more words beats a one-word one inside it: the hands, not a surface
    assert paraphrase_needs("my hands are so sticky", loose=True) == ("I need to wash my dirty hands",)
    assert THIRST not in paraphrase_needs("the herbs are bone dry", loose=True)  # not "dry as a bone"
    assert paraphrase_needs("I need to put the drink away", loose=True) == ()


def test_and_between_things_is_no_clause_break(encoder, kitchen):
    said = "put all the fruit and vegetables into the fridge"
    want = {A("in", "apple0", "fridge0"), A("in", "banana0", "fridge0"), A("in", "carrot0", "fridge0")}
    assert _top(encoder, kitchen, said) == want
    assert _top(encoder, kitchen, said, np_conjuncts=False) != want


def test_out_of_it_is_the_place_said_before(encoder, kitchen):
    said = "I'm tidying the drawer, so take everything out of it and put it on the shelf"
    want = {A("on", "scissors0", "shelf0"), A("on", "spoon1", "shelf0"), A("on", "spoon2", "shelf0")}
    assert want <= _top(encoder, kitchen, said)
    assert not want <= _top(encoder, kitchen, said, place_pronoun=False)


def test_a_place_said_by_what_it_holds(encoder, kitchen):
    said = "clear everything off the cutting table and onto the counter"
    want = {A("on", "cutting_board0", "counter0"), A("on", "knife0", "counter0")}
    assert _top(encoder, kitchen, said) == want
    assert _top(encoder, kitchen, said, place_modifiers=False) != want


def test_a_negated_subject_is_left_out(encoder, kitchen):
    said = "tidy the forks into the box, but the knives mustn't go in it"
    assert _top(encoder, kitchen, said) == {A("in", "fork0", "box0"), A("in", "fork1", "box0")}
    assert A("in", "knife1", "box0") in _top(encoder, kitchen, said, subject_negation=False)


def test_a_container_said_by_its_contents(encoder, kitchen):
    said = "bring the bowl of apples over to the side table"
    assert {a.args[0] for a in _top(encoder, kitchen, said)} == {"bowl0"}
    assert {a.args[0] for a in _top(encoder, kitchen, said, contents_descriptor=False)} == {"apple0"}


def test_a_goal_that_holds_already_loses(encoder, kitchen):
    said = "the juice is way over in the fridge and I'm sat at the table"
    assert _top(encoder, kitchen, said) != {A("in", "juice0", "fridge0")}
    # (need_holds makes a need's goal that holds lose too: off as well)
    assert _top(encoder, kitchen, said, w_holds=0.0, need_holds=False) == {A("in", "juice0", "fridge0")}


def test_along_with_puts_both_there(encoder, kitchen):
    said = "put the plate on the counter along with the spoon"
    assert _top(encoder, kitchen, said) == {A("on", "plate0", "counter0"), A("on", "spoon0", "counter0")}
    assert _top(encoder, kitchen, said, along_with=False) == {A("on", "spoon0", "counter0")}
    assert _along_with("put them away") == "put them away"


def test_leave_both_places_both(encoder, kitchen):
    said = "grab the towel and the sponge from the counter, and leave both on the cutting table"
    assert {A("on", "towel0", "table0"), A("on", "sponge0", "table0")} <= _top(encoder, kitchen, said)


@pytest.mark.parametrize("said,plain", [
    ("take the lid off the box for me", "open the box for me"),
    ("put the lid back on the box", "close the box"),
    ("it's rather warm and close in here", "it's rather warm and stuffy in here"),
    ("it is a bit close.", "it is a bit stuffy."),
    ("come very close.", "come very close."),
    ("put it close to the sink", "put it close to the sink"),
])
def test_loose_idioms_in_plain_words(said, plain):
    assert plain_idioms(said) == plain


def test_a_carried_destination_goes_to_its_place(encoder, kitchen):
    said = "serve the carrot on the plate at the cutting table"
    assert {A("on", "carrot0", "plate0"), A("on", "plate0", "table0")} <= _top(encoder, kitchen, said)
    assert A("on", "plate0", "table0") not in _top(encoder, kitchen, said, nested_destinations=False)
