"""Specific error classes. Every message is one line naming the file, line, object or
predicate at fault, so the CLI can print it without a traceback (exit code 2)."""

from __future__ import annotations

from enum import Enum


class GroundplanError(Exception):
    """Base of every error groundplan reports to a user."""

    exit_code = 2


class InputError(GroundplanError):
    """Bad input located in a file: ``file:line: message``."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None):
        self.file = file
        self.line = line
        self.detail = message
        where = ""
        if file is not None:
            where = f"{file}:{line}: " if line is not None else f"{file}: "
        super().__init__(f"{where}{message}")


class SceneError(InputError):
    """A scene file is malformed or inconsistent."""


class SkillSetError(InputError):
    """A skill-set file is malformed."""


class PDDLSyntaxError(InputError):
    """PDDL text cannot be parsed (unbalanced parentheses, unexpected token)."""


class GoalErrorKind(str, Enum):
    SYNTAX = "syntax"
    PARENTHESES = "parentheses"
    UNKNOWN_PREDICATE = "unknown_predicate"
    UNKNOWN_OBJECT = "unknown_object"
    WRONG_TYPE = "wrong_type"
    WRONG_ARITY = "wrong_arity"
    VARIABLE = "variable"
    SEMANTIC = "semantic"
    TOO_LARGE = "too_large"


class GoalError(GroundplanError):
    """A goal formula does not fit the domain and problem.

    ``feedback`` is the sentence an LLM gets back to correct itself (AutoGPT+P style);
    ``str(err)`` is the one-line user-facing message."""

    def __init__(self, kind: GoalErrorKind, message: str, *, feedback: str | None = None,
                 predicate: str | None = None, obj: str | None = None):
        self.kind = kind
        self.predicate = predicate
        self.obj = obj
        self.feedback = feedback or message
        super().__init__(message)


class PlannerError(GroundplanError):
    """The planner could not be run at all (missing binary, crashed translator)."""


class ExecutionError(GroundplanError):
    """An action could not be interpreted (unknown action, wrong arity)."""


class DatasetError(InputError):
    """A dataset row or file is malformed."""


class ConfigError(GroundplanError):
    """Bad configuration (unknown skill set, unknown planner, ...)."""


def did_you_mean(word: str, candidates, *, n: int = 1, cutoff: float = 0.6) -> str:
    """`` (did you mean apple0?)`` for the closest of ``candidates`` to ``word``, else ``""``."""
    import difflib

    pool = sorted({str(c) for c in candidates})
    close = difflib.get_close_matches(str(word), pool, n=n, cutoff=cutoff)
    if not close:  # a case slip (Apple0) or a missing separator the ratio misses
        low = {c.lower().replace("-", "_"): c for c in pool}
        hit = low.get(str(word).lower().replace("-", "_"))
        close = [hit] if hit else []
    return f" (did you mean {' or '.join(close)}?)" if close else ""
