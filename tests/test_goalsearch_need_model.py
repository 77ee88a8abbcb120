"""goalsearch's optional need stage (``need_model.py``, ``--set need_model=true``): for a stated
need the run's model orders the things the rules would hand over; it needs an LLM, asks
nothing for a plain request, and is off by default."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundplan.bench.task import Task
from groundplan.llm.scripted import ScriptedLLM
from groundplan.methods import RunContext, get_method
from groundplan.methods.small_model.method import GoalSearch

KITCHEN = Path(__file__).resolve().parents[1] / "examples" / "scenes" / "kitchen.yaml"


def _task(instruction: str) -> Task:
    return Task("need-model", "custom", instruction, str(KITCHEN), None)


def _prefers(name: str):
    """A scripted LM to which ``name`` is far likelier after the person's words than alone."""
    def score(req):
        needy = "says:" in req.prompt
        return [(0.0 if needy else -5.0) if c.strip() == name else -3.0 for c in req.continuations]
    return score


def test_the_stage_is_off_by_default_and_needs_an_llm_when_on():
    assert GoalSearch.configure({}).need_model is False
    m = get_method("goalsearch")
    assert m.needs_llm_for(GoalSearch.configure({"need_model": True}))
    ep = m.run(_task("I am thirsty"), RunContext(llm=None, planner=None, config={"need_model": True}))
    assert ep.success is False and "no LLM" in (ep.error or "")


@pytest.mark.encoder
def test_for_a_need_the_model_puts_what_it_prefers_first(planner):
    llm = ScriptedLLM(scorer=_prefers("apple"))
    ep = get_method("goalsearch").run(_task("I am hungry"),
                                       RunContext(llm=llm, planner=planner, config={"need_model": True}))
    asked = [e for e in ep.trace if e.get("what") == "need model"]
    assert asked and asked[0]["first"] == "apple0"
    assert ep.goal == "(and (inhand apple0 human0))"


@pytest.mark.encoder
def test_a_plain_request_asks_the_model_nothing(planner):
    llm = ScriptedLLM(scorer=_prefers("apple"))
    ep = get_method("goalsearch").run(_task("bring me the coke"),
                                       RunContext(llm=llm, planner=planner, config={"need_model": True}))
    assert not [e for e in ep.trace if e.get("what") == "need model"]
    assert ep.goal == "(and (inhand coke0 human0))"
