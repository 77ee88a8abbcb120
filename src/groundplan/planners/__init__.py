"""Planners: one interface, a status enum, a registry (fast-downward default, pyperplan)."""

from groundplan.planners.base import (
    PlannerLimits,
    PlanResult,
    PlanStatus,
    available_planners,
    get_planner,
    with_primary_bound,
)

__all__ = ["PlannerLimits", "PlanResult", "PlanStatus", "available_planners", "get_planner", "with_primary_bound"]
