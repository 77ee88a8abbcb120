"""The affordance catalogue (AutoGPT+P appendix A), loaded from package data."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from groundplan.schemas import yaml_lines as yaml_fast


@dataclass(frozen=True)
class Affordance:
    name: str
    description: str
    planning: bool


@lru_cache(maxsize=1)
def catalogue() -> tuple[Affordance, ...]:
    text = resources.files("groundplan.knowledge").joinpath("data/affordances.yaml").read_text()
    return tuple(Affordance(d["name"], d["description"], bool(d["planning"])) for d in yaml_fast.safe_load(text))


def affordance_names() -> list[str]:
    return [a.name for a in catalogue()]


def describe(name: str) -> str:
    for a in catalogue():
        if a.name == name:
            return a.description
    raise KeyError(name)
