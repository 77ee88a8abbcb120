"""ProgPrompt prompt templates (package data)."""

from __future__ import annotations

from importlib import resources
from string import Template


def load(name: str) -> Template:
    text = resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
    return Template(text[:-1] if text.endswith("\n") else text)
