"""Disk cache of LLM answers, keyed by backend, model, parameters and messages.

One small JSON file per answer (``<dir>/v1/<2 hex>/<sha256>.json``), written atomically, so
concurrent processes can share a cache directory. Non-deterministic requests (temperature
above 0 without a seed) are not cached."""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

from groundplan.llm.base import LLM, Wrapper
from groundplan.llm.types import (
    ChatRequest,
    Completion,
    Request,
    ScoreRequest,
    ScoreResult,
    canonical_json,
    sha256,
)

CACHE_VERSION = "v1"


class DiskCache:
    def __init__(self, directory: Path | str):
        self.directory = Path(directory).expanduser()

    def _path(self, key: str) -> Path:
        return self.directory / CACHE_VERSION / key[:2] / f"{key}.json"

    def get(self, key: str) -> Optional[dict[str, Any]]:
        p = self._path(key)
        try:
            with open(p, encoding="utf-8") as fh:
                rec = json.load(fh)
        except (OSError, ValueError):
            return None
        return rec if isinstance(rec, dict) and rec.get("key") == key else None

    def put(self, key: str, record: dict[str, Any]) -> None:
        p = self._path(key)
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({**record, "key": key}, fh, ensure_ascii=False)
            os.replace(tmp, p)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    def __len__(self) -> int:
        root = self.directory / CACHE_VERSION
        return sum(1 for _ in root.glob("*/*.json")) if root.exists() else 0

    def clear(self) -> int:
        n = 0
        root = self.directory / CACHE_VERSION
        if root.exists():
            for f in root.glob("*/*.json"):
                f.unlink()
                n += 1
        return n


def cache_key(backend: str, model: str, request: Request) -> str:
    return sha256(canonical_json({"backend": backend, "model": model, "request": request.to_dict()}))


class CachedLLM(Wrapper):
    """Answers repeated requests from a DiskCache; the inner LLM sees only misses."""

    def __init__(self, inner: LLM, cache: DiskCache):
        super().__init__(inner)
        self.cache = cache
        self.hits = 0
        self.misses = 0

    def _complete(self, request: ChatRequest) -> Completion:
        if not request.params.deterministic:
            return self.inner.complete(request)
        t0 = time.perf_counter()
        key = cache_key(self.backend_name, self.model, request)
        rec = self.cache.get(key)
        if rec is not None and "response" in rec:
            self.hits += 1
            return Completion.from_payload(rec["response"], latency_s=time.perf_counter() - t0,
                                           backend=self.backend_name, model=self.model, source="cache")
        self.misses += 1
        result = self.inner.complete(request)
        self.cache.put(key, {"backend": self.backend_name, "model": self.model, "request": request.to_dict(),
                             "response": result.payload()})
        return result

    def _score(self, request: ScoreRequest) -> ScoreResult:
        t0 = time.perf_counter()
        key = cache_key(self.backend_name, self.model, request)
        rec = self.cache.get(key)
        if rec is not None and "response" in rec:
            self.hits += 1
            return ScoreResult.from_payload(request, rec["response"], latency_s=time.perf_counter() - t0,
                                            backend=self.backend_name, model=self.model, source="cache")
        self.misses += 1
        result = self.inner.score_request(request)
        self.cache.put(key, {"backend": self.backend_name, "model": self.model, "request": request.to_dict(),
                             "response": result.payload()})
        return result
