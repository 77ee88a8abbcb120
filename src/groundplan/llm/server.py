"""Run llama-cpp-python's OpenAI-compatible server on 127.0.0.1 (for tests, benchmarks and
offline use of the ``openai`` backend against a real server). Needs the server extra:
``pip install 'llama-cpp-python[server]'``."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

import httpx

from groundplan.llm.errors import LLMConfigError, LLMConnectionError
from groundplan.llm.models import resolve_model


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_available() -> bool:
    """True if llama-cpp-python's server extra (uvicorn, fastapi, ...) is installed."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None
               for m in ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings"))


def server_command(model_path: Path | str, *, host: str, port: int, n_ctx: int, alias: str,
                   n_threads: int) -> list[str]:
    """The command line of llama.cpp's OpenAI-compatible server with the embedded backend's
    settings (``groundplan.llm._serve_llama``), serving ``model_path`` as ``alias``."""
    return [sys.executable, "-m", "groundplan.llm._serve_llama", "--model", str(model_path), "--host", host,
            "--port", str(port), "--n_ctx", str(n_ctx), "--model_alias", alias,
            "--n_threads", str(n_threads), "--n_threads_batch", str(n_threads)]


class LocalLlamaServer:
    """``with LocalLlamaServer() as srv: srv.base_url`` -> ``http://127.0.0.1:PORT/v1``. ``model``:
    a registry name or a GGUF file (default: the default model); the server lists it under
    its name (``alias`` overrides)."""

    def __init__(self, model_path: Path | str | None = None, *, alias: Optional[str] = None, n_ctx: int = 4096,
                 n_threads: Optional[int] = None, logits_all: bool = True, port: Optional[int] = None,
                 startup_timeout: float = 90.0):
        resolved = resolve_model(str(model_path) if model_path else None)
        self.model_path = resolved.path
        self.alias = alias or resolved.name
        self.n_ctx = n_ctx
        self.n_threads = n_threads or max(1, os.cpu_count() or 1)
        self.logits_all = logits_all
        self.port = port or free_port()
        self.startup_timeout = startup_timeout
        self.proc: Optional[subprocess.Popen] = None
        self._log = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> "LocalLlamaServer":
        if not server_available():
            raise LLMConfigError("llama-cpp-python's server is not installed (pip install 'llama-cpp-python[server]')")
        cmd = [*server_command(self.model_path, host="127.0.0.1", port=self.port, n_ctx=self.n_ctx, alias=self.alias,
                               n_threads=self.n_threads),
               "--logits_all", str(self.logits_all), "--verbose", "False"]
        env = dict(os.environ)
        env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        self._log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise LLMConnectionError(f"llama.cpp server exited with code {self.proc.returncode}: {self.log_tail()}")
            try:
                r = httpx.get(f"{self.base_url}/models", timeout=1.0)
                if r.status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise LLMConnectionError(f"llama.cpp server did not start within {self.startup_timeout:g} s")

    def log_tail(self, n: int = 300) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        return " ".join(self._log.read().decode("utf-8", "replace").split())[-n:]

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.proc = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> "LocalLlamaServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
