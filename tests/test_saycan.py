"""SayCan: skill descriptions, affordance filtering, the greedy loop with a scripted scorer,
the oracle scorer, the held-out few-shot pool and the judged SayCan-101 loader."""

from __future__ import annotations

import pytest

from groundplan.core.task import Task
from groundplan.llm.scripted import ScriptedLLM
from groundplan.methods import RunContext, get_method
from groundplan.methods.saycan.examples import example_pool, held_out, norm
from groundplan.methods.saycan.skills import SkillSpace
from groundplan.sim.executor import Executor
from groundplan.sim.pipeline import build

KITCHEN = "examples/scenes/kitchen.yaml"


def _task(instruction: str, goal: str | None = "(and (inhand coke0 human0))", **kw) -> Task:
    return Task(id="t", dataset="test", instruction=instruction, scene_file=KITCHEN, goal=goal, **kw)


def _space():
    pt = build(KITCHEN, strict=False)
    return pt, SkillSpace(pt, "robot0", ["human0"])


def test_afforded_skills_are_exactly_the_executable_ones():
    pt, space = _space()
    ex = Executor(pt.domain, pt.problem)
    skills = space.afforded(ex)
    assert skills, "the robot can do something in the kitchen"
    for s in skills:
        assert ex.check(s.step).ok, s
    texts = [s.text for s in skills]
    assert any(t.startswith("go to the ") for t in texts)
    assert len(texts) == len(set(texts))
    # nothing the executor refuses is offered: grasping from a closed fridge is not afforded
    assert not any(s.step.startswith("take_out coke0") for s in skills)


def test_descriptions_follow_saycan_wording_and_context():
    pt, space = _space()
    ex = Executor(pt.domain, pt.problem)
    texts = {s.step: s.text for s in space.afforded(ex)}
    move_h = next(k for k in texts if k.startswith("move") and " human0 " in k)
    assert texts[move_h] == "come to you"  # hand empty
    space.namer.overrides["fridge0"] = "big fridge"
    step = next(k for k in texts if k.startswith("move") and " fridge0 " in k)
    assert space.afforded(ex) and any(s.text == "go to the big fridge" for s in space.afforded(ex) if s.step == step)


def _scorer_preferring(plan_texts: list[str]):
    """A scripted LM: the next text of ``plan_texts`` scores 0, all else -10; 'done' at the end."""
    state = {"i": 0}

    def score(req):
        want = plan_texts[state["i"]] if state["i"] < len(plan_texts) else "done"
        out = [0.0 if c == want else -10.0 for c in req.continuations]
        if want in req.continuations:
            state["i"] += 1
        return out

    return score


def test_greedy_loop_executes_the_best_afforded_skill_until_done(planner):
    plan = ["go to the fridge", "open the fridge", "take the coke out of the fridge", "bring it to you",
            "put down the coke"]
    llm = ScriptedLLM(scorer=_scorer_preferring(plan))
    ep = get_method("saycan").run(_task("bring me a coke"), RunContext(llm=llm, planner=planner))
    assert ep.metrics["skills"] == plan, ep.error
    assert ep.success and ep.status == "success"
    assert ep.metrics["said_done"] is True
    # every step scored the afforded skills plus "done", and the prompt is SayCan's dialogue
    prompts = [r.prompt for r in llm.requests]
    assert len(prompts) == len(plan) + 1
    assert prompts[0].rstrip().endswith("Human: bring me a coke\nRobot: 1.")
    assert "1. go to the fridge, 2. open the fridge, 3. " in prompts[3]
    assert all("done" in r.continuations for r in llm.requests)
    assert ep.usage.calls == len(plan) + 1


def test_affordance_zero_is_never_chosen_even_if_the_llm_prefers_it(planner):
    # the LM wants to pick up the coke straight away; it is in the closed fridge, so it is
    # not afforded and never scored; the LM then says done: the goal does not hold
    llm = ScriptedLLM(scorer=_scorer_preferring(["take the coke out of the fridge"]))
    ep = get_method("saycan").run(_task("bring me a coke"), RunContext(llm=llm, planner=planner))
    assert all("take the coke out of the fridge" not in r.continuations for r in llm.requests[:1])
    assert not ep.success and ep.status == "failure"


def test_step_bound_stops_a_loop_that_never_says_done(planner):
    llm = ScriptedLLM(scorer=lambda req: [-1.0 if c == "done" else 0.0 for c in req.continuations])
    ep = get_method("saycan").run(_task("bring me a coke"),
                                  RunContext(llm=llm, planner=planner, config={"max_steps": 3}))
    assert len(ep.plan) == 3 and ep.metrics["said_done"] is False
    assert "step bound" in (ep.error or "")


def test_oracle_scorer_completes_the_task(planner):
    ep = get_method("saycan_oracle").run(_task("bring me a coke"), RunContext(planner=planner))
    assert ep.success, ep.error
    assert ep.usage.calls == 0


def test_refuses_other_skill_sets_up_front():
    t = _task("watch tv", skillset="virtualhome")
    why = get_method("saycan").supports(t)
    assert why and "household" in why
    ep = get_method("saycan").run(t, RunContext(llm=ScriptedLLM(scorer=lambda r: [0.0] * len(r.continuations))))
    assert ep.status == "unsupported"


def test_few_shot_pool_excludes_every_evaluation_instruction():
    bad = held_out()
    pool = example_pool()
    assert len(bad) >= 90 and len(pool) >= 50  # 101 queries, some repeated (embodiment)
    assert not any(norm(e.instruction) in bad for e in pool)
    assert norm("How would you bring me a coke can?") == norm("Would you bring me a coke can")


def test_saycan101_judged_joins_each_row_to_the_same_instruction():
    from groundplan.bench.datasets import load_tasks

    ts = load_tasks("saycan-101-judged")
    assert len(ts) == 101 and all(t.goal and t.scene_file for t in ts)
    t = next(t for t in ts if t.instruction.startswith("Please, move the ppsi"))
    assert t.extras["gold_instruction"] == "Please, move the ppsi to the first cuonter"
    assert "pepsi0" in t.goal and "counter1" in t.goal
    assert t.extras["saycan_names"]["counter1"] == "close counter"
    assert sum(bool(t.extras["location_mismatch"]) for t in ts) == 5


def test_saycan101_judged_refuses_a_misaligned_file(tmp_path):
    import shutil

    from groundplan.bench.datasets.saycan import saycan101_judged_tasks
    from groundplan.datadir import data_dir
    from groundplan.errors import DatasetError

    src = data_dir() / "saycan"
    for f in src.iterdir():
        shutil.copy(f, tmp_path / f.name)
    q = tmp_path / "saycan_initial_condition_for_dataset_v0.tsv"
    text = q.read_text(encoding="utf-8").replace("I spilled my coke, can you bring me a replacement?",
                                                 "Dance a little jig for the neighbours", 1)
    q.write_text(text, encoding="utf-8")
    with pytest.raises(DatasetError, match="does not match AutoGPT"):
        saycan101_judged_tasks(tmp_path)


@pytest.mark.embedded
def test_embedded_model_scores_a_saycan_step():
    from groundplan.llm import LLMConfig, build_llm

    llm = build_llm(LLMConfig(n_threads=1, cache=False))
    ep = get_method("saycan").run(_task("bring me a coke"), RunContext(llm=llm, config={"max_steps": 2}))
    assert ep.status in ("success", "failure") and ep.usage.model_calls >= 1
