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


#: SayCan's location words for the AutoGPT+P kitchen objects (AutoGPT+P's rewording turned
#: "close counter" into "first counter" and "far counter" into "second counter")
SAYCAN_NAMES: Mapping[str, str] = MappingProxyType({"counter1": "close counter", "counter2": "far counter",
                                                     "trash_can0": "trash can"})


def _words(text: str) -> set[str]:
    return set(_norm(text).split())


_PLACE = {"close counter": "counter1", "near counter": "counter1", "first counter": "counter1",
          "far counter": "counter2", "second counter": "counter2", "table": "table0", "trash": "trash_can0"}


def _places(text: str) -> list[str]:
    """The locations an instruction names, in order, as scene objects (SayCan's and
    AutoGPT+P's words for them): a row whose two wordings name different places is flagged
    ``location_mismatch`` (AutoGPT+P moved, e.g., "from the close counter" to "from the
    second counter" with its scene)."""
    t = _norm(text)
    hits = sorted((m.start(), obj) for word, obj in _PLACE.items() for m in re.finditer(rf"\b{word}", t))
    out: list[str] = []
    for _, obj in hits:
        if obj not in out:
            out.append(obj)
    return out


def saycan101_judged_tasks(root: Optional[Path] = None, autogpt_p_root: Optional[Path] = None,
                           min_overlap: float = 0.3) -> list[Task]:
    """SayCan's 101 instructions in SayCan's own wording, each judged by executing to the gold
    goal AutoGPT+P wrote for the same instruction, in AutoGPT+P's scene for it.

    SayCan's planning success was judged by people ("the skills selected are correct for the
    instruction"); here a plan succeeds when that gold goal holds after executing it. The two
    sets list the same instructions family by family in the same order (AutoGPT+P adds three
    drawer rows, which SayCan's file does not have); row ``k`` of a family is joined to row
    ``k`` of the same family, and a pair whose words overlap less than ``min_overlap``
    (Jaccard) is a DatasetError naming both rows. ``extras['saycan_names']`` gives SayCan's
    words for the counters."""
    from groundplan.bench.datasets.autogpt_p import saycan_tasks

    own = saycan101_tasks(root)
    gold = saycan_tasks(autogpt_p_root) if autogpt_p_root else saycan_tasks()
    by_family: dict[str, list[Task]] = {}
    for t in gold:
        by_family.setdefault(t.subset, []).append(t)
    seen: dict[str, int] = {}
    out: list[Task] = []
    for t in own:
        k = seen.get(t.subset, 0)
        seen[t.subset] = k + 1
        rows = by_family.get(t.subset, [])
        if k >= len(rows):
            raise DatasetError(f"no AutoGPT+P row {k + 1} in family {t.subset} to judge '{t.instruction}'",
                               file=t.source.rsplit(":", 1)[0], line=int(t.source.rsplit(":", 1)[1]))
        g = rows[k]
        a, b = _words(t.instruction), _words(g.instruction)
        overlap = len(a & b) / max(1, len(a | b))
        if overlap < min_overlap:
            raise DatasetError(f"row '{t.instruction}' does not match AutoGPT+P's '{g.instruction}' ({g.source}): "
                               f"word overlap {overlap:.2f} < {min_overlap}", file=t.source.rsplit(":", 1)[0],
                               line=int(t.source.rsplit(":", 1)[1]))
        extras = {**dict(t.extras), "min_costs": g.extras.get("min_costs"), "gold_task": g.id,
                  "gold_instruction": g.instruction, "saycan_names": dict(SAYCAN_NAMES),
                  "location_mismatch": _places(t.instruction) != _places(g.instruction)}
        out.append(Task(id=t.id, dataset="saycan-101-judged", instruction=t.instruction, scene_file=g.scene_file,
                        goal=g.goal, oam_file=g.oam_file, subset=t.subset, extras=extras,
                        source=f"{t.source} + {g.source}"))
    return out


__all__ = ["saycan101_tasks", "saycan101_judged_tasks", "load_plans", "RAW_FAMILIES", "SAYCAN_NAMES"]
