"""Goal proposals (constrained and free) with the scripted backend, and AutoGPT+P's goal
prompt compared with the original's logged prompts. Offline."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from groundplan.llm import GoalGrammarOptions, ScriptedLLM, UsageMeter, goal_grammar, parse_gbnf, propose_goal
from groundplan.llm.gbnf import sample
from groundplan.pddl.goal import FORMAT_FEEDBACK

DATA = Path("/work/shared/data/autogpt-p")
SAYCAN = DATA / "autogpt_p/data/evaluation/saycan"
LOG = DATA / "autogpt_p/logs/planning/planning_gpt_3_off_saycan_saycan_crowd_sourced.log"
OAM = DATA / "object_affordance_mapping/data/oam/saycan_oam.json"

pytestmark = pytest.mark.skipif(not SAYCAN.exists(), reason="shared AutoGPT+P data not present")


@pytest.fixture(scope="module")
def task():
    from groundplan.sim.pipeline import build

    return build(SAYCAN / "scenes/saycan_f_crowd_sourced/simple_kitchen.txt", oam_file=str(OAM), strict=False)


@pytest.fixture(scope="module")
def prompt(task):
    from groundplan.prompts.autogpt_p import goal_prompt

    return goal_prompt(task.domain, task.problem, "I opened a pepsi earlier. can you bring me an open can?")


def test_prompt_matches_the_original_logs(prompt):
    logged = LOG.read_text().split("NEW CASE ------------------------------------------------------------------\n")[1]
    logged = logged[: logged.index("Example: ")] + logged[logged.index("Example: "):].split("\n", 1)[0]
    ours, theirs = prompt.split("\n"), logged.split("\n")
    assert ours[0] == theirs[0]  # role sentence
    assert ours[1] == theirs[1] == "(:predicates"
    assert ours[-2:] == theirs[-2:]  # the request sentence and the example
    assert " and the problem without the goal is:" in ours and " (define (problem simple_kitchen)" in ours
    # predicate lines and their comments as the original prints them
    for line in ("; Describes ?o being on top of the supporting ?s", "(on  ?o - carry ?s - support)",
                 "(inhand  ?o - carry ?a - actor)", "; Do not use this predicate", "(warm  ?co - consumable)",
                 ") "):
        assert line in ours and line in theirs
    assert ours[ours.index(" and the problem without the goal is:") - 1] == ") "


def test_constrained_proposal_under_a_grammar_sampling_model(task, prompt):
    rng = random.Random(0)
    llm = ScriptedLLM(lambda req: sample(parse_gbnf(req.constraint.text), rng))
    meter = UsageMeter()
    for _ in range(25):
        p = propose_goal(llm, prompt, task.domain, task.problem, constrained=True, usage=meter)
        assert p.ok and p.error is None and p.goal_text.startswith("(:goal ")
    req = llm.requests[0]
    gg = goal_grammar(task.domain, task.problem)
    assert req.constraint.text == gg.gbnf and req.params.max_tokens == gg.max_tokens
    assert req.messages[0].content == prompt and meter.summary().calls == 25


def test_constrained_without_wrapper(task, prompt):
    llm = ScriptedLLM(["(inhand pepsi0 human0)"])
    p = propose_goal(llm, prompt, task.domain, task.problem, grammar_options=GoalGrammarOptions(wrap_goal=False))
    assert p.ok and p.goal.pddl() == "(inhand pepsi0 human0)"


@pytest.mark.parametrize("answer,goal", [
    ("Step 1: ... Therefore the goal is (:goal and(inhand pepsi0 human0))", "(and (inhand pepsi0 human0))"),
    ("(goal: and(inhand pepsi0 human0) (opened pepsi0))", "(and (inhand pepsi0 human0) (opened pepsi0))"),
    ("The goal:\n(:goal (or (inhand pepsi0 human0) (inhand coke0 human0)))",
     "(or (inhand pepsi0 human0) (inhand coke0 human0))"),
])
def test_free_proposal_extracts_the_goal(task, prompt, answer, goal):
    p = propose_goal(ScriptedLLM([answer]), prompt, task.domain, task.problem, constrained=False)
    assert p.ok and p.goal.pddl() == goal


def test_free_proposal_failures_carry_feedback(task, prompt):
    p = propose_goal(ScriptedLLM(["I do not know."]), prompt, task.domain, task.problem, constrained=False)
    assert not p.ok and p.feedback == FORMAT_FEEDBACK
    p = propose_goal(ScriptedLLM(["(:goal (inhand banana0 human0))"]), prompt, task.domain, task.problem,
                     constrained=False)
    assert not p.ok and "banana0" in p.error and "does not exist in the scene" in p.feedback
    p = propose_goal(ScriptedLLM(["(:goal (free table0))"]), prompt, task.domain, task.problem, constrained=False)
    assert not p.ok and "free" in p.error
