"""Helpers shared by goalsearch's behaviour tests (tests/test_goalsearch_*.py)."""

from __future__ import annotations

from groundplan.methods.small_model.search import GoalSearcher, SearchOptions
from groundplan.pddl.formula import Atom


def searcher(encoder, **opts) -> GoalSearcher:
    return GoalSearcher(encoder, options=SearchOptions.of(**opts))


def top(encoder, scene, instruction, **opts) -> set:
    """The atoms of goalsearch's first goal for ``instruction`` in ``scene`` (options ``opts``)."""
    res = searcher(encoder, **opts).search(instruction, scene.domain, scene.problem)
    return set(res.goals[0].atoms)


def A(*parts) -> Atom:
    return Atom(parts[0], tuple(parts[1:]))
