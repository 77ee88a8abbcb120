"""goalsearch: noun compounds ("the fruit basket" is a basket), clauses that
ask for nothing ("..., but."). Sentences written for these tests (none from a held-out or
evaluation set); the scene is tests/data/scenes/den.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest
from goalsearch_util import A
from goalsearch_util import searcher as _searcher
from goalsearch_util import top as _top

from groundplan.methods.small_model import structures
from groundplan.sim.pipeline import build

DEN = str(Path(__file__).resolve().parent / "data" / "scenes" / "den.yaml")


@pytest.fixture(scope="module")
def den():
    return build(DEN)


@pytest.mark.parametrize("instruction,expected", [
    ("hand me the fruit basket", {A("inhand", "basket0", "human0")}),
    ("could you pass me that towel box", {A("inhand", "box0", "human0")}),
])
def test_a_noun_before_a_noun_modifies_it(encoder, den, instruction, expected):
    assert _top(encoder, den, instruction) == expected
    assert _top(encoder, den, instruction, compound_nouns=False) != expected


def test_the_modifier_is_cut_from_the_scored_words(encoder, den):
    lex = _searcher(encoder).scene(den.domain, den.problem)[4]
    assert lex.without_modifiers("hand me the fruit basket") == "hand me the basket"
    assert lex.without_modifiers("put the plate on the table") == "put the plate on the table"
    assert [m.cls for m in lex.mentions("put the cup plate away")] == ["plate"]


def test_a_part_keeps_its_whole(encoder, den):
    # the scene models the fridge's door as the fridge: "the fridge door" still names the fridge
    lex = _searcher(encoder).scene(den.domain, den.problem)[4]
    assert lex.without_modifiers("open the fridge door") == "open the fridge door"
    assert _top(encoder, den, "open the fridge door for me") == {A("opened", "refrigerator0")}


def test_plural_nouns_in_a_row_are_no_compound(encoder, den):
    lex = _searcher(encoder).scene(den.domain, den.problem)[4]
    assert lex.without_modifiers("the plates cups and towels") == "the plates cups and towels"


def test_a_clause_of_only_but_or_thanks_is_dropped(encoder, den):
    lex = _searcher(encoder).scene(den.domain, den.problem)[4]
    clauses = ("put the plate in the box", "but.", "thanks")
    assert structures.rewrite_clauses(_searcher(encoder), clauses, lex) == ("put the plate in the box",)
    assert len(structures.rewrite_clauses(_searcher(encoder, empty_clauses=False), clauses, lex)) == 3


def test_a_courtesy_clause_leaves_one_clause_with_its_state_verb(encoder, den):
    # "..., please" is no second clause: the one clause's verb asks for its state
    assert _top(encoder, den, "slice the banana for me, please") == {A("chopped", "banana0")}
    assert _top(encoder, den, "slice the banana for me, please", empty_clauses=False) != {A("chopped", "banana0")}
