"""Shapes Fast Downward's translator refuses, caught before planning: a ``forall`` inside a
``when`` (written out with the condition pushed inside), and a type named like a predicate
(a skill-set error naming the capability)."""

from __future__ import annotations

from importlib import resources

import pytest
import yaml

from groundplan.errors import GroundplanError
from groundplan.pddl.parser import check_task
from groundplan.pddl.writer import push_conditions
from groundplan.sim.pddl_task import file_planner, plan_task
from groundplan.skills import load_skillset
from groundplan.skills.skillset import parse_skillset

DOMAIN = """(define (domain lamp)
  (:requirements :typing :conditional-effects :universal-preconditions)
  (:types room item)
  (:predicates (on ?r - room) (lit ?i - item) (in ?i - item ?r - room) (powered ?r - room))
  (:action switch
    :parameters (?r - room)
    :precondition (and)
    :effect (and (on ?r)
                 (when (powered ?r) (and (on ?r) (forall (?i - item) (when (in ?i ?r) (lit ?i))))))))
"""
PROBLEM = """(define (problem p) (:domain lamp)
  (:objects kitchen hall - room l1 l2 - item)
  (:init (powered kitchen) (in l1 kitchen) (in l2 hall))
  (:goal (and (lit l1))))
"""


def test_forall_inside_when_is_pushed_and_planned():
    task = check_task(DOMAIN, PROBLEM)
    (action,) = task.domain.actions
    text = " ".join(e.pddl() for e in push_conditions(action.effects))
    assert "(forall (?i - item) (and (when (and (powered ?r) (in ?i ?r)) (and (lit ?i)))))" in text
    out = plan_task(task, file_planner(timeout=30))  # Fast Downward failed on the original shape
    assert out.status == "solved" and out.valid and list(out.plan) == ["switch kitchen"]


def test_builtin_skill_sets_keep_their_effects_except_where_fd_needs_it():
    for name, expect in (("household", set()), ("alfred", set()), ("dining", set())):
        s = load_skillset(name)
        assert {c.name for c in s.capabilities if push_conditions(c.effects) != tuple(c.effects)} == expect


def test_capability_type_named_like_a_predicate_is_refused():
    data = yaml.safe_load(resources.files("groundplan.skills").joinpath("data/virtualhome.yaml").read_text())
    data["capability_type_prefix"] = "can_"  # can_open is a predicate of this skill set
    with pytest.raises(GroundplanError, match="capability 'open' makes the agent type 'can_open'"):
        parse_skillset(data, file="vh.yaml")
