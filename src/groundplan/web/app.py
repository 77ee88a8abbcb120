"""The console's HTTP API and page (FastAPI). ``create_app(ServeConfig)`` builds it;
``groundplan serve`` runs it with uvicorn.

Security: loopback by default; any other bind needs a token (``ServeConfig.checked``), and
a configured token is required on every request (``Authorization: Bearer``, the ``gp_token``
cookie the page gets from the URL printed at start, or ``?token=``; compared in constant
time). On loopback without a token the Host header must be a loopback name (no DNS
rebinding). Files are served only by name from the page's own folder; scenes only through
``SceneCatalog``; results only from the configured results files. Access lines are logged
with any token in the query replaced by ``***``."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import secrets
import tempfile
import time
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import Any, Optional

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse

from groundplan.core.verdict import Verdict, verdict_kind, verdict_text
from groundplan.errors import GroundplanError
from groundplan.web.catalog import AccessError, SceneCatalog, safe_child
from groundplan.web.config import PAGE_BACKENDS, ServeConfig, is_loopback
from groundplan.web.jobs import EpisodeRequest, JobRunner
from groundplan.web.view import scene_view

log = logging.getLogger("groundplan.web")
COOKIE = "gp_token"
STATIC_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}
CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
       "frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
LOOPBACK_NAMES = {"127.0.0.1", "localhost", "::1", "[::1]"}
MAX_BODY = 4_000_000


def static_dir() -> Path:
    return Path(str(resources.files("groundplan.web").joinpath("static")))


def _redact_query(query: str) -> str:
    parts = []
    for kv in query.split("&") if query else []:
        k, sep, _ = kv.partition("=")
        parts.append(f"{k}=***" if k.lower() in ("token", "api_key", "key") and sep else kv)
    return "&".join(parts)


def _error(status: int, msg: str) -> JSONResponse:
    return JSONResponse({"error": msg}, status_code=status)


def create_app(config: ServeConfig) -> FastAPI:
    config = config.checked()
    catalog = SceneCatalog(config.scene_dirs, config.upload_dir, max_upload=config.max_upload,
                           data_dir=config.data_dir)
    runner = JobRunner(config, catalog)
    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI):
        from groundplan.methods.base import available_methods

        await asyncio.to_thread(available_methods)  # import the method modules once, before the first page
        yield
        runner.close()

    app = FastAPI(title="groundplan console", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    app.state.config = config
    app.state.catalog = catalog
    app.state.runner = runner
    static = static_dir()
    allowed_hosts = LOOPBACK_NAMES | {config.host.lower()}

    # ------------------------------------------------------------------ guard
    @app.middleware("http")
    async def guard(request: Request, call_next):
        t0 = time.perf_counter()
        host = (request.headers.get("host") or "").rsplit(":", 1)[0].lower() if request.headers.get("host") else ""
        if request.headers.get("host", "").startswith("["):
            host = request.headers["host"].split("]")[0] + "]"
        token = config.token
        if token is None and is_loopback(config.host) and host not in allowed_hosts:
            resp: Response = _error(421, "this console answers only to a loopback host name")
        elif token is not None and not _authorized(request, token):
            resp = _error(401, "token required: open the URL groundplan serve printed (…/?token=…)")
        elif int(request.headers.get("content-length") or 0) > MAX_BODY:
            resp = _error(413, f"request larger than {MAX_BODY} bytes")
        elif request.method not in ("GET", "HEAD") and not _same_origin(request):
            # no cross-site requests: a JSON content type forces a CORS preflight (never answered),
            # and a browser's Origin must be this console
            resp = _error(403, "cross-origin or non-JSON request refused")
        else:
            try:
                resp = await call_next(request)
            except AccessError as exc:
                resp = _error(403, str(exc))
            except GroundplanError as exc:
                resp = _error(400, str(exc))
        resp.headers["Content-Security-Policy"] = CSP
        resp.headers["X-Content-Type-Options"] = "nosniff"
        resp.headers["Referrer-Policy"] = "no-referrer"
        resp.headers["Cache-Control"] = "no-store"
        q = _redact_query(request.url.query)
        log.info("%s %s%s %s %.0f ms", request.method, request.url.path, f"?{q}" if q else "", resp.status_code,
                 (time.perf_counter() - t0) * 1000)
        return resp

    def _same_origin(request: Request) -> bool:
        if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
            return False
        origin = request.headers.get("origin")
        if origin is None:
            return True  # not a browser, or a same-origin request that omits it
        return origin.split("://", 1)[-1].lower() == (request.headers.get("host") or "").lower()

    def _authorized(request: Request, token: str) -> bool:
        auth = request.headers.get("authorization", "")
        offered = [auth[7:] if auth.lower().startswith("bearer ") else "", request.cookies.get(COOKIE, ""),
                   request.query_params.get("token", "")]
        return any(o and secrets.compare_digest(o.encode(), token.encode()) for o in offered)

    @app.exception_handler(AccessError)
    async def _access(_: Request, exc: AccessError):
        return _error(403, str(exc))

    @app.exception_handler(GroundplanError)
    async def _gp(_: Request, exc: GroundplanError):
        return _error(400, str(exc))

    # ------------------------------------------------------------------ page
    @app.get("/", response_class=HTMLResponse)
    def index(request: Request):
        if config.token and request.query_params.get("token"):
            # the token moves from the URL into an HttpOnly cookie; the address bar loses it
            r = RedirectResponse("/", status_code=303)
            r.set_cookie(COOKIE, request.query_params["token"], httponly=True, samesite="strict")
            return r
        return HTMLResponse((static / "index.html").read_text(encoding="utf-8"))

    @app.get("/static/{name}")
    def static_file(name: str):
        p = safe_child(static, name)
        if not p.is_file() or p.suffix not in STATIC_TYPES:
            return _error(404, f"no file '{name}'")
        return Response(p.read_bytes(), media_type=STATIC_TYPES[p.suffix])

    # ------------------------------------------------------------------ choices
    @app.get("/api/options")
    def options():
        from groundplan.methods.base import available_methods, method_class
        from groundplan.skills.skillset import available_skillsets

        methods = []
        for m in available_methods():
            cls = method_class(m)
            methods.append({"name": m, "needs_llm": cls.needs_llm,
                            "description": (cls.description or (cls.__doc__ or "").strip().split("\n")[0])[:200]})
        return {"methods": methods, "backends": list(PAGE_BACKENDS), "skillsets": available_skillsets(),
                "scenes": catalog.bundled() + catalog.uploads(), "datasets": catalog.datasets(),
                "skill_files": catalog.data_uploads("skills"), "oam_files": catalog.data_uploads("oam"),
                "results": {"bench": config.results is not None and Path(config.results).is_file(),
                            "console": config.console_results is not None}}

    @app.get("/api/scene")
    def scene(id: str, skillset: Optional[str] = None, skills: Optional[str] = None,  # noqa: A002 - query id
              oam: Optional[str] = None):
        from groundplan.sim.pipeline import build
        from groundplan.skills.skillset import available_skillsets

        ref = catalog.resolve(id)
        ss = skillset or ref.skillset
        if skills:
            ss = str(catalog.resolve_data(skills, "skills"))
        elif ss not in available_skillsets():
            raise AccessError(f"unknown skill set '{ss}'")
        oam_file = str(catalog.resolve_data(oam, "oam")) if oam else (ref.task.oam_file if ref.task else None)
        pt = build(ref.path, skillset=ss, oam_file=oam_file, strict=False)
        view = scene_view(pt)
        if ref.task is not None:
            view["task"] = {"id": ref.task.id, "instruction": ref.task.instruction, "goal": ref.task.goal}
        return view

    @app.post("/api/scenes/upload")
    async def upload(request: Request):
        body = await _json(request)
        name, text = body.get("filename"), body.get("text")
        if not isinstance(name, str) or not isinstance(text, str):
            return _error(400, "send {filename, text}")
        opts = {k: body.get(f) for k, f in (("skillset", "skillset"), ("skills", "skills_file"), ("oam", "oam_file"))}
        if not all(v is None or isinstance(v, str) for v in opts.values()):
            return _error(400, "skillset, skills_file and oam_file are strings")
        return catalog.upload(name, text, **{k: v for k, v in opts.items() if v})

    @app.post("/api/files/upload")
    async def upload_file(request: Request):
        """A skill-set file (kind ``skills``) or an object-affordance map (kind ``oam``) to use
        beside a scene."""
        body = await _json(request)
        kind, name, text = body.get("kind"), body.get("filename"), body.get("text")
        if not all(isinstance(v, str) for v in (kind, name, text)):
            return _error(400, "send {kind: skills|oam, filename, text}")
        return catalog.upload_data(kind, name, text)

    @app.get("/api/datasets/{name}/tasks")
    def dataset_tasks(name: str, offset: int = 0, limit: int = 200):
        tasks = list(catalog.dataset_tasks(name).values())
        limit = max(1, min(limit, 1000))
        return {"total": len(tasks), "tasks": [{"id": t.id, "instruction": t.instruction, "subset": t.subset,
                                               "goal": t.goal} for t in tasks[offset: offset + limit]]}

    # ------------------------------------------------------------------ episodes
    @app.post("/api/episodes")
    async def start_episode(request: Request):
        req = EpisodeRequest.from_json(await _json(request))
        job = runner.submit(req)
        return {"id": job.id}

    @app.get("/api/episodes/{job_id}")
    def episode(job_id: str):
        job = runner.jobs.get(job_id)
        if job is None:
            return _error(404, f"no episode '{job_id}'")
        return {**job.summary(), "trace": job.since(0)}

    @app.get("/api/episodes/{job_id}/events")
    async def episode_events(job_id: str, request: Request, after: int = 0):
        job = runner.jobs.get(job_id)
        if job is None:
            return _error(404, f"no episode '{job_id}'")

        async def stream():
            n = max(after, 0)
            idle = 0.0
            while True:
                new = job.since(n)
                for ev in new:
                    yield f"id: {ev['seq']}\nevent: trace\ndata: {json.dumps(ev)}\n\n"
                n += len(new)
                if job.done and not job.since(n):
                    yield "event: done\ndata: {}\n\n"
                    return
                if await request.is_disconnected():
                    return
                if new:
                    idle = 0.0
                else:
                    idle += 0.05
                    if idle >= 10:
                        idle = 0.0
                        yield ": keep-alive\n\n"
                await asyncio.sleep(0.05)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"X-Accel-Buffering": "no"})

    # ------------------------------------------------------------------ results
    def _store_path(db: str) -> Path:
        path = {"bench": config.results, "console": config.console_results}.get(db)
        if path is None:
            raise AccessError(f"no results file '{db}' (bench or console)")
        return Path(path)

    def _open(db: str):
        from groundplan.bench.store import ResultStore

        return ResultStore(_store_path(db), must_exist=True)

    @app.get("/api/results/runs")
    def results_runs(db: str = "bench"):
        if not _store_path(db).is_file():
            return {"db": db, "runs": []}
        with _open(db) as store:
            runs = store.runs()
            # refusals apart from errors and failures: the safety check's (unsafe) and abstentions
            kinds: dict[str, Counter] = {}
            for e in store.episodes([r["run_id"] for r in runs]):
                kinds.setdefault(e.run_id, Counter())[verdict_kind(e.status, e.success, e.metrics).value] += 1
        for r in runs:
            cfg = r.pop("config", None)
            c = kinds.get(r["run_id"], Counter())
            r["unsafe"], r["abstained"] = c[Verdict.UNSAFE.value], c[Verdict.ABSTAINED.value]
            try:
                r["allow_unsafe"] = bool((cfg if isinstance(cfg, dict) else json.loads(cfg or "{}")).get("allow_unsafe"))
            except (json.JSONDecodeError, TypeError, AttributeError):
                r["allow_unsafe"] = False
        return {"db": db, "runs": runs}

    @app.get("/api/results/report")
    def results_report(runs: str, db: str = "bench", plots: bool = True):
        from groundplan.bench.report import write_report

        patterns = [p for p in runs.split(",") if p.strip()]
        if not patterns:
            return _error(400, "name at least one run")
        with _open(db) as store, tempfile.TemporaryDirectory(prefix="gp-report-") as tmp:
            rep = write_report(store, patterns, tmp, plots=plots)
            images = [{"name": f.name, "png": base64.b64encode(f.read_bytes()).decode()}
                      for f in rep.files if f.suffix == ".png"]
        return {"markdown": rep.markdown, "plots": images, "numbers": rep.numbers}

    @app.get("/api/results/episodes")
    def results_episodes(run: str, db: str = "bench"):
        with _open(db) as store:
            rows = list(store.episodes(store.match_runs([run])))
        return {"run": run, "episodes": [
            {"run_id": r.run_id, "task_id": r.task_id, "seed": r.seed, "status": r.status, "success": r.success,
             "verdict": verdict_text(r.status, r.success, r.metrics, r.error),
             "verdict_kind": verdict_kind(r.status, r.success, r.metrics).value,
             "subset": r.subset, "wall_time": r.wall_time, "llm_calls": r.llm_calls, "goal": r.goal,
             "steps": len(r.plan)} for r in rows]}

    @app.get("/api/results/episode")
    def results_episode(run: str, task: str, seed: int = 0, db: str = "bench"):
        with _open(db) as store:
            rows = [r for r in store.episodes([run], with_trace=True) if r.task_id == task and r.seed == seed]
        if not rows:
            return _error(404, f"run {run} has no episode {task} (seed {seed})")
        r = rows[0]
        out: dict[str, Any] = {k: getattr(r, k) for k in (
            "run_id", "task_id", "seed", "method", "dataset", "subset", "backend", "model", "status", "success",
            "metrics", "llm_calls", "prompt_tokens", "completion_tokens", "wall_time", "goal", "error", "source")}
        out["plan"] = list(r.plan)
        out["trace"] = list(r.trace)
        out["verdict"] = verdict_text(r.status, r.success, r.metrics, r.error)
        out["verdict_kind"] = verdict_kind(r.status, r.success, r.metrics).value
        # the scene to draw: a console episode names it; a benchmark episode's task names it
        from groundplan.sim.pipeline import build

        try:
            if r.source.startswith("console:"):
                ref = catalog.resolve(r.source[len("console:"):])
            else:
                ref = catalog.resolve(f"dataset:{r.dataset}/{r.task_id}")
            oam = ref.task.oam_file if ref.task is not None else None
            out["scene"] = scene_view(build(ref.path, skillset=ref.skillset, oam_file=oam, strict=False))
        except GroundplanError as exc:
            out["scene_error"] = str(exc)
        return out

    return app


async def _json(request: Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.body() or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise GroundplanError(f"request body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise GroundplanError("request body must be a JSON object")
    return body


__all__ = ["create_app", "static_dir", "COOKIE"]
