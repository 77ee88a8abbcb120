"""A planner call with hard bounds: the whole ``plan`` (translation as well as search) runs in
a forked child; past the wall-time bound the child is killed and the call returns TIMEOUT,
when its resident memory grows by more than the bound it is killed and the call returns ERROR
with the reason. For goals nobody vetted (an LLM's), where translation alone can ground millions of
operators: ``get_planner(..., isolate=True)``.

The child's translation cache is not kept (each call translates afresh), so this is slower
for many small calls than the plain planner."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import time
from dataclasses import dataclass, field

from groundplan.pddl.model import Domain, Problem
from groundplan.planners.base import Planner, PlannerLimits, PlanResult, PlanStatus
from groundplan.planners.fast_downward import backstop_address_space, rss_kb

#: seconds the child gets beyond the timeout to report (start-up, pickling)
GRACE_S = 5.0


def _child(planner: Planner, domain: Domain, problem: Problem, timeout: float, memory_mb: int, conn) -> None:
    try:
        backstop_address_space(memory_mb)
        conn.send(planner.plan(domain, problem, timeout=timeout))
    except MemoryError:
        conn.send(PlanResult(PlanStatus.ERROR, error=f"planning needed more than {memory_mb} MB (the planner's memory "
                                                     f"bound); the goal or scene is too large"))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent as the call's error
        conn.send(PlanResult(PlanStatus.ERROR, error=f"planner failed: {type(exc).__name__}: {str(exc)[:300]}"))
    finally:
        conn.close()


@dataclass
class IsolatedPlanner:
    inner: Planner
    limits: PlannerLimits = field(default_factory=PlannerLimits.configured)

    @property
    def name(self) -> str:
        return self.inner.name

    def plan(self, domain: Domain, problem: Problem, *, timeout: float | None = None) -> PlanResult:
        timeout = self.limits.timeout if timeout is None else timeout
        t0 = time.perf_counter()
        ctx = mp.get_context("fork")
        recv, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_child, args=(self.inner, domain, problem, timeout, self.limits.memory_mb, send),
                           daemon=True)
        proc.start()
        send.close()
        base_kb = rss_kb(str(proc.pid))
        deadline = time.monotonic() + timeout + GRACE_S
        res = None
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    res = PlanResult(PlanStatus.TIMEOUT, error=f"planning (translation and search) exceeded the "
                                                               f"{timeout:g} s bound")
                    break
                if recv.poll(min(left, 0.05)):
                    try:
                        res = recv.recv()
                    except EOFError:
                        res = None
                    break
                if rss_kb(str(proc.pid)) - base_kb > self.limits.memory_mb * 1024:
                    res = PlanResult(PlanStatus.ERROR, error=f"planning needed more than {self.limits.memory_mb} MB "
                                                             f"(limit planner_memory_mb); the goal or scene is too large")
                    break
        finally:
            if proc.is_alive():
                os.kill(proc.pid, signal.SIGKILL)
            proc.join()
            recv.close()
        if res is None:
            code = proc.exitcode
            why = "killed (out of memory?)" if code is not None and code < 0 else f"exit code {code}"
            res = PlanResult(PlanStatus.ERROR, error=f"planner process ended without a result: {why} "
                                                     f"(memory bound {self.limits.memory_mb} MB)")
        return PlanResult(res.status, res.plan, res.cost, time.perf_counter() - t0, res.log, res.error, res.timings)


__all__ = ["IsolatedPlanner", "GRACE_S"]
