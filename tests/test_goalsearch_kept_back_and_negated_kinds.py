"""goalsearch: a place's things moved to a destination with some kept back
(``moved_contents``); a negated attribute word rules out the things of that kind (``negated_kinds``);
a thing put "inside" with no place said goes into what was just opened (``into_opened``); "but leave
the X" at a clause's end keeps X where it is (``leave_end``); a food named in a statement of hunger
is what is asked for (``hungry_named``); "tidy the bench, but leave the X" clears the rest off it
(``tidy_kept``); "don't bother with the X" leaves X out (``bother_cue``); "bring me the bowl but take
the X out of it first" hands the bowl over without X (``taken_out_first``); "heat my coffee up" warms
it in its cup and hands it back (``warm_mine``); "there's a sticky ring in my mug" asks for the mug
clean (``dirt_there``); "the tomato's still in one piece" asks for it chopped (``still_whole``); a cloth for sticky fingers is
wetted first (``wet_wipe``).
Sentences written for these tests (none from a held-out or evaluation set); scenes
tests/data/scenes/workshop_kitchen.yaml and tests/data/scenes/tea_room.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest
from goalsearch_util import A, searcher

from groundplan.methods.small_model import completions
from groundplan.methods.small_model.mentions import analyze
from groundplan.methods.small_model.normalise import _into_opened
from groundplan.pddl.formula import Not
from groundplan.sim.pipeline import build

DATA = Path(__file__).resolve().parent / "data" / "scenes"


@pytest.fixture(scope="module")
def shop():
    return build(str(DATA / "workshop_kitchen.yaml"))


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


def test_a_place_moved_whole_only_with_moved_unkept(encoder, shop):
    s = searcher(encoder)
    view, cands, _emb, _owner, lex = s.scene(shop.domain, shop.problem)
    said = "Clear the workbench into the box."
    an = analyze(said, view, lex, keep=True)
    possible = {c.atom for c in cands}
    assert completions.moved_contents(said, an, view, lex, possible) is None
    moved = set(completions.moved_contents(said, an, view, lex, possible, opts_unkept=True))
    assert moved == {A("in", o, "box0") for o in ("hammer0", "screwdriver0", "tape0", "ruler0", "glue0")}


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


@pytest.mark.parametrize("said,food", [("I'm famished, and that banana in the bowl is calling my name.", "banana0"),
                                       ("I'm starving and my orange is still sitting in the bowl.", "orange0")])
def test_a_food_named_with_hunger_is_handed_over(encoder, shop, said, food):
    assert A("inhand", food, "human0") in _first(encoder, shop, said)
    assert A("inhand", food, "human0") not in _first(encoder, shop, said, hungry_named=False)


def test_a_place_tidied_with_a_thing_left_is_cleared_of_the_rest(encoder, shop):
    said = "Tidy up the workbench, but leave the hammer where it is."
    atoms = _first(encoder, shop, said)
    assert A("on", "hammer0", "workbench0") in atoms
    assert {Not(A("on", o, "workbench0")) for o in ("screwdriver0", "tape0", "ruler0", "glue0")} <= atoms
    assert Not(A("on", "tape0", "workbench0")) not in _first(encoder, shop, said, tidy_kept=False)


def test_a_place_tidied_with_nothing_left_is_not_cleared(encoder, shop):
    assert not [a for a in _first(encoder, shop, "Tidy up the workbench, please.") if isinstance(a, Not)]


@pytest.mark.parametrize("said,left", [("Bring me the tape, but don't bother with the ruler.", A("inhand", "ruler0", "human0")),
                                       ("Give the cup a wipe, and don't bother with the bowl.", A("on", "bowl0", "shelf0"))])
def test_what_is_not_to_be_bothered_with_is_left_out(encoder, shop, said, left):
    assert left not in _first(encoder, shop, said)
    assert left in _first(encoder, shop, said, bother_cue=False)


def test_a_bowl_handed_over_with_a_thing_taken_out_first(encoder, shop):
    said = "Bring me the fruit bowl but take the orange out of it first."
    atoms = _first(encoder, shop, said)
    assert {A("inhand", "bowl0", "human0"), Not(A("in", "orange0", "bowl0")), Not(A("inhand", "orange0", "human0"))} <= atoms
    assert A("inhand", "bowl0", "human0") not in _first(encoder, shop, said, taken_out_first=False)


@pytest.fixture(scope="module")
def staffroom():
    return build(str(DATA / "tea_room.yaml"))


@pytest.mark.parametrize("said", ["Heat my tea up, would you?", "Could you warm up my tea?"])
def test_the_persons_own_drink_is_warmed_in_its_cup_and_handed_back(encoder, staffroom, said):
    served = {A("liquid_warm", "tea0"), A("liquid_in", "tea0", "mug0"), A("inhand", "mug0", "human0")}
    assert served <= _first(encoder, staffroom, said)
    assert not served <= _first(encoder, staffroom, said, warm_mine=False)


def test_a_drink_not_said_to_be_theirs_is_only_warmed(encoder, staffroom):
    assert _first(encoder, staffroom, "Warm the tea.") == {A("liquid_warm", "tea0")}


@pytest.mark.parametrize("said,thing", [("There's a sticky ring in the bottom of my mug.", "mug0"),
                                        ("There are crumbs all over my plate.", "plate0")])
def test_dirt_said_to_be_in_a_thing_asks_for_it_clean(encoder, staffroom, said, thing):
    assert A("clean", thing) in _first(encoder, staffroom, said)
    assert A("clean", thing) not in _first(encoder, staffroom, said, dirt_there=False)


@pytest.mark.parametrize("said,food", [("I'd love a snack, but the apple and the orange are still whole.", ("apple0", "orange0")),
                                       ("This banana is too big to eat in one go.", ("banana0",))])
def test_food_said_to_be_whole_is_asked_for_chopped(encoder, shop, said, food):
    chopped = {A("chopped", o) for o in food}
    assert chopped <= _first(encoder, shop, said)
    assert not chopped <= _first(encoder, shop, said, still_whole=False)


def test_a_cloth_for_sticky_fingers_is_wetted_first(encoder, shop):
    said = "My fingers are all sticky from that orange."
    assert {A("wet", "sponge0"), A("inhand", "sponge0", "human0")} <= _first(encoder, shop, said)
    assert A("wet", "sponge0") not in _first(encoder, shop, said, wet_wipe=False)


def test_wet_hands_get_nothing_wetted(encoder, shop):
    assert A("wet", "sponge0") not in _first(encoder, shop, "My hands are dripping wet.")


def test_a_food_turned_down_with_hunger_is_not_handed_over(encoder, shop):
    said = "I'm starving, but I really can't face that banana."
    assert A("inhand", "banana0", "human0") not in _first(encoder, shop, said)


def test_a_place_emptied_with_a_thing_kept_back_keeps_it(encoder, shop):
    said = "Empty the fridge except for the juice."
    atoms = _first(encoder, shop, said)
    assert A("in", "juice0", "refrigerator0") in atoms
    assert {Not(A("in", o, "refrigerator0")) for o in ("soda0", "coke0", "water_bottle0")} <= atoms
    assert A("in", "juice0", "refrigerator0") not in _first(encoder, shop, said, tidy_kept=False)
