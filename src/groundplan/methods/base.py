"""What every method is: ``Method.run(task, ctx) -> Episode``, and a registry by name.

A method module registers itself with ``@register_method("name")``; ``get_method`` finds
every module in ``groundplan.methods`` on first use, so adding a method is adding a module.
The records a method works with (Task, RunContext, Episode, TraceRecorder, the shared
``execute_and_score`` step) live in ``groundplan.core`` and are re-exported here, so old
imports (``from groundplan.methods.base import Episode``) keep working.
"""

from __future__ import annotations

import hashlib
import importlib
import pkgutil
from abc import ABC, abstractmethod
from importlib import resources
from typing import Callable, ClassVar, Optional

from groundplan.core.episode import (
    EMPTY_USAGE,
    EVENT_TYPES,
    RETRYABLE,
    Episode,
    EpisodeStatus,
    ExecutionScore,
    RunContext,
    TraceRecorder,
    canonical_hash,
    execute_and_score,
    failed_episode,
    new_meter,
    trace_listener,
)
from groundplan.core.task import Task
from groundplan.errors import ConfigError


class Method(ABC):
    """One published algorithm. Subclasses set ``name`` through ``@register_method`` and
    implement ``run``. Instances are created once per worker and must not keep per-episode
    state between calls."""

    name: ClassVar[str] = ""
    #: whether ``run`` needs ``ctx.llm``
    needs_llm: ClassVar[bool] = True
    description: ClassVar[str] = ""
    #: package holding this method's prompt templates (default ``groundplan.prompts.<name>``)
    prompt_package: ClassVar[Optional[str]] = None

    @abstractmethod
    def run(self, task: "Task", ctx: RunContext) -> Episode:
        ...

    def prompt_hash(self) -> str:
        """sha256 (12 hex) over the method's prompt templates: results record it, so a run
        made with other prompts is never mixed with this one. Empty if it has none."""
        pkg = self.prompt_package or f"groundplan.prompts.{self.name}"
        try:
            root = resources.files(pkg)
        except (ModuleNotFoundError, TypeError):
            return ""
        h = hashlib.sha256()
        files = sorted((p for p in root.iterdir() if p.is_file() and not p.name.endswith((".py", ".pyc", ".md"))),
                       key=lambda p: p.name)
        if not files:
            return ""
        for p in files:
            h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
        return h.hexdigest()[:12]


_REGISTRY: dict[str, type[Method]] = {}
_IMPORT_ERRORS: dict[str, str] = {}


def register_method(name: str) -> Callable[[type[Method]], type[Method]]:
    def deco(cls: type[Method]) -> type[Method]:
        if name in _REGISTRY and _REGISTRY[name] is not cls:
            raise ConfigError(f"method '{name}' registered twice ({_REGISTRY[name].__module__}, {cls.__module__})")
        cls.name = name
        _REGISTRY[name] = cls
        return cls
    return deco


def _discover() -> None:
    import groundplan.methods as pkg

    for info in pkgutil.iter_modules(pkg.__path__):
        mod = f"{pkg.__name__}.{info.name}"
        if info.name.startswith("_") or info.name == "base" or mod in _IMPORT_ERRORS:
            continue
        try:
            importlib.import_module(mod)
        except Exception as exc:  # noqa: BLE001 - one broken method must not hide the others
            _IMPORT_ERRORS[mod] = f"{type(exc).__name__}: {exc}"


def method_class(name: str) -> type[Method]:
    _discover()
    if name not in _REGISTRY:
        hint = ""
        broken = [m for m in _IMPORT_ERRORS if m.rsplit(".", 1)[-1] == name]
        if broken:
            hint = f"; module {broken[0]} failed to import: {_IMPORT_ERRORS[broken[0]]}"
        raise ConfigError(f"unknown method '{name}' (available: {', '.join(sorted(_REGISTRY)) or 'none'}){hint}")
    return _REGISTRY[name]


def get_method(name: str) -> Method:
    return method_class(name)()


def available_methods() -> list[str]:
    _discover()
    return sorted(_REGISTRY)


__all__ = [
    "EpisodeStatus", "RETRYABLE", "EVENT_TYPES", "EMPTY_USAGE", "TraceRecorder", "trace_listener", "RunContext", "Episode",
    "failed_episode", "Method", "register_method", "get_method", "method_class", "available_methods",
    "ExecutionScore", "execute_and_score", "canonical_hash", "new_meter",
]
