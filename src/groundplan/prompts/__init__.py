"""Prompt templates, one package per method (``groundplan.prompts.<method>``), each following
its paper's figures; package data, never long strings in code.

A method's prompt package reads its files through one ``TemplatePackage``::

    _files = TemplatePackage(__name__)
    template_text, render = _files.text, _files.render
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from string import Template
from typing import Any

from groundplan.schemas import yaml_lines as yaml_fast


class TemplatePackage:
    """The template files of one prompt package: read once, filled with ``string.Template``."""

    def __init__(self, package: str):
        self.package = package
        self.text = lru_cache(maxsize=None)(self._text)
        self.yaml = lru_cache(maxsize=None)(self._yaml)

    def _read(self, name: str) -> str:
        return resources.files(self.package).joinpath(name).read_text(encoding="utf-8")

    def _text(self, name: str) -> str:
        """The template ``name`` without its final newline."""
        text = self._read(name)
        return text[:-1] if text.endswith("\n") else text

    def _yaml(self, name: str) -> Any:
        return yaml_fast.safe_load(self._read(name))

    def render(self, name: str, **slots: Any) -> str:
        """Fill template ``name``; every slot must be given."""
        return Template(self.text(name)).substitute(**{k: str(v) for k, v in slots.items()})


__all__ = ["TemplatePackage"]
