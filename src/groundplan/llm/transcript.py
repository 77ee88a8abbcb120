"""Record / replay. ``RecordingLLM`` appends every exchange to a JSONL transcript;
``ReplayLLM`` (the ``replay`` backend) answers from transcripts, with no model at all.

A transcript line::

    {"v": 1, "key": <request key>, "backend": "embedded", "model": "...", "request": {...},
     "response": {...}, "usage": {...}, "time": "2025-01-01T12:00:00+00:00"}

Replay matches on the request key (messages, parameters, constraint), not on the backend,
so a run recorded with any backend replays exactly. A replay backend "supports grammars"
when its transcripts hold constrained requests, so a method in goal mode "auto" sends the
constrained requests it sent when it was recorded. A request with no exact match falls back
to the recorded request with the same messages, sampling and stop words whose constraint and
token budget differ (a run recorded with grammars replayed in free mode, or the reverse).
When a request was recorded several times (sampling) the answers are given back in recorded
order, then the last one repeats."""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Optional

from groundplan.llm.base import LLM, Backend, Wrapper
from groundplan.llm.errors import LLMConfigError, LLMError, ReplayMissError
from groundplan.llm.types import (
    ChatRequest,
    Completion,
    Request,
    ScoreRequest,
    ScoreResult,
    canonical_json,
    sha256,
)

TRANSCRIPT_VERSION = 1


class TranscriptWriter:
    def __init__(self, path: Path | str):
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def write(self, request: Request, result: Completion | ScoreResult) -> None:
        u = result.usage
        line = canonical_json({
            "v": TRANSCRIPT_VERSION, "key": request.key(), "backend": u.backend, "model": u.model,
            "request": request.to_dict(), "response": result.payload(), "usage": u.to_dict(),
            "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        })
        with self._lock, open(self.path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")


def read_transcript(path: Path | str) -> Iterator[dict[str, Any]]:
    p = Path(path).expanduser()
    if not p.exists():
        raise LLMConfigError(f"{p}: transcript not found")
    with open(p, encoding="utf-8") as fh:
        for i, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                _ = rec["key"], rec["request"], rec["response"]
            except (ValueError, KeyError, TypeError):
                raise LLMError(f"{p}:{i}: not a transcript record") from None
            yield rec


class RecordingLLM(Wrapper):
    """Writes every exchange that passes through it (cache hits included) to a transcript."""

    def __init__(self, inner: LLM, writer: TranscriptWriter):
        super().__init__(inner)
        self.writer = writer

    def _complete(self, request: ChatRequest) -> Completion:
        result = self.inner.complete(request)
        self.writer.write(request, result)
        return result

    def _score(self, request: ScoreRequest) -> ScoreResult:
        result = self.inner.score_request(request)
        self.writer.write(request, result)
        return result


def loose_key(request: Mapping[str, Any]) -> Optional[str]:
    """The key of a chat request (as a dict) without its constraint and token budget, the two
    things a grammar changes; None for a score request."""
    if request.get("type") == "score":
        return None
    params = {k: v for k, v in dict(request.get("params") or {}).items() if k != "max_tokens"}
    return sha256(canonical_json({**request, "constraint": None, "params": params}))


class ReplayLLM(Backend):
    """Answers from recorded transcripts. Never loads a model or opens a connection."""

    backend_name = "replay"
    cacheable = False

    def __init__(self, transcripts: Iterable[Path | str], *, model: Optional[str] = None):
        super().__init__()
        self.paths = tuple(Path(p) for p in transcripts)
        if not self.paths:
            raise LLMConfigError("replay backend needs at least one transcript (--replay FILE)")
        self._answers: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self._served: dict[str, int] = defaultdict(int)
        self._loose: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self._constrained = 0
        models: list[str] = []
        for p in self.paths:
            for rec in read_transcript(p):
                if model is not None and rec.get("model") != model:
                    continue
                self._answers[rec["key"]].append(rec)
                loose = loose_key(rec["request"])
                if loose is not None:
                    self._loose[loose].append(rec)
                self._constrained += bool(rec["request"].get("constraint"))
                models.append(rec.get("model", "?"))
        self._model = model or (models[0] if models else "replay")
        self._lock = threading.Lock()
        self.replayed = 0

    @classmethod
    def from_config(cls, config) -> "ReplayLLM":
        return cls(config.replay, model=config.model)

    @property
    def model(self) -> str:
        return self._model

    @property
    def supports_scoring(self) -> bool:
        return True

    @property
    def supports_grammar(self) -> bool:
        """As recorded: true when the transcripts hold constrained requests."""
        return self._constrained > 0

    def _take(self, request: Request) -> dict[str, Any]:
        key = request.key()
        with self._lock:
            recs = self._answers.get(key)
            if not recs:
                loose = loose_key(request.to_dict())
                recs = self._loose.get(loose) if loose is not None else None
                key = f"~{loose}"
            if not recs:
                key = request.key()
                what = "score" if isinstance(request, ScoreRequest) else "chat"
                raise ReplayMissError(f"no recorded answer for this {what} request (key {key[:12]}) in "
                                      f"{', '.join(str(p) for p in self.paths)}")
            i = self._served[key]
            self._served[key] = i + 1
            self.replayed += 1
            return recs[min(i, len(recs) - 1)]

    def _complete(self, request: ChatRequest) -> Completion:
        t0 = time.perf_counter()
        rec = self._take(request)
        return Completion.from_payload(rec["response"], latency_s=time.perf_counter() - t0,
                                       backend=self.backend_name, model=rec.get("model", self._model),
                                       source="replay")

    def _score(self, request: ScoreRequest) -> ScoreResult:
        t0 = time.perf_counter()
        rec = self._take(request)
        return ScoreResult.from_payload(request, rec["response"], latency_s=time.perf_counter() - t0,
                                        backend=self.backend_name, model=rec.get("model", self._model),
                                        source="replay")
