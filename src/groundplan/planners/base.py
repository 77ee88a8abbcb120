"""One planner interface: plan(domain, problem, timeout) -> PlanResult, with a status enum.
Planners register by name (no if-chains)."""

from __future__ import annotations

import copy
import importlib.util
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Callable, Protocol

from groundplan.errors import ConfigError, PlannerError
from groundplan.limits import current as current_limits
from groundplan.pddl.model import Domain, Problem


class PlanStatus(str, Enum):
    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"
    TIMEOUT = "timeout"
    INVALID = "invalid"  # the input was rejected (bad goal, unsupported feature)
    ERROR = "error"  # the planner failed


@dataclass(frozen=True)
class PlanResult:
    status: PlanStatus
    plan: tuple[str, ...] = ()  # "name arg1 arg2 ..."
    cost: float | None = None
    seconds: float = 0.0
    log: str = ""
    error: str | None = None
    timings: dict = field(default_factory=dict, compare=False)

    @property
    def solved(self) -> bool:
        return self.status == PlanStatus.SOLVED


@dataclass(frozen=True)
class PlannerLimits:
    timeout: float = 60.0  # seconds, whole call: translation and search
    memory_mb: int = 4096  # address-space cap of the translator and search processes

    @classmethod
    def configured(cls) -> "PlannerLimits":
        """The configured bounds (groundplan.limits: planner_timeout, planner_memory_mb)."""
        lim = current_limits()
        return cls(lim.planner_timeout, lim.planner_memory_mb)


class Planner(Protocol):
    name: str

    def plan(self, domain: Domain, problem: Problem, *, timeout: float | None = None) -> PlanResult: ...


_REGISTRY: dict[str, Callable[..., Planner]] = {}


def register(name: str) -> Callable[[Callable[..., Planner]], Callable[..., Planner]]:
    def deco(factory: Callable[..., Planner]) -> Callable[..., Planner]:
        _REGISTRY[name] = factory
        return factory
    return deco


def get_planner(name: str = "fast-downward", *, prune_above: int | None = 40, isolate: bool = False,
                **kwargs) -> Planner:
    """A planner by name. Problems with more than ``prune_above`` objects are planned with
    goal-relevant objects only (widening to the full task if that fails); None disables.
    ``isolate``: every call runs in a child process bounded by ``limits`` (wall time and
    memory, translation included; see planners.isolated)."""
    from groundplan.planners import fast_downward, pyperplan_planner  # noqa: F401  (registration)
    if name not in _REGISTRY:
        raise ConfigError(f"unknown planner '{name}' (available: {', '.join(sorted(_REGISTRY))})")
    planner = _REGISTRY[name](**kwargs)
    if prune_above is not None:
        from groundplan.planners.pruning import PruningPlanner

        planner = PruningPlanner(planner, prune_above)
    if isolate:
        from groundplan.planners.isolated import IsolatedPlanner

        planner = IsolatedPlanner(planner, kwargs.get("limits") or PlannerLimits.configured())
    return planner


def with_primary_bound(planner: Planner, seconds: float | None) -> Planner:
    """``planner`` whose first (optimal) search gets at most ``seconds`` before its fall-back
    search takes over: a copy sharing the translation cache, through the pruning and isolating
    wrappers; planners without a fall-back search are returned as they are."""
    if seconds is None:
        return planner
    if hasattr(planner, "inner"):
        inner = with_primary_bound(planner.inner, seconds)
        if inner is planner.inner:
            return planner
        out = copy.copy(planner)
        out.inner = inner
        return out
    if getattr(planner, "fallback_search", None) and hasattr(planner, "primary_max"):
        out = copy.copy(planner)
        out.primary_max = seconds if planner.primary_max is None else min(seconds, planner.primary_max)
        return out
    return planner


def available_planners() -> list[str]:
    from groundplan.planners import fast_downward, pyperplan_planner  # noqa: F401
    return sorted(_REGISTRY)


def packaged_binary(package: str, *parts: str, what: str) -> Path:
    """A planner binary shipped inside a wheel (``package``'s folder / ``parts``), located
    without importing the package (the up-* wheels import unified-planning); a missing
    package or file is a PlannerError naming what to install."""
    dist = package.replace("_", "-")
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise PlannerError(f"package {dist} is not installed (pip install {dist}); it provides {what}")
    p = Path(list(spec.submodule_search_locations)[0]).joinpath(*parts)
    if not p.exists():
        raise PlannerError(f"{what} not found at {p} (is {dist} installed?)")
    return p
