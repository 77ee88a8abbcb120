"""Resource bounds travel in the run context (``RunContext.limits``): two runs on threads
with different bounds each get their own, and the process-wide bounds are never swapped."""

from __future__ import annotations

import threading

import groundplan.limits as gl
from groundplan.core.episode import RunContext
from groundplan.llm import LLMConfig, build_llm
from groundplan.methods import get_method
from groundplan.methods.brainbody.tabletop import franka_tasks

#: a Brain answer of 40 numbered steps (the Body maps none of them: each is a <pass>)
MANY_STEPS = "\n".join(f"{i}: look around" for i in range(40))


def test_a_context_carries_the_bounds_in_force_by_default():
    assert RunContext().limits == gl.current()
    tight = gl.Limits(plan_max_steps=3)
    assert RunContext(limits=tight).with_seed(4).limits is tight


def test_two_threads_run_with_their_own_bounds():
    task = next(t for t in franka_tasks() if t.extras["number"] == 1)
    method = get_method("brainbody_nofb")
    results: dict[int, int] = {}

    def run(max_steps: int) -> None:
        answers = (MANY_STEPS,) + ("<pass>",) * 60
        llm = build_llm(LLMConfig(backend="scripted", script=answers, cache=False))
        ctx = RunContext(llm=llm, limits=gl.Limits(plan_max_steps=max_steps))
        ep = method.run(task, ctx)
        assert ep.status in ("success", "failure"), ep.error
        results[max_steps] = len(next(e for e in ep.trace if e["type"] == "plan")["steps"])

    before = gl.current()
    threads = [threading.Thread(target=run, args=(n,)) for n in (4, 9)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert results == {4: 4, 9: 9}  # each run read its own plan_max_steps
    assert gl.current() is before  # nothing was swapped


def test_run_method_puts_the_run_bounds_in_force_for_deep_code_per_thread():
    """Code deep below a method (goal parser, answer schemas, planners) reads
    ``groundplan.limits.current()``; ``run_method`` makes that the run's own bounds, in its
    thread only, while two runs overlap."""
    from groundplan.core.episode import run_method

    barrier = threading.Barrier(2, timeout=30)
    seen: dict[int, int] = {}

    class Probe:  # a method whose "planning" only reads the bounds in force, mid-run
        def run(self, task, ctx):
            barrier.wait()  # both runs are inside their episode now
            seen[ctx.limits.goal_max_depth] = gl.current().goal_max_depth
            barrier.wait()
            return None

    before = gl.current()
    threads = [threading.Thread(target=run_method, args=(Probe(), None, RunContext(limits=gl.Limits(goal_max_depth=d))))
               for d in (3, 7)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert seen == {3: 3, 7: 7}
    assert gl.current() is before and gl.source() != "use() (a run's own bounds)"
