"""Executors: where episodes run. ``map(worker_spec, units)`` yields ``UnitResult``s as they
finish (any order); closing the iterator stops the workers.

- ``local``: one worker in this process (``workers=1``) or a pool of worker processes, each
  building its Worker (method, planner, LLM) once. A worker that dies mid-episode yields a
  ``crash`` episode for that unit and is replaced; workers die with the parent (Linux
  PR_SET_PDEATHSIG, and a parent check between episodes), so a killed run leaves no orphans.
- ``ray``: one Ray actor per worker on a cluster (``address``) or a local Ray instance.
"""

from __future__ import annotations

import os
import queue
import signal
from abc import ABC, abstractmethod
from typing import Any, Callable, ClassVar, Iterator, Mapping, Optional, Sequence

from groundplan.bench.runner import UnitResult, WorkerSpec, WorkUnit, run_units_inline
from groundplan.errors import ConfigError, GroundplanError
from groundplan.methods.base import EpisodeStatus, failed_episode


class ExecutorError(GroundplanError):
    """Workers could not be started or were lost."""


class RunExecutor(ABC):
    """How a run's work units are spread over worker processes (local, Ray). Not to be
    confused with the action executor, ``groundplan.sim.executor.Executor``."""

    name: ClassVar[str] = ""

    @abstractmethod
    def map(self, spec: WorkerSpec, units: Sequence[WorkUnit]) -> Iterator[UnitResult]:
        ...

    def describe(self) -> str:
        return self.name


EXECUTORS: dict[str, Callable[..., RunExecutor]] = {}


def register_executor(name: str):
    def deco(cls):
        cls.name = name
        EXECUTORS[name] = cls
        return cls
    return deco


def make_executor(name: str, **options: Any) -> RunExecutor:
    if name not in EXECUTORS:
        raise ConfigError(f"unknown executor '{name}' (available: {', '.join(sorted(EXECUTORS))})")
    return EXECUTORS[name](**options)


# --------------------------------------------------------------------------- local


def _die_with_parent() -> None:
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _worker_main(spec: WorkerSpec, wid: int, parent: int, inq, outq) -> None:
    """Entry point of a pool process: build the Worker once, then run units until told to stop."""
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    from groundplan.bench.runner import Worker

    try:
        worker = Worker(spec)
    except GroundplanError as exc:
        outq.put(("fatal", wid, str(exc)))
        return
    except Exception as exc:  # noqa: BLE001
        outq.put(("fatal", wid, f"{type(exc).__name__}: {exc}"))
        return
    outq.put(("ready", wid, None))
    try:
        while os.getppid() == parent:
            try:
                unit = inq.get(timeout=1.0)
            except queue.Empty:
                continue
            if unit is None:
                break
            outq.put(("start", wid, unit.index))
            outq.put(("done", wid, worker.run(unit)))
    finally:
        worker.close()


@register_executor("local")
class LocalExecutor(RunExecutor):
    def __init__(self, workers: int = 1, start_method: Optional[str] = None, **_: Any):
        if workers < 1:
            raise ConfigError(f"--workers must be at least 1, not {workers}")
        self.workers = workers
        # fork: no re-import of __main__ (scripts need no main guard) and a fast start
        import multiprocessing as mp

        self.start_method = start_method or ("fork" if "fork" in mp.get_all_start_methods() else "spawn")

    def describe(self) -> str:
        return f"local ({self.workers} worker{'s' if self.workers != 1 else ''})"

    def map(self, spec: WorkerSpec, units: Sequence[WorkUnit]) -> Iterator[UnitResult]:
        if self.workers == 1 or len(units) <= 1:
            return run_units_inline(spec, units)
        return self._pool(spec, units)

    def _pool(self, spec: WorkerSpec, units: Sequence[WorkUnit]) -> Iterator[UnitResult]:
        import multiprocessing as mp

        ctx = mp.get_context(self.start_method)
        inq, outq = ctx.Queue(), ctx.Queue()
        n = min(self.workers, len(units))
        for u in units:
            inq.put(u)
        for _ in range(n):
            inq.put(None)
        pending = {u.index: u for u in units}
        procs: dict[int, Any] = {}
        current: dict[int, Optional[int]] = {}
        next_wid = 0
        restarts = 2 * n  # a worker that keeps dying (e.g. in its LLM's native code) ends the run

        def start() -> None:
            nonlocal next_wid
            p = ctx.Process(target=_worker_main, args=(spec, next_wid, os.getpid(), inq, outq), daemon=True,
                            name=f"groundplan-bench-{next_wid}")
            p.start()
            procs[next_wid] = p
            current[next_wid] = None
            next_wid += 1

        for _ in range(n):
            start()
        try:
            while pending:
                try:
                    kind, wid, payload = outq.get(timeout=0.5)
                except queue.Empty:
                    for wid, p in list(procs.items()):
                        if p.is_alive():
                            continue
                        idx = current.pop(wid, None)
                        procs.pop(wid)
                        if p.exitcode != 0 or idx is not None:
                            if idx is not None and idx in pending:
                                u = pending.pop(idx)
                                ep = failed_episode(u.task, spec.method, EpisodeStatus.CRASH,
                                                    f"worker process died (exit code {p.exitcode})", seed=u.seed)
                                yield UnitResult(idx, ep)
                            if pending:
                                if restarts <= 0:
                                    raise ExecutorError(f"worker processes keep dying (last exit code "
                                                        f"{p.exitcode}); {len(pending)} episodes left") from None
                                restarts -= 1
                                start()
                    if pending and not procs:
                        raise ExecutorError(f"all workers exited with {len(pending)} episodes left") from None
                    continue
                if kind == "fatal":
                    raise ExecutorError(f"worker could not start: {payload}")
                if kind == "start":
                    current[wid] = payload
                elif kind == "done":
                    current[wid] = None
                    if payload.index in pending:
                        pending.pop(payload.index)
                        yield payload
        finally:
            for p in procs.values():
                if p.is_alive():
                    p.terminate()
            for p in procs.values():
                p.join(timeout=5)
                if p.is_alive():
                    p.kill()
                    p.join(timeout=2)
            for q in (inq, outq):
                q.cancel_join_thread()
                q.close()


# --------------------------------------------------------------------------- ray


class _RayWorker:
    """Ray actor body: one Worker per actor, built once."""

    def __init__(self, spec: WorkerSpec):
        from groundplan.bench.runner import Worker

        self.worker = Worker(spec)

    def run(self, unit: WorkUnit) -> UnitResult:
        return self.worker.run(unit)

    def ready(self) -> bool:
        return True


@register_executor("ray")
class RayExecutor(RunExecutor):
    """``address``: ``host:port`` of a running Ray cluster (``ray start --head``), ``auto``,
    or None for a local Ray instance started (and stopped) by this process. Workers default
    to the cluster's CPU count. Task files must be readable at the same paths on every node
    (a shared file system, or the same checkout and ../shared/data everywhere)."""

    def __init__(self, workers: Optional[int] = None, address: Optional[str] = None,
                 runtime_env: Optional[Mapping[str, Any]] = None, **_: Any):
        self.workers = workers
        self.address = address
        self.runtime_env = dict(runtime_env or {})

    def describe(self) -> str:
        return f"ray ({self.address or 'local instance'}, {self.workers or 'all CPUs'} workers)"

    def map(self, spec: WorkerSpec, units: Sequence[WorkUnit]) -> Iterator[UnitResult]:
        try:
            import ray
            from ray.util import ActorPool
        except ImportError:
            raise ConfigError("the ray executor needs Ray: pip install 'groundplan[ray]' (or use --executor local)") \
                from None
        return self._run(ray, ActorPool, spec, units)

    def _run(self, ray, ActorPool, spec: WorkerSpec, units: Sequence[WorkUnit]) -> Iterator[UnitResult]:  # noqa: N803
        started_here = False
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"log_to_driver": False, "logging_level": "ERROR",
                                      "include_dashboard": False}
            if self.runtime_env:
                kwargs["runtime_env"] = self.runtime_env
            if self.address and self.address != "auto":
                _probe(self.address)
            try:
                if self.address:
                    ray.init(address=self.address, **kwargs)
                else:
                    ray.init(num_cpus=self.workers or None, **kwargs)
            except Exception as exc:  # noqa: BLE001 - Ray raises ConnectionError, RuntimeError, ...
                where = self.address or "a local Ray instance"
                raise ExecutorError(f"cannot connect to Ray at {where}: {' '.join(str(exc).split())[:300]}") \
                    from None
            started_here = True
        actors = []
        try:
            n = self.workers or max(int(ray.cluster_resources().get("CPU", 1)), 1)
            n = max(1, min(n, len(units)))
            actor_cls = ray.remote(num_cpus=1)(_RayWorker)
            actors = [actor_cls.remote(spec) for _ in range(n)]
            try:
                ray.get([a.ready.remote() for a in actors])
            except Exception as exc:  # noqa: BLE001 - RayActorError wraps the constructor's error
                raise ExecutorError(f"Ray worker could not start: {_ray_cause(exc)}") from None
            pool = ActorPool(actors)
            try:
                yield from pool.map_unordered(lambda a, u: a.run.remote(u), list(units))
            except GroundplanError:
                raise
            except Exception as exc:  # noqa: BLE001
                raise ExecutorError(f"Ray worker lost: {_ray_cause(exc)}") from None
        finally:
            for a in actors:
                try:
                    ray.kill(a)
                except Exception:  # noqa: BLE001,S110
                    pass
            if started_here:
                ray.shutdown()


def _probe(address: str, timeout: float = 5.0) -> None:
    """Fail fast (Ray itself retries for minutes) when nothing listens at ``host:port``."""
    import socket

    addr = address.split("://", 1)[-1]
    host, _, port = addr.rpartition(":")
    if not host or not port.isdigit():
        raise ConfigError(f"--address must be host:port (e.g. 127.0.0.1:6379), not '{address}'")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise ExecutorError(f"cannot connect to Ray at {address}: {exc.strerror or exc} "
                            f"(start a head with `ray start --head --port {port}`)") from None


def _ray_cause(exc: BaseException) -> str:
    cause = getattr(exc, "cause", None) or exc
    text = " ".join(str(cause).split())
    for line in str(cause).splitlines()[::-1]:
        if line.strip():
            text = line.strip()
            break
    return text[:300]


__all__ = ["RunExecutor", "ExecutorError", "EXECUTORS", "LocalExecutor", "RayExecutor", "make_executor",
           "register_executor"]
