"""Inner Monologue prompt templates (package data): the closed-loop dialogue (``prompt.txt``),
one worked example dialogue (``example.txt``), the feedback lines (``feedback.yaml``) and the
grammar of one action (``action.gbnf.txt``)."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from string import Template
from typing import Any, Mapping

import yaml


@lru_cache(maxsize=None)
def template_text(name: str) -> str:
    text = resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
    return text[:-1] if text.endswith("\n") else text


def render(name: str, **slots: Any) -> str:
    """Fill template ``name``; every slot must be given."""
    return Template(template_text(name)).substitute(**{k: str(v) for k, v in slots.items()})


@lru_cache(maxsize=None)
def feedback_texts() -> Mapping[str, str]:
    return yaml.safe_load(resources.files(__name__).joinpath("feedback.yaml").read_text(encoding="utf-8"))


__all__ = ["template_text", "render", "feedback_texts"]
