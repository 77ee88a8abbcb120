"""The Task record every dataset produces and every method consumes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional


@dataclass(frozen=True)
class Task:
    id: str  # unique within its dataset, stable across runs
    dataset: str
    instruction: str
    scene_file: str
    goal: Optional[str]  # goal spec: a formula over the scene's objects
    skillset: str = "household"
    oam_file: Optional[str] = None
    subset: str = ""  # family / subset used by reports
    extras: Mapping[str, Any] = field(default_factory=dict)  # min_costs, min_tool_calls, explored, ...
    source: str = ""  # file:row for error messages
