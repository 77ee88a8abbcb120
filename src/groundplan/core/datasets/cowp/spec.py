"""COWP's six tasks, their situations and the acceptability table, loaded once.

``task_spec(4)`` gives the task's metadata (tasks.yaml), its situations (the data set's
``situations_extracted_from_situation_simulator.json``, annotated by the project's
acceptability table), the object lists the simulator spawns from (``dataset/*.txt``) and
the task's own planning domain cut from the ``dining`` skill set.

Below ``methods`` and ``bench``: the cowp dataset draws its trials from it, the COWP-family
methods build their worlds from it (``groundplan.methods.cowp.spec`` re-exports it)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Mapping, Optional

from groundplan.datadir import data_dir
from groundplan.errors import ConfigError, DatasetError
from groundplan.pddl.formula import Formula
from groundplan.pddl.goal import parse_goal
from groundplan.pddl.model import Domain
from groundplan.schemas import yaml_lines as yaml_fast

TASK_IDS = (1, 4, 6, 9, 10, 11)
DATA_SUBDIR = "cowp-gpt-planner"
SITUATIONS_FILE = "situations_extracted_from_situation_simulator.json"
APPLIANCES_FILE = "appliances.txt"
#: files of dataset/ whose words belong to each category (a combined list is split by them)
CATEGORY_FILES = (("utensil", "utensils.txt"), ("beverage", "utensils_beverages.txt"),
                  ("furniture", "utensils_furnitures.txt"), ("food", "utensils_furnitures_foods.txt"))
_SUFFIX = re.compile(r"^(.*)_t(\d+)$")


@dataclass(frozen=True)
class Situation:
    """One distinguishable situation of a task, with its report counts and the project's
    annotation (what it disables, what fixes it)."""

    task: int
    id: int
    text: str  # "the cup is dirty."
    object: str  # the data's object word ("cup", "vacuum plug", "power")
    opposite: str  # "a cup clean."
    count: int  # human reports of this situation
    actions: Mapping[str, float]  # affected action -> reports at that action (count x share)
    target: Optional[str]  # role class it disables, or None (no object of the task at fault)
    fixers: tuple[str, ...]  # appliance words accepted to remedy it

    @property
    def key(self) -> str:
        return f"t{self.task}s{self.id}"


@dataclass(frozen=True)
class TaskSpec:
    id: int
    key: str
    name: str
    paper: str
    phrase: str
    instruction: str
    scene_file: Path
    candidates_file: str
    capabilities: tuple[str, ...]  # dining action names (with _tN suffixes)
    roles: tuple[str, ...]
    duplicate: tuple[str, ...]
    goal_text: str
    situations: tuple[Situation, ...] = ()
    substitutes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def goal(self) -> Formula:
        return parse_goal(self.goal_text)

    def action_name(self, dining_name: str) -> str:
        """The COWP name of a dining action in this task (``place_plate_t9`` -> ``place_plate``)."""
        m = _SUFFIX.match(dining_name)
        return m.group(1) if m and int(m.group(2)) == self.id else dining_name

    @property
    def action_names(self) -> tuple[str, ...]:
        return tuple(self.action_name(c) for c in self.capabilities)

    def situations_at(self, action: str) -> list[tuple[Situation, float]]:
        """Situations that can arise at ``action`` (COWP name), with their report counts there."""
        return [(s, s.actions[action]) for s in self.situations if s.actions.get(action, 0) > 0]

    def accepted(self, role: str) -> tuple[str, ...]:
        return self.substitutes.get(role, ())


def cowp_data_dir() -> Path:
    p = data_dir() / DATA_SUBDIR
    if not p.is_dir():
        raise ConfigError(f"COWP data not found at {p} (GPT-Planner's dataset/, experience/ and situation file)")
    return p


def _pkg_yaml(name: str) -> dict:
    return yaml_fast.safe_load(resources.files("groundplan.core.datasets.cowp").joinpath("data", name).read_text("utf-8"))


def scenes_dir() -> Path:
    return Path(str(resources.files("groundplan.core.datasets.cowp").joinpath("scenes")))


@lru_cache(maxsize=None)
def word_list(name: str, root: Optional[str] = None) -> tuple[str, ...]:
    """A word list of the data set's dataset/ folder, one object a line, in file order."""
    p = Path(root or cowp_data_dir()) / "dataset" / name
    if not p.is_file():
        raise DatasetError("COWP object list not found", file=str(p))
    return tuple(w.strip() for w in p.read_text(encoding="utf-8").splitlines() if w.strip())


@lru_cache(maxsize=None)
def categories(root: Optional[str] = None) -> Mapping[str, str]:
    """word -> COWP category (utensil, beverage, furniture, food, appliance)."""
    out: dict[str, str] = {}
    for cat, fname in CATEGORY_FILES:
        for w in word_list(fname, root):
            out.setdefault(w, cat)
    for w in word_list(APPLIANCES_FILE, root):
        out.setdefault(w, "appliance")
    return out


@lru_cache(maxsize=None)
def _situations(root: Optional[str] = None) -> Mapping[str, dict]:
    p = Path(root or cowp_data_dir()) / SITUATIONS_FILE
    if not p.is_file():
        raise DatasetError("COWP situation file not found", file=str(p))
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DatasetError(f"not JSON: {exc.msg}", file=str(p), line=exc.lineno) from None


@lru_cache(maxsize=None)
def task_spec(task_id: int, root: Optional[str] = None) -> TaskSpec:
    tasks = _pkg_yaml("tasks.yaml")["tasks"]
    if task_id not in tasks:
        raise ConfigError(f"COWP has no task {task_id} here (tasks: {', '.join(map(str, TASK_IDS))})")
    t = tasks[task_id]
    table = _pkg_yaml("acceptability.yaml")
    notes = table["situations"][task_id]
    raw = _situations(root).get(str(task_id))
    src = str(Path(root or cowp_data_dir()) / SITUATIONS_FILE)
    if raw is None:
        raise DatasetError(f"no situations for task {task_id}", file=src)
    sits = []
    for s in raw["situations"]:
        note = notes.get(s["id"])
        if note is None:
            raise DatasetError(f"task {task_id} situation {s['id']} ({s['text']!r}) is not in the acceptability "
                               f"table", file=src)
        if note["object"] != s["object"]:
            raise DatasetError(f"task {task_id} situation {s['id']}: object {s['object']!r}, the acceptability table "
                               f"expects {note['object']!r}", file=src)
        acts = {a: float(s["count"]) * float(p) for a, p in zip(s["affected_actions"], s["action_probs"])}
        sits.append(Situation(task_id, int(s["id"]), s["text"], s["object"], s["opposite"], int(s["count"]), acts,
                              note.get("target"), tuple(note.get("fixers") or ())))
    subs = {role: tuple(v or ()) for role, v in (table["substitutes"].get(task_id) or {}).items()}
    return TaskSpec(task_id, t["key"], t["name"], t["paper"], t["phrase"], t["instruction"],
                    scenes_dir() / t["scene"], t["candidates"], tuple(t["capabilities"]), tuple(t["roles"]),
                    tuple(t.get("duplicate") or ()), t["goal"], tuple(sits), subs)


def task_domain(union: Domain, spec: TaskSpec) -> Domain:
    """The task's planning domain: the dining actions it has, ``_tN`` suffixes stripped."""
    amap = union.action_map
    missing = [c for c in spec.capabilities if c not in amap]
    if missing:
        raise ConfigError(f"skill set 'dining' has no action '{missing[0]}' (task {spec.id})")
    actions = tuple(replace(amap[c], name=spec.action_name(c)) for c in spec.capabilities)
    return replace(union, actions=actions)


def nl_word(name: str) -> str:
    """An object or class said in words: ``dish_bowl0`` -> ``dish bowl``, ``cup1`` -> ``cup``."""
    return re.sub(r"\d+$", "", name).replace("_", " ").strip()


__all__ = ["TASK_IDS", "Situation", "TaskSpec", "task_spec", "task_domain", "word_list", "categories",
           "cowp_data_dir", "scenes_dir", "nl_word", "APPLIANCES_FILE", "SITUATIONS_FILE", "DATA_SUBDIR", "CATEGORY_FILES"]
