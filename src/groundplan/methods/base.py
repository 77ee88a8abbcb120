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
from typing import Any, Callable, ClassVar, Mapping, Optional, Sequence

from groundplan.core.config import config_from
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


class MethodRefused(ConfigError):
    """A method cannot run on a task (its ``supports`` said why): refused before anything runs."""


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
    #: what the method can run on (``supports``): the skill sets (None: any), whether it needs
    #: a check goal (a dataset's gold goal or the user's ``--check``), the ``Task.extras`` keys
    #: it reads, and why (one phrase, said in the refusal)
    skillsets: ClassVar[Optional[frozenset[str]]] = None
    needs_goal: ClassVar[bool] = False
    needs_extras: ClassVar[tuple[str, ...]] = ()
    requirement: ClassVar[str] = ""
    #: the method's settings, a frozen dataclass (None: it takes none); ``configure`` builds it
    config_class: ClassVar[Optional[type]] = None
    #: this variant's defaults (an instance of ``config_class``; None: the class's own defaults)
    default_config: ClassVar[Any] = None

    @classmethod
    def configure(cls, config: Optional[Mapping[str, Any]]) -> Any:
        """The method's frozen configuration from a run's settings (``RunContext.config``).
        An unknown key or a bad value is a ``ConfigError`` naming it (exit 2); the bench runner
        calls this before any episode runs."""
        if cls.config_class is None:
            if config:
                raise ConfigError(f"{cls.name}: takes no settings (got '{next(iter(config))}')")
            return None
        return config_from(cls.config_class, config, owner=cls.name, base=cls.default_config)

    @classmethod
    def supports(cls, task: "Task") -> Optional[str]:
        """None when the method can run on ``task``, else the reason it cannot (one line).
        Asked before anything runs (``groundplan run``, ``bench run``); cheap: it reads only the
        task's fields."""
        why = f" ({cls.requirement})" if cls.requirement else ""
        if cls.skillsets is not None and task.skillset not in cls.skillsets:
            return (f"method '{cls.name}' runs on the {' / '.join(sorted(cls.skillsets))} skill set"
                    f"{'s' if len(cls.skillsets) > 1 else ''}, not '{task.skillset}'{why}")
        if cls.needs_goal and not task.goal:
            return f"method '{cls.name}' needs a check goal (a dataset's gold goal, or --check GOAL){why}"
        missing = [k for k in cls.needs_extras if k not in (task.extras or {})]
        if missing:
            return (f"method '{cls.name}' needs the task field extras['{missing[0]}'], which "
                    f"{task.dataset or 'this task'} does not provide{why}")
        return None

    def refused(self, task: "Task", ctx: RunContext) -> Optional[Episode]:
        """The ``unsupported`` episode when :meth:`supports` refuses ``task`` (for a method
        called directly, past the runner's own check), else None."""
        why = self.supports(task)
        return None if why is None else failed_episode(task, self.name, EpisodeStatus.UNSUPPORTED, why,
                                                       seed=ctx.seed)

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


def check_supported(name: str, tasks: "Sequence[Task]", where: str = "") -> None:
    """Raise ``MethodRefused`` (exit 2) when method ``name`` cannot run on some of ``tasks``,
    naming how many, the first such task and the method's reason; before anything runs."""
    cls = method_class(name)
    refused = [(t, r) for t in tasks if (r := cls.supports(t)) is not None]
    if not refused:
        return
    t, reason = refused[0]
    n = len(tasks)
    scope = f" on {where}" if where else ""
    count = f"all {n} tasks" if len(refused) == n else f"{len(refused)} of {n} tasks, e.g. {t.id}"
    raise MethodRefused(f"refused{scope} ({count}): {reason}")


def available_methods() -> list[str]:
    _discover()
    return sorted(_REGISTRY)


__all__ = [
    "EpisodeStatus", "RETRYABLE", "EVENT_TYPES", "EMPTY_USAGE", "TraceRecorder", "trace_listener", "RunContext", "Episode",
    "failed_episode", "Method", "MethodRefused", "check_supported", "register_method", "get_method", "method_class",
    "available_methods",
    "ExecutionScore", "execute_and_score", "canonical_hash", "new_meter",
]
