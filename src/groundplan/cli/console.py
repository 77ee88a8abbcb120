"""The consoles every command prints with, made in one place.

- Text survives pipes: when the stream is not a terminal there is no color (rich's own
  rule; NO_COLOR is honoured too) and no wrapping: lines are never broken at 80 columns
  (``soft_wrap``) and tables are laid out as wide as their content, so ``groundplan pddl >
  f`` is the PDDL and ``groundplan scene show S > s.yaml`` loads back.
- Markup is off by default: a message, a file name or a YAML list such as ``[a, b]`` is
  printed as it is. Styled words go through ``styled`` (rich ``Text``), never through
  markup mixed with data.

    from groundplan.cli.console import make_console, fail_line
    out, err = make_console(), make_console(stderr=True)
    out.print(text)                       # verbatim
    err.print(fail_line("error", msg))    # "error: msg", "error:" in red on a terminal
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, ConsoleDimensions
from rich.text import Text

#: typer's help markup for every command group: none, so help text is printed as written
#: (``--limits``' help names the ``[limits]`` table; rich markup would eat it)
HELP_MARKUP = None

#: layout width when the stream is not a terminal: wide enough that nothing is wrapped
PIPE_WIDTH = 10_000

_STYLES = {"error": "bold red", "internal error": "bold red", "warning": "yellow", "note": "cyan", "ok": "green"}


class PipeSafeConsole(Console):
    """A rich Console that lays out for PIPE_WIDTH columns when its stream is not a terminal
    (rich would use 80, $COLUMNS, or the terminal's width when only stdin is one), unless a
    width was given explicitly."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._fixed_width = kwargs.get("width") is not None
        super().__init__(*args, **kwargs)

    @property  # type: ignore[override]
    def size(self) -> ConsoleDimensions:
        dims = Console.size.fget(self)  # type: ignore[attr-defined]
        if not self._fixed_width and not self.is_terminal:
            return ConsoleDimensions(PIPE_WIDTH, dims.height)
        return dims

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        Console.size.fset(self, new_size)  # type: ignore[attr-defined]


def make_console(*, stderr: bool = False, **kwargs: Any) -> PipeSafeConsole:
    """The console of a command (stdout, or stderr for messages and progress)."""
    opts: dict[str, Any] = {"soft_wrap": True, "markup": False, "highlight": False, "emoji": False}
    opts.update(kwargs)
    return PipeSafeConsole(stderr=stderr, **opts)


def styled(*parts: str | tuple[str, str]) -> Text:
    """Text from plain strings and (text, style) pairs: styles without markup."""
    return Text.assemble(*parts)


def fail_line(kind: str, message: str) -> Text:
    """``kind: message`` with the kind styled (error in red, warning in yellow, ...)."""
    return Text.assemble((f"{kind}:", _STYLES.get(kind, "bold")), " ", " ".join(str(message).split()))


__all__ = ["HELP_MARKUP", "PIPE_WIDTH", "PipeSafeConsole", "make_console", "styled", "fail_line"]
