"""Data passed to and returned by every LLM backend: requests, completions, usage.

Requests are frozen and canonically serialisable: the same request always has the same
``key()``, which the disk cache, the recorder and the replay backend all use."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, Mapping, Optional, Sequence, Union

Role = Literal["system", "user", "assistant"]
Source = Literal["model", "cache", "replay"]


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Message:
    role: Role
    content: str

    def to_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


MessagesLike = Union[str, Sequence[Union[Message, Mapping[str, str]]]]


def as_messages(messages: MessagesLike) -> tuple[Message, ...]:
    """A string becomes one user message; dicts become Messages."""
    if isinstance(messages, str):
        return (Message("user", messages),)
    out = []
    for m in messages:
        out.append(m if isinstance(m, Message) else Message(m["role"], m["content"]))  # type: ignore[arg-type]
    return tuple(out)


@dataclass(frozen=True)
class GenerationParams:
    max_tokens: int = 256
    temperature: float = 0.0
    stop: tuple[str, ...] = ()
    seed: Optional[int] = 0
    top_p: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        return {"max_tokens": self.max_tokens, "temperature": self.temperature, "stop": list(self.stop),
                "seed": self.seed, "top_p": self.top_p}

    @property
    def deterministic(self) -> bool:
        """Same request, same answer: greedy decoding, or sampling with a fixed seed."""
        return self.temperature == 0 or self.seed is not None


@dataclass(frozen=True)
class Constraint:
    """Constrained decoding: a GBNF grammar, or a JSON schema (kept as canonical JSON text
    so the constraint is hashable and part of the request key)."""

    kind: Literal["gbnf", "json_schema"]
    text: str

    @classmethod
    def gbnf(cls, grammar: str) -> "Constraint":
        return cls("gbnf", grammar)

    @classmethod
    def json_schema(cls, schema: Mapping[str, Any] | str) -> "Constraint":
        obj = json.loads(schema) if isinstance(schema, str) else schema
        return cls("json_schema", canonical_json(obj))

    @property
    def schema(self) -> dict[str, Any]:
        if self.kind != "json_schema":
            raise ValueError("not a JSON-schema constraint")
        return json.loads(self.text)

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "text": self.text}


@dataclass(frozen=True)
class ChatRequest:
    messages: tuple[Message, ...]
    params: GenerationParams = GenerationParams()
    constraint: Optional[Constraint] = None

    def to_dict(self) -> dict[str, Any]:
        return {"type": "chat", "messages": [m.to_dict() for m in self.messages], "params": self.params.to_dict(),
                "constraint": self.constraint.to_dict() if self.constraint else None}

    def key(self) -> str:
        """Backend-independent identity of the request (replay matches on it)."""
        return sha256(canonical_json(self.to_dict()))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "ChatRequest":
        p = d["params"]
        c = d.get("constraint")
        return cls(as_messages(d["messages"]),
                   GenerationParams(p["max_tokens"], p["temperature"], tuple(p["stop"]), p["seed"], p.get("top_p", 1.0)),
                   Constraint(c["kind"], c["text"]) if c else None)


@dataclass(frozen=True)
class ScoreRequest:
    """Log-probability of each continuation right after ``prompt`` (raw text, no chat template)."""

    prompt: str
    continuations: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"type": "score", "prompt": self.prompt, "continuations": list(self.continuations)}

    def key(self) -> str:
        return sha256(canonical_json(self.to_dict()))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "ScoreRequest":
        return cls(d["prompt"], tuple(d["continuations"]))


Request = Union[ChatRequest, ScoreRequest]


def request_from_dict(d: Mapping[str, Any]) -> Request:
    return ScoreRequest.from_dict(d) if d.get("type") == "score" else ChatRequest.from_dict(d)


@dataclass(frozen=True)
class Usage:
    """One call. Tokens are those the model spent on the answer (also when the answer came
    from the cache or a transcript, so per-episode totals do not depend on caching);
    ``latency_s`` is the wall time of this call; ``source`` says where the answer came from."""

    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    backend: str
    model: str
    source: Source = "model"

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "latency_s": self.latency_s, "backend": self.backend, "model": self.model, "source": self.source}

    def replace(self, **kw: Any) -> "Usage":
        d = self.to_dict()
        d.update(kw)
        return Usage(**d)


@dataclass(frozen=True)
class Completion:
    text: str
    finish_reason: str
    usage: Usage

    def json(self) -> Any:
        """The answer parsed as JSON (for JSON-schema constrained calls)."""
        return json.loads(self.text)

    def payload(self) -> dict[str, Any]:
        """What the cache and transcripts store (usage without latency/source)."""
        return {"text": self.text, "finish_reason": self.finish_reason,
                "prompt_tokens": self.usage.prompt_tokens, "completion_tokens": self.usage.completion_tokens,
                "model_latency_s": self.usage.latency_s}

    @classmethod
    def from_payload(cls, d: Mapping[str, Any], *, latency_s: float, backend: str, model: str,
                     source: Source) -> "Completion":
        return cls(d["text"], d.get("finish_reason", "stop"),
                   Usage(int(d.get("prompt_tokens", 0)), int(d.get("completion_tokens", 0)), latency_s,
                         backend, model, source))


@dataclass(frozen=True)
class ScoreResult:
    """``logprobs[i]`` is the summed log-probability (natural log) of ``continuations[i]``,
    ``token_counts[i]`` how many tokens it has."""

    continuations: tuple[str, ...]
    logprobs: tuple[float, ...]
    token_counts: tuple[int, ...]
    usage: Usage

    def best(self) -> str:
        return self.continuations[max(range(len(self.logprobs)), key=self.logprobs.__getitem__)]

    def mean_logprobs(self) -> tuple[float, ...]:
        return tuple(lp / max(n, 1) for lp, n in zip(self.logprobs, self.token_counts, strict=True))

    def payload(self) -> dict[str, Any]:
        return {"logprobs": list(self.logprobs), "token_counts": list(self.token_counts),
                "prompt_tokens": self.usage.prompt_tokens, "completion_tokens": self.usage.completion_tokens,
                "model_latency_s": self.usage.latency_s}

    @classmethod
    def from_payload(cls, request: ScoreRequest, d: Mapping[str, Any], *, latency_s: float, backend: str,
                     model: str, source: Source) -> "ScoreResult":
        return cls(request.continuations, tuple(float(x) for x in d["logprobs"]),
                   tuple(int(x) for x in d["token_counts"]),
                   Usage(int(d.get("prompt_tokens", 0)), int(d.get("completion_tokens", 0)), latency_s,
                         backend, model, source))


Result = Union[Completion, ScoreResult]


@dataclass(frozen=True)
class UsageSummary:
    calls: int
    model_calls: int
    cached_calls: int
    replayed_calls: int
    prompt_tokens: int
    completion_tokens: int
    latency_s: float

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "model_calls": self.model_calls, "cached_calls": self.cached_calls,
                "replayed_calls": self.replayed_calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "latency_s": self.latency_s}


@dataclass
class UsageMeter:
    """Accumulates the usage of every call of one episode. Methods pass it to each LLM call
    (``usage=meter``) or add completions themselves. Not shared between episodes."""

    records: list[Usage] = field(default_factory=list)

    def add(self, item: Union[Usage, Completion, ScoreResult]) -> None:
        self.records.append(item if isinstance(item, Usage) else item.usage)

    def extend(self, items: Iterable[Union[Usage, Completion, ScoreResult]]) -> None:
        for it in items:
            self.add(it)

    def summary(self) -> UsageSummary:
        r = self.records
        return UsageSummary(
            calls=len(r),
            model_calls=sum(1 for u in r if u.source == "model"),
            cached_calls=sum(1 for u in r if u.source == "cache"),
            replayed_calls=sum(1 for u in r if u.source == "replay"),
            prompt_tokens=sum(u.prompt_tokens for u in r),
            completion_tokens=sum(u.completion_tokens for u in r),
            latency_s=sum(u.latency_s for u in r),
        )

    @property
    def calls(self) -> int:
        return len(self.records)

    @property
    def model_calls(self) -> int:
        return sum(1 for u in self.records if u.source == "model")
