"""One conversation with the model (Wake et al., Fig. 8).

The five fixed turns come first; then as much of the earlier conversation as the token
budget allows, newest exchange first (older ones are dropped whole); then the current
exchange: the instruction prompt built from the *current* environment, the model's answer,
and any feedback turns (a user's correction, or the automatic feedback system's message)
with the revised answers. Accepting an answer closes the exchange and makes its
``environment_after`` the environment of the next instruction - the paper's way of
planning many steps without keeping the whole history in the prompt.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional

from groundplan.llm.base import LLM
from groundplan.llm.errors import ConstraintViolationError, LLMUnsupportedError
from groundplan.llm.types import Completion, Message, UsageMeter
from groundplan.methods.wake_prompts.prompts import PromptSet
from groundplan.methods.wake_prompts.schema import (
    AnswerFormatError,
    AnswerView,
    answer_grammar,
    answer_problems,
    answer_schema,
    extract_answer,
)
from groundplan.world.wake_actions import ActionSet

_TOKEN = re.compile(r"\w+|[^\w\s]")


def approx_tokens(text: str) -> int:
    """A conservative token estimate without a tokenizer: the larger of one token per
    three characters and one per word or punctuation mark (BPE tokenizers of small models
    spend about that on JSON-heavy prompts)."""
    return max(len(text) // 3, len(_TOKEN.findall(text)))


@dataclass(frozen=True)
class WakeOptions:
    #: decode under the answer's JSON schema (embedded, llama.cpp servers, vLLM, OpenAI)
    constrained: bool = True
    temperature: float = 0.0
    seed: Optional[int] = 0
    max_tokens: int = 1200
    #: the model's context window: history gets what the fixed turns, the current exchange
    #: and ``max_tokens`` leave of it
    context_tokens: int = 8192
    #: an explicit history budget in tokens (overrides the computed one; 0 drops all history)
    history_tokens: Optional[int] = None
    #: constrain environment_before to the environment given (the prompt asks for a copy)
    pin_environment_before: bool = True
    #: how decoding is constrained: "grammar" (GBNF in the examples' layout; falls back to the
    #: JSON schema where the endpoint takes no grammar) or "json_schema"
    constraint: str = "grammar"
    #: with the grammar, a task sequence of grasp-manipulation-release units where the action
    #: set has them (LfO): each unit approaches, grasps, manipulates and releases one object
    units: bool = False


@dataclass(frozen=True)
class Answer:
    """One model answer: its text, the dictionary read from it (None if unreadable) and
    what is wrong with it (empty: well-formed)."""

    text: str
    data: Optional[Mapping[str, Any]]
    problems: tuple[str, ...]
    finish_reason: str = "stop"

    @property
    def ok(self) -> bool:
        return self.data is not None and not self.problems

    @property
    def view(self) -> AnswerView:
        return AnswerView(self.data or {})

    @property
    def question(self) -> str:
        return self.view.question

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "data": self.data, "problems": list(self.problems),
                "finish_reason": self.finish_reason}


def read_answer(text: str, env: Mapping[str, Any], actions: ActionSet, prompts: PromptSet,
                finish_reason: str = "stop") -> Answer:
    try:
        data = extract_answer(text)
    except AnswerFormatError as exc:
        why = str(exc)
        if finish_reason == "length":
            why += " (the answer was cut off: it is too long)"
        return Answer(text, None, (why,), finish_reason)
    probs = answer_problems(data, env, actions, keys=prompts.keys, argless=prompts.argless)
    return Answer(text, data, tuple(probs), finish_reason)


@dataclass
class Exchange:
    """One instruction's part of the conversation."""

    instruction: str
    environment: Mapping[str, Any]  # the environment the instruction was planned in
    messages: list[Message] = field(default_factory=list)
    answers: list[Answer] = field(default_factory=list)


class WakeSession:
    """The conversation state of one user (or one benchmark episode)."""

    def __init__(self, llm: LLM, prompts: PromptSet, actions: ActionSet, environment: Mapping[str, Any], *,
                 options: WakeOptions = WakeOptions(), meter: Optional[UsageMeter] = None,
                 on_call: Optional[Callable[[str, list[Message], Completion], None]] = None,
                 count_tokens: Callable[[str], int] = approx_tokens):
        self.llm = llm
        self.prompts = prompts
        self.actions = actions
        self.environment: Mapping[str, Any] = environment
        self.options = options
        self.meter = meter
        self.on_call = on_call
        self.count_tokens = count_tokens
        self.history: list[Exchange] = []
        self.current: Optional[Exchange] = None
        self.calls = 0
        self.history_used: list[int] = []  # exchanges of history sent with each call
        self._no_grammar = False

    # ------------------------------------------------------------------ prompt

    def _tokens(self, msgs: list[Message]) -> int:
        return sum(self.count_tokens(m.content) + 4 for m in msgs)

    def history_budget(self, current: list[Message]) -> int:
        if self.options.history_tokens is not None:
            return max(self.options.history_tokens, 0)
        fixed = self._tokens(self.prompts.fixed_messages())
        return max(self.options.context_tokens - fixed - self._tokens(current) - self.options.max_tokens, 0)

    def messages(self) -> list[Message]:
        current = self.current.messages if self.current else []
        budget = self.history_budget(current)
        chosen: list[Exchange] = []
        used = 0
        for ex in reversed(self.history):  # newest first
            cost = self._tokens(ex.messages)
            if used + cost > budget:
                break
            chosen.append(ex)
            used += cost
        self.history_used.append(len(chosen))
        msgs = self.prompts.fixed_messages()
        for ex in reversed(chosen):
            msgs.extend(ex.messages)
        return msgs + list(current)

    def schema(self) -> dict[str, Any]:
        env = self.current.environment if self.current else self.environment
        return answer_schema(env, self.actions, keys=self.prompts.keys, argless=self.prompts.argless,
                             pin_before=self.options.pin_environment_before)

    def grammar(self) -> str:
        env = self.current.environment if self.current else self.environment
        return answer_grammar(env, self.actions, keys=self.prompts.keys, argless=self.prompts.argless,
                              pin_before=self.options.pin_environment_before, units=self.options.units)

    # ------------------------------------------------------------------ turns

    def _ask(self, purpose: str) -> Answer:
        assert self.current is not None
        msgs = self.messages()
        o = self.options
        kw = dict(max_tokens=o.max_tokens, temperature=o.temperature, seed=o.seed, validate=False, usage=self.meter)
        if o.constrained and o.constraint == "grammar" and not self._no_grammar:
            try:
                c = self.llm.constrained(msgs, grammar=self.grammar(), **kw)
            except LLMUnsupportedError:  # e.g. OpenAI: JSON schema only
                self._no_grammar = True
                c = self.llm.constrained(msgs, json_schema=self.schema(), **kw)
        elif o.constrained:
            c = self.llm.constrained(msgs, json_schema=self.schema(), **kw)
        else:
            c = self.llm.chat(msgs, max_tokens=o.max_tokens, temperature=o.temperature, seed=o.seed, usage=self.meter)
        self.calls += 1
        if self.on_call is not None:
            self.on_call(purpose, msgs, c)
        answer = read_answer(c.text, self.current.environment, self.actions, self.prompts, c.finish_reason)
        self.current.messages.append(Message("assistant", c.text))
        self.current.answers.append(answer)
        return answer

    def instruct(self, instruction: str) -> Answer:
        """Plan ``instruction`` in the current environment (turn six). An exchange still
        open is closed first without changing the environment."""
        if self.current is not None:
            self.history.append(self.current)
        self.current = Exchange(instruction, self.environment)
        self.current.messages.append(Message("user", self.prompts.query(self.environment, instruction)))
        return self._ask("plan")

    def correct(self, feedback: str, *, purpose: str = "feedback") -> Answer:
        """Send feedback on the latest answer; the model answers with a revised dictionary."""
        if self.current is None:
            raise ValueError("no instruction to correct: call instruct() first")
        self.current.messages.append(Message("user", feedback))
        return self._ask(purpose)

    @property
    def last(self) -> Optional[Answer]:
        return self.current.answers[-1] if self.current and self.current.answers else None

    def accept(self, environment: Optional[Mapping[str, Any]] = None) -> Mapping[str, Any]:
        """Close the current exchange. The next environment is ``environment`` when given
        (e.g. the executor's state), else the last answer's ``environment_after`` (the
        paper), else the environment stays as it was. Returns the new environment."""
        if self.current is None:
            return self.environment
        if environment is None:
            last = self.last
            after = last.view.environment_after if last is not None and last.data is not None else None
            environment = json.loads(json.dumps(after)) if after is not None else self.environment
        self.history.append(self.current)
        self.current = None
        self.environment = environment
        return environment

    def reset(self, environment: Mapping[str, Any]) -> None:
        self.history.clear()
        self.current = None
        self.environment = environment


__all__ = ["WakeOptions", "Answer", "Exchange", "WakeSession", "read_answer", "approx_tokens",
           "ConstraintViolationError"]
