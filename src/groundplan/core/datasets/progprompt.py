"""ProgPrompt's VirtualHome sets (../shared/data/progprompt-vh, NVIDIA source licence,
research use): ``env1`` and ``env2`` (10 tasks each in VirtualHome environments 1 and 2, with
initial and final graphs) and ``test_unseen`` (the 10 environment-0 tasks BrainBody-LLM
reports, with final graphs only).

Goal conditions are computed as ProgPrompt's ``run_eval.py`` does: at the level of class
names, the relations (``salmon INSIDE fridge``) and states (``fridge CLOSED``) of the gold
final graph that are not in the initial graph. A run's GCR is the share of them its final
graph has, SR is GCR == 1 (``progprompt_eval``). Each task's ``goal`` states the same
conditions as a formula over the ``virtualhome`` skill set, one existential per condition
(``(exists (?a - salmon ?b - fridge) (inside ?a ?b))``).

Environment 0's initial graph is not in the data. It is derived from the ten final graphs
of test_unseen: a node state or edge is initial if more than half of the final graphs have
it (each task changes only a few facts); the character is then placed in the kitchen (where
ProgPrompt's run adds it) with no other edge. The same derivation applied to env1 and env2
reproduces their recorded initial graphs exactly except the character's own edges (the
Unity simulator places it near a few objects), which are unknowable for env0: goal
conditions of the form ``character CLOSE x`` may therefore count a few more than in
ProgPrompt's runs.

Scene files: each task's initial graph is written (once) to a cache directory outside the
repository (``$XDG_CACHE_HOME/groundplan/virtualhome``), since ``load_scene`` reads one graph
per file.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Optional

from groundplan.core.metrics import gcr as condition_recall
from groundplan.core.metrics import sr as success_rate
from groundplan.core.task import Task
from groundplan.datadir import data_dir
from groundplan.errors import DatasetError
from groundplan.world.virtualhome import (
    RELATION_PREDICATES,
    STATE_PREDICATES,
    VHGraph,
    VHNode,
    class_type,
    parse_script_line,
)

SPLITS = ("env1", "env2", "test_unseen")
#: order of test_unseen's tasks in final_states_test_unseen.json: ProgPrompt listed the
#: folder (os.listdir), which gave file3 before file1 (checked by the gold scripts reaching
#: each final graph, see tests/test_virtualhome_datasets.py)
TEST_UNSEEN_FILES = ("file3_annotated.json", "file1_annotated.json")


def progprompt_root() -> Path:
    return data_dir() / "progprompt-vh" / "data"


def cache_dir() -> Path:
    base = os.environ.get("GROUNDPLAN_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "groundplan")
    p = Path(base) / "virtualhome"
    p.mkdir(parents=True, exist_ok=True)
    return p


def _json_lines(path: Path) -> list[Any]:
    if not path.is_file():
        raise DatasetError("dataset file not found", file=str(path))
    out = []
    for i, line in enumerate(path.read_text().splitlines(), start=1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise DatasetError(f"invalid JSON: {exc}", file=str(path), line=i) from None
    return out


@dataclass(frozen=True)
class AnnotatedTask:
    name: str
    steps: tuple[tuple[str, tuple[str, ...]], ...]  # (NL step without its number, script lines)
    source: str

    @property
    def script(self) -> list[str]:
        return [c for _, cmds in self.steps for c in cmds]

    @property
    def has_nl_steps(self) -> bool:
        return not (len(self.steps) == 1 and self.steps[0][0].strip("0") == "")


def _annotated(path: Path) -> list[AnnotatedTask]:
    out = []
    for i, row in enumerate(_json_lines(path), start=1):
        if not isinstance(row, dict) or len(row) != 1:
            raise DatasetError("expected one {task: {step: [script lines]}} object per line", file=str(path), line=i)
        name, steps = next(iter(row.items()))
        parsed = []
        for k, cmds in steps.items():
            text = k.split(":", 1)[1].strip() if ":" in k else k.strip()
            parsed.append((text, tuple(cmds)))
        out.append(AnnotatedTask(name, tuple(parsed), f"{path}:{i}"))
    return out


def train_tasks(root: Optional[Path] = None) -> list[AnnotatedTask]:
    """The 35 environment-0 training rows (task, NL steps, script lines): prompt examples."""
    root = root or progprompt_root()
    out: list[AnnotatedTask] = []
    seen = set()
    for f in sorted((root / "train").glob("*.json"), key=lambda p: int("".join(c for c in p.stem if c.isdigit()) or 0)):
        for t in _annotated(f):
            if t.name not in seen:
                seen.add(t.name)
                out.append(t)
    return out


def pythonic_plans(root: Optional[Path] = None) -> dict[str, str]:
    path = (root or progprompt_root()) / "pythonic_plans" / "train_complete_plan_set.json"
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise DatasetError(f"cannot read pythonic plans: {exc}", file=str(path)) from None


# ------------------------------------------------------------------------- env 0 initial graph


def derive_initial_graph(finals: Iterable[VHGraph], *, character_room: str = "kitchen") -> VHGraph:
    """The initial graph behind several final graphs of one environment: the states and
    edges more than half of them share; the character inside ``character_room`` and nothing else."""
    finals = list(finals)
    if not finals:
        raise DatasetError("no final graphs to derive an initial graph from")
    n = len(finals)
    edges: Counter = Counter()
    states: Counter = Counter()
    for g in finals:
        edges.update(g.edge_set)
        states.update((nd.id, s) for nd in g.nodes for s in nd.states)
    base = finals[0]
    chars = {c.id for c in base.characters}
    keep_states: dict[int, list[str]] = {nd.id: [] for nd in base.nodes}
    for (nid, s), c in states.items():
        if c * 2 > n and nid in keep_states and nid not in chars:
            keep_states[nid].append(s)
    kept = [e for e, c in edges.items() if c * 2 > n and e[0] not in chars and e[2] not in chars]
    rooms = [nd for nd in base.nodes if nd.category == "Rooms" and nd.class_name == character_room]
    if not rooms:
        raise DatasetError(f"no room '{character_room}' to place the character in", file=base.source)
    kept += [(c, "INSIDE", rooms[0].id) for c in sorted(chars)]
    order = {nd.id: i for i, nd in enumerate(base.nodes)}
    kept.sort(key=lambda e: (order.get(e[0], 0), e[1], order.get(e[2], 0)))
    g = base.with_changes({k: sorted(v) for k, v in keep_states.items()}, kept)
    return VHGraph(g.nodes, g.edges, f"derived from {base.source}")


# ------------------------------------------------------------------------- ProgPrompt's metric


def _class_sets(g: VHGraph) -> tuple[set[str], set[str]]:
    cls = {nd.id: nd.class_name for nd in g.nodes}
    rels = {f"{cls[f]} {r} {cls[t]}" for f, r, t in g.edges if f in cls and t in cls}
    sts = {f"{nd.class_name} {s}" for nd in g.nodes for s in nd.states}
    return rels, sts


def goal_conditions(initial: VHGraph, gt_final: VHGraph) -> tuple[list[str], list[str]]:
    """ProgPrompt's goal conditions: (relations, states) of the gold final graph not in the initial one."""
    ri, si = _class_sets(initial)
    rg, sg = _class_sets(gt_final)
    return sorted(rg - ri), sorted(sg - si)


@dataclass(frozen=True)
class ProgPromptScore:
    sr: bool
    gcr: float
    unsatisfied: tuple[str, ...]
    total: int


def progprompt_eval(initial: VHGraph, gt_final: VHGraph, final: VHGraph) -> ProgPromptScore:
    """ProgPrompt's ``eval``: unsatisfied = (gt - initial) - (final - initial), class level."""
    ri, si = _class_sets(initial)
    rg, sg = _class_sets(gt_final)
    rf, sf = _class_sets(final)
    uns = sorted(((rg - ri) - (rf - ri)) | ((sg - si) - (sf - si)))
    total = len(rg - ri) + len(sg - si)
    recall = condition_recall(total - len(uns), total)  # the one GCR/SR rule (core.metrics)
    return ProgPromptScore(success_rate(recall), recall, tuple(uns), total)


def conditions_formula(relations: Iterable[str], states: Iterable[str]) -> str:
    """The conditions as a formula over the ``virtualhome`` skill set (one existential each)."""
    lits = []
    for r in relations:
        a, rel, b = r.split(" ")
        pred = RELATION_PREDICATES.get(rel)
        if pred is None:
            continue
        lits.append(f"(exists (?a - {class_type(a)} ?b - {class_type(b)}) ({pred} ?a ?b))")
    for s in states:
        a, st = s.rsplit(" ", 1)
        pred = STATE_PREDICATES.get(st)
        if pred is None:
            continue
        lits.append(f"(exists (?a - {class_type(a)}) ({pred} ?a))")
    return "(and " + " ".join(lits) + ")"


# ------------------------------------------------------------------------- tasks


def _materialise(graph: VHGraph, key: str) -> Path:
    text = json.dumps(graph.to_dict())
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    p = cache_dir() / f"{key}-{digest}.json"
    if not p.is_file():
        tmp = p.with_suffix(".tmp")
        tmp.write_text(text)
        tmp.replace(p)
    return p


@lru_cache(maxsize=8)
def _split_data(split: str, root: str) -> tuple[list[AnnotatedTask], list[VHGraph], list[VHGraph], list[str]]:
    r = Path(root)
    fs = r / "final_states"
    if split in ("env1", "env2"):
        tasks = _annotated(r / "new_env" / f"{split}_annotated.json")
        inits = [VHGraph.from_dict(g, source=f"{fs / f'initial_states_{split}.json'}:{i + 1}")
                 for i, g in enumerate(_json_lines(fs / f"initial_states_{split}.json"))]
        finals_file = fs / f"final_states_{split}.json"
    elif split == "test_unseen":
        tasks = [t for f in TEST_UNSEEN_FILES for t in _annotated(r / "test_unseen" / f)]
        finals_file = fs / "final_states_test_unseen.json"
        inits = []
    else:
        raise DatasetError(f"unknown ProgPrompt split '{split}' (known: {', '.join(SPLITS)})")
    finals = [VHGraph.from_dict(g, source=f"{finals_file}:{i + 1}") for i, g in enumerate(_json_lines(finals_file))]
    if split == "test_unseen":
        init = derive_initial_graph(finals)
        inits = [init] * len(finals)
    if not (len(tasks) == len(finals) == len(inits)):
        raise DatasetError(f"{split}: {len(tasks)} tasks but {len(finals)} final and {len(inits)} initial graphs",
                           file=str(finals_file))
    sources = [f"{finals_file}:{i + 1}" for i in range(len(finals))]
    return tasks, inits, finals, sources


def split_graphs(split: str, root: Optional[Path] = None) -> tuple[list[AnnotatedTask], list[VHGraph], list[VHGraph]]:
    tasks, inits, finals, _ = _split_data(split, str(root or progprompt_root()))
    return tasks, inits, finals


def progprompt_tasks(split: str, root: Optional[Path] = None) -> list[Task]:
    tasks, inits, finals, sources = _split_data(split, str(root or progprompt_root()))
    out = []
    for i, (t, init, fin, src) in enumerate(zip(tasks, inits, finals, sources)):
        rels, sts = goal_conditions(init, fin)
        scene = _materialise(init, f"progprompt-{split}-{i}")
        final_file = _materialise(fin, f"progprompt-{split}-{i}-final")
        steps = [{"step": s, "script": list(c)} for s, c in t.steps]
        for c in t.script:  # every gold line must at least parse
            parse_script_line(c)
        out.append(Task(
            id=f"{split}:{i}", dataset=f"progprompt-{split}", instruction=t.name, scene_file=str(scene),
            goal=conditions_formula(rels, sts), skillset="virtualhome", subset=split,
            extras={"split": split, "gold_steps": steps, "gold_script": t.script, "has_nl_steps": t.has_nl_steps,
                    "goal_relations": rels, "goal_states": sts, "final_graph_file": str(final_file),
                    "initial_derived": split == "test_unseen", "annotation": t.source},
            source=src))
    return out


def env1_tasks() -> list[Task]:
    return progprompt_tasks("env1")


def env2_tasks() -> list[Task]:
    return progprompt_tasks("env2")


def test_unseen_tasks() -> list[Task]:
    return progprompt_tasks("test_unseen")


def node_summary(n: VHNode) -> str:
    return f"{n.class_name} ({n.id})" + (f" [{', '.join(n.states)}]" if n.states else "")


__all__ = ["SPLITS", "progprompt_root", "AnnotatedTask", "train_tasks", "pythonic_plans", "derive_initial_graph",
           "goal_conditions", "ProgPromptScore", "progprompt_eval", "conditions_formula", "split_graphs",
           "progprompt_tasks", "env1_tasks", "env2_tasks", "test_unseen_tasks"]
