"""COWP's simulation benchmark (Ding et al., Sec. 4): six dining tasks x 150 seeded trials.

Each row is one trial: the task's base scene (package data of ``groundplan.core.datasets.cowp``),
the ``dining`` skill set, the task's goal over roles, and in ``extras`` the trial's draw -
two-object setting or not, the half of COWP's candidate objects and of the appliances
spawned (``dataset/*.txt`` of ../shared/data/cowp-gpt-planner) and P, the probability of a
situation per action. Situations themselves arise while a method acts (see
``groundplan.methods.cowp.world``). Subsets are the tasks; the report layout is COWP's
Table 4 metrics (task completion %, situation handling %) per task with the overall row.
"""

from __future__ import annotations

from typing import Optional

from groundplan.bench.report import TableLayout, register_layout
from groundplan.core.datasets.cowp import P_SITUATION, TASK_IDS, draw_setup, task_spec
from groundplan.core.task import Task

TRIALS = 150
VERSION = "GPT-Planner@255745e+groundplan-cowp-v1"


def cowp_tasks(trials: int = TRIALS, *, p_situation: Optional[float] = None, root: Optional[str] = None,
               dataset: str = "cowp") -> list[Task]:
    p = P_SITUATION if p_situation is None else p_situation
    out: list[Task] = []
    for tid in TASK_IDS:
        spec = task_spec(tid, root)
        for k in range(trials):
            setup = draw_setup(tid, k, seed=1000 * tid + k, p_situation=p, root=root)
            out.append(Task(id=f"task{tid}:{k:03d}", dataset=dataset, instruction=spec.instruction,
                            scene_file=str(spec.scene_file), goal=spec.goal_text, skillset="dining",
                            subset=spec.key, extras={**setup.to_dict(), "task_name": spec.name},
                            source=f"cowp task {tid} ({spec.name}) trial {k}"))
    return out


LAYOUT = TableLayout(
    "COWP Table 4 (per task, as Figs. 8 and 9): task completion and situation handling, 150 trials per task",
    "Task",
    (("drinking_water", "Serve water (4)"), ("setting_table", "Set table (6)"), ("cleaning_floor", "Clean floor (1)"),
     ("grasping_plate", "Wash plate (9)"), ("drinking_soda", "Serve coke (10)"), ("eating_dinner", "Eating dinner (11)")),
    (("task_completion", "completion"), ("situation_handling", "situations handled")),
    average_label="Overall (Table 4)")

register_layout("cowp", LAYOUT)

__all__ = ["cowp_tasks", "TRIALS", "VERSION", "LAYOUT"]
