"""SayCan-style scoring in goal space: the log-probability of each candidate goal after one
shared prompt, cheap enough for a small model on two cores.

With the embedded backend the prompt is evaluated once (llama.cpp keeps it in its KV cache,
and reuses the common prefix with the previous call) and each candidate is then decoded in
one batch that returns the logits of all its tokens, instead of one model call per token.
Any other backend that can score goes through ``LLM.score``. Returns the mean log-probability
per token of each candidate (length-fair between one-atom and three-atom goals)."""

from __future__ import annotations

import time
from typing import Any, Optional, Sequence

from groundplan.llm.base import LLM
from groundplan.llm.types import ScoreRequest, ScoreResult, Usage, UsageMeter


def _innermost(llm: LLM) -> LLM:
    while hasattr(llm, "inner"):
        llm = llm.inner
    return llm


def score_goals(llm: LLM, prompt: str, continuations: Sequence[str], *,
                usage: Optional[UsageMeter] = None) -> list[float]:
    """Mean log-probability per token of each continuation after ``prompt``."""
    if not continuations:
        return []
    return list(score_continuations(llm, prompt, continuations, usage=usage).mean_logprobs())


def score_continuations(llm: LLM, prompt: str, continuations: Sequence[str], *,
                        usage: Optional[UsageMeter] = None) -> ScoreResult:
    """Summed log-probabilities and token counts of each continuation after ``prompt``, by
    the batched path on the embedded backend (``LLM.score`` on any other)."""
    backend = _innermost(llm)
    if backend.backend_name == "embedded" and hasattr(backend, "load"):
        res = _score_embedded(backend, prompt, continuations)
        if usage is not None:
            usage.add(res)
        return res
    return llm.score(prompt, continuations, usage=usage)


def _score_embedded(backend: Any, prompt: str, continuations: Sequence[str]) -> ScoreResult:
    import numpy as np

    llama = backend.load()
    lock = getattr(backend, "_lock", None)
    t0 = time.perf_counter()
    if lock is not None:
        lock.acquire()
    try:
        p = llama.tokenize(prompt.encode("utf-8"), add_bos=True, special=False)
        n_vocab = llama.n_vocab()
        # the prompt: keep the common prefix already in the KV cache, evaluate the rest
        have = list(llama.input_ids[:llama.n_tokens])
        k = 0
        for a, b in zip(have, p):
            if a != b:
                break
            k += 1
        k = min(k, len(p) - 1)
        llama.n_tokens = k
        llama.eval(p[k:])
        last = np.ctypeslib.as_array(llama._ctx.get_logits_ith(-1), shape=(n_vocab,)).astype(np.float64)
        first_lp = _log_softmax(np, last)
        P = len(p)
        logprobs, counts = [], []
        n_cont = 0
        for cont in continuations:
            full = llama.tokenize((prompt + cont).encode("utf-8"), add_bos=True, special=False)
            j = 0
            for a, b in zip(p, full):
                if a != b:
                    break
                j += 1
            if j < P:  # the continuation re-tokenised the end of the prompt: score it the slow way
                r = backend._score(ScoreRequest(prompt, (cont,)))
                logprobs.append(r.logprobs[0])
                counts.append(r.token_counts[0])
                continue
            rest = full[P:]
            n_cont += len(rest)
            total = float(first_lp[rest[0]]) if rest else 0.0
            if len(rest) > 1:
                llama._ctx.kv_cache_seq_rm(-1, P, -1)
                llama.n_tokens = P
                # in chunks of the context's batch size (one chunk unless n_batch is small)
                feed, step = rest[:-1], max(1, int(llama.n_batch))
                for c0 in range(0, len(feed), step):
                    batch = feed[c0:c0 + step]
                    llama._batch.set_batch(batch=batch, n_past=P + c0, logits_all=True)
                    llama._ctx.decode(llama._batch)
                    rows = np.ctypeslib.as_array(llama._ctx.get_logits(), shape=(len(batch), n_vocab)).astype(np.float64)
                    for r_i, tok in enumerate(rest[c0 + 1:c0 + 1 + len(batch)]):
                        total += float(_log_softmax(np, rows[r_i])[tok])
            logprobs.append(total)
            counts.append(len(rest))
        # leave the context holding exactly the prompt
        llama._ctx.kv_cache_seq_rm(-1, P, -1)
        llama.n_tokens = P
    finally:
        if lock is not None:
            lock.release()
    dt = time.perf_counter() - t0
    return ScoreResult(tuple(continuations), tuple(logprobs), tuple(counts),
                       Usage(P, n_cont, dt, backend.backend_name, backend.model, "model"))


def _log_softmax(np, x):
    m = x.max()
    return x - (m + np.log(np.exp(x - m).sum()))


__all__ = ["score_goals", "score_continuations"]
