"""The record of one ALFRED-style sample (goal in words and in PDDL, floor plan and seed of
its generated scene, the gold plan in RobLM's text format). ``groundplan.bench.datasets.alfred``
generates and reads these; the ``roblm`` method reads one from a task's ``extras["alfred"]``."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from groundplan.errors import DatasetError
from groundplan.world.alfred import generate_scene
from groundplan.world.scene import Scene


@dataclass(frozen=True)
class AlfredSample:
    id: str
    split: str
    category: str
    floorplan: int
    seed: int
    goal_text: str
    goal_pddl: str
    target: str  # the target object instance (Graph2NL's target node)
    plan: str  # gold plan, class names, RobLM text format
    fd_plan: tuple[str, ...] = ()  # the Fast Downward plan over instances
    fd_seconds: float = 0.0
    extras: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["fd_plan"] = list(self.fd_plan)
        return d

    @staticmethod
    def from_json(d: dict[str, Any], source: str = "") -> "AlfredSample":
        try:
            return AlfredSample(**{**d, "fd_plan": tuple(d.get("fd_plan", ()))})
        except TypeError as exc:
            raise DatasetError(f"malformed sample: {exc}", file=source) from None

    def scene(self) -> Scene:
        return generate_scene(self.floorplan, self.seed)


__all__ = ["AlfredSample"]
