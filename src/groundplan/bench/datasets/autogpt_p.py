"""AutoGPT+P datasets (../shared/data/autogpt-p): the SayCan set (104 rows, 8 families),
the plan-tool sets, the 150 autogptp_* scenarios and the substitution sets."""

from __future__ import annotations

import csv
from pathlib import Path

from groundplan.core.task import Task
from groundplan.datadir import autogpt_p_root
from groundplan.errors import DatasetError

EVAL = Path("autogpt_p/data/evaluation")
SAYCAN_OAM = Path("object_affordance_mapping/data/oam/saycan_oam.json")
# The simulation scenes were evaluated with the GPT-4-generated OAM (e.g. counters are
# carry there, so "clean counter0" is reachable as in the logs); classes it lacks come
# from simulation_classes_2.json.
SIM_OAM_FILES = (Path("object_affordance_mapping/data/oam/simulation_classes_2.json"),
                 Path("object_affordance_mapping/data/oam/gpt-4_.json"))
SAYCAN_FAMILIES = ("saycan_a_nl_primitive", "saycan_b_nl_verb", "saycan_c_nl_noun", "saycan_d_structured_language",
                   "saycan_e_embodiment", "saycan_f_crowd_sourced", "saycan_g_long_horizon", "saycan_x_drawer")
PLAN_TOOL_SETS = ("simple_task", "simple_goal", "complex_goal", "knowledge", "implicit")
SCENARIO_SETS = ("plan", "partial", "exploration", "alternative", "complex")
SUBSTITUTION_SETS = ("simple", "medium", "complex")


def _rows(path: Path, required: tuple[str, ...]):
    if not path.exists():
        raise DatasetError("dataset file not found", file=str(path))
    with path.open(newline="") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in required if c not in (reader.fieldnames or [])]
        if missing:
            raise DatasetError(f"missing column '{missing[0]}' (has {', '.join(reader.fieldnames or [])})",
                               file=str(path), line=1)
        for i, row in enumerate(reader, start=2):
            # a short row leaves cells None: keep the row (the harness reports it by
            # file:row as invalid) instead of crashing the loader
            yield i, {k: (v if v is not None else "") for k, v in row.items() if k is not None}


def _sim_oam(root: Path) -> str:
    import os

    return os.pathsep.join(str(root / p) for p in SIM_OAM_FILES)


def _int(v: str | None):
    try:
        return int(float(v)) if v not in (None, "") else None
    except ValueError:
        return None


def saycan_tasks(root: Path | None = None) -> list[Task]:
    root = root or autogpt_p_root()
    out = []
    for fam in SAYCAN_FAMILIES:
        path = root / EVAL / "saycan" / "scenarios" / f"{fam}.csv"
        for i, row in _rows(path, ("task", "scene_file", "desired_goal", "min_costs")):
            out.append(Task(id=f"{fam}:{i}", dataset="autogptp-saycan", instruction=row["task"],
                            scene_file=str(root / EVAL / "saycan" / "scenes" / row["scene_file"]),
                            goal=row["desired_goal"], oam_file=str(root / SAYCAN_OAM), subset=fam,
                            extras={"min_costs": _int(row["min_costs"])}, source=f"{path}:{i}"))
    return out


def plan_tool_tasks(root: Path | None = None, sets=PLAN_TOOL_SETS) -> list[Task]:
    root = root or autogpt_p_root()
    out = []
    for name in sets:
        path = root / EVAL / "scenarios" / f"evaluation_{name}.csv"
        for i, row in _rows(path, ("task", "scene_file", "desired_goal", "min_costs")):
            out.append(Task(id=f"{name}:{i}", dataset="autogptp-plan-tool", instruction=row["task"],
                            scene_file=str(root / EVAL / "scenes" / row["scene_file"]), goal=row["desired_goal"],
                            oam_file=_sim_oam(root), subset=name,
                            extras={"min_costs": _int(row["min_costs"])}, source=f"{path}:{i}"))
    return out


def _trim_surplus_parens(goal: str) -> str:
    """A goal with more closing than opening parentheses at its end (autogptp_partial row 2:
    ``and (inhand apple0 human0))``) without the surplus ones; any other goal unchanged."""
    t = (goal or "").rstrip()
    while t.endswith(")") and t.count(")") > t.count("("):
        t = t[:-1].rstrip()
    return t if t != (goal or "").rstrip() else goal


def scenario_tasks(root: Path | None = None, sets=SCENARIO_SETS) -> list[Task]:
    root = root or autogpt_p_root()
    out = []
    for name in sets:
        path = root / EVAL / "scenarios" / f"autogptp_{name}.csv"
        cols = ("task", "scene_file", "explored", "substitutions_file", "desired_goal", "min_tool_calls", "min_costs")
        for i, row in _rows(path, cols):
            explored = [e for e in (row["explored"] or "").split() if e]
            goal = _trim_surplus_parens(row["desired_goal"])
            repaired = {"goal_as_written": row["desired_goal"]} if goal != row["desired_goal"] else {}
            out.append(Task(id=f"{name}:{i}", dataset="autogptp-scenarios", instruction=row["task"],
                            scene_file=str(root / EVAL / "scenes" / row["scene_file"]), goal=goal,
                            oam_file=_sim_oam(root), subset=name,
                            extras={"min_costs": _int(row["min_costs"]), "min_tool_calls": _int(row["min_tool_calls"]),
                                    "explored": explored,
                                    "substitutions_file": str(root / EVAL / "allowed_substitutions" / row["substitutions_file"]),
                                    **repaired},
                            source=f"{path}:{i}"))
    return out


def substitution_tasks(root: Path | None = None, sets=SUBSTITUTION_SETS) -> list[Task]:
    root = root or autogpt_p_root()
    out = []
    for name in sets:
        path = root / EVAL / "scenarios" / f"substitution_{name}.csv"
        for i, row in _rows(path, ("task", "scene_file", "missing_object", "alternatives")):
            out.append(Task(id=f"{name}:{i}", dataset="autogptp-substitution", instruction=row["task"],
                            scene_file=str(root / EVAL / "scenes" / row["scene_file"]), goal=None,
                            oam_file=_sim_oam(root), subset=name,
                            extras={"missing_object": row["missing_object"],
                                    "alternatives": (row["alternatives"] or "").split()},
                            source=f"{path}:{i}"))
    return out
