"""Method configurations: a frozen dataclass per method, built from the mapping a run carries
(``RunContext.config``: ``bench run`` options, an experiment file's ``options``, the Python API)
by one helper that refuses what it does not know.

``config_from(MyConfig, {"k": 1}, owner="brainbody")`` raises ``ConfigError`` (exit 2) naming
the unknown key with a did-you-mean (``brainbody: unknown setting 'k' (did you mean K?)``), or
the key whose value has the wrong type (``brainbody: setting 'K' must be an integer, not
'three'``); a dataclass's own ``__post_init__`` checks (allowed values, ranges) raise
``ConfigError`` (or ``ValueError``, reported the same way).
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from typing import Any, Literal, Mapping, Optional, TypeVar, Union

from groundplan.errors import ConfigError, did_you_mean

C = TypeVar("C")

_NAMES = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}


def _describe(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(tp))
    if origin in (Union, types.UnionType):
        return " or ".join("none" if a is type(None) else _describe(a) for a in typing.get_args(tp))
    if origin in (tuple, list):
        return "a list"
    if origin in (dict, Mapping) or tp in (dict, Mapping):
        return "a table"
    return _NAMES.get(tp, getattr(tp, "__name__", str(tp)))


class _Bad(Exception):
    pass


def _coerce(value: Any, tp: Any) -> Any:
    """``value`` as type ``tp`` (int for float, list for tuple), or _Bad."""
    if tp is Any:
        return value
    origin = typing.get_origin(tp)
    if origin is Literal:
        if any(value == a and type(value) is type(a) for a in typing.get_args(tp)):
            return value
        raise _Bad
    if origin in (Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None:
            if type(None) in args:
                return None
            raise _Bad
        for a in args:
            if a is type(None):
                continue
            try:
                return _coerce(value, a)
            except _Bad:
                continue
        raise _Bad
    if origin is tuple:
        if not isinstance(value, (list, tuple)):
            raise _Bad
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_coerce(v, args[0]) for v in value)
        if args and len(args) != len(value):
            raise _Bad
        return tuple(_coerce(v, a) for v, a in zip(value, args)) if args else tuple(value)
    if origin in (dict, Mapping) or tp in (dict, Mapping):
        if not isinstance(value, Mapping):
            raise _Bad
        return dict(value)
    if tp is bool:
        if isinstance(value, bool):
            return value
        raise _Bad
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise _Bad
    if tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise _Bad
    if tp is str:
        if isinstance(value, str):
            return value
        raise _Bad
    if isinstance(tp, type) and not isinstance(value, tp):
        raise _Bad
    return value


def config_fields(cls: type) -> dict[str, Any]:
    """The settings of a configuration dataclass: name -> type."""
    hints = typing.get_type_hints(cls)
    return {f.name: hints.get(f.name, Any) for f in dataclasses.fields(cls) if f.init}


def config_from(cls: type[C], values: Optional[Mapping[str, Any]], *, owner: str, base: Optional[C] = None,
                **fixed: Any) -> C:
    """``cls(**values)`` after checking every key and value (see the module docstring); with
    ``base`` (a variant's defaults, an instance of ``cls``) the values replace its fields.
    ``fixed`` are settings the caller supplies itself (e.g. the run's seed), not the user."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    known = config_fields(cls)
    kwargs: dict[str, Any] = {}
    for key, value in dict(values or {}).items():
        key = str(key)
        if key not in known or key in fixed:
            names = sorted(k for k in known if k not in fixed)
            raise ConfigError(f"{owner}: unknown setting '{key}'{did_you_mean(key, names)} "
                              f"(known: {', '.join(names) or 'none'})")
        try:
            kwargs[key] = _coerce(value, known[key])
        except _Bad:
            raise ConfigError(f"{owner}: setting '{key}' must be {_describe(known[key])}, not {value!r}") from None
    try:
        if base is not None:
            return dataclasses.replace(base, **kwargs, **fixed)
        return cls(**kwargs, **fixed)
    except ConfigError as exc:
        msg = str(exc)  # already naming its owner ("autogpt_p: ...") or to be prefixed with it
        raise ConfigError(msg if re.match(r"[\w.-]+: ", msg) else f"{owner}: {msg}") from None
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"{owner}: {exc}") from None


@dataclasses.dataclass(frozen=True)
class NoSettings:
    """The configuration of a method that takes no settings: any key given is refused."""


__all__ = ["config_from", "config_fields", "NoSettings"]
