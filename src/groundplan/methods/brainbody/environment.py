"""The interface every BrainBody-LLM environment offers (``Environment``: what the prompts
show, executing one command, scoring the final state) and its two records. The VirtualHome
environment is in ``envs``, the Franka tabletop in ``tabletop``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Protocol, Sequence


@dataclass(frozen=True)
class Outcome:
    ok: bool
    message: str = ""
    command: str = ""  # the command as executed (ids resolved)


@dataclass(frozen=True)
class Score:
    success: bool
    gcr: float
    detail: Mapping[str, Any]


class Environment(Protocol):
    actions: Sequence[str]

    def object_list(self) -> list[str]: ...

    def environment_info(self, task: str = "", limit: int = 60) -> str: ...

    def execute(self, command: str) -> Outcome: ...

    def score(self) -> Score: ...


__all__ = ["Outcome", "Score", "Environment"]
