"""ProgPrompt's pythonic plans, read and never run: one reader of program lines for every
method that asks for them (ProgPrompt on VirtualHome, COWP's ProgPrompt-style baseline).

``parse_call("putin('mug', 'sink')")`` -> ``CallLine('putin', ('mug', 'sink'))``; a line that is
not a single call (an expression, an attribute access, a statement) is None. Each method
then applies its own dialect: ProgPrompt accepts only lower-case skill names with at most two
plain object names, COWP's baseline reads object names with spaces."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

_CALL = re.compile(r"^([A-Za-z_]\w*)\s*\((.*)\)\s*;?\s*$")
_ASSERT = re.compile(r"^assert\s*\(\s*['\"]?([\w ]+?)['\"]?\s+is\s+['\"]?([\w ]+?)['\"]?\s*\)\s*$")


@dataclass(frozen=True)
class CallLine:
    """One call line: the function's name as written and its arguments, quotes removed."""

    verb: str
    args: tuple[str, ...]


def parse_call(line: str) -> Optional[CallLine]:
    """The call on ``line`` (``name(arg, 'arg', ...)``, an optional ``;``), or None."""
    m = _CALL.match(line.strip())
    if m is None:
        return None
    args = tuple(a.strip().strip("'\"").strip() for a in m.group(2).split(",") if a.strip().strip("'\""))
    return CallLine(m.group(1), args)


def parse_assert(line: str) -> Optional[tuple[str, str]]:
    """``assert('mug' is 'clean')`` -> ``('mug', 'clean')`` (underscores kept), or None."""
    m = _ASSERT.match(line.strip())
    return None if m is None else (m.group(1).strip(), m.group(2).strip())


__all__ = ["CallLine", "parse_call", "parse_assert"]
