"""goalsearch: destinations named by a preposition. Sentences written for
these tests (none from a held-out or evaluation set)."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundplan.methods.small_model import cues, scoring
from groundplan.methods.small_model.search import GoalSearcher, SearchOptions
from groundplan.pddl.formula import Atom
from groundplan.sim.pipeline import build

WORKSHOP = str(Path(__file__).resolve().parent / "data" / "scenes" / "hobby_workshop.yaml")


@pytest.fixture(scope="module")
def workshop():
    return build(WORKSHOP)


def _atoms(res):
    return set(res.goals[0].atoms)


@pytest.mark.parametrize("instruction,expected", [
    # "into": in, not on; every member of the group
    ("tidy every tool off the bench into the cabinet",
     {Atom("in", ("soldering_iron0", "cabinet0")), Atom("in", ("multimeter0", "cabinet0")),
      Atom("in", ("rag0", "cabinet0"))}),
    ("the glue gun goes into the cabinet", {Atom("in", ("glue_gun0", "cabinet0"))}),
])
def test_into_asks_for_in(encoder, workshop, instruction, expected):
    res = GoalSearcher(encoder).search(instruction, workshop.domain, workshop.problem)
    assert expected <= _atoms(res)


def test_a_wish_with_a_destination_is_a_placement(encoder, kitchen):
    res = GoalSearcher(encoder).search("I'd want the bowl over on the counter", kitchen.domain, kitchen.problem)
    assert Atom("on", ("bowl0", "counter0")) in _atoms(res)


@pytest.mark.parametrize("instruction,absent", [
    # a phrasal verb and a relative clause name no destination
    ("hold onto the bottle for a second", Atom("in", ("bottle0", "bowl0"))),
    ("drive to the spot that has the banana in a bowl", Atom("in", ("banana0", "bowl0"))),
])
def test_not_destinations(encoder, kitchen, instruction, absent):
    searcher = GoalSearcher(encoder)
    view, cands, _, _, lex = searcher.scene(kitchen.domain, kitchen.problem)
    bonus = cues.dest_bonus(searcher, instruction, cands, lex)
    assert not any(bonus[i] for i, c in enumerate(cands) if c.atom == absent)


def test_liquid_into_a_container(encoder, kitchen):
    searcher = GoalSearcher(encoder)
    _, cands, _, _, lex = searcher.scene(kitchen.domain, kitchen.problem)
    bonus = cues.dest_bonus(searcher, "tip the water into the cup", cands, lex)
    got = {c.atom for i, c in enumerate(cands) if bonus[i] > 0}
    assert Atom("liquid_in", ("water0", "cup0")) in got
    assert not any(a.predicate == "on" for a in got)


def test_destinations_switch_off(encoder, workshop, monkeypatch):
    def boom(*a, **k):
        raise AssertionError("destination bonus computed with destinations=False")

    off = GoalSearcher(encoder, options=SearchOptions.of(destinations=False))
    monkeypatch.setattr(cues, "dest_bonus", boom)
    res = off.search("tidy every tool off the bench into the cabinet, then close the cabinet", workshop.domain,
                     workshop.problem)
    assert res.goals
    on = GoalSearcher(encoder)
    monkeypatch.setattr(cues, "dest_bonus", boom)
    with pytest.raises(AssertionError):
        on.search("the glue gun goes into the cabinet", workshop.domain, workshop.problem)


@pytest.mark.parametrize("text,need", [
    ("I want every mug back on the shelf", False),
    ("we need two chairs next to the window", False),
    ("I'd like all the cushions on the sofa", False),
    ("I need a couple of napkins", True),
    ("I need two towels", True),
])
def test_a_wish_about_where_a_group_is_is_a_request(text, need):
    from groundplan.methods.small_model.needs import is_need_statement

    assert is_need_statement(text) is need


def test_open_containers_hold_small_things(kitchen):
    """A cup one drinks from holds things too (before, 'drink' pruned it); a coke does
    not; a class whose last word is an open container ('salad_bowl') counts as one."""
    from groundplan.methods.small_model.candidates import OPEN_CONTAINERS, enumerate_atoms

    atoms = {c.atom for c in enumerate_atoms(kitchen.domain, kitchen.problem)}
    assert Atom("in", ("apple0", "cup0")) in atoms
    assert Atom("in", ("apple0", "coke0")) not in atoms
    assert "bowl" in OPEN_CONTAINERS and "pot" in OPEN_CONTAINERS


def test_open_containers_switch_off(kitchen):
    from groundplan.methods.small_model.candidates import CandidateOptions, enumerate_atoms

    atoms = {c.atom for c in enumerate_atoms(kitchen.domain, kitchen.problem,
                                             options=CandidateOptions(open_containers=False))}
    assert Atom("in", ("apple0", "cup0")) not in atoms
    assert Atom("in", ("apple0", "bowl0")) in atoms


def test_second_best_phrase_breaks_shared_phrase_ties(encoder):
    """Two objects whose best phrase is the same affordance phrase: the one whose other phrases
    also fit the instruction ranks first (``w_second``)."""
    import numpy as np

    searcher = GoalSearcher(encoder)
    q = np.array([1.0, 0.0])
    emb = np.array([[0.9, 0.1], [0.2, 0.9], [0.9, 0.1], [0.7, 0.6]])
    owner = np.array([0, 0, 1, 1])
    tied = scoring.atom_scores(GoalSearcher(encoder, options=SearchOptions.of(w_second=0.0)), q, emb, owner, 2)
    assert tied[0] == tied[1]
    s = scoring.atom_scores(searcher, q, emb, owner, 2)
    assert s[1] > s[0]
