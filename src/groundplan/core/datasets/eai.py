"""Embodied Agent Interface's VirtualHome tasks (PyPI package eai-eval, module
``virtualhome_eval``; MIT): 342 programs of VirtualHome's scene 1 ("TrimmedTestScene1"), each
with its initial and final environment graph, the gold program (a VirtualHome script) and the
symbolic goal EAI evaluates (``vh_goal``: node states, edges, and actions that must occur).

The package is read where pip installed it; nothing is copied. It depends on heavy packages
the evaluator does not need, so install it without them::

    pip install --no-deps eai-eval==1.0.5

Each task's gold goal is the conjunction of its node and edge goals over the
``virtualhome`` skill set (``(switched_on washing_machine_1001)``, ``(on soap_1002
washing_machine_1001)``); action goals (``"RINSE|WASH"``) are kept in ``extras`` and checked
on the executed script (EAI's ``check_order_with_or_score``).
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence

from groundplan.core.metrics import gcr as condition_recall
from groundplan.core.task import Task
from groundplan.errors import DatasetError
from groundplan.world.virtualhome import (
    RELATION_PREDICATES,
    STATE_PREDICATES,
    VHGraph,
    object_name,
    parse_script,
    read_vh_graph_file,
)

INSTALL_HINT = "pip install --no-deps eai-eval==1.0.5"
PROGRAMS = "programs_processed_precond_nograb_morepreconds"
SCENE_DIR = "TrimmedTestScene1_graph/results_intentions_march-13-18"
DATASET = "eai-virtualhome"


def eai_root() -> Path:
    """The installed ``virtualhome_eval`` package directory."""
    spec = importlib.util.find_spec("virtualhome_eval")
    if spec is None or not spec.submodule_search_locations:
        raise DatasetError(f"EAI's VirtualHome data needs the package eai-eval: {INSTALL_HINT}")
    return Path(list(spec.submodule_search_locations)[0])


@dataclass(frozen=True)
class EAIProgram:
    file_id: str
    task_name: str
    title: str
    description: str
    lines: tuple[str, ...]  # gold script lines as in the file ("[WALK] <dining_room> (1.201)")
    graph_file: Path  # {init_graph, final_graph}
    program_file: Path
    vh_goal: Mapping[str, Any]

    @property
    def node_goals(self) -> list[dict]:
        return [g for g in self.vh_goal.get("goal", []) if "state" in g]

    @property
    def edge_goals(self) -> list[dict]:
        return [g for g in self.vh_goal.get("goal", []) if "relation_type" in g]

    @property
    def action_goals(self) -> list[str]:
        return list(dict.fromkeys(self.vh_goal.get("actions", [])))

    def graphs(self) -> tuple[VHGraph, VHGraph]:
        data = json.loads(self.graph_file.read_text())
        return (VHGraph.from_dict(data["init_graph"], source=str(self.graph_file)),
                VHGraph.from_dict(data["final_graph"], source=str(self.graph_file)))


def _read_program(path: Path) -> tuple[str, str, tuple[str, ...]]:
    lines = path.read_text().splitlines()
    title = lines[0].strip() if lines else ""
    desc = lines[1].strip() if len(lines) > 1 else ""
    return title, desc, tuple(x.strip() for x in lines if x.strip().startswith("["))


@lru_cache(maxsize=2)
def load_programs(root: Optional[str] = None) -> tuple[EAIProgram, ...]:
    base = Path(root) if root else eai_root()
    res = base / "resources" / "virtualhome"
    data = base / "dataset" / PROGRAMS
    try:
        id2task = json.loads((res / "id2task.json").read_text())
        goals = json.loads((res / "task_state_LTL_formula_accurate.json").read_text())["scene_1"]
    except (OSError, KeyError, json.JSONDecodeError) as exc:
        raise DatasetError(f"EAI resources unreadable ({exc}); reinstall: {INSTALL_HINT}", file=str(res)) from None
    out = []
    for fid, tname in id2task.items():
        prog = data / "executable_programs" / SCENE_DIR / f"file{fid}.txt"
        graph = data / "init_and_final_graphs" / SCENE_DIR / f"file{fid}.json"
        if not prog.is_file() or not graph.is_file():
            raise DatasetError(f"task {fid}: program or graph file missing", file=str(prog))
        title, desc, lines = _read_program(prog)
        try:
            vh_goal = goals[tname][fid]["vh_goal"]
        except KeyError:
            raise DatasetError(f"task {fid} ({tname}) has no vh_goal", file=str(res / "task_state_LTL_formula_accurate.json")) from None
        out.append(EAIProgram(fid, tname, title, desc, lines, graph, prog, vh_goal))
    return tuple(out)


def goal_formula(program: EAIProgram, graph: VHGraph) -> str:
    """The node and edge goals as a conjunction over the skill set's predicates."""
    lits = []
    for g in program.node_goals:
        node = graph.node(int(g["id"]))
        cls = node.class_name if node else g.get("class_name", "object")
        pred = STATE_PREDICATES.get(str(g["state"]).upper())
        if pred is None:
            raise DatasetError(f"task {program.file_id}: unknown node state '{g['state']}'")
        lits.append(f"({pred} {object_name(cls, int(g['id']))})")
    for g in program.edge_goals:
        a, b = graph.node(int(g["from_id"])), graph.node(int(g["to_id"]))
        if a is None or b is None:
            raise DatasetError(f"task {program.file_id}: edge goal names a node the initial graph lacks: {g}")
        rel = RELATION_PREDICATES.get(str(g["relation_type"]).upper())
        if rel is None:
            raise DatasetError(f"task {program.file_id}: unknown relation '{g['relation_type']}'")
        lits.append(f"({rel} {a.name} {b.name})")
    return "(and " + " ".join(dict.fromkeys(lits)) + ")"


def action_goal_matches(action_goals: Sequence[str], executed: Iterable[str]) -> int:
    """EAI's ``check_order_with_or_score``: how many action goals (``"RINSE|WASH"``) occur, in
    order, in the executed script lines (stops at the first that does not)."""
    text = " ".join(executed)
    start, count = 0, 0
    for group in action_goals:
        for option in group.split("|"):
            idx = text.find(option.upper().replace(" ", ""), start)
            if idx != -1:
                start = idx + len(option.replace(" ", ""))
                count += 1
                break
        else:
            break
    return count


@dataclass(frozen=True)
class GoalCheck:
    success: bool
    satisfied: int
    total: int
    unsatisfied: tuple[str, ...]

    @property
    def gcr(self) -> float:
        return condition_recall(self.satisfied, self.total)  # the one GCR rule (core.metrics)


def check_vh_goal(graph: VHGraph, vh_goal: Mapping[str, Any], executed: Sequence[str] = ()) -> GoalCheck:
    """EAI's goal on a final graph: every node state, every edge, every action goal (the
    evaluator's intent; its ``scene_evaluate_wID`` stops counting edges after the first match)."""
    goals = vh_goal.get("goal", [])
    nodes = [g for g in goals if "state" in g]
    edges = [g for g in goals if "relation_type" in g]
    uns = []
    sat = 0
    for g in {json.dumps(x, sort_keys=True): x for x in nodes}.values():
        n = graph.node(int(g["id"]))
        if n is not None and str(g["state"]).upper() in n.states:
            sat += 1
        else:
            uns.append(f"{g.get('class_name')} ({g['id']}) {g['state']}")
    for g in {json.dumps(x, sort_keys=True): x for x in edges}.values():
        if (int(g["from_id"]), str(g["relation_type"]).upper(), int(g["to_id"])) in graph.edge_set:
            sat += 1
        else:
            uns.append(f"({g['from_id']}) {g['relation_type']} ({g['to_id']})")
    actions = list(dict.fromkeys(vh_goal.get("actions", [])))
    matched = action_goal_matches(actions, executed)
    sat += matched
    uns += actions[matched:]
    total = len({json.dumps(x, sort_keys=True) for x in nodes}) + len({json.dumps(x, sort_keys=True) for x in edges}) \
        + len(actions)
    return GoalCheck(sat == total, sat, total, tuple(uns))


def eai_tasks(root: Optional[str] = None) -> list[Task]:
    out = []
    for p in load_programs(root):
        try:
            init = read_vh_graph_file(p.graph_file)
            goal = goal_formula(p, init)
        except DatasetError:
            goal = None
        gold = [ln.text(char=False) for ln in parse_script(list(p.lines))]
        out.append(Task(
            id=p.file_id, dataset=DATASET, instruction=p.title or p.task_name, scene_file=str(p.graph_file),
            goal=goal, skillset="virtualhome", subset=p.task_name,
            extras={"task_name": p.task_name, "description": p.description, "gold_script": gold,
                    "vh_goal": dict(p.vh_goal), "action_goals": p.action_goals, "graph_format": "eai",
                    "program_file": str(p.program_file)},
            source=f"{p.program_file}:1"))
    return out


__all__ = ["EAIProgram", "eai_root", "load_programs", "goal_formula", "check_vh_goal", "GoalCheck",
           "action_goal_matches", "eai_tasks", "INSTALL_HINT", "DATASET"]
