"""LLM configuration, passed in (never read from module globals).

The API key itself is never part of the configuration: only the names of the environment
variables to read it from, at the moment a client is created."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Optional

from groundplan.datadir import cache_home
from groundplan.limits import current as current_limits

DEFAULT_KEY_ENV = ("GROUNDPLAN_API_KEY", "OPENAI_API_KEY")
CACHE_ENV = "GROUNDPLAN_CACHE"


@dataclass(frozen=True)
class LLMConfig:
    backend: str = "embedded"
    #: model id: a GGUF path or None (bundled SmolLM2) for embedded; a model name for openai
    model: Optional[str] = None
    #: OpenAI-compatible base URL, e.g. http://127.0.0.1:8080/v1
    base_url: Optional[str] = None
    #: environment variables tried in order for the API key (openai backend)
    api_key_env: tuple[str, ...] = DEFAULT_KEY_ENV
    #: Azure OpenAI: the api-version query parameter (switches to the ``api-key`` header)
    api_version: Optional[str] = None
    #: how constraints are sent to an OpenAI-compatible server: llama.cpp | vllm | openai | auto
    constraint_style: str = "auto"

    connect_timeout: float = 5.0
    read_timeout: float = 120.0
    #: wall-time bound of one call including every retry
    total_timeout: float = 300.0
    max_retries: int = 4
    backoff_base: float = 0.5
    backoff_max: float = 8.0

    #: embedded: context size (SmolLM2's full 8192: every method's prompts fit) and threads (None: all cores)
    n_ctx: int = 8192
    n_threads: Optional[int] = None

    cache: bool = True
    cache_dir: Optional[Path] = None
    #: append every exchange to this JSONL transcript
    record: Optional[Path] = None
    #: transcripts the replay backend answers from
    replay: tuple[Path, ...] = ()

    #: longest answer text a method ever sees (longer answers are cut, finish_reason "length");
    #: default: the configured limit llm_max_output_chars (groundplan.limits)
    max_output_chars: int = field(default_factory=lambda: current_limits().llm_max_output_chars)

    #: scripted backend: answers in order (tests)
    script: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    def with_(self, **kw: Any) -> "LLMConfig":
        return replace(self, **kw)


def default_cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$GROUNDPLAN_CACHE`` if set, else ``~/.cache/groundplan/llm`` (XDG_CACHE_HOME respected)."""
    env = os.environ if environ is None else environ
    if env.get(CACHE_ENV):
        return Path(env[CACHE_ENV]).expanduser()
    return cache_home(env) / "llm"
