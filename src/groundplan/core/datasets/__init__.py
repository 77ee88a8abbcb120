"""The dataset interface: a dataset is a named, versioned loader of ``Task`` rows
(``DatasetSpec``), kept in one registry by name.

The registry is filled by ``groundplan.bench.datasets`` (which registers every shipped
dataset; import it, or call its ``get_dataset``, to see them all). Dataset readers that
methods themselves need (ProgPrompt's VirtualHome sets, EAI's programs, the ALFRED-style
sample record) live in this package, below ``methods``; readers that use a method's code
(COWP, Wake et al., the ALFRED-style generator) live in ``groundplan.bench.datasets``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from groundplan.core.task import Task
from groundplan.errors import ConfigError


@dataclass(frozen=True)
class DatasetSpec:
    name: str
    version: str
    description: str
    loader: Callable[[], list[Task]]
    #: every row carries a gold goal (a row without one is malformed)
    has_goals: bool = True
    #: every row names a scene file (a row whose scene file is missing is malformed)
    has_scenes: bool = True


DATASETS: dict[str, DatasetSpec] = {}


def register(spec: DatasetSpec) -> None:
    DATASETS[spec.name] = spec


def get_dataset(name: str) -> DatasetSpec:
    """A registered dataset, or several joined with ``+`` (``autogptp-saycan+autogptp-plan-tool``):
    their tasks in order, one run; rows keep their own dataset name for reports."""
    parts = [p.strip() for p in name.split("+")]
    for p in parts:
        if p not in DATASETS:
            raise ConfigError(f"unknown dataset '{p}' (available: {', '.join(sorted(DATASETS))})")
    if len(parts) == 1:
        return DATASETS[parts[0]]
    specs = [DATASETS[p] for p in parts]

    def load() -> list[Task]:
        return [t for s in specs for t in s.loader()]

    return DatasetSpec("+".join(parts), "+".join(f"{s.name}@{s.version}" for s in specs),
                       "joined: " + "; ".join(s.description for s in specs), load,
                       has_goals=all(s.has_goals for s in specs), has_scenes=all(s.has_scenes for s in specs))


def load_tasks(name: str) -> list[Task]:
    return get_dataset(name).loader()


__all__ = ["DatasetSpec", "DATASETS", "register", "get_dataset", "load_tasks"]
