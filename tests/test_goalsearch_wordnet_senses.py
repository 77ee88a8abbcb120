"""goalsearch: WordNet senses of classes the class-use lexicon lacks. Sentences
written for these tests (none from a held-out or evaluation set); the scene is
tests/data/scenes/watch_bench.yaml with its map, whose small things no class-use entry names."""

from __future__ import annotations

from pathlib import Path

import pytest
from goalsearch_util import A
from goalsearch_util import searcher as _searcher
from goalsearch_util import top as _top

from groundplan.knowledge.uses import ClassUses
from groundplan.knowledge.wordnet import WordNet
from groundplan.sim.pipeline import build

DATA = Path(__file__).resolve().parent / "data" / "scenes"
UNKNOWN = ("loupe", "whetstone", "waders", "balaclava", "chamois", "tweezers")


@pytest.fixture(scope="module")
def bench():
    return build(str(DATA / "watch_bench.yaml"), oam_file=str(DATA / "watch_bench.oam.yaml"))


def test_the_scene_names_classes_the_lexicon_lacks():
    uses = ClassUses.load()
    assert all(uses.direct(c) == () for c in UNKNOWN)
    assert WordNet.load() is not None, "WordNet is not installed: run `make install`"


@pytest.mark.parametrize("instruction,obj", [
    ("I can't make out the tiny numbers engraved on this watch back", "loupe0"),  # "magnifying glass"
    ("my face is freezing in this wind", "balaclava0"),  # "covers all of the head but the face"
])
def test_a_need_reaches_an_unknown_class_through_its_sense(encoder, bench, instruction, obj):
    want = {A("inhand", obj, "human0")}  # the sense alone (the WordNet hypernyms' uses off)
    assert _top(encoder, bench, instruction, wordnet_senses=True, wordnet_hypernyms=False) == want
    assert _top(encoder, bench, instruction, wordnet_senses=False, wordnet_hypernyms=False) != want


def test_the_sense_is_a_phrase_of_handing_the_object_over(encoder, bench):
    """The gloss (examples cut) is one more phrase of the hand-over atom, and only there; with
    ``sense_over_nearest`` it replaces the nearest known class's uses."""
    def phrases(**opts):
        _, cands, *_ = _searcher(encoder, **opts).scene(bench.domain, bench.problem)
        return {c.atom: c.phrases for c in cands}

    sense = WordNet.load().sense("loupe")
    assert "magnifying glass" in sense
    on = phrases(wordnet_senses=True)
    assert sense in on[A("inhand", "loupe0", "human0")]
    assert not any(sense in p for atom, p in on.items() if atom != A("inhand", "loupe0", "human0"))
    assert sense not in phrases(wordnet_senses=False)[A("inhand", "loupe0", "human0")]
    templated = phrases(wordnet_senses=True, sense_template="I need {}")[A("inhand", "loupe0", "human0")]
    assert f"I need {sense}" in templated
