"""Read YAML (or JSON, which YAML reads too) keeping the line of every key and item, so a
loader can report ``file:line: message`` for a value deep inside a file. Duplicate keys,
which PyYAML would silently resolve to the last one, are reported."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import yaml

from groundplan.errors import InputError

Path_ = tuple  # a path into the data: mapping keys (str) and sequence indices (int)


@dataclass(frozen=True)
class LineMap:
    """path -> 1-based line. A mapping entry's line is its key's line; a sequence item's is
    the item's first line. ``line(path)`` falls back to the nearest enclosing entry."""

    lines: dict = field(default_factory=dict)

    def line(self, path: Sequence = ()) -> int | None:
        p = tuple(k if isinstance(k, int) else str(k) for k in path)
        while p:
            if p in self.lines:
                return self.lines[p]
            p = p[:-1]
        return self.lines.get((), None)

    def has(self, path: Sequence) -> bool:
        return tuple(k if isinstance(k, int) else str(k) for k in path) in self.lines


EMPTY = LineMap()

#: libyaml's loader when PyYAML was built with it (ten times faster), else the Python one
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    """``yaml.safe_load`` through libyaml when PyYAML has it: the package's lexicons and maps
    (tens of thousands of entries) load in a tenth of the time, the same data."""
    return yaml.load(text, Loader=_Loader)  # noqa: S506 - a safe loader (C or Python)


def _walk(node: yaml.Node, path: tuple, out: dict, dup: Callable[[str, int, int], None]) -> None:
    out.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for k, v in node.value:
            key = str(k.value) if isinstance(k, yaml.ScalarNode) else repr(k.value)
            line = k.start_mark.line + 1
            if key == "<<":  # a merge key: its entries belong to this mapping
                _walk(v, path, out, dup)
                continue
            if key in seen:
                dup(key, line, seen[key])
            seen[key] = line
            out[path + (key,)] = line
            _walk(v, path + (key,), out, dup)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            out[path + (i,)] = item.start_mark.line + 1
            _walk(item, path + (i,), out, dup)


def _bad_scalar_line(node: yaml.Node) -> int | None:
    """The line of the first scalar that cannot be constructed (a value its tag rejects)."""
    constructor = yaml.constructor.SafeConstructor()
    stack = [node]
    while stack:
        n = stack.pop(0)
        if isinstance(n, yaml.ScalarNode):
            try:
                constructor.construct_object(n, deep=True)
            except Exception:  # noqa: BLE001 - any failure marks the culprit
                return n.start_mark.line + 1
        elif isinstance(n, yaml.MappingNode):
            stack[:0] = [x for kv in n.value for x in kv]
        elif isinstance(n, yaml.SequenceNode):
            stack[:0] = list(n.value)
    return None


def load_yaml(text: str, *, file: str, error: type[InputError] = InputError,
              what: str = "YAML") -> tuple[Any, LineMap]:
    """Parse ``text`` into plain data and its LineMap. Syntax errors and duplicate keys
    raise ``error`` as ``file:line: message``."""
    loader = _Loader(text)
    try:
        try:
            node = loader.get_single_node()
            if node is None:
                return None, EMPTY
            data = loader.construct_document(node)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
            raise error(f"invalid {what}: {problem}", file=file,
                        line=mark.line + 1 if mark is not None else None) from None
        except (ValueError, TypeError, OverflowError) as exc:  # a tagged scalar, e.g. !!int carry
            raise error(f"invalid {what} value: {' '.join(str(exc).split())}", file=file,
                        line=_bad_scalar_line(node)) from None
    finally:
        loader.dispose()
    out: dict = {}

    def dup(key: str, line: int, first: int) -> None:
        raise error(f"duplicate key '{key}' (first given on line {first})", file=file, line=line)

    _walk(node, (), out, dup)
    return data, LineMap(out)
