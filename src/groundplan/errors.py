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
