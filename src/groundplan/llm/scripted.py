"""``scripted`` backend, for tests: answers from a list (in order) or from a function of
the request. A constrained request's answer is checked against its grammar / JSON schema,
so a test with a script that breaks the grammar fails the way a real constrained model
never would (ConstraintViolationError)."""

from __future__ import annotations

import json
import re
import threading
import time
from typing import Callable, Iterable, Optional, Sequence, Union

from groundplan.llm.base import Backend, validate_json
from groundplan.llm.errors import ConstraintViolationError, LLMUnsupportedError, ScriptExhaustedError
from groundplan.llm.gbnf import Grammar, parse_gbnf
from groundplan.llm.types import ChatRequest, Completion, ScoreRequest, ScoreResult, Usage

Answer = Union[str, Completion]
AnswerFn = Callable[[ChatRequest], Answer]
ScoreFn = Callable[[ScoreRequest], Sequence[float]]


_TOKEN = re.compile(r"[^\W]+|[^\w\s]")


def _count_tokens(text: str) -> int:
    """A rough token count (words and punctuation), so usage totals are not all zero.
    One regex pass (a megabyte-long answer is counted in milliseconds)."""
    return sum(1 for _ in _TOKEN.finditer(text))


class ScriptedLLM(Backend):
    backend_name = "scripted"

    def __init__(self, answers: Union[Iterable[Answer], AnswerFn] = (), *, scorer: Optional[ScoreFn] = None,
                 model: str = "script", check_constraints: bool = True, cycle: bool = False):
        super().__init__()
        self._fn: Optional[AnswerFn] = answers if callable(answers) else None
        self._answers: list[Answer] = [] if callable(answers) else list(answers)
        self._next = 0
        self._scorer = scorer
        self._model = model
        self.check_constraints = check_constraints
        self.cycle = cycle
        self.requests: list[ChatRequest | ScoreRequest] = []
        self._grammars: dict[str, Grammar] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_config(cls, config) -> "ScriptedLLM":
        return cls(config.script, model=config.model or "script")

    @property
    def model(self) -> str:
        return self._model

    @property
    def supports_scoring(self) -> bool:
        return self._scorer is not None

    def _complete(self, request: ChatRequest) -> Completion:
        t0 = time.perf_counter()
        with self._lock:
            self.requests.append(request)
            if self._fn is not None:
                answer = self._fn(request)
            else:
                if self._next >= len(self._answers):
                    if not (self.cycle and self._answers):
                        raise ScriptExhaustedError(f"scripted backend: no answer left for request "
                                                   f"{len(self.requests)} (script has {len(self._answers)})")
                    self._next = 0
                answer = self._answers[self._next]
                self._next += 1
        if isinstance(answer, Completion):
            text = answer.text
        else:
            text = str(answer)
        if self.check_constraints and request.constraint is not None:
            self._check(request, text)
        prompt = "\n".join(m.content for m in request.messages)
        return Completion(text, "stop", Usage(_count_tokens(prompt), _count_tokens(text), time.perf_counter() - t0,
                                              self.backend_name, self._model, "model"))

    def _check(self, request: ChatRequest, text: str) -> None:
        c = request.constraint
        assert c is not None
        if c.kind == "json_schema":
            validate_json(text, json.loads(c.text))
            return
        g = self._grammars.get(c.text)
        if g is None:
            g = self._grammars[c.text] = parse_gbnf(c.text)
        if not g.matches(text):
            raise ConstraintViolationError(f"scripted answer {text[:80]!r} does not match the request's grammar")

    def _score(self, request: ScoreRequest) -> ScoreResult:
        if self._scorer is None:
            raise LLMUnsupportedError("scripted backend has no scorer")
        t0 = time.perf_counter()
        with self._lock:
            self.requests.append(request)
        lps = tuple(float(x) for x in self._scorer(request))
        if len(lps) != len(request.continuations):
            raise ValueError("scorer returned a wrong number of log-probabilities")
        counts = tuple(_count_tokens(c) for c in request.continuations)
        return ScoreResult(request.continuations, lps, counts,
                           Usage(_count_tokens(request.prompt), sum(counts), time.perf_counter() - t0,
                                 self.backend_name, self._model, "model"))
