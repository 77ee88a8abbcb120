"""LLM errors. Every message is one line; none ever contains an API key."""

from __future__ import annotations

from groundplan.errors import GroundplanError


class LLMError(GroundplanError):
    """Base of every error the LLM layer reports."""


class LLMConfigError(LLMError):
    """Bad LLM configuration (unknown backend, missing base URL, ...)."""


class LLMEndpointError(LLMError):
    """The model could not answer at all: the endpoint failed after all retries (an HTTP 4xx
    such as context length exceeded, a 5xx, a timeout, a refused connection) or the prompt
    does not fit the model's context. Methods never turn this into a failed plan ("no plan",
    "failure"): it propagates, and the runner ends the episode with status ``error`` and
    this message as its reason."""


class LLMConnectionError(LLMEndpointError):
    """The endpoint could not be reached (refused, DNS, reset) after all retries."""


class LLMTimeoutError(LLMConnectionError):
    """The endpoint did not answer within the configured timeout."""


class LLMAuthError(LLMEndpointError):
    """The endpoint rejected the API key (or none was given)."""


class LLMModelNotFoundError(LLMEndpointError):
    """The model does not exist (missing GGUF file, unknown model name on the endpoint)."""


class LLMResponseError(LLMEndpointError):
    """The endpoint answered with an error or with a body that is not a completion."""


class LLMRateLimitError(LLMResponseError):
    """The endpoint kept answering 429 after all retries."""


class LLMContextLengthError(LLMResponseError):
    """The prompt (plus the tokens asked for) is longer than the model's context window:
    detected before sending where the context is known (the embedded model's tokenizer, a
    server's reported context), else reported by the endpoint (HTTP 400)."""

    def __init__(self, message: str, *, prompt_tokens: int | None = None, n_ctx: int | None = None):
        super().__init__(message)
        self.prompt_tokens = prompt_tokens
        self.n_ctx = n_ctx


class LLMUnsupportedError(LLMError):
    """The backend cannot do this (e.g. scoring on an endpoint without log-probabilities)."""


class ReplayMissError(LLMEndpointError):
    """Replay mode: no recorded answer for this request. Like an endpoint failure, the model
    gave no answer at all: the episode is an error (exit 3), never "no plan"."""


class ScriptExhaustedError(LLMError):
    """Scripted backend: the script has no more answers."""


class ConstraintViolationError(LLMError):
    """An answer does not match the grammar or JSON schema it was constrained to."""
