"""LLM+P prompt templates (package data), ``$slot`` placeholders (string.Template)."""

from __future__ import annotations

from importlib import resources
from string import Template


def load(name: str) -> Template:
    """A template, byte for byte as stored (the paper's prompts end without a newline)."""
    return Template(resources.files(__name__).joinpath(name).read_text(encoding="utf-8"))
