"""groundplan: grounded LLM task planning for robots.

Layers (lower never import higher): world, knowledge, pddl, skills, planners, sim,
llm, core, methods, bench, api, cli / web.

The Python API (docs/python-api.md) is importable from here; names load on first use, so
``import groundplan`` stays cheap::

    from groundplan import build_task, plan, run, make_llm, verdict
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

#: the public API: name -> module it lives in (loaded on first access)
_API = {
    "load_scene": "groundplan.api", "load_skillset": "groundplan.api", "load_oam": "groundplan.api",
    "default_oam": "groundplan.api", "build_task": "groundplan.api", "make_planner": "groundplan.api",
    "plan": "groundplan.api", "make_llm": "groundplan.api", "user_task": "groundplan.api",
    "refusal": "groundplan.api", "run": "groundplan.api", "verdict": "groundplan.api", "Verdict": "groundplan.api",
    "DEFAULT_METHOD": "groundplan.api", "Task": "groundplan.core.task", "Episode": "groundplan.core.episode",
    "available_methods": "groundplan.methods", "MethodRefused": "groundplan.methods.base",
    "GroundplanError": "groundplan.errors",
}

__all__ = sorted(_API)


def __getattr__(name: str) -> Any:
    mod = _API.get(name)
    if mod is None:
        raise AttributeError(f"module 'groundplan' has no attribute '{name}'")
    import importlib

    value = getattr(importlib.import_module(mod), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API))
