"""AutoGPT+P's prompts, rendered from the template files in ``groundplan.prompts.autogpt_p``
(as the original's logs show them)."""

from __future__ import annotations

from typing import Sequence

from groundplan.pddl.model import Domain, Problem
from groundplan.pddl.writer import write_problem
from groundplan.prompts.autogpt_p import goal_prompt, load_template, render_predicates


def plan_goal_prompt(domain: Domain, problem: Problem, instruction: str, *, partial: bool, robot: str,
                     example: str) -> str:
    """The Plan tool's prompt (Alg. 3 askForGoal), or the Partial Plan tool's."""
    if not partial:
        return goal_prompt(domain, problem, instruction, robot=robot, example=example)
    return load_template("partial_goal_prompt.txt").substitute(
        robot=robot, predicates=render_predicates(domain),
        problem=write_problem(problem.with_goal(None), with_goal=False).rstrip(), instruction=instruction)


def scene_memory(objects: Sequence[str], relations: Sequence[str], unexplored: Sequence[str]) -> str:
    return load_template("scene_memory.txt").substitute(
        objects=",".join(objects), relations=",".join(relations), unexplored=",".join(unexplored))


def tool_selection_prompt(memory: str, request: str, history: Sequence[str], *, result: str | None,
                          first: bool) -> str:
    tools = load_template("tools.txt").substitute()
    hist = "\n".join(history)
    if first:
        return load_template("tool_selection.txt").substitute(memory=memory, tools=tools, history=hist, request=request)
    return load_template("tool_selection_next.txt").substitute(memory=memory, tools=tools, history=hist,
                                                               request=request, result=result or "None")


def affordances_prompt(missing: str, request: str, affordances: Sequence[tuple[str, str]]) -> str:
    lines = "\n".join(f"{name}: {desc}" for name, desc in affordances)
    return load_template("alternative_affordances.txt").substitute(missing=missing, request=request, affordances=lines)


def object_prompt(missing: str, affordance: str, objects: Sequence[str]) -> str:
    return load_template("alternative_object.txt").substitute(missing=missing, affordance=affordance,
                                                              objects=",".join(objects))


def direct_object_prompt(missing: str, request: str, objects: Sequence[str]) -> str:
    return load_template("alternative_direct.txt").substitute(missing=missing, request=request,
                                                              objects=",".join(objects))


def sentiment_prompt(statement: str) -> str:
    return load_template("sentiment.txt").substitute(statement=statement)


def ask_substitution(missing: str, alternative: str) -> str:
    return load_template("ask_substitution.txt").substitute(missing=missing, alternative=alternative)


__all__ = ["plan_goal_prompt", "scene_memory", "tool_selection_prompt", "affordances_prompt", "object_prompt",
           "direct_object_prompt", "sentiment_prompt", "ask_substitution"]
