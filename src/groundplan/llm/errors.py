"""LLM errors. Every message is one line; none ever contains an API key."""

from __future__ import annotations

from groundplan.errors import GroundplanError


class LLMError(GroundplanError):
    """Base of every error the LLM layer reports."""


class LLMConfigError(LLMError):
    """Bad LLM configuration (unknown backend, missing base URL, ...)."""


class LLMConnectionError(LLMError):
    """The endpoint could not be reached (refused, DNS, reset) after all retries."""


class LLMTimeoutError(LLMConnectionError):
    """The endpoint did not answer within the configured timeout."""


class LLMAuthError(LLMError):
    """The endpoint rejected the API key (or none was given)."""


class LLMModelNotFoundError(LLMError):
    """The model does not exist (missing GGUF file, unknown model name on the endpoint)."""


class LLMResponseError(LLMError):
    """The endpoint answered with an error or with a body that is not a completion."""


class LLMRateLimitError(LLMResponseError):
    """The endpoint kept answering 429 after all retries."""


class LLMUnsupportedError(LLMError):
    """The backend cannot do this (e.g. scoring on an endpoint without log-probabilities)."""


class ReplayMissError(LLMError):
    """Replay mode: no recorded answer for this request."""


class ScriptExhaustedError(LLMError):
    """Scripted backend: the script has no more answers."""


class ConstraintViolationError(LLMError):
    """An answer does not match the grammar or JSON schema it was constrained to."""
