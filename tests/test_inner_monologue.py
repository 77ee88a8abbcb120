"""Inner Monologue on VirtualHome: the closed loop with success and scene feedback, the
scripted oracle, the grammar, refusals."""

from __future__ import annotations

import pytest

from groundplan.core.task import Task
from groundplan.llm.gbnf import parse_gbnf
from groundplan.llm.scripted import ScriptedLLM
from groundplan.methods import RunContext, get_method
from groundplan.methods.inner_monologue import action_grammar, example_dialogues, read_action


@pytest.fixture(scope="module")
def watch_tv():
    from groundplan.bench.datasets import load_tasks

    return next(t for t in load_tasks("progprompt-test_unseen") if t.instruction == "watch tv")


def test_scripted_oracle_completes_watch_tv(watch_tv):
    ep = get_method("inner_monologue_oracle").run(watch_tv, RunContext())
    assert ep.success and ep.metrics["gcr"] == 1.0 and ep.metrics["said_done"]
    assert ep.usage.calls == 0


def test_feedback_reaches_the_llm_and_failures_are_reported(watch_tv):
    # ids given (the living-room tv is 426; an id-less <tv> resolves to the smallest id, 264)
    answers = iter(["<char0> [switchon] <tv> (426)", "<char0> [walk] <livingroom> (335)", "<char0> [find] <tv> (426)",
                    "<char0> [switchon] <tv> (426)", "done"])
    prompts = []

    def fn(req):
        prompts.append(req.messages[-1].content)
        return next(answers)

    llm = ScriptedLLM(fn)
    ep = get_method("inner_monologue").run(watch_tv, RunContext(llm=llm, config={"constrained": False}))
    assert ep.success, ep.error
    # the first switchon fails (not close to the tv): the executor's reason is in the next prompt
    assert "Action failed: <character> (1) is not close to <tv> (426)" in prompts[1]
    assert prompts[2].count("Success: yes") == prompts[0].count("Success: yes") + 1
    # passive scene description: a scene line at the start and a new one after changing rooms
    assert prompts[2].split("Human: watch tv")[1].count("Scene: I see") == 2
    assert ep.metrics["planned_steps"] == 4 and ep.metrics["executed_steps"] == 3
    assert ep.usage.calls == 5


def test_step_bound_ends_a_loop_that_never_says_done(watch_tv):
    llm = ScriptedLLM(["<char0> [walk] <kitchen>"], cycle=True)
    ep = get_method("inner_monologue").run(watch_tv, RunContext(llm=llm, config={"max_steps": 3}))
    assert not ep.success and ep.metrics["said_done"] is False and len(ep.plan) == 3
    assert "step bound" in ep.error


def test_action_grammar_accepts_commands_and_done_only():
    g = parse_gbnf(action_grammar(["tv", "kitchen"]))
    assert g.matches("<char0> [walk] <kitchen>") and g.matches("done") and g.matches(" done")
    assert g.matches("<char0> [putin] <tv> <kitchen>")
    assert not g.matches("<char0> [fly] <kitchen>") and not g.matches("import os")
    assert read_action(" Done.\nmore") == "done"


def test_examples_come_from_training_tasks_only():
    text = example_dialogues(2)
    assert "Human: refrigerate the salmon" in text and "watch tv" not in text


def test_refuses_household_tasks():
    t = Task(id="k", dataset="x", instruction="bring me a coke", scene_file="examples/scenes/kitchen.yaml",
             goal="(and (inhand coke0 human0))")
    why = get_method("inner_monologue").supports(t)
    assert why and "virtualhome" in why
    assert get_method("inner_monologue").run(t, RunContext(llm=ScriptedLLM(["done"]))).status == "unsupported"
