"""Per-class uses (knowledge/class_uses.yaml, issue 21): the table loads, a class the file
lacks takes its head noun's uses, and goalsearch renders them for "bring me X" only when
``class_uses`` is on."""

from __future__ import annotations

from groundplan.knowledge.uses import ClassUses
from groundplan.methods.small_model.candidates import CandidateOptions, enumerate_atoms
from groundplan.methods.small_model.search import SearchOptions
from groundplan.sim.pipeline import build


def test_table_and_head_noun_fallback():
    uses = ClassUses.load()
    assert "I am thirsty" in uses.of("coke")
    assert uses.of("lime_soda") == uses.of("soda")  # head noun
    assert uses.of("zzz_unknown_thing") == ()  # no embedder: no nearest-name guess


def test_rendered_only_when_on():
    pt = build("examples/scenes/kitchen.yaml", strict=False)
    uses = ClassUses.load()
    for on in (True, False):
        cands = enumerate_atoms(pt.domain, pt.problem, options=CandidateOptions(class_uses=on),
                                uses_of=lambda c: uses.of(c))
        coke = [c for c in cands if c.atom.pddl() == "(inhand coke0 human0)"][0]
        assert ("I want a cold fizzy drink" in coke.phrases) is on


def test_default_is_on():
    # on by default since it was decided on generated tuning set 3 (round3_tuning.md)
    assert SearchOptions().rule("class_uses") is True
