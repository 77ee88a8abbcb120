"""COWP's tasks and trial set-ups (Ding et al.), below ``methods`` and ``bench``: the cowp
dataset (``bench/datasets/cowp.py``) and the COWP-family methods (``methods/cowp``) both read
them. ``spec``: the six tasks, their situations, object lists and domains (package data in
``data/`` and ``scenes/``); ``trials``: a trial's drawn set-up."""

from groundplan.core.datasets.cowp.spec import TASK_IDS, TaskSpec, task_spec
from groundplan.core.datasets.cowp.trials import P_SITUATION, TrialSetup, draw_setup

__all__ = ["TASK_IDS", "TaskSpec", "task_spec", "P_SITUATION", "TrialSetup", "draw_setup"]
