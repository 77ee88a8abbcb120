"""The method template (issue 49, item 4): ``Method.run`` does the shared steps (refusal,
configuration, the run context, the planning task, the recorder, the hook, the goal check,
planning, execution and scoring, the episode, its verdict fields) and every registered
method implements the one hook ``_run``; datasets import no method internals.

The every-method test runs each registered method on one task it supports from a shipped
dataset (as tests/test_metrics_unified.py picks them) with a scripted LLM, and checks that
the episode carries what only the template sets: wall time, seed, usage metered from the
LLM's requests, the trace, the prompt hash and model, and the verdict fields."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any, Optional

import pytest
from conftest import KITCHEN

import groundplan.methods.base as base
from groundplan.core.attempt import Attempt, EpisodeRecorder
from groundplan.core.episode import RunContext
from groundplan.core.task import Task
from groundplan.core.verdict import Verdict, verdict
from groundplan.errors import GroundplanError
from groundplan.llm.scripted import ScriptedLLM
from groundplan.llm.types import UsageSummary
from groundplan.methods import available_methods, get_method, method_class
from groundplan.methods.base import Method

SRC = Path(__file__).resolve().parents[1] / "src" / "groundplan"
#: where a method finds a task it supports (first supported task, in this order)
DATASETS = ("autogptp-saycan", "progprompt-test_unseen", "wake-lfo", "cowp", "llmp", "franka-tabletop")
QUICK = {"llmp": "blocksworld/"}
FAST_CONFIG = {"goalsearch": {"lm_scoring": False, "embeddings": False, "retrieval": False}}


def overrides_run(cls: type) -> bool:
    """Whether a method class (or a class between it and ``Method``) defines its own ``run``."""
    return any("run" in c.__dict__ for c in cls.__mro__ if c is not Method and issubclass(c, Method))


def implements_hook(cls: type) -> bool:
    return any("_run" in c.__dict__ for c in cls.__mro__ if c is not Method and issubclass(c, Method))


def _product_methods() -> list[str]:
    return [n for n in available_methods() if method_class(n).__module__.startswith("groundplan.methods.")]


# --------------------------------------------------------------------------- structure


def test_the_structural_check_sees_an_override():
    class Old(Method):
        def run(self, task, ctx):  # the way methods were written before the template
            raise AssertionError

    class New(Method):
        def _run(self, task, ctx, cfg, rec, pt):
            return Attempt.ended("no_plan", "nothing")

    class Variant(New):
        description = "a variant only changes settings"

    assert overrides_run(Old) and not implements_hook(Old)
    assert not overrides_run(New) and implements_hook(New)
    assert not overrides_run(Variant) and implements_hook(Variant)


def test_every_registered_method_implements_the_hook_and_not_run():
    names = _product_methods()
    assert len(names) >= 30
    overriding = [n for n in names if overrides_run(method_class(n))]
    without_hook = [n for n in names if not implements_hook(method_class(n))]
    assert overriding == [] and without_hook == []


# --------------------------------------------------------------------------- the shared steps, on a tiny method


class _Tiny(Method):
    """A method whose hook returns what the test hands it."""

    name = "tiny-template"
    needs_llm = False
    needs_planner = True
    builds_task = True

    def __init__(self, attempt: Any = None, refuse_goal: Optional[str] = None, refuse_step: Optional[str] = None):
        self.attempt, self.refuse_goal, self.refuse_step, self.checked = attempt, refuse_goal, refuse_step, []

    def _run(self, task, ctx, cfg, rec, pt):
        assert isinstance(rec, EpisodeRecorder) and pt is not None and cfg is None
        rec.event("note", what="hook ran")
        if isinstance(self.attempt, Exception):
            raise self.attempt
        return self.attempt

    def _check_goal(self, goal, pt):
        self.checked.append(goal)
        return self.refuse_goal

    def _check_plan(self, plan, pt):
        bad = [s for s in plan if self.refuse_step and s.startswith(self.refuse_step)]
        return f"step '{bad[0]}' refused" if bad else None


def _task(goal: Optional[str] = "(inhand coke0 human0)") -> Task:
    return Task(id="t", dataset="test", instruction="bring me a coke", scene_file=str(KITCHEN), goal=goal)


def test_a_goal_from_the_hook_is_checked_planned_executed_and_scored(planner):
    m = _Tiny(Attempt.to_plan("(inhand coke0 human0)", metrics={"tool_calls": 1}))
    ep = m.run(_task(), RunContext(planner=planner, seed=3))
    kinds = [e["type"] for e in ep.trace]
    assert kinds[0] == "note" and "plan" in kinds and "step" in kinds and kinds[-1] == "result"
    assert m.checked == ["(inhand coke0 human0)"]
    assert ep.status == "success" and ep.success and ep.plan and ep.seed == 3 and ep.wall_time > 0
    assert ep.metrics["tool_calls"] == 1 and ep.metrics["checked"] is True and verdict(ep) == "success"


def test_without_a_check_goal_the_own_goal_is_evaluated(planner):
    ep = _Tiny(Attempt.to_plan("(inhand coke0 human0)")).run(_task(goal=None), RunContext(planner=planner))
    assert ep.metrics["checked"] is False and ep.metrics["own_goal_held"] is True
    assert verdict(ep) == Verdict.UNVERIFIED.value


def test_the_goal_check_hook_point_stops_the_episode_before_planning(planner):
    m = _Tiny(Attempt.to_plan("(inhand coke0 human0)"), refuse_goal="the goal hands over a bottle")
    ep = m.run(_task(), RunContext(planner=planner))
    assert ep.status == "unsafe" and ep.error == "the goal hands over a bottle" and ep.plan == ()
    assert verdict(ep).startswith("unsafe")
    assert not any(e["type"] in ("plan", "step") for e in ep.trace)
    # the plan check sees the plan the base made for the goal, before any step runs
    ep = _Tiny(Attempt.to_plan("(inhand coke0 human0)"), refuse_step="handover").run(_task(), RunContext(planner=planner))
    assert ep.status == "unsafe" and ep.error.startswith("step 'handover")
    assert any(e["type"] == "plan" for e in ep.trace) and not any(e["type"] == "step" for e in ep.trace)


def test_a_judged_outcome_passes_through_and_errors_keep_the_trace(planner):
    judged = _Tiny(Attempt.executed(False, ("move a b",), goal="(g)", metrics={"x": 1}, error="it fell"))
    ep = judged.run(_task(), RunContext(planner=planner))
    assert (ep.status, ep.success, ep.plan, ep.error, ep.metrics["x"]) == ("failure", False, ("move a b",), "it fell", 1)
    assert not any(e["type"] == "step" for e in ep.trace)  # the base executed nothing
    broken = _Tiny(GroundplanError("scene has no robot")).run(_task(), RunContext(planner=planner))
    assert broken.status == "error" and broken.error == "scene has no robot"
    assert [e["type"] for e in broken.trace] == ["note"] and broken.wall_time > 0


def test_the_run_context_is_checked_before_the_hook():
    ep = _Tiny(Attempt.ended("no_plan", "x")).run(_task(), RunContext(planner=None))
    assert ep.status == "error" and ep.error == "no planner in the run context" and ep.trace == ()
    refused = _Tiny(Attempt.ended("no_plan", "x"))
    type(refused).needs_goal = True
    try:
        ep = refused.run(_task(goal=None), RunContext())
    finally:
        type(refused).needs_goal = False
    assert ep.status == "unsupported" and "needs a check goal" in ep.error


# --------------------------------------------------------------------------- every registered method


@pytest.fixture(scope="module")
def dataset_tasks():
    datasets = pytest.importorskip("groundplan.bench.datasets")
    out = {}
    for name in DATASETS:
        try:
            tasks = datasets.get_dataset(name).loader()
            out[name] = [t for t in tasks if t.id.startswith(QUICK.get(name, ""))][:30]
        except Exception as exc:  # noqa: BLE001 - a dataset missing from the data directory
            out[name] = exc
    return out


def _pick(name: str, dataset_tasks) -> Task:
    cls = method_class(name)
    for ds in DATASETS:
        tasks = dataset_tasks[ds]
        if isinstance(tasks, Exception):
            continue
        for t in tasks:
            if cls.supports(t) is None:
                return t
    pytest.skip(f"{name}: no task it supports in {', '.join(DATASETS)} (data directory incomplete?)")


@pytest.fixture(scope="module")
def alfred_task():
    pytest.importorskip("alfworld.gen.constants", reason="the alfred scenes read alfworld's layouts")
    from groundplan.bench.datasets.alfred import generate
    from groundplan.methods.roblm import task_from_sample

    sample = next(iter(generate("valid_unseen", floorplans=[1], goals_per_category=1)))
    return task_from_sample(sample), sample


@pytest.mark.parametrize("name", _product_methods())
def test_every_method_goes_through_the_shared_steps(name, dataset_tasks, planner, monkeypatch, request):
    calls = []
    real = base.with_checks

    def spy(ep, task, pt=None):
        calls.append(ep.task_id)
        return real(ep, task, pt)

    monkeypatch.setattr(base, "with_checks", spy)
    if name == "roblm":
        import groundplan.methods.roblm as roblm

        task, sample = request.getfixturevalue("alfred_task")
        # the fine-tuned model's generation replayed as the gold plan text (no weights needed)
        monkeypatch.setattr(roblm, "generate", lambda lm, prompts, sampling, batch_size=1: [sample.plan])
        monkeypatch.setattr(roblm, "load_model", lambda source: object())
    else:
        task = _pick(name, dataset_tasks)
    llm = ScriptedLLM(lambda req: "done", check_constraints=False,
                      scorer=lambda r: [0.0 if c.strip().lower() == "done" else -1.0 for c in r.continuations])
    method = get_method(name)
    ep = method.run(task, RunContext(llm=llm, planner=planner, seed=7, config=FAST_CONFIG.get(name, {})))
    assert calls == [task.id], "the verdict fields come from Method.run's last step"
    assert ep.method == name and ep.task_id == task.id and ep.seed == 7 and ep.wall_time > 0
    assert ep.status != "crash" and ep.trace, (ep.status, ep.error)
    assert isinstance(ep.usage, UsageSummary)
    assert ep.usage.model_calls == len(llm.requests), "every LLM request is metered on the episode's recorder"
    assert ep.metrics["prompt_hash"] == method.prompt_hash()
    assert ep.metrics.get("model") == "script"
    assert "checked" in ep.metrics
    assert verdict(ep).split(":")[0] in {v.value for v in Verdict}


# --------------------------------------------------------------------------- datasets and method internals


def _methods_imports(path: Path) -> list[str]:
    """The ``groundplan.methods`` modules a file imports (at any depth, also by name)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("groundplan.methods"):
            out.append(node.module)
        elif isinstance(node, ast.Import):
            out += [a.name for a in node.names if a.name.startswith("groundplan.methods")]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value.startswith("groundplan.methods.") and " " not in node.value:
            out.append(node.value)
    return out


def test_the_import_scan_sees_hidden_imports(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("def f():\n    from groundplan.methods.cowp.world import draw_setup\n"
                 "g = lambda: __import__('groundplan.methods.brainbody.tabletop')\n")
    assert _methods_imports(f) == ["groundplan.methods.cowp.world", "groundplan.methods.brainbody.tabletop"]


def test_datasets_import_no_method_internals():
    allowed = {"groundplan.methods", "groundplan.methods.base"}
    files = sorted((SRC / "bench" / "datasets").glob("*.py")) + sorted((SRC / "core" / "datasets").rglob("*.py"))
    assert len(files) > 10
    bad = {str(f.relative_to(SRC)): m for f in files for m in _methods_imports(f) if m not in allowed}
    assert bad == {}
