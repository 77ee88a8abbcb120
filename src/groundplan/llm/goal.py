"""Ask an LLM for a PDDL goal: constrained (the goal grammar of the domain and scene, so
the answer is a well-formed, type-correct goal by construction) or free (the goal is
extracted from the answer text). Either way the result is parsed and checked against the
domain and problem, and a failure carries AutoGPT+P's correction feedback."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from groundplan.errors import GoalError
from groundplan.llm.base import LLM
from groundplan.llm.grammar import DEFAULT_GOAL_GRAMMAR, GoalGrammar, GoalGrammarOptions, goal_grammar
from groundplan.llm.types import Completion, MessagesLike, UsageMeter
from groundplan.pddl.formula import Formula
from groundplan.pddl.goal import FORMAT_FEEDBACK, check_goal, extract_goal_text, parse_goal
from groundplan.pddl.model import Domain, Problem

_WRAPPED = re.compile(r"^\(\s*(?::goal|goal:|goal)\s*(?=[a-z(])(.*)\)\s*$", re.DOTALL | re.IGNORECASE)


def parse_wrapped_goal(text: str) -> Formula:
    """parse_goal, also accepting the form AutoGPT+P's own prompt example shows,
    ``(:goal and(inhand banana human))`` (and the logs' ``(goal: and(...))``, ``(goal and(...))``)."""
    try:
        return parse_goal(text)
    except GoalError:
        m = _WRAPPED.match(text.strip())
        if m is None:
            raise
        return parse_goal(m.group(1))


@dataclass(frozen=True)
class GoalProposal:
    answer: str
    goal_text: Optional[str]
    goal: Optional[Formula]
    error: Optional[str]
    feedback: Optional[str]
    completion: Completion
    constrained: bool

    @property
    def ok(self) -> bool:
        return self.goal is not None


def propose_goal(llm: LLM, messages: MessagesLike, domain: Domain, problem: Problem, *, constrained: bool = True,
                 grammar: GoalGrammar | None = None, grammar_options: GoalGrammarOptions = DEFAULT_GOAL_GRAMMAR,
                 max_tokens: int | None = None, temperature: float = 0.0, seed: int | None = 0,
                 usage: UsageMeter | None = None) -> GoalProposal:
    """One LLM call for a goal. Constrained: ``max_tokens`` defaults to the grammar's bound,
    so the goal is never cut short."""
    if constrained:
        g = grammar or goal_grammar(domain, problem, grammar_options)
        c = llm.constrained(messages, grammar=g.gbnf, max_tokens=max_tokens or g.max_tokens,
                            temperature=temperature, seed=seed, usage=usage)
        text: Optional[str] = c.text.strip()
    else:
        c = llm.chat(messages, max_tokens=max_tokens or 512, temperature=temperature, seed=seed, usage=usage)
        text = extract_goal_text(c.text)
    if not text:
        return GoalProposal(c.text, None, None, "the answer contains no goal", FORMAT_FEEDBACK, c, constrained)
    try:
        goal = parse_wrapped_goal(text)
        check_goal(goal, domain, problem, allow_hidden=False)
    except GoalError as exc:
        return GoalProposal(c.text, text, None, str(exc), exc.feedback, c, constrained)
    return GoalProposal(c.text, text, goal, None, None, c, constrained)
