"""The embedded model for the SayCan / Inner Monologue / cross-table benchmarks, with one
host workaround.

On this machine (2026-11-24: a Firecracker VM whose CPU reports AVX-512 and AMX) the
llama.cpp build in .venv crashes with SIGSEGV as soon as it decodes a batch of more than one
token (``Llama(...).create_completion("Hello there, how are you")`` dies; one-token prompts
work). With micro-batches of one token (``n_ubatch=1``) every decode works; prompts are
then evaluated token by token (about 14 ms a token on one thread) and the results are the
same model's. ``embedded_llm`` probes the crash in a child process and, only if it crashes,
loads the model with ``n_ubatch=1`` into the backend before first use. The benchmark READMEs
say when the workaround was on."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

# loaded the way the embedded backend loads it (groundplan.llm._llamacpp: no extra weight
# buffers), which on its own avoids the crash on such a CPU; the workaround turns on only if not
_PROBE = (
    "from groundplan.llm._llamacpp import import_llama_cpp\n"
    "llama_cpp = import_llama_cpp()\n"
    "from groundplan.llm.embedded import bundled_model_path\n"
    "l = llama_cpp.Llama(model_path=str(bundled_model_path()), n_ctx=256, n_threads=1, verbose=False)\n"
    "l.eval(l.tokenize(b'Hello there, how are you today?'))\n"
)


def multi_token_decode_crashes() -> bool:
    r = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, timeout=300, check=False)
    return r.returncode != 0


def _innermost(llm: Any) -> Any:
    while hasattr(llm, "inner"):
        llm = llm.inner
    return llm


def embedded_llm(threads: int = 1, cache: bool = False) -> tuple[Any, bool]:
    """(the embedded LLM, whether the one-token micro-batch workaround is on)."""
    from groundplan.llm import LLMConfig, build_llm
    from groundplan.llm._llamacpp import import_llama_cpp

    llm = build_llm(LLMConfig(n_threads=threads, cache=cache))
    workaround = multi_token_decode_crashes()
    if workaround:
        backend = _innermost(llm)
        llama_cpp = import_llama_cpp()
        backend._llama = llama_cpp.Llama(model_path=str(backend.model_path), n_ctx=backend.n_ctx,
                                         n_threads=backend.n_threads, n_threads_batch=backend.n_threads,
                                         n_batch=backend.n_batch, n_ubatch=1, verbose=False)
    return llm, workaround
