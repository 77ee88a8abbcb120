"""The original SayCan evaluation instructions (../shared/data/saycan, CC BY 4.0): 101 queries
with raw task-family labels and robot / environment start states, joined with the SayCan
plan pairs where one exists. There is no PDDL goal and no scene file: ``goal`` is None and
``scene_file`` is empty; ``extras`` hold family, raw label, start states and the SayCan plan.

Raw labels are mapped to the paper's families (as in the data folder's NOTES.md):
Context/Disturbances -> Crowd-Sourced, Multiple -> Long-Horizon, Verb synonyms -> NL Verbs,
Noun synonyms -> NL Nouns, Single -> NL Single Primitive, Structured Language and Mirror Verb
synonyms -> Structured Language, Embodiment -> Embodiment. A blank label continues the
family above; a ``*note ...`` label is a note on that row, not a new family. Subsets use
AutoGPT+P's family keys so both SayCan sets share one report layout.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from types import MappingProxyType
from typing import Mapping, Optional

from groundplan.core.task import Task
from groundplan.datadir import data_dir
from groundplan.errors import DatasetError

QUERIES = "saycan_initial_condition_for_dataset_v0.tsv"
PLANS = "saycan_plan_v0_l.tsv"

#: raw label -> (AutoGPT+P family key, SayCan paper family name)
RAW_FAMILIES: Mapping[str, tuple[str, str]] = MappingProxyType({
    'context / disturbances = no "how would you"': ("saycan_f_crowd_sourced", "Crowd-Sourced"),
    "multiple": ("saycan_g_long_horizon", "Long-Horizon"),
    "abstract task specification: verb synonyms": ("saycan_b_nl_verb", "NL Verbs"),
    "abstract task specification: noun synonyms": ("saycan_c_nl_noun", "NL Nouns"),
    "abstract task specification: single": ("saycan_a_nl_primitive", "NL Single Primitive"),
    "structured language": ("saycan_d_structured_language", "Structured Language"),
    "mirror verb synonyms": ("saycan_d_structured_language", "Structured Language"),
    "embodiment": ("saycan_e_embodiment", "Embodiment"),
})


def _norm(text: str) -> str:
    return re.sub(r"[\s?.!,]+", " ", text.lower()).strip()


def _plan_steps(text: str) -> tuple[str, ...]:
    parts = re.split(r"(?:^|,\s*)\d+\.\s*", text.strip())
    return tuple(p.strip().rstrip(".").strip() for p in parts if p.strip())


def _read_tsv(path: Path) -> tuple[list[str], list[tuple[int, list[str]]]]:
    if not path.exists():
        raise DatasetError("dataset file not found", file=str(path))
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh, delimiter="\t"))
    if not rows:
        raise DatasetError("empty file", file=str(path))
    header = [h.strip() for h in rows[0]]
    return header, [(i, r) for i, r in enumerate(rows[1:], start=2) if any(c.strip() for c in r)]


def load_plans(root: Path) -> dict[str, tuple[str, ...]]:
    header, rows = _read_tsv(root / PLANS)
    if header[:2] != ["INPUT", "OUTPUT"]:
        raise DatasetError(f"expected columns INPUT, OUTPUT (has {', '.join(header)})", file=str(root / PLANS), line=1)
    return {_norm(r[0]): _plan_steps(r[1]) for _, r in rows if len(r) >= 2}


def saycan101_tasks(root: Optional[Path] = None) -> list[Task]:
    root = root or data_dir() / "saycan"
    path = root / QUERIES
    header, rows = _read_tsv(path)
    need = ("Task Family", "Query", "Robot Start State", "Env Start State")
    missing = [c for c in need if c not in header]
    if missing:
        raise DatasetError(f"missing column '{missing[0]}' (has {', '.join(header)})", file=str(path), line=1)
    col = {c: header.index(c) for c in need}
    plans = load_plans(root) if (root / PLANS).exists() else {}
    out: list[Task] = []
    family: Optional[tuple[str, str]] = None
    raw_family = ""
    for line, r in rows:
        def cell(name: str, r: list[str] = r) -> Optional[str]:
            i = col[name]
            return r[i].strip() if i < len(r) else None  # None: the row lacks the column

        label = cell("Task Family") or ""
        note = None
        if label.startswith("*"):
            note = label.lstrip("*").strip()
        elif label:
            family = RAW_FAMILIES.get(label.lower())
            raw_family = label
            if family is None:
                family = ("unknown", label)
        key, fam_name = family or ("unknown", "")
        query = cell("Query")
        extras = {"family": fam_name, "raw_family": raw_family, "robot_start": cell("Robot Start State"),
                  "env_start": cell("Env Start State"), "plan": list(plans.get(_norm(query or ""), ())) or None,
                  "note": note}
        missing_cols = [c for c in ("Query",) if cell(c) is None]
        if missing_cols:
            extras["missing_columns"] = missing_cols
        out.append(Task(id=f"{key}:{line}", dataset="saycan-101", instruction=query or "", scene_file="",
                        goal=None, subset=key, extras=extras, source=f"{path}:{line}"))
    return out


__all__ = ["saycan101_tasks", "load_plans", "RAW_FAMILIES"]
