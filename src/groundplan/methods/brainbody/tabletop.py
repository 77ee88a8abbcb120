"""BrainBody-LLM's Franka tabletop environment (Sec. 5, Table 4): executes the seven
pick-and-place tasks and checks them, refusing a grasp or place outside the workspace ("X is
out of the workspace of the robot").

The tasks themselves (scenes, coordinates, workspace, checkers, gold plans, ``franka_tasks``)
live in ``groundplan.core.datasets.tabletop`` (the brainbody-tabletop dataset lists them) and
are re-exported here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from groundplan.core.datasets.tabletop import (
    ACTIONS,
    REDDISH,
    ROBOT,
    SPECTRUM,
    TASKS,
    WORKSPACE,
    TabletopTask,
    build_scene,
    check_cubes_right,
    check_letter_l,
    check_one_each_side,
    check_plus,
    check_rainbow_line,
    check_reddish_triangle,
    check_segregated,
    colour,
    franka_tasks,
    in_workspace,
    shape,
    spot_name,
    step_command,
    task_by_number,
)
from groundplan.core.task import Task
from groundplan.errors import GroundplanError
from groundplan.methods.brainbody.algorithm import brainbody_loop
from groundplan.methods.brainbody.environment import Score
from groundplan.prompts.brainbody import load_text
from groundplan.sim.executor import Executor
from groundplan.skills.builder import build_task
from groundplan.skills.skillset import load_skillset


def parse_command(text: str) -> Optional[str]:
    """The groundplan step of a Body command (``<rob0> [move] <red_cube> <location_A>`` ->
    ``move red_cube location_a rob0``); None if it is not one."""
    m = re.search(r"\[\s*([a-z _]+?)\s*\]\s*(.*)", (text or "").lower())
    if not m:
        return None
    act = m.group(1).strip().replace(" ", "_")
    act = {"return": "return_to_base", "return_to_base": "return_to_base", "return_base": "return_to_base",
           "pick": "grasp", "pick_up": "grasp", "place": "move", "put": "move"}.get(act, act)
    args = [a.strip().replace(" ", "_") for a in re.findall(r"<([^<>]+)>", m.group(2))]
    return " ".join([act, *args, ROBOT])


@dataclass(frozen=True)
class _Outcome:
    ok: bool
    message: str = ""
    command: str = ""


class TabletopEnv:
    """One episode of a tabletop task with the ``tabletop`` skill set's executor."""

    agent = "the Franka Arm"

    def __init__(self, task: Task):
        self.task = task
        self.spec = task_by_number(int(task.extras["number"]))
        self.scene = build_scene(self.spec)
        self.pt = build_task(load_skillset("tabletop"), self.scene, None)
        self.executor = Executor(self.pt.domain, self.pt.problem)
        self.actions = ACTIONS

    def object_list(self) -> list[str]:
        return list(self.spec.objects) + list(self.spec.locations)

    def positions(self) -> dict[str, tuple[float, float]]:
        geo = self.scene.geometry
        out = {}
        for f in self.executor.facts:
            if f.predicate == "at" and f.args[0] in self.spec.objects:
                out[f.args[0]] = tuple(geo[f.args[1]])  # type: ignore[assignment]
        return out

    def environment_info(self, task: str = "", limit: int = 60) -> str:
        pos = self.positions()
        items = [f"({o}:at:({p[0]:g}, {p[1]:g}))" for o, p in pos.items()]
        items += [f"({name}:at:({p[0]:g}, {p[1]:g}))" for name, p in self.spec.locations.items()]
        items.append("(left side:x<0), (right side:x>0)")
        return ", ".join(items[:limit])

    def execute(self, command: str) -> _Outcome:
        step = parse_command(command)
        if step is None:
            return _Outcome(False, f"cannot read the command '{command.strip()[:60]}'", command.strip())
        r = self.executor.apply(step)
        return _Outcome(r.ok, r.reason, command.strip())

    def score(self):
        final = {o: self.positions().get(o) for o in self.spec.objects}
        if any(p is None for p in final.values()):
            held = [o for o, p in final.items() if p is None]
            return Score(False, 0.0, {"unsatisfied": [f"{', '.join(held)} still in the gripper"]})
        ok, why = self.spec.checker(final, {o: tuple(map(float, p)) for o, p in self.spec.objects.items()})
        return Score(ok, 1.0 if ok else 0.0, {"unsatisfied": [] if ok else [why], "check": why})

    def oracle_roles(self):
        return TabletopOracleBrain(self.spec), CommandBody()

    def prompt_spec(self) -> dict:
        return {"planning_examples": load_text("tabletop_planning_examples.txt"),
                "feedback_examples": load_text("tabletop_feedback_examples.txt"),
                "execution_examples": load_text("tabletop_execution_examples.txt"),
                "program_examples": load_text("tabletop_program_examples.txt"),
                "syntax": f"<{ROBOT}> [action] <object> <location>",
                "render": lambda a, objs: f"<{ROBOT}> [{a}]" + "".join(f" <{o}>" for o in objs)}


class TabletopOracleBrain:
    """The oracle Brain of the tabletop tasks: the first plan, and the recorded replan for
    the error step (the plan from the error step on that works around the unreachable thing)."""

    def __init__(self, spec: TabletopTask):
        self.spec = spec

    def plan(self, ctx) -> list[str]:
        return list(self.spec.plan)

    def replan(self, ctx, plan, error_step: int, feedback: str) -> list[str]:
        if error_step in self.spec.replans:
            return list(self.spec.replans[error_step])
        return list(plan[error_step + 1:])  # nothing better: skip the failing step


class CommandBody:
    """Oracle Body for the tabletop: each gold-form step written as its command."""

    def act(self, step: str, index: int) -> str:
        return step_command(step) or "<pass>"


def check_all_oracle() -> list[tuple[int, bool, str, int]]:
    """Run every task with the oracle Brain and Body (K=3): (task, success, reason, feedback loops)."""
    out = []
    for t in franka_tasks():
        env = TabletopEnv(t)
        res = brainbody_loop(t.instruction, TabletopOracleBrain(env.spec), CommandBody(), env, K=3)
        s = env.score()
        out.append((env.spec.number, s.success, s.detail.get("check", ""), res.feedback_loops))
    return out


__all__ = ["WORKSPACE", "TASKS", "TabletopTask", "TabletopEnv", "TabletopOracleBrain", "CommandBody", "franka_tasks",
           "build_scene", "step_command", "parse_command", "check_all_oracle", "task_by_number", "GroundplanError",
           "ROBOT", "ACTIONS", "SPECTRUM", "REDDISH", "in_workspace", "shape", "colour", "spot_name",
           "check_cubes_right", "check_letter_l", "check_one_each_side", "check_plus", "check_rainbow_line", "check_reddish_triangle", "check_segregated"]
