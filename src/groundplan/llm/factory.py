"""Backends by name, and the one function that builds the LLM stack from a configuration:
backend, then the disk cache (unless disabled), then the recorder (if asked)."""

from __future__ import annotations

from types import MappingProxyType
from typing import Callable, Mapping

from groundplan.llm.base import LLM
from groundplan.llm.cache import CachedLLM, DiskCache
from groundplan.llm.config import LLMConfig, default_cache_dir
from groundplan.llm.embedded import EmbeddedLLM
from groundplan.llm.errors import LLMConfigError
from groundplan.llm.models import resolve_model
from groundplan.llm.openai_compat import OpenAICompatLLM
from groundplan.llm.scripted import ScriptedLLM
from groundplan.llm.transcript import RecordingLLM, ReplayLLM, TranscriptWriter

BackendFactory = Callable[[LLMConfig], LLM]


_BACKENDS: dict[str, BackendFactory] = {
    "embedded": EmbeddedLLM.from_config,
    "openai": OpenAICompatLLM.from_config,
    "replay": ReplayLLM.from_config,
    "scripted": ScriptedLLM.from_config,
}
#: backends by name (read-only view); a method package adds its own paper-log replay backend
#: with ``register_backend`` when it is imported (``autogptp-replay`` by
#: ``groundplan.methods.autogpt_p.replay``): this layer never imports methods
BACKENDS: Mapping[str, BackendFactory] = MappingProxyType(_BACKENDS)


def register_backend(name: str, factory: BackendFactory) -> None:
    """Make ``--llm <name>`` build ``factory(config)``. Registering one name twice with
    another factory is an error (two backends would answer to one name)."""
    known = _BACKENDS.get(name)
    if known is not None and known != factory:
        raise LLMConfigError(f"LLM backend '{name}' registered twice")
    _BACKENDS[name] = factory


def create_backend(config: LLMConfig, registry: Mapping[str, BackendFactory] = BACKENDS) -> LLM:
    factory = registry.get(config.backend)
    if factory is None:
        raise LLMConfigError(f"unknown LLM backend '{config.backend}' (choose from {', '.join(sorted(registry))})")
    return factory(config)


def resolve_config(config: LLMConfig) -> LLMConfig:
    """``config`` with what the endpoint decides filled in, so that runs record it: the
    embedded model's registry name (``--model qwen-1.5b`` or its GGUF file ->
    ``qwen2.5-coder-1.5b``); the openai
    backend's model when none is given and the server lists exactly one (LLMConfigError,
    listing them, when it lists several)."""
    if config.backend == "embedded" and config.model:
        resolved = resolve_model(config.model)  # an alias or a registry file -> its name; else the path
        return config.with_(model=resolved.name if resolved.spec is not None else str(resolved.path))
    if config.backend == "openai" and not config.model:
        llm = OpenAICompatLLM.from_config(config)
        try:
            return config.with_(model=llm.model)
        finally:
            llm.close()
    return config


def build_llm(config: LLMConfig, *, backend: LLM | None = None, registry: Mapping[str, BackendFactory] = BACKENDS,
              environ: Mapping[str, str] | None = None) -> LLM:
    """The LLM every method gets: ``backend`` (or the one named in ``config``), wrapped in
    the disk cache when ``config.cache`` and in the transcript recorder when ``config.record``."""
    llm = backend if backend is not None else create_backend(config, registry)
    if config.cache and llm.cacheable:
        llm = CachedLLM(llm, DiskCache(config.cache_dir or default_cache_dir(environ)))
    if config.record is not None:
        llm = RecordingLLM(llm, TranscriptWriter(config.record))
    layer: LLM | None = llm
    while layer is not None:  # every layer, so an inner default never cuts shorter
        layer.max_output_chars = config.max_output_chars
        layer = getattr(layer, "inner", None)
    return llm
