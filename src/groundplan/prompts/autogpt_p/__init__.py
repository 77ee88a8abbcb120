"""AutoGPT+P prompt templates (package data) and their rendering."""

from __future__ import annotations

from importlib import resources
from string import Template
from typing import Optional

from groundplan.pddl.model import Domain, Predicate, Problem
from groundplan.pddl.writer import write_problem

#: robot name shown in the original logs (the paper's anonymised prompt)
DEFAULT_ROBOT = "HIDDEN_FOR_REVIEW"
DEFAULT_EXAMPLE = "Example: Bring me a banana -> (:goal and(inhand banana human))"


def load_template(name: str) -> Template:
    text = resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
    return Template(text[:-1] if text.endswith("\n") else text)


def render_predicates(domain: Domain) -> str:
    """The ``(:predicates ...)`` block as the original prints it: each predicate after its
    ``;`` comment line (when it has one), two spaces after the name."""
    lines = ["(:predicates"]
    for p in domain.predicates:
        if p.comment:
            lines.append(f"; {p.comment}")
        lines.append(_predicate_line(p))
    lines.append(")")
    return "\n".join(lines)


def _predicate_line(p: Predicate) -> str:
    return f"({p.name}  " + " ".join(f"{v.name} - {v.type}" for v in p.params) + ")"


def goal_prompt(domain: Domain, problem: Problem, instruction: str, *, robot: str = DEFAULT_ROBOT,
                example: str = DEFAULT_EXAMPLE, problem_text: Optional[str] = None) -> str:
    """The AutoGPT+P goal-generation prompt for ``instruction`` in the problem's scene."""
    return load_template("goal_prompt.txt").substitute(
        robot=robot,
        predicates=render_predicates(domain),
        problem=problem_text if problem_text is not None else write_problem(problem.with_goal(None), with_goal=False).rstrip(),
        instruction=instruction,
        example=example,
    )


__all__ = ["goal_prompt", "render_predicates", "load_template", "DEFAULT_ROBOT", "DEFAULT_EXAMPLE"]
