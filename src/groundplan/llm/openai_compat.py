"""``openai`` backend: any OpenAI-compatible endpoint (OpenAI, Azure OpenAI, vLLM, Ollama,
llama.cpp server) over plain HTTP with httpx.

- The API key is read from an environment variable when the backend is created and lives
  only in the HTTP client's headers: never in the configuration, the cache, transcripts,
  logs, error messages or ``repr``.
- Connect / read timeouts per attempt, a wall-time bound for a whole call, retries with
  exponential backoff on 429, 5xx and connection errors (``Retry-After`` honoured).
- Constraints travel in the field the server understands (``constraint_style``):
  llama.cpp takes a GBNF ``grammar``; vLLM ``guided_grammar`` / ``guided_json``; OpenAI a
  ``response_format`` JSON schema (and no grammar).
- Scoring uses the completions endpoint with ``echo`` and ``logprobs`` where the server has it.
- Without a model name the backend takes the server's model when ``GET /models`` lists
  exactly one (several: a configuration error listing them).
- A prompt longer than the server's context (llama.cpp: ``GET /props``; vLLM: the model's
  ``max_model_len``) is an ``LLMContextLengthError`` before it is sent (counted with the
  server's own ``/tokenize``), and a server's "context length exceeded" answer is the same error.
"""

from __future__ import annotations

import logging
import os
import re
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Mapping, Optional
from urllib.parse import urlsplit

import httpx

from groundplan.llm.base import Backend
from groundplan.llm.config import DEFAULT_KEY_ENV
from groundplan.llm.errors import (
    LLMAuthError,
    LLMConfigError,
    LLMConnectionError,
    LLMContextLengthError,
    LLMError,
    LLMModelNotFoundError,
    LLMRateLimitError,
    LLMResponseError,
    LLMTimeoutError,
    LLMUnsupportedError,
)
from groundplan.llm.types import ChatRequest, Completion, Constraint, ScoreRequest, ScoreResult, Usage

log = logging.getLogger(__name__)

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


# ----------------------------------------------------------------------------- constraint styles

class ConstraintStyle(ABC):
    """How one family of servers takes a grammar or a JSON schema in the request body, and
    the server-specific sampling fields that give plain OpenAI semantics."""

    name: str = ""
    #: whether the servers of this family decode under a GBNF grammar sent with the request
    accepts_grammar: bool = True
    #: added to every chat request
    defaults: Mapping[str, Any] = MappingProxyType({})

    @abstractmethod
    def apply(self, body: dict[str, Any], constraint: Constraint) -> None:
        ...


class LlamaCppStyle(ConstraintStyle):
    """llama.cpp server and llama-cpp-python's server."""

    name = "llama.cpp"
    # llama-cpp-python's server applies repeat_penalty 1.1 unless told otherwise; OpenAI
    # semantics (and the embedded backend) have no penalty
    defaults = MappingProxyType({"repeat_penalty": 1.0})

    def apply(self, body: dict[str, Any], constraint: Constraint) -> None:
        if constraint.kind == "gbnf":
            body["grammar"] = constraint.text
        else:
            body["response_format"] = {"type": "json_object", "schema": constraint.schema}


class VLLMStyle(ConstraintStyle):
    name = "vllm"

    def apply(self, body: dict[str, Any], constraint: Constraint) -> None:
        if constraint.kind == "gbnf":
            body["guided_grammar"] = constraint.text
        else:
            body["guided_json"] = constraint.schema


class OpenAIStyle(ConstraintStyle):
    """OpenAI, Azure OpenAI, Ollama's OpenAI endpoint: JSON schemas only."""

    name = "openai"
    accepts_grammar = False

    def apply(self, body: dict[str, Any], constraint: Constraint) -> None:
        if constraint.kind == "gbnf":
            raise LLMUnsupportedError("this endpoint takes no GBNF grammar (constraint_style 'openai'); "
                                      "use a JSON schema, or constraint_style 'llama.cpp' / 'vllm'")
        body["response_format"] = {"type": "json_schema",
                                   "json_schema": {"name": "answer", "schema": constraint.schema, "strict": True}}


CONSTRAINT_STYLES: Mapping[str, ConstraintStyle] = MappingProxyType(
    {s.name: s for s in (LlamaCppStyle(), VLLMStyle(), OpenAIStyle())})

_OPENAI_HOSTS = ("api.openai.com", ".openai.azure.com")


def resolve_style(name: str, base_url: str) -> ConstraintStyle:
    if name == "auto":
        host = urlsplit(base_url).hostname or ""
        name = "openai" if any(host == h.lstrip(".") or host.endswith(h) for h in _OPENAI_HOSTS) else "llama.cpp"
    style = CONSTRAINT_STYLES.get(name)
    if style is None:
        raise LLMConfigError(f"unknown constraint style '{name}' (choose from auto, {', '.join(CONSTRAINT_STYLES)})")
    return style


# ----------------------------------------------------------------------------- helpers

def _one_line(text: str, limit: int = 200) -> str:
    t = " ".join(str(text).split())
    return t if len(t) <= limit else t[:limit - 3] + "..."


def _public_url(url: str) -> str:
    """scheme://host[:port]/path, without user info or query (which could hold secrets)."""
    s = urlsplit(url)
    host = s.hostname or ""
    if s.port:
        host = f"{host}:{s.port}"
    return f"{s.scheme}://{host}{s.path}"


#: how servers say a prompt is longer than the context (OpenAI / vLLM: "maximum context length";
#: llama.cpp: "exceeds the available context size"; OpenAI's code "context_length_exceeded")
_CONTEXT_MESSAGE = re.compile(r"context[ _](length|size|window)|maximum context|too many tokens", re.IGNORECASE)

_SK = re.compile(r"\b(sk|key|token)-[A-Za-z0-9_\-]{6,}", re.IGNORECASE)


@dataclass(frozen=True)
class RetryPolicy:
    connect_timeout: float = 5.0
    read_timeout: float = 120.0
    total_timeout: float = 300.0
    max_retries: int = 4
    backoff_base: float = 0.5
    backoff_max: float = 8.0

    def delay(self, attempt: int, retry_after: Optional[float]) -> float:
        d = min(self.backoff_max, self.backoff_base * (2 ** (attempt - 1)))
        if retry_after is not None:
            d = max(d, min(retry_after, self.backoff_max))
        return d


class _ProbeTimeout(Exception):
    """A probe of the server's context got no answer in time."""


class _Retryable(Exception):
    def __init__(self, error: LLMError, retry_after: Optional[float] = None):
        self.error = error
        self.retry_after = retry_after


# ----------------------------------------------------------------------------- backend

class OpenAICompatLLM(Backend):
    backend_name = "openai"

    def __init__(self, base_url: str, model: str, *, api_key_env: tuple[str, ...] = DEFAULT_KEY_ENV,
                 api_version: Optional[str] = None, constraint_style: str = "auto",
                 retry: RetryPolicy = RetryPolicy(), transport: httpx.BaseTransport | None = None,
                 sleep: Callable[[float], None] = time.sleep, environ: Mapping[str, str] | None = None):
        super().__init__()
        if not base_url:
            raise LLMConfigError("the openai backend needs a base URL (--base-url, e.g. http://127.0.0.1:8080/v1)")
        if not re.match(r"^https?://", base_url):
            raise LLMConfigError(f"base URL must start with http:// or https://: {_public_url(base_url)}")
        self.base_url = base_url.rstrip("/")
        self._model = model
        self.retry = retry
        self.style = resolve_style(constraint_style, self.base_url)
        self._sleep = sleep
        env = os.environ if environ is None else environ
        self.api_key_env = tuple(api_key_env)
        key_var = next((v for v in self.api_key_env if env.get(v)), None)
        self._key_var = key_var
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        params: dict[str, str] = {}
        if key_var is not None:
            key = env[key_var]
            if api_version is not None:  # Azure OpenAI
                headers["api-key"] = key
            else:
                headers["Authorization"] = f"Bearer {key}"
            self._redact: tuple[str, ...] = (key,)
        else:
            self._redact = ()
        if api_version is not None:
            params["api-version"] = api_version
        self._client = httpx.Client(headers=headers, params=params, transport=transport, follow_redirects=False,
                                    timeout=httpx.Timeout(retry.read_timeout, connect=retry.connect_timeout))
        #: the server's context window in tokens (None: not reported); probed on first use
        self._server_ctx: Optional[int] = None
        self._server_kind = ""  # llama.cpp | vllm | "" (unknown), from the probe
        self._probed = False
        if not model:
            self._model = self._only_model()

    @classmethod
    def from_config(cls, config) -> "OpenAICompatLLM":
        retry = RetryPolicy(config.connect_timeout, config.read_timeout, config.total_timeout, config.max_retries,
                            config.backoff_base, config.backoff_max)
        return cls(config.base_url or "", config.model or "", api_key_env=config.api_key_env,
                   api_version=config.api_version, constraint_style=config.constraint_style, retry=retry)

    @property
    def model(self) -> str:
        return self._model

    @property
    def supports_scoring(self) -> bool:
        return True  # if the server returns echo logprobs; LLMUnsupportedError otherwise

    @property
    def supports_grammar(self) -> bool:
        """llama.cpp's and vLLM's servers take a grammar (``constraint_style``; ``auto``: every
        host but OpenAI's and Azure's), so methods send the same constraint as embedded."""
        return self.style.accepts_grammar

    def __repr__(self) -> str:
        return f"OpenAICompatLLM(base_url={_public_url(self.base_url)!r}, model={self._model!r})"

    # ------------------------------------------------------------------ the server's model and context

    def _only_model(self) -> str:
        """The one model the server lists (no --model given). One attempt: a server that is
        down is reported at once."""
        where = self._where("/models")
        r = self.retry
        try:
            data = self._attempt("GET", "/models", None, httpx.Timeout(r.read_timeout, connect=r.connect_timeout))
            models = [str(m["id"]) for m in data["data"]]
        except _Retryable as exc:
            raise LLMConfigError(f"no model name given (--model) and the model list of {where} could not be "
                                 f"read: {exc.error}") from None
        except LLMError as exc:
            raise LLMConfigError(f"no model name given (--model) and the model list of {where} could not be "
                                 f"read: {exc}") from None
        except (KeyError, TypeError):
            raise LLMConfigError(f"no model name given (--model) and {where} answered no model list") from None
        if len(models) == 1:
            return models[0]
        if not models:
            raise LLMConfigError(f"no model name given (--model) and {where} lists no model")
        shown = ", ".join(models[:20]) + (f", ... ({len(models)} in all)" if len(models) > 20 else "")
        raise LLMConfigError(f"no model name given (--model) and {where} lists several models: {shown}; "
                             f"choose one with --model")

    @property
    def _root(self) -> str:
        """The server's root URL (the base URL without a trailing /v1)."""
        return self.base_url[:-3] if self.base_url.endswith("/v1") else self.base_url

    def _probe(self, method: str, url: str, body: Optional[dict[str, Any]] = None, *,
               deadline: Optional[float] = None) -> Optional[dict[str, Any]]:
        """One attempt, no retries, within ``deadline`` (time.monotonic): the JSON object
        answered, or None (no such route, an error). _ProbeTimeout when the server is silent."""
        r = self.retry
        limit = min(5.0, r.read_timeout)
        if deadline is not None:
            limit = min(limit, deadline - time.monotonic())
        if limit <= 0:
            raise _ProbeTimeout()
        try:
            resp = self._client.request(method, url, json=body,
                                        timeout=httpx.Timeout(limit, connect=min(limit, r.connect_timeout)))
            data = resp.json() if resp.status_code == 200 else None
        except httpx.TimeoutException:
            raise _ProbeTimeout() from None
        except (httpx.HTTPError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def server_context(self, deadline: Optional[float] = None) -> Optional[int]:
        """The context window the server reports, in tokens, or None: llama.cpp's
        ``GET /props`` (default_generation_settings.n_ctx, the context of one slot) or vLLM's
        ``max_model_len`` in ``GET /v1/models``. Asked once (again later if the server was silent)."""
        if self._probed:
            return self._server_ctx
        try:
            props = self._probe("GET", self._root + "/props", deadline=deadline)
            gen = props.get("default_generation_settings") if props else None
            n = gen.get("n_ctx") if isinstance(gen, dict) else None
            if n is None and props:
                n = props.get("n_ctx")
            if isinstance(n, int) and n > 0:
                self._server_ctx, self._server_kind = n, "llama.cpp"
            else:
                models = self._probe("GET", self.base_url + "/models", deadline=deadline)
                for m in (models or {}).get("data") or ():
                    if isinstance(m, dict) and m.get("id") == self._model and isinstance(m.get("max_model_len"), int):
                        self._server_ctx, self._server_kind = m["max_model_len"], "vllm"
        except _ProbeTimeout:
            return None
        self._probed = True
        return self._server_ctx

    def _count_prompt_tokens(self, messages: list[dict[str, Any]], deadline: Optional[float]) -> Optional[int]:
        """The prompt's length in the server's own tokens (chat template applied), or None
        when the server cannot tell."""
        if self._server_kind == "llama.cpp":
            tmpl = self._probe("POST", self._root + "/apply-template", {"messages": messages}, deadline=deadline)
            text = tmpl.get("prompt") if tmpl else None
            if not isinstance(text, str):
                text = "\n".join(str(m.get("content") or "") for m in messages)
            tok = self._probe("POST", self._root + "/tokenize", {"content": text, "add_special": True},
                              deadline=deadline)
            toks = tok.get("tokens") if tok else None
            return len(toks) if isinstance(toks, list) else None
        if self._server_kind == "vllm":
            tok = self._probe("POST", self._root + "/tokenize", {"model": self._model, "messages": messages},
                              deadline=deadline)
            n = tok.get("count") if tok else None
            return n if isinstance(n, int) else None
        return None

    def _check_context(self, messages: list[dict[str, Any]], deadline: Optional[float] = None) -> None:
        """LLMContextLengthError before sending a prompt that does not fit the server's context."""
        n_ctx = self.server_context(deadline)
        if n_ctx is None:
            return
        # a token is at least one byte: a prompt this short fits without asking the tokenizer
        upper = 64 + sum(32 + len(str(m.get("content") or "").encode("utf-8")) for m in messages)
        if upper < n_ctx:
            return
        try:
            n = self._count_prompt_tokens(messages, deadline)
        except _ProbeTimeout:
            return
        if n is not None and n >= n_ctx:
            raise LLMContextLengthError(f"prompt of {n} tokens does not fit the context of {n_ctx} tokens of "
                                        f"{self._model} at {_public_url(self.base_url)} (not sent; start the "
                                        f"server with a larger context, e.g. llama.cpp's --ctx-size)",
                                        prompt_tokens=n, n_ctx=n_ctx)

    # ------------------------------------------------------------------ chat

    def _complete(self, request: ChatRequest) -> Completion:
        p = request.params
        body: dict[str, Any] = {"model": self._model, "messages": [m.to_dict() for m in request.messages],
                                "max_tokens": p.max_tokens, "temperature": p.temperature, "top_p": p.top_p}
        if p.stop:
            body["stop"] = list(p.stop)
        if p.seed is not None:
            body["seed"] = p.seed
        body.update(self.style.defaults)
        if request.constraint is not None:
            self.style.apply(body, request.constraint)
        deadline = time.monotonic() + self.retry.total_timeout
        self._check_context(body["messages"], deadline)
        t0 = time.perf_counter()
        data = self._request("POST", "/chat/completions", body, deadline=deadline)
        dt = time.perf_counter() - t0
        try:
            choice = data["choices"][0]
            text = choice["message"].get("content") or ""
            finish = choice.get("finish_reason") or "stop"
        except (KeyError, IndexError, TypeError, AttributeError):
            raise LLMResponseError(f"{self._where('/chat/completions')}: answer has no choices[0].message") from None
        u = data.get("usage") or {}
        return Completion(text, finish, Usage(int(u.get("prompt_tokens") or 0), int(u.get("completion_tokens") or 0),
                                              dt, self.backend_name, self._model, "model"))

    # ------------------------------------------------------------------ scoring

    def _score(self, request: ScoreRequest) -> ScoreResult:
        t0 = time.perf_counter()
        lps, counts = [], []
        n_prompt = n_cont = 0
        start = len(request.prompt)
        for cont in request.continuations:
            full = request.prompt + cont
            data = self._post("/completions", {"model": self._model, "prompt": full, "max_tokens": 1, "echo": True,
                                               "logprobs": 1, "temperature": 0.0})
            try:
                lp = data["choices"][0]["logprobs"]
                toks, tlps, offs = lp["tokens"], lp["token_logprobs"], lp["text_offset"]
            except (KeyError, IndexError, TypeError):
                raise LLMUnsupportedError(f"{self._where('/completions')} returns no echoed log-probabilities; "
                                          f"scoring is not available on this endpoint") from None
            total, n = 0.0, 0
            for tok, tlp, off in zip(toks, tlps, offs, strict=False):
                if off >= len(full):  # the generated token
                    break
                if off + len(tok) > start and tlp is not None:
                    total += float(tlp)
                    n += 1
                elif off + len(tok) <= start:
                    n_prompt += 1
            lps.append(total)
            counts.append(n)
            n_cont += n
        return ScoreResult(request.continuations, tuple(lps), tuple(counts),
                           Usage(n_prompt, n_cont, time.perf_counter() - t0, self.backend_name, self._model, "model"))

    # ------------------------------------------------------------------ models

    def list_models(self) -> list[str]:
        data = self._request("GET", "/models", None)
        try:
            return [m["id"] for m in data["data"]]
        except (KeyError, TypeError):
            raise LLMResponseError(f"{self._where('/models')}: answer has no model list") from None

    # ------------------------------------------------------------------ HTTP with retries

    def _where(self, path: str) -> str:
        return _public_url(self.base_url + path)

    def _clean(self, text: str) -> str:
        t = str(text)
        for secret in self._redact:
            if secret:
                t = t.replace(secret, "[redacted]")
        return _one_line(_SK.sub("[redacted]", t))

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return self._request("POST", path, body)

    def _request(self, method: str, path: str, body: Optional[dict[str, Any]], *,
                 deadline: Optional[float] = None) -> dict[str, Any]:
        r = self.retry
        t_start = time.monotonic()
        deadline = t_start + r.total_timeout if deadline is None else deadline
        attempt = 0
        while True:
            attempt += 1
            remaining = max(0.001, deadline - time.monotonic())
            timeout = httpx.Timeout(connect=min(r.connect_timeout, remaining), read=min(r.read_timeout, remaining),
                                    write=min(r.read_timeout, remaining), pool=min(r.connect_timeout, remaining))
            try:
                return self._attempt(method, path, body, timeout)
            except _Retryable as rexc:
                err = rexc.error
                elapsed = time.monotonic() - t_start
                if attempt > r.max_retries:
                    raise type(err)(f"{err}; gave up after {attempt} attempts in {elapsed:.1f} s") from None
                delay = r.delay(attempt, rexc.retry_after)
                if time.monotonic() + delay >= deadline:
                    raise type(err)(f"{err}; gave up after {attempt} attempt{'s' if attempt > 1 else ''} in "
                                    f"{elapsed:.1f} s (total timeout {r.total_timeout:g} s)") from None
                log.info("%s; retrying in %.2f s (attempt %d of %d)", err, delay, attempt + 1, r.max_retries + 1)
                self._sleep(delay)

    def _attempt(self, method: str, path: str, body: Optional[dict[str, Any]], timeout: httpx.Timeout) -> dict[str, Any]:
        where = self._where(path)
        try:
            resp = self._client.request(method, self.base_url + path, json=body, timeout=timeout)
        except httpx.ConnectTimeout:
            raise _Retryable(LLMTimeoutError(f"cannot reach {where}: no connection within "
                                             f"{timeout.connect:.3g} s")) from None
        except httpx.TimeoutException:
            raise _Retryable(LLMTimeoutError(f"{where} did not answer within {timeout.read:.3g} s")) from None
        except httpx.ConnectError as exc:
            raise _Retryable(LLMConnectionError(f"cannot reach {where}: {self._reason(exc)}")) from None
        except httpx.TransportError as exc:
            raise _Retryable(LLMConnectionError(f"connection to {where} failed: {self._reason(exc)}")) from None
        code = resp.status_code
        if code == 200:
            try:
                data = resp.json()
            except ValueError:
                raise LLMResponseError(f"{where} answered with a body that is not JSON") from None
            if not isinstance(data, dict):
                raise LLMResponseError(f"{where} answered with JSON that is not an object")
            return data
        msg = self._clean(self._error_message(resp))
        if code in (401, 403):
            if self._key_var is None:
                hint = f"no API key was sent (set {' or '.join(self.api_key_env)})"
            else:
                hint = f"the key from ${self._key_var} was rejected"
            raise LLMAuthError(f"{where} refused the request (HTTP {code}): {hint}" + (f": {msg}" if msg else ""))
        if code == 404:
            if "model" in msg.lower():
                raise LLMModelNotFoundError(f"{where} has no model '{self._model}' (HTTP 404): {msg}")
            raise LLMResponseError(f"{where} not found (HTTP 404): is {_public_url(self.base_url)} an "
                                   f"OpenAI-compatible base URL (usually ending in /v1)?")
        if _CONTEXT_MESSAGE.search(msg):
            raise LLMContextLengthError(f"{where} answered HTTP {code}: the prompt does not fit the model's context"
                                        + (f": {msg}" if msg else ""))
        if code in RETRY_STATUS or code >= 500:
            cls = LLMRateLimitError if code == 429 else LLMResponseError
            raise _Retryable(cls(f"{where} answered HTTP {code}" + (f": {msg}" if msg else "")),
                             _retry_after(resp))
        raise LLMResponseError(f"{where} answered HTTP {code}" + (f": {msg}" if msg else ""))

    @staticmethod
    def _reason(exc: Exception) -> str:
        text = str(exc).lower()
        if "refused" in text:
            return "connection refused"
        if "name or service" in text or "nodename" in text or "getaddrinfo" in text:
            return "unknown host"
        return _one_line(str(exc), 120) or type(exc).__name__

    @staticmethod
    def _error_message(resp: httpx.Response) -> str:
        try:
            data = resp.json()
        except ValueError:
            return resp.text[:300]
        if isinstance(data, dict):
            err = data.get("error", data.get("detail", data.get("message", "")))
            if isinstance(err, dict):
                err = err.get("message", err)
            return str(err)
        return str(data)

    def close(self) -> None:
        self._client.close()


def _retry_after(resp: httpx.Response) -> Optional[float]:
    v = resp.headers.get("retry-after")
    if not v:
        return None
    try:
        return max(0.0, float(v))
    except ValueError:
        return None
