"""A local OpenAI-compatible server for tests and benchmarks: answers chat completions with a
deterministic "model" (``grammar_answer``: a sentence of the request's grammar drawn with a
seed from the messages), scores continuations through ``/completions`` echo log-probabilities,
and injects faults on request (429, 500, hangs, connection resets, context too long).

    from groundplan.testing import FakeOpenAI
    with FakeOpenAI(faults=lambda i: "429" if i == 0 else None) as srv:
        llm = build_llm(LLMConfig(backend="openai", base_url=srv.url, model="fake-model", cache=False))
"""

from __future__ import annotations

import hashlib
import io
import json
import random
import socket
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from groundplan.llm.gbnf import parse_gbnf, sample


def grammar_answer(body: dict) -> str:
    """A deterministic 'model': a sentence of the request's grammar drawn with a seed taken
    from the messages, or an echo when unconstrained."""
    digest = hashlib.sha256(json.dumps(body.get("messages"), sort_keys=True).encode()).hexdigest()
    if body.get("grammar"):
        return sample(parse_gbnf(body["grammar"]), random.Random(int(digest[:12], 16)))
    return "echo: " + body["messages"][-1]["content"][:40]


#: llama.cpp server's answer to a prompt longer than its context (HTTP 400)
CONTEXT_ERROR = {"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it",
                           "type": "exceed_context_size_error", "n_prompt_tokens": 2519, "n_ctx": 2048}}


def send_json(handler: BaseHTTPRequestHandler, code: int, data: bytes, headers=()) -> None:
    """Answer ``handler``'s request with a JSON body (a client that hung up is ignored)."""
    try:
        handler.send_response(code)
        for k, v in headers:
            handler.send_header(k, v)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
    except (BrokenPipeError, ConnectionResetError):
        pass


class FakeOpenAI:
    """An OpenAI-compatible server. ``faults(i)`` for the i-th POST: "429", "500", "hang",
    "reset", "context" (HTTP 400 context size exceeded). ``models``: what GET /v1/models lists
    (dicts, e.g. with vLLM's max_model_len); ``n_ctx``: llama.cpp's GET /props context, with
    /tokenize (one token per word) and /apply-template."""

    def __init__(self, answer=grammar_answer, faults=None, key: str | None = None, hang_s: float = 3.0,
                 models: list[dict] | None = None, n_ctx: int | None = None):
        self.answer = answer
        self.faults = faults or (lambda i: None)
        self.key = key
        self.hang_s = hang_s
        self.models = models if models is not None else [{"id": "fake-model"}]
        self.n_ctx = n_ctx
        self.requests: list[dict] = []
        self.injected: list[str] = []
        self.release = threading.Event()
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _send(self, code, obj, headers=()):
                send_json(self, code, json.dumps(obj).encode(), headers)

            def do_GET(self):
                if self.path.endswith("/models"):
                    self._send(200, {"object": "list", "data": fake.models})
                elif self.path == "/props" and fake.n_ctx is not None:
                    self._send(200, {"default_generation_settings": {"n_ctx": fake.n_ctx}, "total_slots": 1})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self):
                n = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(n) or b"{}")
                if fake.n_ctx is not None and self.path == "/apply-template":
                    text = "".join(f"<|{m['role']}|> {m['content']} " for m in body["messages"])
                    self._send(200, {"prompt": text})
                    return
                if fake.n_ctx is not None and self.path == "/tokenize":
                    self._send(200, {"tokens": list(range(len(body["content"].split())))})
                    return
                with fake._lock:
                    i = len(fake.requests)
                    fake.requests.append({"path": self.path, "body": body,
                                          "auth": self.headers.get("Authorization")})
                    fault = fake.faults(i)
                    if fault:
                        fake.injected.append(fault)
                if fake.key is not None and self.headers.get("Authorization") != f"Bearer {fake.key}":
                    got = (self.headers.get("Authorization") or "")[7:]
                    self._send(401, {"error": {"message": f"Incorrect API key provided: {got}"}})
                    return
                if fault == "429":
                    self._send(429, {"error": {"message": "rate limited"}}, [("Retry-After", "0")])
                    return
                if fault == "context":
                    self._send(400, CONTEXT_ERROR)
                    return
                if fault == "500":
                    self._send(500, {"error": {"message": "internal error"}})
                    return
                if fault == "hang":
                    fake.release.wait(fake.hang_s)
                    return
                if fault == "reset":  # close with a TCP RST, no answer
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.close_connection = True
                    self.wfile = io.BytesIO()  # what the handler still writes goes nowhere
                    self.connection.close()
                    return
                if not self.path.startswith("/v1/"):
                    self._send(404, {"detail": "Not Found"})
                    return
                if body.get("model") == "missing-model":
                    self._send(404, {"error": {"message": "The model `missing-model` does not exist"}})
                    return
                if self.path.endswith("/chat/completions"):
                    text = fake.answer(body)
                    self._send(200, {"id": "x", "object": "chat.completion", "model": body.get("model"),
                                     "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                                  "finish_reason": "stop"}],
                                     "usage": {"prompt_tokens": 11, "completion_tokens": len(text.split()),
                                               "total_tokens": 11 + len(text.split())}})
                elif self.path.endswith("/completions"):
                    text = body["prompt"]
                    toks, offs, pos = [], [], 0
                    for w in text.split(" "):
                        t = w if pos == 0 else " " + w
                        toks.append(t)
                        offs.append(pos)
                        pos += len(t)
                    lps = [None] + [-0.5 * len(t) for t in toks[1:]] + [-1.0]
                    self._send(200, {"choices": [{"text": text + " z", "logprobs": {
                        "tokens": toks + [" z"], "token_logprobs": lps, "text_offset": offs + [pos]}}]})
                else:
                    self._send(404, {"error": {"message": "no such route"}})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


__all__ = ["FakeOpenAI", "grammar_answer", "send_json", "CONTEXT_ERROR"]
