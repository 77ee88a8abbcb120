"""Resource bounds, in one place and configurable.

Everything an LLM, a file or a user can make large is capped here: goal text, goal nesting
and size, its DNF, the steps read from one answer, the length of an answer, and the planner's
wall time and memory (translation included). Defaults suit the household scenes; a run can
change them from a TOML file::

    # groundplan.toml (or the file named by $GROUNDPLAN_CONFIG, or `groundplan --limits F`)
    [limits]
    planner_timeout = 20
    planner_memory_mb = 1024
    plan_max_steps = 60

Code reads the bounds in force with :func:`current`. A run carries its own bounds
(``RunContext.limits``) and puts them in force for everything below it with
``with use(limits):`` - a context variable, so jobs running on other threads (the web console)
each see their own bounds; the process-wide configuration (``--limits``, the TOML file) is what
:func:`current` returns where no run has put bounds in force. A bad file is reported with the file and the key at
fault. This module imports nothing from groundplan but its errors (bottom layer)."""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import os
import threading
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Iterator, Mapping

from groundplan.errors import ConfigError

CONFIG_ENV = "GROUNDPLAN_CONFIG"
CONFIG_FILE = "groundplan.toml"


@dataclass(frozen=True)
class Limits:
    #: goal text, characters (longer goals are refused before parsing)
    goal_max_chars: int = 20_000
    #: goal nesting depth (and / or / not / forall / exists / imply)
    goal_max_depth: int = 30
    #: goal nodes (atoms and connectives)
    goal_max_size: int = 5_000
    #: disjuncts of the goal's disjunctive normal form
    goal_max_disjuncts: int = 5_000
    #: steps or commands read from one LLM answer (numbered steps, VirtualHome commands)
    plan_max_steps: int = 40
    #: actions executed (or attempted) in one closed-loop episode (COWP, BrainBody-LLM)
    episode_max_steps: int = 80
    #: lines read from one generated program (pythonic plans)
    program_max_lines: int = 200
    #: characters of a JSON answer that is parsed at all (longer ones are refused)
    answer_max_chars: int = 200_000
    #: nesting depth of a JSON answer
    answer_max_depth: int = 64
    #: longest answer text a method ever sees from an LLM backend (longer ones are cut)
    llm_max_output_chars: int = 100_000
    #: planner wall time per call, seconds (translation and search)
    planner_timeout: float = 60.0
    #: planner memory, MB (address-space cap of the translator and search processes)
    planner_memory_mb: int = 4096

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
                raise ConfigError(f"limit '{f.name}' must be a positive number, got {v!r}")

    def with_(self, **kw) -> "Limits":
        return dataclasses.replace(self, **kw)


def from_mapping(data: Mapping, *, source: str = "limits") -> Limits:
    """Limits from a ``[limits]`` table; unknown keys and wrong types name ``source`` and the key."""
    known = {f.name: f for f in fields(Limits)}
    kw = {}
    for key, value in data.items():
        if key not in known:
            raise ConfigError(f"{source}: unknown limit '{key}' (known: {', '.join(sorted(known))})")
        want = int if known[key].type in ("int", int) else float
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (want is int and not isinstance(value, int)):
            raise ConfigError(f"{source}: limit '{key}' must be {'an integer' if want is int else 'a number'}, "
                              f"got {value!r}")
        kw[key] = want(value)
    try:
        return Limits(**kw)
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None


def load(path: str | Path) -> Limits:
    """Limits from the ``[limits]`` table of a TOML file (other tables are ignored)."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read the configuration file ({exc.strerror})") from None
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{p}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: {exc}") from None  # tomllib names the line and column
    table = doc.get("limits", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{p}: 'limits' must be a table ([limits])")
    return from_mapping(table, source=f"{p} [limits]")


def discover(environ: Mapping[str, str] | None = None, cwd: Path | None = None) -> Limits:
    """The configured limits: ``$GROUNDPLAN_CONFIG`` if set, else ``./groundplan.toml`` if it
    exists, else the defaults."""
    env = os.environ if environ is None else environ
    if env.get(CONFIG_ENV):
        return load(Path(env[CONFIG_ENV]).expanduser())
    local = (cwd or Path.cwd()) / CONFIG_FILE
    return load(local) if local.is_file() else Limits()


def discover_source(environ: Mapping[str, str] | None = None, cwd: Path | None = None) -> str:
    env = os.environ if environ is None else environ
    if env.get(CONFIG_ENV):
        return f"{env[CONFIG_ENV]} (${CONFIG_ENV})"
    local = (cwd or Path.cwd()) / CONFIG_FILE
    return str(local) if local.is_file() else "defaults"


_lock = threading.Lock()
_active: Limits | None = None
_source = "defaults"


#: bounds put in force by :func:`use` for this thread / task only (None: the process's)
_override: contextvars.ContextVar[Limits | None] = contextvars.ContextVar("groundplan_limits", default=None)


def current() -> Limits:
    """The bounds in force: those of the enclosing :func:`use` in this context, else the
    process's configuration (discovered from the environment on first use)."""
    over = _override.get()
    if over is not None:
        return over
    return _configured()


def _configured() -> Limits:
    global _active, _source
    if _active is None:
        with _lock:
            if _active is None:
                _active, _source = discover(), discover_source()
    return _active


def source() -> str:
    """Where the bounds in force come from."""
    if _override.get() is not None:
        return "use() (a run's own bounds)"
    _configured()
    return _source


def set_current(limits: Limits, *, source: str = "set in code") -> None:
    """Make ``limits`` the bounds in force for this process (the CLI's ``--limits``)."""
    global _active, _source
    with _lock:
        _active, _source = limits, source


@contextlib.contextmanager
def use(limits: Limits) -> Iterator[Limits]:
    """Put ``limits`` in force for the code inside the block, in this thread (or asyncio task)
    only; other threads keep theirs."""
    token = _override.set(limits)
    try:
        yield limits
    finally:
        _override.reset(token)


__all__ = ["Limits", "current", "source", "set_current", "use", "load", "discover", "from_mapping", "CONFIG_ENV", "CONFIG_FILE"]
