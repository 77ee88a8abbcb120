"""goalsearch, issue 21 round 23: a place's things moved to a destination with some kept back
(``moved_contents``); a negated attribute word rules out the things of that kind (``negated_kinds``);
a thing put "inside" with no place said goes into what was just opened (``into_opened``); "but leave
the X" at a clause's end keeps X where it is (``leave_end``). Sentences written for these tests (none
from a held-out or evaluation set); scene tests/data/round23_workshop.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest
from goalsearch_util import A, searcher

from groundplan.methods.small_model.mentions import analyze
from groundplan.methods.small_model.search import _into_opened
from groundplan.sim.pipeline import build

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def shop():
    return build(str(DATA / "round23_workshop.yaml"))


def _first(encoder, scene, said, **opts):
    return set(searcher(encoder, **opts).search(said, scene.domain, scene.problem).goals[0].atoms)


def test_a_place_cleared_into_a_box_keeps_what_is_kept_back(encoder, shop):
    said = "Clear the workbench into the box, all but the hammer."
    moved = {A("in", o, "box0") for o in ("screwdriver0", "tape0", "ruler0", "glue0")}
    atoms = _first(encoder, shop, said)
    assert moved <= atoms and A("on", "hammer0", "workbench0") in atoms
    assert not moved <= _first(encoder, shop, said, moved_contents=False)


def test_the_kind_said_of_a_place_moves_and_the_exception_stays(encoder, shop):
    said = "Put all the fruit from the bowl in the fridge except the orange."
    atoms = _first(encoder, shop, said)
    assert {A("in", "apple0", "refrigerator0"), A("in", "banana0", "refrigerator0"), A("in", "orange0", "bowl0")} <= atoms
    assert A("in", "orange0", "refrigerator0") not in atoms
    assert A("in", "orange0", "bowl0") not in _first(encoder, shop, said, moved_contents=False)


def test_nothing_is_moved_without_a_thing_kept_back(encoder, shop):
    s = searcher(encoder)
    view, _cands, _emb, _owner, lex = s.scene(shop.domain, shop.problem)
    an = analyze("Clear the workbench into the box.", view, lex, keep=True)
    assert s._moved_contents("Clear the workbench into the box.", an, view, lex, set()) is None


@pytest.mark.parametrize("said", ["Bring me a cold drink, anything but the fizzy stuff.",
                                  "Get me something to drink that isn't fizzy."])
def test_a_negated_attribute_rules_out_the_things_of_its_kind(encoder, shop, said):
    atoms = _first(encoder, shop, said)
    assert not {A("inhand", "soda0", "human0"), A("inhand", "coke0", "human0")} & atoms
    off = _first(encoder, shop, said, negated_kinds=False)
    assert {A("inhand", "soda0", "human0"), A("inhand", "coke0", "human0")} & off


def test_put_inside_goes_into_what_was_opened(encoder, shop):
    said = "Open the cabinet, pop the glue inside and close it again."
    assert {A("in", "glue0", "cabinet0"), A("closed", "cabinet0")} <= _first(encoder, shop, said)
    assert A("in", "glue0", "cabinet0") not in _first(encoder, shop, said, into_opened=False)


def test_into_opened_rewrites_only_a_bare_in():
    assert _into_opened("Open the fridge and put the milk in.") == "Open the fridge and put the milk into the fridge."
    assert _into_opened("Open the fridge and put the milk in the box.") == "Open the fridge and put the milk in the box."
    assert _into_opened("Put the milk in and open the door.") == "Put the milk in and open the door."


def test_but_leave_the_thing_keeps_it_where_it_is(encoder, shop):
    said = "Bring me the tape and the ruler, but leave the hammer."
    atoms = _first(encoder, shop, said)
    assert {A("inhand", "tape0", "human0"), A("inhand", "ruler0", "human0"), A("on", "hammer0", "workbench0")} <= atoms
    assert A("on", "hammer0", "workbench0") not in _first(encoder, shop, said, leave_end=False)
