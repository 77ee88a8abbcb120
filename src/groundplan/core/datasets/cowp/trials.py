"""A COWP trial's set-up, drawn once per (task, trial, seed): whether two objects are
missing, which candidate objects and appliances the simulator spawns, the situation
probability. The cowp dataset writes it into each task's extras; the COWP world
(``groundplan.methods.cowp.world``) reads it back (``TrialSetup.from_extras``)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Mapping, Optional

from groundplan.core.datasets.cowp.spec import APPLIANCES_FILE, task_spec, word_list

P_SITUATION = 0.1
P_TWO_OBJECTS = 0.25
SPAWN_RATIO = 2


# --------------------------------------------------------------------------- trial set-up

@dataclass(frozen=True)
class TrialSetup:
    task: int
    trial: int
    seed: int
    two_objects: bool
    objects: tuple[str, ...]  # spawned candidate objects (words), in draw order
    appliances: tuple[str, ...]  # spawned appliances (words), in draw order
    p_situation: float = P_SITUATION

    def to_dict(self) -> dict[str, Any]:
        return {"cowp_task": self.task, "trial": self.trial, "trial_seed": self.seed,
                "two_objects": self.two_objects, "spawned": list(self.objects), "appliances": list(self.appliances),
                "p_situation": self.p_situation}

    @classmethod
    def from_extras(cls, extras: Mapping[str, Any]) -> "TrialSetup":
        return cls(int(extras["cowp_task"]), int(extras["trial"]), int(extras["trial_seed"]),
                   bool(extras["two_objects"]), tuple(extras["spawned"]), tuple(extras["appliances"]),
                   float(extras.get("p_situation", P_SITUATION)))


def draw_setup(task_id: int, trial: int, seed: int, *, p_situation: float = P_SITUATION,
               root: Optional[str] = None) -> TrialSetup:
    spec = task_spec(task_id, root)
    rng = random.Random(f"cowp:{task_id}:{trial}:{seed}")
    two = rng.random() < P_TWO_OBJECTS
    cands = list(word_list(spec.candidates_file, root))
    apps = list(word_list(APPLIANCES_FILE, root))
    objs = rng.sample(cands, round(len(cands) / SPAWN_RATIO))
    app = rng.sample(apps, round(len(apps) / SPAWN_RATIO))
    return TrialSetup(task_id, trial, seed, two, tuple(objs), tuple(app), p_situation)


__all__ = ["P_SITUATION", "P_TWO_OBJECTS", "SPAWN_RATIO", "TrialSetup", "draw_setup"]
