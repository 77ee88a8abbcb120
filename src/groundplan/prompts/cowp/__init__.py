"""COWP prompt templates (package data): the plan monitor (prompt 1), the predicate
generator, the knowledge acquirer (prompts 2 and 3, objects and appliances), the action
sentences, and the baselines' prompts (LMZSP, ProgPrompt, Inner Monologue).

The wording of prompts 1-3 is GPT-Planner's (``is it suitable that a robot fills a cup
with water from faucet if the cup is broken?``), which is what GPT-3's logged answers in
``experience/*.txt`` were given to; the paper prints the same question as "Is it suitable
for a robot to [Perform-Action], if [Situation]?"."""

from __future__ import annotations

from typing import Any, Mapping

from groundplan.prompts import TemplatePackage

_files = TemplatePackage(__name__)
template_text = _files.text
render = _files.render


def actions_data() -> Mapping[str, Any]:
    return _files.yaml("actions.yaml")


__all__ = ["template_text", "render", "actions_data"]
