"""The Plan and Partial Plan tools (AutoGPT+P Sec. IV-D, Alg. 3; the semantic check is
Alg. 4 in ``groundplan.pddl.semantics``).

The LLM is asked for a goal state in PDDL (the prompt holds the domain's predicates with
their comments and the problem without its goal); the goal is taken from the free-text
answer, checked for syntax (parentheses, predicates, objects, types, arity, no ``?``) and
semantics (DNF + semantic conditions); an error is fed back and the LLM corrects itself,
up to ``n`` rounds; a correct goal goes to the planner. The Partial Plan tool differs only in
its prompt, which allows an incomplete goal."""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from typing import Optional

from groundplan.errors import GoalError, GoalErrorKind
from groundplan.llm.goal import parse_wrapped_goal
from groundplan.llm.grammar import GoalGrammarOptions, goal_grammar
from groundplan.llm.types import Message
from groundplan.methods.autogpt_p.dialogue import Dialogue
from groundplan.methods.autogpt_p.prompting import plan_goal_prompt
from groundplan.pddl.formula import And, Formula, Or
from groundplan.pddl.goal import FORMAT_FEEDBACK, check_goal
from groundplan.pddl.semantics import SemanticCondition, check_semantics, conditions_from_data
from groundplan.planners.base import Planner, PlanStatus
from groundplan.schemas import yaml_lines as yaml_fast
from groundplan.skills.builder import PlanningTask

EMPTY_GOAL_FEEDBACK = "There is a logical contradiction in the goal. Dummy. Please correct your answer"


def original_conditions() -> tuple[SemanticCondition, ...]:
    """AutoGPT+P's semantic conditions as its logs show them (package data)."""
    text = resources.files("groundplan.methods.autogpt_p").joinpath("data/semantic_conditions.yaml").read_text()
    return conditions_from_data(yaml_fast.safe_load(text))




@dataclass(frozen=True)
class GoalAnswerCheck:
    goal: Optional[Formula]
    text: Optional[str]
    feedback: Optional[str]  # the error message for the LLM (None: the goal is correct)
    error: Optional[str]  # the one-line error for people


@dataclass(frozen=True)
class PlanToolResult:
    """``status``: solved | no_goal (no correct goal within the rounds) | unsolvable |
    timeout | error (the planner failed) | llm_error (the LLM gave no answer)."""

    status: str
    goal_text: Optional[str] = None
    plan: tuple[str, ...] = ()
    cost: Optional[float] = None
    rounds: int = 0
    feedback: tuple[str, ...] = ()
    partial: bool = False
    error: Optional[str] = None

    @property
    def solved(self) -> bool:
        return self.status == "solved"


_GOAL_BLOCK = re.compile(r"\(\s*:goal", re.IGNORECASE)


def _balanced(text: str, start: int) -> Optional[str]:
    depth = 0
    for j in range(start, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return text[start:j + 1]
    return None


def extract_goal(answer: str) -> Optional[str]:
    """The goal in a free-text answer, as the original extracted it (measured on its logs:
    this reproduces all 849 goals it accepted and finds no goal in all 189 answers it
    answered with the format error): the *last* ``(:goal ...)`` block, and of that block
    only its *first* expression (``(:goal (a) (b))`` is ``(a)``; ``(:goal and (a) (b))`` is
    ``(and (a) (b))``). No ``(:goal`` - no goal."""
    starts = [m.start() for m in _GOAL_BLOCK.finditer(answer or "")]
    if not starts:
        return None
    s = starts[-1]
    block = _balanced(answer, s)
    if block is None:  # unbalanced: let the parser report the parentheses
        return answer[s:].strip()
    head = _GOAL_BLOCK.match(block)
    inner = block[head.end() if head else 1:-1].strip()
    if not inner:
        return None
    if inner.startswith("("):
        return _balanced(inner, 0) or inner
    return f"({inner})"


def goal_blocks(answer: str) -> list[str]:
    """Every ``(:goal ...)`` block of an answer, each read as ``extract_goal`` reads one."""
    out = []
    for m in _GOAL_BLOCK.finditer(answer or ""):
        block = _balanced(answer, m.start())
        goal = extract_goal(block) if block is not None else None
        if goal:
            out.append(goal)
    return out


_FENCE = re.compile(r"```[ \t]*(?:pddl|lisp|scheme)?[ \t]*\n?(.*?)```", re.IGNORECASE | re.DOTALL)
_ATOM = re.compile(r"\(\s*[A-Za-z][\w-]*(\s+[^()\s]+)*\s*\)")


def _expressions(body: str) -> Optional[list[str]]:
    """``body`` as a sequence of balanced parenthesised expressions (None if anything else)."""
    exprs: list[str] = []
    i = 0
    while i < len(body):
        if body[i].isspace():
            i += 1
            continue
        e = _balanced(body, i) if body[i] == "(" else None
        if e is None:
            return None
        exprs.append(e)
        i += len(e)
    return exprs or None


def fenced_goal(answer: str) -> Optional[str]:
    """A goal given as a fenced code block of PDDL expressions and nothing else (the last such
    block): "```pddl (on drill0 toolbox0) (closed toolbox0)```" is ``(and (on drill0 toolbox0)
    (closed toolbox0))``, several atoms being an implicit and. Read only where ``extract_goal``
    finds no ``(:goal`` block; on the original's logs (1,968 Plan-tool and 2,342 loop goal
    answers) it finds a goal in none of the answers the original rejected for their format."""
    for m in reversed(list(_FENCE.finditer(answer or ""))):
        exprs = _expressions(m.group(1).strip())
        if exprs:
            return exprs[0] if len(exprs) == 1 else f"(and {' '.join(exprs)})"
    return None


def format_feedback(answer: str) -> str:
    """The format-error message with the format it expects: the original's sentence, then how
    to write the goal, with the answer's own atoms when it has some."""
    atoms = [m.group(0) for m in _ATOM.finditer(answer or "")][:6]
    body = f"(and {' '.join(atoms)})" if len(atoms) > 1 else (atoms[0] if atoms else "(and (inhand apple0 human0))")
    return (f"{FORMAT_FEEDBACK}. Write the goal state as one PDDL expression after ':goal', using only the "
            f"predicates and objects above, for example (:goal {body})")


#: a goal in the wrapped forms the prompt's example invites (``(:goal and(...))``, ``(goal: and(...))``)
parse_answer_goal = parse_wrapped_goal


def check_syntax_and_semantics(answer: str, task: PlanningTask, conditions: tuple[SemanticCondition, ...], *,
                               allow_hidden: bool, text: Optional[str] = None) -> GoalAnswerCheck:
    """checkSyntax and checkSemantics of Alg. 3 on one LLM answer."""
    goal_text = text if text is not None else (extract_goal(answer) or fenced_goal(answer))
    if not goal_text:
        return GoalAnswerCheck(None, None, format_feedback(answer),
                               "the answer contains no goal: no (:goal ...) block and no fenced PDDL block")
    try:
        goal = parse_answer_goal(goal_text)
        check_goal(goal, task.domain, task.problem, allow_quantifiers=False, allow_hidden=allow_hidden)
        if _is_empty(goal):  # the original's "Dummy" condition: every empty goal "(and )" got it
            return GoalAnswerCheck(None, goal_text, EMPTY_GOAL_FEEDBACK, "the goal is empty")
        check_semantics(goal, task.domain, task.problem, conditions)
    except GoalError as exc:
        return GoalAnswerCheck(None, goal_text, exc.feedback, str(exc))
    if text is None:
        # the original checked the semantics of every goal block of an answer: "(:goal (and
        # (inhand x robot0) (inhand x human0))) ... so the correct goal is (:goal (or ...))"
        # was rejected with the in-hand message (its logs: 14 answers, 5 of them without
        # self-correction, recorded as no goal)
        for other in goal_blocks(answer)[:-1]:
            try:
                check_semantics(parse_answer_goal(other), task.domain, task.problem, conditions)
            except GoalError as exc:
                if exc.kind == GoalErrorKind.SEMANTIC:
                    return GoalAnswerCheck(None, goal_text, exc.feedback, f"{exc} (in an earlier goal of the answer)")
    return GoalAnswerCheck(goal, goal_text, None, None)


def _is_empty(goal: Formula) -> bool:
    if isinstance(goal, (And, Or)):
        return all(_is_empty(a) for a in goal.args)
    return False


def planning_with_self_correction(dialogue: Dialogue, task: PlanningTask, instruction: str, planner: Planner, *,
                                  max_rounds: int, partial: bool = False, self_correction: bool = True,
                                  allow_hidden: bool = True, timeout: Optional[float] = None,
                                  robot: str = "HIDDEN_FOR_REVIEW",
                                  conditions: Optional[tuple[SemanticCondition, ...]] = None,
                                  example: str = "Example: Bring me a banana -> (goal: and(inhand banana human))"
                                  ) -> PlanToolResult:
    """Algorithm 3: ask for a goal, check it, feed the error back, up to ``max_rounds``
    times (one when self-correction is off); then plan the first correct goal."""
    domain, problem = task.domain, task.problem
    if conditions is None:
        conditions = task.skillset.semantic_conditions
    prompt = plan_goal_prompt(domain, problem, instruction, partial=partial, robot=robot, example=example)
    messages: list[Message] = [Message("user", prompt)]
    grammar = None
    if dialogue.constrained:
        g = goal_grammar(domain, problem, GoalGrammarOptions(allow_hidden=allow_hidden))
        grammar = g.gbnf
        limit: Optional[int] = g.max_tokens
    else:
        limit = None
    feedback: list[str] = []
    rounds = max_rounds if self_correction else 1
    purpose = "partial_goal" if partial else "goal"
    last_text: Optional[str] = None
    for loop in range(1, rounds + 1):
        answer = dialogue.ask(purpose, messages, grammar=grammar, max_tokens=limit)
        messages.append(Message("assistant", answer))
        chk = check_syntax_and_semantics(answer, task, conditions, allow_hidden=allow_hidden,
                                         text=answer.strip() if grammar is not None else None)
        last_text = chk.text
        if dialogue.recorder is not None:
            dialogue.recorder.event("goal", round=loop, text=chk.text, ok=chk.goal is not None, error=chk.error,
                                    partial=partial)
        if chk.goal is None:
            feedback.append(chk.feedback or FORMAT_FEEDBACK)
            if dialogue.recorder is not None:
                dialogue.recorder.event("feedback", round=loop, message=chk.feedback)
            if loop < rounds:
                messages.append(Message("user", chk.feedback or FORMAT_FEEDBACK))
            continue
        res = planner.plan(domain, problem.with_goal(chk.goal), timeout=timeout)
        if dialogue.recorder is not None:
            dialogue.recorder.event("plan", status=res.status.value, steps=res.plan, cost=res.cost,
                                    seconds=round(res.seconds, 4), error=res.error)
        status = {PlanStatus.SOLVED: "solved", PlanStatus.UNSOLVABLE: "unsolvable",
                  PlanStatus.TIMEOUT: "timeout"}.get(res.status, "error")
        return PlanToolResult(status, chk.text, res.plan if res.solved else (), res.cost, loop, tuple(feedback),
                              partial, res.error)
    return PlanToolResult("no_goal", last_text, (), None, rounds, tuple(feedback), partial,
                          "no correct goal within the rounds")


__all__ = ["PlanToolResult", "GoalAnswerCheck", "planning_with_self_correction", "check_syntax_and_semantics",
           "extract_goal", "fenced_goal", "format_feedback", "goal_blocks", "parse_answer_goal"]
