"""Wake et al.'s datasets.

VirtualHome (../shared/data/microsoft-chatgpt-robot-manipulation-prompts, MIT; read at run
time): the 14 scenarios (``scenarios/{1..14}.json``: one instruction and the reference
program), their high-level phrasings (``scenarios_highlevel``, same programs) and the 10
paraphrases of scenario 5 (``scenarios_variation``: ``original`` plus ``1..10``). The
original builds each environment from VirtualHome v2.2.4's scene graph at run time; that
graph is not public data, so the scenarios run on groundplan's own kitchen graph
(``wake_kitchen_graph.json``: the nodes the programs name, with VirtualHome's class
properties and the placements the instructions describe). A task's goal is what its
reference program changes (``groundplan.sim.vh_programs.reference_goal``); its
``keep`` list is the program's objects: the environment shows them and what they stand on
or are inside of (one level deep, ``SUPPORT_DEPTH``).

Learning-from-observation (project-written, after Sec. III-A): the paper's multi-step
role-plays on the ``lfo`` scenes in examples/scenes - relocating objects on a shelf (the
paper's four instructions, and a five-instruction chain), opening a fridge and taking the
juice out, sliding a drawer, wiping a window - with a goal per instruction.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Optional

from groundplan.core.task import Task
from groundplan.datadir import data_dir
from groundplan.errors import DatasetError
from groundplan.sim.vh_programs import program_objects, reference_goal, required_actions

FOLDER = "microsoft-chatgpt-robot-manipulation-prompts/examples/task_decomposition_virtualhome"
VERSION = "ChatGPT-Robot-Manipulation-Prompts@30535cd+kitchen1"
GRAPH = "wake_kitchen_graph.json"
#: the environment shows what the program's objects stand on or are inside of, one level
#: deep (the original follows the chain to the end; a small model's context and speed
#: favour the shorter dictionary - the floor under the furniture is left out)
SUPPORT_DEPTH = 1


def kitchen_graph() -> str:
    return str(resources.files(__package__).joinpath(GRAPH))


def vh_root(root: Optional[Path] = None) -> Path:
    return root or data_dir() / FOLDER


def _read(path: Path) -> dict:
    if not path.is_file():
        raise DatasetError("scenario file not found", file=str(path))
    try:
        d = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise DatasetError(f"invalid JSON: {exc.msg}", file=str(path), line=exc.lineno) from None
    if not isinstance(d, dict) or not d.get("instructions") or not isinstance(d.get("program"), list):
        raise DatasetError("expected {instructions: [...], program: [...]}", file=str(path))
    return d


def _task(dataset: str, tid: str, path: Path, subset: str, scenario: int, variant: str) -> Task:
    d = _read(path)
    graph = kitchen_graph()
    goal, steps = reference_goal(graph, d["program"])
    instruction = str(d["instructions"][0]).strip()
    return Task(id=tid, dataset=dataset, instruction=instruction, scene_file=graph, goal=goal,
                skillset="virtualhome", subset=subset,
                extras={"scenario": scenario, "variant": variant, "program": list(d["program"]),
                        "reference_steps": list(steps), "keep": program_objects(d["program"]),
                        "support_depth": SUPPORT_DEPTH, "required_actions": required_actions(d["program"], goal)},
                source=str(path))


def vh_tasks(root: Optional[Path] = None) -> list[Task]:
    base = vh_root(root) / "scenarios"
    return [_task("wake-vh", f"s{n:02d}", base / f"{n}.json", "scenario", n, "original") for n in range(1, 15)]


def vh_highlevel_tasks(root: Optional[Path] = None) -> list[Task]:
    base = vh_root(root) / "scenarios_highlevel"
    return [_task("wake-vh-highlevel", f"h{n:02d}", base / f"{n}.json", "highlevel", n, "highlevel")
            for n in range(1, 15)]


def vh_variation_tasks(root: Optional[Path] = None) -> list[Task]:
    base = vh_root(root) / "scenarios_variation"
    out = [_task("wake-vh-variation", "v00", base / "original.json", "variation", 5, "original")]
    out += [_task("wake-vh-variation", f"v{n:02d}", base / f"{n}.json", "variation", 5, f"paraphrase {n}")
            for n in range(1, 11)]
    return out


# ----------------------------------------------------------------------------- learning from observation

#: (task id, scene, [(instruction, goal after it)], subset)
LFO_TASKS: tuple[tuple[str, str, tuple[tuple[str, str], ...], str], ...] = (
    ("shelf", "lfo_shelf.yaml", (
        ("Put the juice on top of the shelf.", "(on juice shelf_top)"),
        ("Throw away the spam into the trash bin.", "(and (in spam trash_bin) (on juice shelf_top))"),
        ("Move the juice on top of the table.", "(and (on juice table) (in spam trash_bin))"),
        ("Throw away the juice.", "(and (in juice trash_bin) (in spam trash_bin))"),
    ), "relocation"),
    ("shelf5", "lfo_shelf.yaml", (
        ("Put the juice on top of the shelf.", "(on juice shelf_top)"),
        ("Throw away the spam into the trash bin.", "(and (in spam trash_bin) (on juice shelf_top))"),
        ("Move the juice on top of the table.", "(and (on juice table) (in spam trash_bin))"),
        ("Put the juice back on the bottom shelf.", "(and (on juice shelf_bottom) (in spam trash_bin))"),
        ("Throw away the juice.", "(and (in juice trash_bin) (in spam trash_bin))"),
    ), "relocation"),
    ("fridge", "lfo_fridge.yaml", (
        ("Open the fridge halfway.", "(opened fridge_handle)"),
        ("Open the fridge wider.", "(opened fridge_handle)"),
        ("Take the juice in the fridge and put it on the floor.", "(and (on juice floor) (opened fridge_handle))"),
        ("Close the fridge.", "(and (closed fridge_handle) (on juice floor))"),
    ), "fridge"),
    ("drawer", "lfo_drawer.yaml", (
        ("Open the drawer widely.", "(opened drawer_handle)"),
        ("Take the spoon out of the drawer and put it on the floor.", "(and (on spoon floor) (opened drawer_handle))"),
        ("Close the drawer halfway.", "(and (opened drawer_handle) (on spoon floor))"),
        ("Close the drawer fully.", "(and (closed drawer_handle) (on spoon floor))"),
    ), "drawer"),
    ("window", "lfo_window.yaml", (
        ("Get the sponge from the table, wipe the window with it, and put the sponge back on the table.",
         "(and (wiped window) (on sponge table))"),
        ("Throw away the sponge.", "(and (in sponge trash_bin) (wiped window))"),
    ), "wiping"),
)


def lfo_scene_dir() -> Path:
    """examples/scenes of the checkout (the LfO scenes are examples, not package data)."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        cand = parent / "examples" / "scenes"
        if (cand / "lfo_shelf.yaml").is_file():
            return cand
    raise DatasetError("the lfo scenes (examples/scenes/lfo_*.yaml) are not beside this installation")


def lfo_tasks(scene_dir: Optional[Path] = None) -> list[Task]:
    d = scene_dir or lfo_scene_dir()
    out = []
    for tid, scene, steps, subset in LFO_TASKS:
        out.append(Task(id=tid, dataset="wake-lfo", instruction=" Then, ".join(s for s, _ in steps),
                        scene_file=str(d / scene), goal=steps[-1][1], skillset="lfo", subset=subset,
                        extras={"instructions": [s for s, _ in steps], "step_goals": [g for _, g in steps]},
                        source=f"groundplan.bench.datasets.wake:LFO_TASKS[{tid}]"))
    return out


__all__ = ["vh_tasks", "vh_highlevel_tasks", "vh_variation_tasks", "lfo_tasks", "kitchen_graph", "LFO_TASKS",
           "VERSION"]
