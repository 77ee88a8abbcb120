"""AutoGPT+P on the real embedded model (SmolLM2-135M): the Plan tool, the loop and the OAM
strategies run end to end with grammar-constrained answers. Marked ``embedded``."""

from __future__ import annotations

import pytest
from conftest import KITCHEN

from groundplan.core.task import Task
from groundplan.methods import RunContext, get_method

pytestmark = pytest.mark.embedded


@pytest.fixture(scope="module")
def model():
    from groundplan.llm import EmbeddedLLM

    try:
        m = EmbeddedLLM(n_ctx=8192)
    except Exception as exc:  # noqa: BLE001 - model not installed
        pytest.skip(f"embedded model unavailable: {exc}")
    yield m
    m.close()


def test_plan_tool_on_the_embedded_model(model, planner):
    task = Task("k:1", "test", "Bring me the apple", str(KITCHEN), "and (inhand apple0 human0)")
    ep = get_method("autogpt_p").run(task, RunContext(llm=model, planner=planner, config={"max_rounds": 2}))
    assert ep.status in ("success", "failure", "no_plan", "unsolvable"), ep.error
    goals = [e for e in ep.trace if e["type"] == "goal"]
    assert goals and all(g["text"].startswith("(") for g in goals)  # the grammar gives a goal every round
    assert ep.usage.model_calls >= 1 and ep.usage.completion_tokens > 0


def test_loop_on_the_embedded_model(model, planner, tmp_path):
    subs = tmp_path / "s.csv"
    subs.write_text("missing,substitution\n")
    task = Task("k:2", "test", "Give me the coke", str(KITCHEN), "and (inhand coke0 human0)",
                extras={"explored": ["counter0"], "min_tool_calls": 2, "substitutions_file": str(subs)})
    ep = get_method("autogpt_p").run(task, RunContext(llm=model, planner=planner,
                                                      config={"max_tool_calls": 3, "max_rounds_in_loop": 2}))
    assert ep.status not in ("error", "crash"), ep.error
    assert 1 <= ep.metrics["tool_calls"] <= 3 or ep.metrics["ended_by"] == "failure"


def test_oam_strategies_on_the_embedded_model(model):
    from groundplan.knowledge.oam_llm import AffordanceSpec, build_oam

    specs = (AffordanceSpec("grasp", "The object can be grasped in any way", "Can a typical {} be grasped with one hand?"),
             AffordanceSpec("support", "The object supports other objects", "(Does a typical {} provide support?)&!(Is {} a liquid?)"))
    for strategy in ("list", "yes-no", "logical"):
        res = build_oam(model, ["cup"], strategy, specs, constrained=True)
        assert res.oam.affordances("cup") <= {"grasp", "support"} and res.llm_calls >= 1
