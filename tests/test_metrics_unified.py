"""One metrics module (issue 22, item 2): every registered method's episode goes through
``groundplan.core.metrics``; the empty-plan EXEC rule; GCR/SR from every goal evaluator's
record; OAM precision / recall / F1 on a tiny map.

The every-method test runs each method of ``available_methods()`` on one task it supports
(``Method.supports``) from a shipped dataset, with a scripted LLM (or none, for the oracle
variants; RobLM's generation is replayed), stores the episode the way ``bench run`` does, and
checks that the stored metrics are ``core.metrics.episode_metrics(episode, task)`` and that
what the method recorded (exec, gcr) agrees with the one definition."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from conftest import KITCHEN

from groundplan.core import metrics as M
from groundplan.core.episode import Episode, ExecutionScore, RunContext
from groundplan.core.task import Task
from groundplan.llm.scripted import ScriptedLLM
from groundplan.methods import available_methods, get_method, method_class

#: where a method finds a task it supports (first supported task, in this order)
DATASETS = ("autogptp-saycan", "progprompt-test_unseen", "wake-lfo", "cowp", "llmp", "franka-tabletop")
#: settings that keep a method's run short without changing what it records
FAST_CONFIG = {"goalsearch": {"lm_scoring": False, "embeddings": False, "retrieval": False}}
#: the dataset's quickest tasks to plan (LLM+P's barman problems take Fast Downward seconds)
QUICK = {"llmp": "blocksworld/"}


# --------------------------------------------------------------------------- the small helpers


def test_empty_plan_exec_rule():
    assert M.exec_rate(0, 0, True) == 1.0  # the goal already held: nothing needed doing
    assert M.exec_rate(0, 0, False) == 0.0  # nothing done, nothing achieved
    assert M.exec_rate(0, 0, None) == 0.0  # no check goal: not shown to hold
    assert M.exec_rate(3, 4, False) == 0.75 and M.exec_rate(4, 4, True) == 1.0
    assert M.step_metrics(0, 0, True) == {"executed_steps": 0, "planned_steps": 0, "exec": 1.0}
    assert M.step_metrics(1, 2, False, 0.5)["gcr"] == 0.5
    # the shared execute-and-score record follows the same rule (it said 1.0 for any empty plan)
    assert ExecutionScore(0, 0, 0.0, None, None, False, 0.0).exec_rate == 0.0
    assert ExecutionScore(0, 0, 0.0, None, None, True, 1.0).metrics()["exec"] == 1.0
    assert ExecutionScore(0, 0, 0.0, None, None, None, None).exec_rate == 0.0


def _task(**extras) -> Task:
    return Task("t", "d", "x", str(KITCHEN), "(inhand apple0 human0)", extras=extras)


def _ep(success=True, status=None, **metrics) -> Episode:
    return Episode("t", "m", status or ("success" if success else "failure"), success, metrics=metrics)


def test_episode_metrics_recompute_exec_from_steps():
    # a method that recorded no exec, or a wrong one, is measured by the definition
    assert M.episode_metrics(_ep(True, executed_steps=0, planned_steps=0), _task()).exec == 1.0
    assert M.episode_metrics(_ep(False, executed_steps=0, planned_steps=0), _task()).exec == 0.0
    assert M.episode_metrics(_ep(False, executed_steps=2, planned_steps=4), _task()).exec == 0.5
    assert M.episode_metrics(_ep(True), _task()).exec == 1.0  # no steps recorded: an empty plan
    assert M.episode_metrics(_ep(True, status="invalid", executed_steps=0, planned_steps=0), _task()).exec == 0.0
    # metrics read back from a results file (the stored EpisodeMetrics: exec, no steps) keep their exec
    assert M.episode_metrics(_ep(False, exec=0.5, gcr=0.0), _task()).exec == 0.5
    bad = _ep(False, executed_steps=0, planned_steps=0, exec=1.0)
    assert M.disagreements(bad, _task()) and "exec" in M.disagreements(bad, _task())[0]
    assert M.disagreements(_ep(False, **M.step_metrics(0, 0, False)), _task()) == []
    assert M.disagreements(_ep(True, gcr=0.5, sr=True), _task())  # SR is 1 iff GCR is 1
    assert M.disagreements(_ep(True, executed_steps=5, planned_steps=4), _task())  # more executed than planned


def test_gcr_sr_and_goal_records():
    from groundplan.core.datasets.eai import GoalCheck
    from groundplan.core.datasets.progprompt import ProgPromptScore
    from groundplan.pddl.state import GoalReport

    assert M.gcr(0, 0) == 1.0 and M.gcr(1, 4) == 0.25
    assert M.sr(1.0) and not M.sr(0.999) and not M.sr(None)
    r = M.goal_result(GoalReport(False, 0.5, ("(a)",), ("(b)",)))
    assert (r.success, r.gcr, r.unsatisfied, r.conditions, r.sr) == (False, 0.5, ("(b)",), 2, False)
    r = M.goal_result(GoalCheck(False, 1, 3, ("x", "y")))
    assert (r.success, round(r.gcr, 6), r.conditions) == (False, 0.333333, 3)
    r = M.goal_result(ProgPromptScore(True, 1.0, (), 2))
    assert (r.success, r.gcr, r.sr, r.detail()) == (True, 1.0, True, {"unsatisfied": [], "conditions": 2})


def test_minimal_tools_completion_situation():
    assert M.success(_ep(True)) and not M.success(_ep(False))
    assert not M.success(_ep(True, status="invalid"))  # an invalid dataset row is never a success
    assert M.minimal(True, 4.0, 4.0) is True and M.minimal(True, 5.0, 4.0) is False
    assert M.minimal(False, 4.0, 4.0) is False and M.minimal(True, 4.0, None) is None
    assert M.minimal_tools(True, 2, 2) is True and M.minimal_tools(True, 3, 2) is False
    assert M.minimal_tools(True, 2, None) is None
    assert M.completion(True) and not M.completion(False)
    assert M.situation_handled(False, True, ["cup0"], ["cup0"]) is None
    assert M.situation_handled(True, True, ["cup0"], ["cup0", "mug0"]) is True
    assert M.situation_handled(True, True, ["bowl0"], ["cup0"]) is False
    assert M.situation_handled(True, False, ["cup0"], ["cup0"]) is False
    assert M.situation_handled(True, True, ["bowl0"], None) is True
    em = M.episode_metrics(_ep(True, cost=4.0, tool_calls=1, situation_met=True, objects_used=["cup0"]),
                           _task(min_costs=4.0, min_tool_calls=1, accepted_objects=["cup0"]))
    assert (em.minimal, em.minimal_tools, em.completed, em.situation_handled) == (True, True, True, True)


def test_oam_precision_recall_f1_on_a_tiny_map():
    truth = {"cup": {"drink", "pour", "contain"}, "knife": {"cut"}, "Coffee Table": {"support"}}
    pred = {"cup": {"drink", "pour", "throw"}, "coffee_table": {"support", "sit"}}
    s = M.oam_prf(pred, truth)
    assert (s.tp, s.fp, s.fn, s.classes) == (3, 2, 2, 3)  # knife is missing: its pair is a false negative
    assert s.precision == pytest.approx(3 / 5) and s.recall == pytest.approx(3 / 5)
    assert s.f1 == pytest.approx(0.6) and s.missing_classes == ("knife",)
    only_cup = M.oam_prf(pred, truth, classes=["cup"])
    assert (only_cup.precision, only_cup.recall) == pytest.approx((2 / 3, 2 / 3))
    empty = M.oam_prf({}, {"cup": set()})
    assert (empty.precision, empty.recall, empty.f1) == (0.0, 0.0, 0.0)


def test_bench_metrics_reexports_the_core_module():
    from groundplan.bench import metrics as B

    assert B.episode_metrics is M.episode_metrics and B.EpisodeMetrics is M.EpisodeMetrics


# --------------------------------------------------------------------------- every method


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


@pytest.fixture(scope="module")
def alfred_task():
    pytest.importorskip("alfworld.gen.constants", reason="the alfred scenes read alfworld's layouts")
    from groundplan.bench.datasets.alfred import generate
    from groundplan.methods.roblm import task_from_sample

    sample = next(iter(generate("valid_unseen", floorplans=[1], goals_per_category=1)))
    return task_from_sample(sample), sample


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


def _llm() -> ScriptedLLM:
    """Answers 'done' to every prompt and prefers 'done' when scoring: the methods plan
    little or nothing (the empty-plan rule), the oracles plan for real."""
    return ScriptedLLM(lambda req: "done", check_constraints=False,
                       scorer=lambda r: [0.0 if c.strip().lower() == "done" else -1.0 for c in r.continuations])


def _stored_metrics(tmp_path, name: str, task: Task, ep: Episode) -> dict:
    """The metrics ``bench run`` stores for the episode, read back from a result store."""
    from groundplan.bench.runner import episode_row
    from groundplan.bench.store import ResultStore, RunRecord

    record = RunRecord(f"r-{name}", name, task.dataset, "v", "scripted", "script", "h", {})
    with ResultStore(tmp_path / "results.sqlite") as store:
        store.ensure_run(record)
        store.write_episode(episode_row(record, task, ep))
        (row,) = list(store.episodes([record.run_id]))
    return dict(row.metrics)


@pytest.mark.parametrize("name", available_methods())
def test_every_method_episode_goes_through_core_metrics(name, dataset_tasks, planner, tmp_path, monkeypatch,
                                                        request):
    if name == "roblm":
        import groundplan.methods.roblm as roblm

        task, sample = request.getfixturevalue("alfred_task")  # only RobLM needs alfworld
        # replay: the fine-tuned model's generation is the gold plan text (no weights needed)
        monkeypatch.setattr(roblm, "generate", lambda lm, prompts, sampling, batch_size=1: [sample.plan])
        monkeypatch.setattr(roblm, "load_model", lambda source: object())
    else:
        task = _pick(name, dataset_tasks)
    ep = get_method(name).run(task, RunContext(llm=_llm(), planner=planner, seed=0,
                                               config=FAST_CONFIG.get(name, {})))
    assert ep.method == name and ep.task_id == task.id
    # what the method recorded agrees with the one definition
    assert M.disagreements(ep, task) == [], (name, ep.status, ep.error)
    if ep.metrics.get("planned_steps") is not None:
        m = ep.metrics
        assert M.episode_metrics(ep, task).exec == M.exec_rate(m["executed_steps"], m["planned_steps"], ep.success)
    # what bench run stores is core.metrics of (episode, task), also after the episode's JSON round trip
    expected = M.episode_metrics(ep, task).to_dict()
    stored = _stored_metrics(tmp_path, name, task, ep)
    from groundplan.bench.runner import REFUSAL_METRICS  # kept beside the metrics, for reports

    extras = {k: stored.pop(k) for k in REFUSAL_METRICS if k in stored}
    assert extras == {k: ep.metrics[k] for k in REFUSAL_METRICS if ep.metrics.get(k) is not None}
    assert stored == json.loads(json.dumps(expected))
    again = Episode.from_json(json.loads(json.dumps(ep.to_json())))
    assert M.episode_metrics(again, task).to_dict() == expected


def test_oracle_with_the_goal_already_true_has_exec_one(planner):
    """An empty plan that succeeds (nothing needed doing) is EXEC 1.0; saycan saying 'done' at
    once on a goal that does not hold is EXEC 0.0 (ExecutionScore said 1.0 before)."""
    from groundplan.sim.pipeline import build

    facts = build(KITCHEN).problem.init
    held = next(a for a in sorted(facts, key=str) if a.predicate == "on")
    task = replace(_task(), goal=f"({held.predicate} {' '.join(held.args)})")
    ep = get_method("oracle").run(task, RunContext(planner=planner))
    assert ep.success and ep.plan == () and ep.metrics["exec"] == 1.0 and M.episode_metrics(ep, task).exec == 1.0
    ep = get_method("saycan").run(_task(), RunContext(llm=_llm(), planner=planner))
    assert not ep.success and ep.plan == () and ep.metrics["exec"] == 0.0
