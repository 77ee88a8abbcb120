"""The file formats' one source of truth: JSON Schemas shipped as package data
(``scene``, ``skillset``, ``oam``, ``oam_json``; ``episode``, the record groundplan writes).
Loaders validate against them and report
the first violation as one line ``file:line: message`` (with did-you-mean for a misspelt
key); docs/formats.md is generated from them (``groundplan formats --markdown``)."""

from __future__ import annotations

import json
import re
import unicodedata
from functools import lru_cache
from importlib import resources
from typing import Any

import jsonschema

from groundplan.errors import InputError, did_you_mean
from groundplan.schemas.yaml_lines import EMPTY, LineMap, load_yaml

SCHEMAS = ("scene", "skillset", "oam", "oam_json", "episode")
#: the schemas' pattern of an object, class or location name
NAME_PATTERN = "^[^\\s()?;\\u0080-\\uffff]+$"


@lru_cache(maxsize=None)
def load_schema(name: str) -> dict:
    if name not in SCHEMAS:
        raise KeyError(f"no schema '{name}' (known: {', '.join(SCHEMAS)})")
    text = resources.files("groundplan.schemas").joinpath(f"{name}.schema.json").read_text()
    return json.loads(text)


@lru_cache(maxsize=None)
def _validator(name: str) -> jsonschema.protocols.Validator:
    schema = load_schema(name)
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


def _where(path) -> str:
    out = ""
    for k in path:
        out += f"[{k}]" if isinstance(k, int) else (f".{k}" if out else str(k))
    return out or "the top level"


_TYPE_WORDS = {"object": "a mapping", "array": "a list", "string": "a string", "number": "a number",
               "integer": "a whole number", "boolean": "true or false", "null": "empty"}


def _type_words(t) -> str:
    ts = t if isinstance(t, list) else [t]
    return " or ".join(_TYPE_WORDS.get(x, x) for x in ts)


def _leaf(err: jsonschema.ValidationError) -> jsonschema.ValidationError:
    """For oneOf/anyOf: the alternative that got furthest (deepest path), else the error itself."""
    while err.context:
        deepest = max(err.context, key=lambda e: (len(e.absolute_path), e.validator != "type"))
        if len(deepest.absolute_path) <= len(err.absolute_path) and deepest.validator == "type":
            return err
        err = deepest
    return err


def _message(err: jsonschema.ValidationError, top_word: str) -> tuple[str, tuple]:
    """(one-line message, path the line should come from)."""
    path = tuple(err.absolute_path)
    where = _where(path)
    v = err.validator
    if v == "additionalProperties" and isinstance(err.instance, dict):
        props = err.schema.get("properties", {})
        extra = [k for k in err.instance if k not in props]
        key = extra[0] if extra else "?"
        what = f"unknown {top_word}" if not path else f"unknown key in {where}:"
        return (f"{what} '{key}'{did_you_mean(key, props)} (expected one of {', '.join(props)})",
                path + (key,))
    if v == "required":
        missing = err.message.split("'")[1] if "'" in err.message else err.message
        return f"{where} needs the key '{missing}'", path
    if v == "type":
        return f"{where} must be {_type_words(err.validator_value)}, not {err.instance!r}", path
    if v == "enum":
        opts = [str(x) for x in err.validator_value]
        return (f"{where} '{err.instance}' is not one of {', '.join(opts)}{did_you_mean(err.instance, opts)}",
                path)
    if v == "const":
        return f"{where} must be {err.validator_value!r}, not {err.instance!r}", path
    if v == "pattern":
        if err.validator_value == NAME_PATTERN and isinstance(err.instance, str):
            ascii_ = unicodedata.normalize("NFKD", err.instance).encode("ascii", "ignore").decode()
            fixed = re.sub(r"[()?;]+", "", "_".join(ascii_.split()))
            hint = f" (did you mean {fixed}?)" if fixed and re.fullmatch(NAME_PATTERN, fixed) else ""
            return (f"{where} '{err.instance}' is not a valid name: a name has no spaces, parentheses, '?', ';' "
                    f"or non-ASCII letters{hint}", path)
        return f"{where} '{err.instance}' is not a valid name or entry here ({err.schema.get('description', 'bad form')})", path
    if v == "uniqueItems" and isinstance(err.instance, list):
        seen: set = set()
        twice = next((x for x in err.instance if x in seen or seen.add(x)), "?")
        return f"{where} lists '{twice}' twice", path
    if v in ("minimum", "minItems"):
        return f"{where}: {err.message}", path
    if v == "oneOf":
        return f"{where}: {err.instance!r} has none of the allowed forms ({err.schema.get('description', '')})".rstrip(" ()"), path
    return f"{where}: {err.message}", path


def validate(data: Any, schema: str, *, file: str, lines: LineMap = EMPTY,
             error: type[InputError] = InputError, top_word: str = "key") -> None:
    """Raise ``error`` (``file:line: message``) for the first violation of ``schema``, by line."""
    errors = list(_validator(schema).iter_errors(data))
    if not errors:
        return
    found = []
    for e in errors:
        leaf = _leaf(e)
        msg, path = _message(leaf, top_word)
        found.append((lines.line(path) or 0, -len(path), msg))
    line, _, msg = min(found)
    raise error(msg, file=file, line=line or None)


__all__ = ["SCHEMAS", "EMPTY", "LineMap", "load_schema", "load_yaml", "validate"]
