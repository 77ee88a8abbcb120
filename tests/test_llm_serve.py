"""`groundplan llm serve`: the embedded model as an OpenAI-compatible endpoint, and the openai
backend talking to it (no model name given: the server's only one is used)."""

from __future__ import annotations

import subprocess
import sys
import time

import httpx
import pytest

from groundplan.llm.server import free_port, server_available

CLI = [sys.executable, "-m", "groundplan.cli.main"]


def test_serve_a_missing_model_file_is_one_line_exit_2(tmp_path):
    r = subprocess.run([*CLI, "llm", "serve", "--model", str(tmp_path / "nope.gguf")], capture_output=True, text=True)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "nope.gguf: model file not found" in lines[0]


@pytest.mark.embedded
def test_serve_answers_the_openai_backend(tmp_path):
    if not server_available():
        pytest.skip("llama-cpp-python[server] not installed")
    port = free_port()
    log = (tmp_path / "serve.log").open("w")  # the server logs a lot: a pipe would fill and block it
    proc = subprocess.Popen([*CLI, "llm", "serve", "--port", str(port), "--threads", "1"],
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 180
        while True:
            assert proc.poll() is None, (tmp_path / "serve.log").read_text()[-2000:]
            assert time.monotonic() < deadline, "the server did not answer within 180 s"
            try:
                if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        r = subprocess.run([*CLI, "llm", "ask", "--llm", "openai", "--base-url", f"http://127.0.0.1:{port}/v1",
                            "--max-tokens", "8", "Say hello."], capture_output=True, text=True, timeout=180)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()
