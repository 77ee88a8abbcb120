"""Moved: the Task record lives in ``groundplan.core.task`` (below ``methods``); this alias
keeps ``from groundplan.bench.task import Task`` working."""

from groundplan.core.task import Task

__all__ = ["Task"]
