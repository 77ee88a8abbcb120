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

from groundplan.errors import InputError, did_you_mean
from groundplan.knowledge.affordances import affordance_names
from groundplan.schemas import EMPTY, LineMap, load_yaml, validate
from groundplan.schemas import yaml_lines as yaml_fast


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


_SHAPES = {".json": '{"oams": [{"object": ..., "affordances": [...]}]}',
           ".yaml": "object: [affordance, ...]", ".yml": "object: [affordance, ...]",
           ".csv": "columns object, affordances"}


def _entry_lines(text: str, level: int) -> list[int]:
    """Line numbers where each ``{`` opened at nesting ``level`` (strings skipped) starts."""
    out, depth, line, in_str, esc = [], 0, 1, False, False
    for ch in text:
        if ch == "\n":
            line += 1
        if in_str:
            esc, in_str = (False, in_str) if esc else (ch == "\\", ch != '"')
            continue
        if ch == '"':
            in_str = True
        elif ch in "[{":
            if ch == "{" and depth == level:
                out.append(line)
            depth += 1
        elif ch in "]}":
            depth -= 1
    return out


def _json_lines(text: str, file: str) -> LineMap:
    """Line numbers for a JSON OAM (JSON read as YAML keeps marks); none if YAML cannot read it."""
    try:
        return load_yaml(text, file=file)[1]
    except InputError:
        return EMPTY


def _yaml_mapping(text: str, file: str) -> dict[str, frozenset[str]]:
    """groundplan's YAML OAM, checked: the ``oam`` schema (a list of names per class, no
    class twice, no affordance twice) and every affordance in the catalogue."""
    data, lm = load_yaml(text, file=file)
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise InputError(f"malformed OAM: expected {_SHAPES['.yaml']}", file=file, line=lm.line(()))
    validate(data, "oam", file=file, lines=lm, top_word="class")
    known = set(affordance_names())
    for cls, affs in data.items():
        for j, a in enumerate(affs or ()):
            if a not in known:
                raise InputError(f"class '{cls}' has unknown affordance '{a}'{did_you_mean(a, known)} "
                                 f"(the catalogue: groundplan.knowledge.affordances)", file=file,
                                 line=lm.line((cls, j)))
    return {str(k): frozenset(v or ()) for k, v in data.items()}


def load_oam(path: str | Path) -> OAM:
    p = Path(path)
    if not p.exists():
        raise InputError("OAM file not found", file=str(p))
    suffix = p.suffix.lower()
    try:
        if suffix == ".json":
            text = p.read_text()
            data = json.loads(text)
            lm = _json_lines(text, str(p))
            if isinstance(data, dict) and "oams" not in data:
                key = next(iter(data), "")
                raise InputError(f"unknown key '{key}'{did_you_mean(key, ['oams'])} (expected {_SHAPES['.json']})",
                                 file=str(p), line=lm.line((key,)) or 1)
            entries = data["oams"] if isinstance(data, dict) else data
            mapping = {}
            for k, e in enumerate(entries):
                try:
                    mapping[e["object"]] = frozenset(a["name"] if isinstance(a, dict) else a for a in e["affordances"])
                except (KeyError, TypeError) as exc:
                    lines = _entry_lines(text, 2 if isinstance(data, dict) else 1)
                    what = f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)
                    raise InputError(f"malformed OAM entry {k + 1}: {what} (expected {_SHAPES['.json']})",
                                     file=str(p), line=lines[k] if k < len(lines) else None) from None
            validate(data, "oam_json", file=str(p), lines=lm, top_word="key")
        elif suffix == ".csv":
            acc: dict[str, set[str]] = {}
            with p.open(newline="") as fh:
                reader = csv.DictReader(fh)
                if [c.strip() for c in reader.fieldnames or []] != ["object", "affordances"]:
                    raise InputError(f"expected the header row 'object,affordances', got "
                                     f"'{','.join(reader.fieldnames or [])}'", file=str(p), line=1)
                for i, row in enumerate(reader, start=2):
                    if not row.get("object"):
                        raise InputError("row without an object", file=str(p), line=i)
                    aff = (row.get("affordances") or "").strip()
                    if not aff or len(aff.split()) != 1 or len(row) != 2 or None in row:
                        first = (aff.split() or ["grasp"])[0]
                        raise InputError(f"row '{','.join(str(v) for v in row.values() if v)}' is not one object and "
                                         f"one affordance (one pair per row: {row['object']},{first})",
                                         file=str(p), line=i)
                    acc.setdefault(row["object"].strip(), set()).add(aff)
            mapping = {k: frozenset(v) for k, v in acc.items()}
        elif suffix in (".yaml", ".yml"):
            mapping = _yaml_mapping(p.read_text(), str(p))
        else:
            raise InputError(f"unknown OAM format '{suffix}' (expected .json, .csv or .yaml)", file=str(p))
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed OAM: invalid JSON: {exc.msg}", file=str(p), line=exc.lineno) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
        raise InputError(f"malformed OAM: invalid YAML: {problem}", file=str(p),
                         line=mark.line + 1 if mark is not None else None) from None
    except (KeyError, TypeError, AttributeError) as exc:
        what = f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)
        raise InputError(f"malformed OAM: {what} (expected {_SHAPES.get(suffix, 'a mapping')})",
                         file=str(p), line=1) from None
    return OAM(mapping, p.stem, str(p))


def default_oam() -> OAM:
    """The project's own OAM for its bundled scenes and examples."""
    ref = resources.files("groundplan.knowledge").joinpath("data/default_oam.yaml")
    data = yaml_fast.safe_load(ref.read_text())
    return OAM({str(k): frozenset(v or ()) for k, v in data.items()}, "groundplan-default")
