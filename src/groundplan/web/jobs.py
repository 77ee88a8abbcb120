"""Console episodes: one worker thread runs them one at a time (the machine's cores go to
the model and the planner), each event of the method's trace is appended to its job the
moment the method records it (``trace_listener``) and streamed to the page.

An API key typed into the page lives only in the job's request object while the episode
runs: it is handed to the OpenAI-compatible client through a private environment mapping,
scrubbed from every event, error and stored row, and dropped when the job ends."""

from __future__ import annotations

import logging
import queue
import re
import threading
import time
import uuid
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Optional

from groundplan.core.task import Task
from groundplan.core.verdict import Verdict, verdict_text
from groundplan.errors import ConfigError, GroundplanError
from groundplan.web.catalog import SceneCatalog, SceneRef
from groundplan.web.config import PAGE_BACKENDS, ServeConfig
from groundplan.web.view import scene_view

log = logging.getLogger("groundplan.web")
KEY_VAR = "GROUNDPLAN_CONSOLE_KEY"
MAX_SCRIPT = 200
MAX_TEXT = 4000


@dataclass
class EpisodeRequest:
    scene: str
    instruction: str
    method: str
    backend: str = "embedded"
    model: Optional[str] = None
    base_url: Optional[str] = None
    api_key: Optional[str] = field(default=None, repr=False)
    script: tuple[str, ...] = ()
    skillset: Optional[str] = None
    check_goal: Optional[str] = None
    #: an uploaded skill-set file (``skills:ID``), used instead of ``skillset``
    skills_file: Optional[str] = None
    #: an uploaded object-affordance map (``oam:ID``), extending the default map
    oam_file: Optional[str] = None

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> "EpisodeRequest":
        def s(key: str, default: Optional[str] = None) -> Optional[str]:
            v = d.get(key, default)
            if v is None or v == "":
                return default
            if not isinstance(v, str) or len(v) > MAX_TEXT:
                raise ConfigError(f"'{key}' must be a string of at most {MAX_TEXT} characters")
            return v.strip()

        script = d.get("script") or []
        if isinstance(script, str):
            script = [script]
        if not isinstance(script, list) or len(script) > MAX_SCRIPT or not all(isinstance(x, str) for x in script):
            raise ConfigError(f"'script' must be a list of at most {MAX_SCRIPT} answers")
        backend = s("backend", "embedded")
        if backend not in PAGE_BACKENDS and backend != "none":
            raise ConfigError(f"unknown backend '{backend}' (the console offers {', '.join(PAGE_BACKENDS)})")
        req = EpisodeRequest(scene=s("scene") or "", instruction=s("instruction") or "", method=s("method") or "",
                             backend=backend, model=s("model"), base_url=s("base_url"), api_key=s("api_key"),
                             script=tuple(script), skillset=s("skillset"), check_goal=s("check_goal"),
                             skills_file=s("skills_file"), oam_file=s("oam_file"))
        if not req.scene:
            raise ConfigError("pick a scene")
        if not req.method:
            raise ConfigError("pick a method")
        return req

    def public(self) -> dict[str, Any]:
        """What may be shown, logged and stored: everything but the key."""
        return {"scene": self.scene, "instruction": self.instruction, "method": self.method,
                "backend": self.backend, "model": self.model, "base_url": self.base_url,
                "skillset": self.skillset, "check_goal": self.check_goal, "skills_file": self.skills_file,
                "oam_file": self.oam_file, "api_key_given": bool(self.api_key),
                "script_answers": len(self.script)}


def scrub(value: Any, secret: Optional[str]) -> Any:
    if not secret:
        return value
    if isinstance(value, str):
        return value.replace(secret, "***")
    if isinstance(value, Mapping):
        return {k: scrub(v, secret) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub(v, secret) for v in value]
    return value


class Job:
    def __init__(self, request: EpisodeRequest):
        self.id = uuid.uuid4().hex[:12]
        self.request: Optional[EpisodeRequest] = request
        self.public = scrub(request.public(), request.api_key)
        self.events: list[dict[str, Any]] = []
        self.state = "queued"
        self.result: Optional[dict[str, Any]] = None
        self._lock = threading.Lock()
        self.created = time.time()

    def add(self, ev: Mapping[str, Any]) -> None:
        secret = self.request.api_key if self.request is not None else None
        with self._lock:
            e = dict(scrub(dict(ev), secret))
            e["seq"] = len(self.events)
            self.events.append(e)

    def since(self, n: int) -> list[dict[str, Any]]:
        with self._lock:
            return self.events[n:]

    @property
    def done(self) -> bool:
        return self.state in ("done", "error")

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "state": self.state, "request": self.public, "events": len(self.events),
                "result": self.result}


class JobRunner:
    """Queue + one worker thread. LLMs for the embedded backend and the planner are built
    once and reused; an OpenAI-compatible client is built per job (its key is per job)."""

    def __init__(self, config: ServeConfig, catalog: SceneCatalog, *, max_jobs: int = 50):
        self.config = config
        self.catalog = catalog
        self.jobs: dict[str, Job] = {}
        self.max_jobs = max_jobs
        self._q: "queue.Queue[Optional[Job]]" = queue.Queue()
        self._llms: dict[tuple, Any] = {}
        self._methods: dict[str, Any] = {}
        self._planner = None
        self._thread = threading.Thread(target=self._loop, name="groundplan-console", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ public
    def submit(self, request: EpisodeRequest) -> Job:
        from groundplan.methods.base import method_class
        from groundplan.skills.skillset import available_skillsets

        method_class(request.method)  # ConfigError for an unknown method
        if request.skillset is not None and request.skillset not in available_skillsets():
            raise ConfigError(f"unknown skill set '{request.skillset}' (available: {', '.join(available_skillsets())})")
        self.catalog.resolve(request.scene)  # AccessError before anything is queued
        if request.skills_file:
            self.catalog.resolve_data(request.skills_file, "skills")
        if request.oam_file:
            self.catalog.resolve_data(request.oam_file, "oam")
        job = Job(request)
        self.jobs[job.id] = job
        while len(self.jobs) > self.max_jobs:
            oldest = next(iter(self.jobs))
            if not self.jobs[oldest].done:
                break
            del self.jobs[oldest]
        log.info("episode %s queued: %s", job.id, job.public)
        self._q.put(job)
        return job

    def close(self) -> None:
        self._q.put(None)
        self._thread.join(timeout=5)
        for llm in self._llms.values():
            try:
                llm.close()
            except Exception:  # noqa: BLE001
                pass

    # ------------------------------------------------------------------ worker
    def _loop(self) -> None:
        while True:
            job = self._q.get()
            if job is None:
                return
            try:
                self._run(job)
            except Exception as exc:  # noqa: BLE001 - one episode's crash must not stop the console
                secret = job.request.api_key if job.request else None
                msg = scrub(f"{type(exc).__name__}: {exc}", secret)
                job.result = {"status": "crash", "success": False, "error": msg, "reason": msg,
                              "verdict": verdict_text("crash", False, None, msg), "verdict_kind": Verdict.ERROR.value}
                job.add({"type": "end", **job.result})
                job.state = "error"
                log.warning("episode %s crashed: %s", job.id, msg)
            finally:
                job.request = None  # the key goes with it

    def _planner_for(self):
        if self._planner is None:
            from groundplan.planners import PlannerLimits, get_planner

            self._planner = get_planner("fast-downward", limits=PlannerLimits(timeout=self.config.planner_timeout))
        return self._planner

    def _llm_for(self, req: EpisodeRequest):
        from groundplan.llm import LLMConfig, build_llm

        if req.backend == "none":
            return None
        if req.backend == "embedded":
            key = ("embedded", req.model or "")
            if key not in self._llms:
                cfg = LLMConfig(backend="embedded", model=req.model, n_ctx=self.config.n_ctx,
                                n_threads=self.config.n_threads, cache=self.config.llm_cache)
                self._llms[key] = build_llm(cfg)
            return self._llms[key]
        if req.backend == "scripted":
            from groundplan.llm import ScriptedLLM

            if not req.script:
                raise ConfigError("the scripted backend needs answers (one per line)")
            return ScriptedLLM(list(req.script), cycle=True)
        # openai: the key reaches the client through a private mapping, never os.environ or a file
        from groundplan.llm.openai_compat import OpenAICompatLLM

        env = {KEY_VAR: req.api_key} if req.api_key else {}
        backend = OpenAICompatLLM(req.base_url or "", req.model or "", api_key_env=(KEY_VAR,), environ=env)
        return build_llm(LLMConfig(backend="openai", model=req.model, base_url=req.base_url,
                                   api_key_env=(KEY_VAR,), cache=self.config.llm_cache), backend=backend)

    def _task(self, req: EpisodeRequest, ref: SceneRef, job: Job) -> Task:
        skills = str(self.catalog.resolve_data(req.skills_file, "skills")) if req.skills_file else None
        oam = str(self.catalog.resolve_data(req.oam_file, "oam")) if req.oam_file else None
        if ref.task is not None:
            t = ref.task
            return replace(t, instruction=req.instruction or t.instruction, goal=req.check_goal or t.goal,
                           skillset=skills or req.skillset or t.skillset, oam_file=oam or t.oam_file)
        if not req.instruction:
            raise ConfigError("type an instruction")
        return Task(f"console-{job.id}", "console", req.instruction, str(ref.path), req.check_goal,
                    skillset=skills or req.skillset or ref.skillset, oam_file=oam, source=f"console:{ref.id}")

    def _run(self, job: Job) -> None:
        from groundplan.core.episode import run_method
        from groundplan.methods.base import RunContext, get_method, trace_listener
        from groundplan.sim.pipeline import build

        req = job.request
        assert req is not None
        job.state = "running"
        t0 = time.perf_counter()
        llm = None
        try:
            ref = self.catalog.resolve(req.scene)
            task = self._task(req, ref, job)
            pt = build(task.scene_file, skillset=task.skillset, oam_file=task.oam_file, strict=False)
            job.add({"type": "start", "request": job.public, "instruction": task.instruction,
                     "gold_goal": task.goal, "scene": scene_view(pt)})
            if req.method not in self._methods:
                self._methods[req.method] = get_method(req.method)
            method = self._methods[req.method]
            # the backend the user picked, also for methods that can work without one (goalsearch
            # reranks close calls with it), as the benchmark runner does
            llm = self._llm_for(req)
            ctx = RunContext(llm=llm, planner=self._planner_for(), planner_timeout=self.config.planner_timeout)
            with trace_listener(job.add):
                ep = run_method(method, task, ctx)
        except GroundplanError as exc:
            msg = scrub(str(exc), req.api_key)
            job.result = {"status": "error", "success": False, "error": msg, "reason": msg,
                          "wall_time": time.perf_counter() - t0,
                          "verdict": verdict_text("error", False, None, msg), "verdict_kind": Verdict.ERROR.value}
            job.add({"type": "end", **job.result})
            job.state = "error"
            log.info("episode %s: error: %s", job.id, msg)
            return
        finally:
            if llm is not None and req.backend in ("openai", "scripted"):
                llm.close()  # per-job clients; the embedded model stays loaded
        ep, judged_by = self._judge(ep, task, pt)
        # status, success (only a check goal that held after execution), error and reason as the
        # episode record has them (docs/formats.md "Episode record")
        rec = ep.record()
        status, success = rec["status"], rec["success"]
        result = {"status": status, "method_status": ep.status, "success": success, "judged_by": judged_by,
                  "verdict": rec["verdict"], "verdict_kind": rec["verdict_kind"],
                  "goal": ep.goal, "plan": list(ep.plan), "error": scrub(rec["error"], req.api_key),
                  "reason": scrub(rec["reason"], req.api_key),
                  "wall_time": ep.wall_time, "usage": ep.usage.to_dict(),
                  "metrics": scrub(dict(ep.metrics), req.api_key)}
        if self.config.console_results is not None:
            self._store(job, req, task, replace(ep, status=status), success)
        job.result = scrub(result, req.api_key)
        job.add({"type": "end", **job.result})
        job.state = "done"
        log.info("episode %s: %s, success %s (%s), %d events", job.id, status, success, judged_by, len(job.events))

    @staticmethod
    def _judge(ep, task: Task, pt) -> tuple[Any, str]:
        """The episode with what was checked in its metrics (groundplan.core.verdict): the
        check goal (the user's, or the dataset task's gold goal) when there is one; else only
        whether the method's own goal holds after executing its plan, which is never
        "success" but "goal holds (unverified)"."""
        m = dict(ep.metrics)
        if task.goal:
            m.setdefault("checked", True)
            return replace(ep, metrics=m), "the check goal, after executing the plan"
        m["checked"] = False
        if m.get("own_goal_held") is None and ep.goal and ep.plan:
            from groundplan.methods.base import execute_and_score

            try:
                m["own_goal_held"] = bool(execute_and_score(pt, ep.plan, replace(task, goal=ep.goal)).success)
            except GroundplanError:  # the method's goal does not parse against the scene
                m["own_goal_held"] = False
        return replace(ep, metrics=m), "nothing to check against (no check goal): the method's own goal"

    def _store(self, job: Job, req: EpisodeRequest, task: Task, ep, success: bool) -> None:
        from groundplan.bench.runner import episode_row
        from groundplan.bench.store import ResultStore, RunRecord

        model = req.model or ("default" if req.backend == "embedded" else "")
        rid = re.sub(r"[^A-Za-z0-9._@:+-]+", "-", f"console@{req.method}@{req.backend}" + (f":{model}" if model else ""))
        record = RunRecord(rid, req.method, "console", "console", req.backend, model, "",
                           {"source": "groundplan serve", "base_url": scrub(req.base_url, req.api_key)})
        ep2 = replace(ep, success=success, trace=tuple(scrub(list(ep.trace), req.api_key)),
                      error=scrub(ep.error, req.api_key), goal=scrub(ep.goal, req.api_key),
                      plan=tuple(scrub(list(ep.plan), req.api_key)), metrics=scrub(dict(ep.metrics), req.api_key))
        try:
            with ResultStore(self.config.console_results) as store:
                try:
                    store.ensure_run(record)
                except GroundplanError:
                    record = replace(record, run_id=f"{rid}-{job.id}")
                    store.ensure_run(record)
                store.write_episode(episode_row(record, replace(task, id=f"{time.strftime('%Y%m%d-%H%M%S')}-{job.id}"),
                                                ep2))
            job.public["stored_as"] = record.run_id
        except GroundplanError as exc:
            log.warning("episode %s not stored: %s", job.id, exc)


__all__ = ["EpisodeRequest", "Job", "JobRunner", "scrub", "KEY_VAR"]
