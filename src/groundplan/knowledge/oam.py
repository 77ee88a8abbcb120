"""Object-affordance maps (OAM): object class -> set of affordances.

Readers: AutoGPT+P's JSON (``{"oams": [{"object": c, "affordances": [{"name": a}]}]}``),
its CSV (``object,affordances`` one pair per row), and groundplan YAML (``class: [aff, ...]``).
The project's own default map for its bundled scenes ships as package data."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Mapping

import yaml

from groundplan.errors import InputError


@dataclass(frozen=True)
class OAM:
    mapping: Mapping[str, frozenset[str]]
    name: str = "oam"
    source: str | None = field(default=None, compare=False)

    def affordances(self, cls: str) -> frozenset[str]:
        return self.mapping.get(cls, frozenset())

    def __contains__(self, cls: str) -> bool:
        return cls in self.mapping

    @property
    def classes(self) -> list[str]:
        return sorted(self.mapping)

    def pairs(self) -> set[tuple[str, str]]:
        return {(c, a) for c, affs in self.mapping.items() for a in affs}

    def merged(self, other: "OAM") -> "OAM":
        m = dict(self.mapping)
        m.update(other.mapping)
        return OAM(m, f"{self.name}+{other.name}")

    def restricted(self, affordances: set[str]) -> "OAM":
        return OAM({c: a & affordances for c, a in self.mapping.items()}, self.name, self.source)


def load_oam(path: str | Path) -> OAM:
    p = Path(path)
    if not p.exists():
        raise InputError("OAM file not found", file=str(p))
    suffix = p.suffix.lower()
    try:
        if suffix == ".json":
            data = json.loads(p.read_text())
            entries = data["oams"] if isinstance(data, dict) else data
            mapping = {e["object"]: frozenset(a["name"] if isinstance(a, dict) else a for a in e["affordances"])
                       for e in entries}
        elif suffix == ".csv":
            acc: dict[str, set[str]] = {}
            with p.open(newline="") as fh:
                for i, row in enumerate(csv.DictReader(fh), start=2):
                    if not row.get("object"):
                        raise InputError("row without an object", file=str(p), line=i)
                    acc.setdefault(row["object"], set()).add(row["affordances"])
            mapping = {k: frozenset(v) for k, v in acc.items()}
        elif suffix in (".yaml", ".yml"):
            data = yaml.safe_load(p.read_text()) or {}
            mapping = {str(k): frozenset(v or ()) for k, v in data.items()}
        else:
            raise InputError(f"unknown OAM format '{suffix}' (expected .json, .csv or .yaml)", file=str(p))
    except (KeyError, TypeError, json.JSONDecodeError, yaml.YAMLError) as exc:
        raise InputError(f"malformed OAM: {exc}", file=str(p)) from None
    return OAM(mapping, p.stem, str(p))


def default_oam() -> OAM:
    """The project's own OAM for its bundled scenes and examples."""
    ref = resources.files("groundplan.knowledge").joinpath("data/default_oam.yaml")
    data = yaml.safe_load(ref.read_text())
    return OAM({str(k): frozenset(v or ()) for k, v in data.items()}, "groundplan-default")
