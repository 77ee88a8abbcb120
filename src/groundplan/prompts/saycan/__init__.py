"""SayCan prompt templates (package data): the few-shot dialogue (``prompt.txt``, the
paper's "Human: ... / Robot: 1. ..., 2. ..." form, its opening lines from the paper's
appendix prompt) and the skill descriptions per skill set (``skills.yaml``)."""

from __future__ import annotations

from typing import Any, Mapping

from groundplan.prompts import TemplatePackage

_files = TemplatePackage(__name__)
template_text = _files.text
render = _files.render


def skill_texts() -> Mapping[str, Any]:
    return _files.yaml("skills.yaml")


__all__ = ["template_text", "render", "skill_texts"]
