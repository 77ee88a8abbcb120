"""The optimal search's time bound (planners.with_primary_bound; goalsearch's
``optimal_search_s``): A* that has not finished by then hands over to the greedy search."""

from __future__ import annotations

from groundplan.planners import get_planner, with_primary_bound
from groundplan.sim.pipeline import plan_and_check


def test_bound_is_a_copy_through_the_wrappers():
    base = get_planner("fast-downward")  # pruning wrapper around Fast Downward
    bounded = with_primary_bound(base, 5.0)
    assert bounded is not base and bounded.inner is not base.inner
    assert bounded.inner.primary_max == 5.0 and base.inner.primary_max is None
    assert bounded.inner._cache is base.inner._cache  # translations are shared
    assert with_primary_bound(base, None) is base
    assert with_primary_bound(bounded, 9.0).inner.primary_max == 5.0  # the tighter bound stays
    iso = get_planner("fast-downward", isolate=True)
    assert with_primary_bound(iso, 2.0).inner.inner.primary_max == 2.0


def test_greedy_search_takes_over_past_the_bound(kitchen):
    planner = with_primary_bound(get_planner("fast-downward", prune_above=None), 0.001)
    out = plan_and_check(kitchen, "(and (in apple0 fridge0) (in banana0 fridge0))", planner, typecheck=False)
    assert out.status == "solved", out.error
    assert out.timings.get("fallback_used") == 1.0  # A* had a millisecond: greedy planned
    unbounded = plan_and_check(kitchen, "(and (in apple0 fridge0) (in banana0 fridge0))",
                               get_planner("fast-downward", prune_above=None), typecheck=False)
    assert "fallback_used" not in unbounded.timings
