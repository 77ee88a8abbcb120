"""Inferred affordances never make a thing edible or drinkable that WordNet says is not
(knowledge/infer.py ``ingestion_checked``): varnish next to water and juice by embedding was
handed to a thirsty person (found in session 40)."""

from __future__ import annotations

import pytest

from groundplan.knowledge import wordnet as W
from groundplan.knowledge.infer import ingestion_checked

pytestmark = pytest.mark.skipif(W.WordNet.load() is None, reason="no WordNet database installed")


@pytest.mark.parametrize("cls", ["varnish", "glue", "ink", "glaze", "chain_lube", "dog_shampoo", "milk_churn"])
def test_not_drinkable(cls):
    affs, withheld = ingestion_checked(cls, {"liquid", "drinkable"})
    assert affs == {"liquid"} and withheld == ("drinkable",)


@pytest.mark.parametrize("cls", ["diaper", "teddy_bear", "fertilizer", "phone", "tulip"])
def test_not_edible(cls):
    affs, withheld = ingestion_checked(cls, {"grasp", "carry", "consumable"})
    assert affs == {"grasp", "carry"} and withheld == ("consumable",)


@pytest.mark.parametrize("cls,affs", [("lemonade", {"liquid", "drinkable"}), ("ginger_beer", {"liquid", "drinkable"}),
                                      ("kumquat", {"grasp", "consumable"}), ("cheese_wheel", {"grasp", "consumable"}),
                                      ("kombucha", {"liquid", "drinkable"})])  # not in WordNet 3.0: the vote stands
def test_food_and_drink_kept(cls, affs):
    assert ingestion_checked(cls, affs) == (affs, ())


def test_scene_varnish_is_not_offered_to_drink():
    from pathlib import Path

    from groundplan.sim.pipeline import build

    pt = build(str(Path(__file__).parent / "data" / "scenes" / "staff_room.yaml"), strict=False)
    assert "drinkable" not in pt.inferred["varnish"]
    assert "withheld" in pt.inference["varnish"].source
