"""Inner Monologue prompt templates (package data): the closed-loop dialogue (``prompt.txt``),
one worked example dialogue (``example.txt``), the feedback lines (``feedback.yaml``) and the
grammar of one action (``action.gbnf.txt``)."""

from __future__ import annotations

from typing import Any, Mapping

from groundplan.prompts import TemplatePackage

_files = TemplatePackage(__name__)
template_text = _files.text
render = _files.render


def feedback_texts() -> Mapping[str, Any]:
    return _files.yaml("feedback.yaml")


__all__ = ["template_text", "render", "feedback_texts"]
