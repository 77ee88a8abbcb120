"""COWP prompt templates (package data): the plan monitor (prompt 1), the predicate
generator, the knowledge acquirer (prompts 2 and 3, objects and appliances), the action
sentences, and the baselines' prompts (LMZSP, ProgPrompt, Inner Monologue).

The wording of prompts 1-3 is GPT-Planner's (``is it suitable that a robot fills a cup
with water from faucet if the cup is broken?``), which is what GPT-3's logged answers in
``experience/*.txt`` were given to; the paper prints the same question as "Is it suitable
for a robot to [Perform-Action], if [Situation]?"."""

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
    """Fill template ``name`` (e.g. ``monitor.txt``); every slot must be given."""
    return Template(template_text(name)).substitute(**{k: str(v) for k, v in slots.items()})


@lru_cache(maxsize=None)
def actions_data() -> Mapping[str, Any]:
    return yaml.safe_load(resources.files(__name__).joinpath("actions.yaml").read_text(encoding="utf-8"))


__all__ = ["template_text", "render", "actions_data"]
