"""Skill sets (data files) and the builder: skill set + scene + OAM -> domain + problem."""

from groundplan.skills.builder import PlanningTask, build_task
from groundplan.skills.skillset import SkillSet, available_skillsets, load_skillset

__all__ = ["PlanningTask", "build_task", "SkillSet", "available_skillsets", "load_skillset"]
