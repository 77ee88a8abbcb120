"""Inferred consumption and placing affordances come from what the whole named thing is
(knowledge/reading.py, issue 50): a compound whose modifier names what a vessel holds, an
activity, an animal or a material is not drunk from nor eaten; containers, surfaces and carried
things are read from the name's artifact senses. The names here are general words, none of a
labelled list."""

from __future__ import annotations

import pytest

from groundplan.knowledge import reading as R
from groundplan.knowledge.wordnet import WordNet

pytestmark = pytest.mark.skipif(WordNet.load() is None, reason="no WordNet database installed")


@pytest.mark.parametrize("cls,vessel", [("coffee_cup", True), ("paper_cup", True), ("wineglass", True),
                                        ("egg_cup", False), ("pencil_cup", False), ("stacking_cups", False),
                                        ("cup_holder", False)])
def test_a_drinking_vessel_is_one_whose_modifier_names_no_other_contents(cls, vessel):
    assert R.drink_vessel_named(cls, known_vessel=cls.endswith(("cup", "cups")))[0] is vessel


@pytest.mark.parametrize("cls,eaten", [("lemonade", {"drinkable"}), ("milkshake", {"drinkable"}),
                                       ("cheeseburger", {"consumable"}), ("baby_food", {"consumable"}),
                                       ("teething_biscuit", {"consumable"}),
                                       ("cat_food", set()), ("play_dough", set()), ("olive_oil", set()),
                                       ("vinegar", set()), ("birdseed", set()), ("salt_water", set()),
                                       ("metronome", set()), ("teddy_bear", set())])
def test_consumption_only_on_positive_evidence_that_the_whole_thing_is_food_or_drink(cls, eaten):
    known = "drinkable" if cls.endswith("water") else None
    assert set(R.consumption(cls, known)[0]) == eaten


def test_the_modifier_says_whose_food_it_is():
    assert R.modifier_role("baby") == "person" and R.modifier_role("cat") == "animal"
    assert R.modifier_role("stacking") == "gerund" and R.modifier_role("pencil") == "artifact"


@pytest.mark.parametrize("cls", ["trunk", "saucepan", "garden_shed", "towel_holder"])
def test_containers_by_their_artifact_sense_and_definition(cls):
    assert R.holds_things(R.artifact_kind(cls)) is True


@pytest.mark.parametrize("cls,moved", [("houseplant", True), ("paperweight", True), ("picture_frame", True),
                                       ("oak_tree", False), ("wardrobe", False), ("box_cutter", True)])
def test_carried_things_are_small_artifacts_plants_and_foods(cls, moved):
    assert R.carried(R.artifact_kind(cls)) is moved


def test_the_extended_map_follows_the_reading():
    from groundplan.knowledge.infer import extend_for, get_inferrer
    from groundplan.knowledge.oam import default_oam

    try:
        inf = get_inferrer("default")
        m, found = extend_for(default_oam(), ["pencil_cup", "play_dough", "olive_oil", "trunk"], inf, {})
    except Exception as exc:  # no embedding model: the lexical inferrer
        pytest.skip(str(exc))
    assert "drink" not in m.affordances("pencil_cup") and "contain" in m.affordances("pencil_cup")
    assert not set(m.affordances("play_dough")) & {"consumable", "drinkable"}
    assert not set(m.affordances("olive_oil")) & {"consumable", "drinkable"}
    assert "contain" in m.affordances("trunk")
    assert any(a == "consumable" for a, _ in found["play_dough"].withheld) or "consumable" not in m.affordances("play_dough")


@pytest.mark.parametrize("cls,eaten", [("almond_milk", {"drinkable"}), ("strawberry", {"consumable"}),
                                       ("muddy_water", set()), ("dirty_milk", set()),  # a word WordNet cannot place
                                       ("holly_berry", set()),  # a plant that is no food itself
                                       ("food_coloring", set()),  # used on food, not eaten as it is
                                       ("demitasse", set()), ("larder", set())])  # also the cup, the storeroom
def test_food_and_drink_need_positive_evidence_for_the_whole_thing(cls, eaten):
    assert R.consumption(cls)[0] == frozenset(eaten)


@pytest.mark.parametrize("cls", ["grain_drum", "flour_barrel", "rain_barrel"])
def test_a_modifier_naming_what_is_held_reads_the_container_sense(cls):
    """A drum one plays and a gun barrel come first in WordNet; a grain drum holds grain."""
    assert R.holds_things(R.artifact_kind(cls))


@pytest.mark.parametrize("cls", ["bath_mat", "washing_machine", "book_rest"])
def test_surfaces_from_mats_white_goods_and_what_a_definition_puts_on_it(cls):
    assert R.bears_things(R.artifact_kind(cls))


def test_a_sphere_on_which_a_map_is_drawn_is_no_surface():
    assert not R.bears_things(R.artifact_kind("globe"))
