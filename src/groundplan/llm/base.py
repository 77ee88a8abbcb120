"""The one interface every method uses to talk to a language model.

``LLM`` is the base class; each backend (embedded, openai, replay, scripted) is a subclass
implementing ``_complete`` (and ``_score`` where it can); the cache and the recorder are
wrappers that are LLMs themselves, so they stack: Recording(Cached(Backend))."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import replace
from typing import Any, Mapping, Optional, Sequence

from groundplan.llm.errors import ConstraintViolationError, LLMUnsupportedError
from groundplan.llm.types import (
    ChatRequest,
    Completion,
    Constraint,
    GenerationParams,
    MessagesLike,
    ScoreRequest,
    ScoreResult,
    UsageMeter,
    as_messages,
)

DEFAULT_MAX_OUTPUT_CHARS = 100_000


def bound_output(result: Completion, max_chars: Optional[int]) -> Completion:
    """``result`` with its text cut to ``max_chars`` (finish_reason "length")."""
    if max_chars is None or len(result.text) <= max_chars:
        return result
    return replace(result, text=result.text[:max_chars], finish_reason="length")


class LLM(ABC):
    """Chat completion, constrained completion (GBNF grammar or JSON schema) and scoring."""

    #: registry name of the backend class (``embedded``, ``openai``, ...)
    backend_name: str = "llm"
    #: whether a disk cache in front of this LLM makes sense (not for replay)
    cacheable: bool = True
    #: longest answer passed on: an endpoint that ignores max_tokens (or a megabyte-long
    #: transcript answer) is cut here with finish_reason "length"; LLMConfig.max_output_chars
    max_output_chars: Optional[int] = DEFAULT_MAX_OUTPUT_CHARS

    # ------------------------------------------------------------------ identity

    @property
    @abstractmethod
    def model(self) -> str:
        """Model id as reported in usage records and cache keys."""

    @property
    def model_calls(self) -> int:
        """How many requests actually reached a model (or script) through this object."""
        return 0

    @property
    def supports_scoring(self) -> bool:
        return False

    @property
    def supports_grammar(self) -> bool:
        """Whether a GBNF grammar sent with ``constrained`` reaches the decoder (embedded,
        llama.cpp and vLLM servers, a transcript recorded with grammars). Methods whose
        goal mode is "auto" decode under their grammars exactly when this is true, so every
        route to one model sends the same request."""
        return False

    # ------------------------------------------------------------------ public API

    def chat(self, messages: MessagesLike, *, max_tokens: int = 256, temperature: float = 0.0,
             stop: Sequence[str] = (), seed: Optional[int] = 0, top_p: float = 1.0,
             usage: UsageMeter | None = None) -> Completion:
        req = ChatRequest(as_messages(messages), GenerationParams(max_tokens, temperature, tuple(stop), seed, top_p))
        return self.complete(req, usage=usage)

    def constrained(self, messages: MessagesLike, *, grammar: str | None = None,
                    json_schema: Mapping[str, Any] | str | None = None, max_tokens: int = 256,
                    temperature: float = 0.0, stop: Sequence[str] = (), seed: Optional[int] = 0,
                    top_p: float = 1.0, validate: bool = True, usage: UsageMeter | None = None) -> Completion:
        """Completion whose text matches a GBNF ``grammar`` or a ``json_schema`` (exactly one).
        With ``validate`` the answer is checked: matched against the grammar, or parsed and
        checked against the schema (ConstraintViolationError if it does not fit: cut off by
        ``max_tokens``, or an endpoint that ignored the constraint)."""
        if (grammar is None) == (json_schema is None):
            raise ValueError("give exactly one of grammar= or json_schema=")
        constraint = Constraint.gbnf(grammar) if grammar is not None else Constraint.json_schema(json_schema)  # type: ignore[arg-type]
        req = ChatRequest(as_messages(messages), GenerationParams(max_tokens, temperature, tuple(stop), seed, top_p),
                          constraint)
        result = self.complete(req, usage=usage)
        if validate and constraint.kind == "json_schema":
            validate_json(result.text, constraint.schema)
        elif validate:
            self._check_grammar(constraint.text, result)
        return result

    def _check_grammar(self, grammar: str, result: Completion) -> None:
        from groundplan.llm.gbnf import parse_gbnf

        cache = self.__dict__.setdefault("_parsed_grammars", {})
        g = cache.get(grammar)
        if g is None:
            if len(cache) > 32:
                cache.clear()
            g = cache[grammar] = parse_gbnf(grammar)
        if not g.matches(result.text):
            why = ("cut off by max_tokens" if result.finish_reason == "length"
                   else "does the endpoint ignore the grammar? see constraint_style")
            raise ConstraintViolationError(f"answer {result.text[:60]!r} does not match the grammar ({why})")

    def score(self, prompt: str, continuations: Sequence[str], *, usage: UsageMeter | None = None) -> ScoreResult:
        """Summed log-probability of each continuation right after ``prompt`` (raw text)."""
        return self.score_request(ScoreRequest(prompt, tuple(continuations)), usage=usage)

    def complete(self, request: ChatRequest, *, usage: UsageMeter | None = None) -> Completion:
        result = bound_output(self._complete(request), self.max_output_chars)
        if usage is not None:
            usage.add(result)
        return result

    def score_request(self, request: ScoreRequest, *, usage: UsageMeter | None = None) -> ScoreResult:
        result = self._score(request)
        if usage is not None:
            usage.add(result)
        return result

    # ------------------------------------------------------------------ backend hooks

    @abstractmethod
    def _complete(self, request: ChatRequest) -> Completion:
        ...

    def _score(self, request: ScoreRequest) -> ScoreResult:
        raise LLMUnsupportedError(f"backend '{self.backend_name}' ({self.model}) cannot score continuations")

    # ------------------------------------------------------------------ lifecycle

    def close(self) -> None:  # noqa: B027 - a no-op hook backends override
        """Release the model / connections."""

    def __enter__(self) -> "LLM":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(backend={self.backend_name!r}, model={self.model!r})"


class Backend(LLM):
    """A backend that answers requests itself; counts the requests it answers."""

    def __init__(self) -> None:
        self._calls = 0

    @property
    def model_calls(self) -> int:
        return self._calls

    def complete(self, request: ChatRequest, *, usage: UsageMeter | None = None) -> Completion:
        result = super().complete(request, usage=usage)
        if result.usage.source == "model":
            self._calls += 1
        return result

    def score_request(self, request: ScoreRequest, *, usage: UsageMeter | None = None) -> ScoreResult:
        result = super().score_request(request, usage=usage)
        if result.usage.source == "model":
            self._calls += 1
        return result


class Wrapper(LLM):
    """An LLM around another (cache, recorder). Identity and counters come from the inner one."""

    def __init__(self, inner: LLM):
        self.inner = inner

    @property
    def backend_name(self) -> str:  # type: ignore[override]
        return self.inner.backend_name

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def model_calls(self) -> int:
        return self.inner.model_calls

    @property
    def supports_scoring(self) -> bool:
        return self.inner.supports_scoring

    @property
    def supports_grammar(self) -> bool:
        return self.inner.supports_grammar

    def _complete(self, request: ChatRequest) -> Completion:
        return self.inner.complete(request)

    def _score(self, request: ScoreRequest) -> ScoreResult:
        return self.inner.score_request(request)

    def close(self) -> None:
        self.inner.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.inner!r})"


def validate_json(text: str, schema: Mapping[str, Any]) -> Any:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConstraintViolationError(f"answer is not valid JSON ({exc.msg} at character {exc.pos})") from None
    import jsonschema

    try:
        jsonschema.validate(value, schema)
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        raise ConstraintViolationError(f"answer does not fit the JSON schema at {where}: "
                                       f"{' '.join(exc.message.split())[:200]}") from None
    return value
