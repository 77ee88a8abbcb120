"""goalsearch: the uses of a WordNet hypernym the class-use lexicon has, and a
named liquid's portion by its named vessel or place. Sentences written for these tests (none from
a held-out or evaluation set); scenes tests/data/scenes/watch_bench.yaml and
tests/data/scenes/kitchenette.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest
from goalsearch_util import A
from goalsearch_util import top as _top

from groundplan.knowledge.uses import ClassUses
from groundplan.knowledge.wordnet import WordNet
from groundplan.sim.pipeline import build

DATA = Path(__file__).resolve().parent / "data" / "scenes"


@pytest.fixture(scope="module")
def bench():
    return build(str(DATA / "watch_bench.yaml"), oam_file=str(DATA / "watch_bench.oam.yaml"))


@pytest.fixture(scope="module")
def kitchenette():
    return build(str(DATA / "kitchenette.yaml"))


def test_nearest_known_hypernym_keeps_the_sense():
    wn, uses = WordNet.load(), ClassUses.load()
    assert wn is not None, "WordNet is not installed: run `make install`"
    known = uses.table.__contains__
    assert wn.nearest_known("waders", known) == "boot"
    assert wn.nearest_known("painkillers", known) == "medicine"
    # a toiletry there, but the lexicon's "cream" is the dairy product (its word's first sense)
    assert "cream" in wn.broader("sunscreen") and wn.nearest_known("sunscreen", known) != "cream"
    assert wn.nearest_known("waders", known, depth=0) is None  # boot is a level up


def test_a_need_reaches_waders_through_boot(encoder, bench):
    instruction = "I'm going to stand in the river to fish"
    assert _top(encoder, bench, instruction, wordnet_hypernyms=True) == {A("inhand", "waders0", "human0")}
    assert _top(encoder, bench, instruction, wordnet_hypernyms=False) != {A("inhand", "waders0", "human0")}


def test_a_liquid_portion_by_the_place_of_its_vessel(encoder, kitchenette):
    instruction = "fill the glass with the water from the fridge"
    assert _top(encoder, kitchenette, instruction, liquid_sources=True) == {A("liquid_in", "water1", "glass0")}
    assert _top(encoder, kitchenette, instruction, liquid_sources=False) == {A("liquid_in", "water0", "glass0")}
    # the vessel named outright keeps working either way
    assert _top(encoder, kitchenette, "pour the water from the jug into the glass",
                liquid_sources=True) == {A("liquid_in", "water0", "glass0")}
