"""Generic head nouns decide a class's kind (``knowledge/data/role_heads.yaml``): a sharps
container holds things and does not cut, a recycling bin holds things, a dish rack supports."""

from __future__ import annotations

import pytest

from groundplan.knowledge.affordances import affordance_names
from groundplan.knowledge.infer import EmbeddingInferrer, LexicalInferrer, role_head, role_heads
from groundplan.knowledge.oam import default_oam


class FarEmbedder:
    """Every name is equally near every known class: the vote must not be asked for a role."""

    def encode(self, sentences):
        import numpy as np

        return np.ones((len(sentences), 4)) / 2.0


def test_role_heads_use_catalogue_affordances_and_no_map_class():
    cat = set(affordance_names())
    roles = role_heads()
    assert roles and all(set(v) <= cat for v in roles.values())
    assert not set(roles) & set(default_oam().mapping)  # a map class is a head class already


@pytest.mark.parametrize("cls,role", [
    ("sharps_container", "container"), ("Recycling-Bin", "bin"), ("reclaim_bin", "bin"),
    ("dish racks", "rack"), ("DishRack", "rack"), ("dishwasher", "dishwasher"), ("pencil_case", "case"),
    ("tea_bag", None), ("sleeping_bag", None),
    ("cabin", None), ("bookcase", None), ("hair_dryer", None), ("robin", None),
])
def test_role_head_is_the_last_separate_word(cls, role):
    assert role_head(cls) == role


def test_a_role_decides_before_the_neighbours_and_a_map_head_before_a_role():
    known = default_oam()
    inf = EmbeddingInferrer(FarEmbedder(), k=3, threshold=0.3, power=1.0, min_support=99)
    got = inf.explain(["sharps_container", "dish_rack", "bread_box", "spoon_rest"], known)
    assert got["sharps_container"].source == "role:container"
    assert set(got["sharps_container"].affordances) == {"grasp", "carry", "contain"}
    assert "cut" not in got["sharps_container"].affordances
    assert got["dish_rack"].affordances == ("carry", "contain", "support")  # plates stand in it; carried by its size
    assert got["bread_box"].source == "head:box"  # the map's own class wins
    assert got["spoon_rest"].source.startswith("embedding")  # no head, no role: the neighbours vote
    from groundplan.knowledge.wordnet import WordNet

    if WordNet.load() is not None:  # a spoon rest is no food
        assert "consumable" not in got["spoon_rest"].affordances


def test_scene_evidence_is_added_to_a_role():
    got = LexicalInferrer().explain(["compost_bin"], default_oam(), {"compost_bin": frozenset({"open", "close"})})
    assert {"contain", "open", "close"} <= set(got["compost_bin"].affordances)
    assert got["compost_bin"].source == "role:bin"
