"""COWP: the dining skill set, the situation simulator, the algorithm with scripted LLMs and
an oracle, the GPT-3 replay, the baselines and the data set. Offline; one test runs the
embedded model."""

from __future__ import annotations

from dataclasses import replace

import pytest

from groundplan.core.task import Task
from groundplan.llm import ScriptedLLM
from groundplan.methods import RunContext, get_method


def _cowp_data():
    from groundplan.datadir import data_dir

    try:
        d = data_dir() / "cowp-gpt-planner"
    except Exception:  # noqa: BLE001
        return None
    return d if d.is_dir() else None


pytestmark = pytest.mark.skipif(_cowp_data() is None, reason="../shared/data/cowp-gpt-planner not present")

TASKS = (1, 4, 6, 9, 10, 11)


def trial_task(task: int = 4, *, objects=("dish bowl", "frying pan", "drinking glass", "sponge"),
               appliances=("microwave", "oven"), two: bool = False, force=None, p: float = 0.1, seed: int = 7) -> Task:
    from groundplan.methods.cowp.spec import task_spec
    from groundplan.methods.cowp.world import TrialSetup

    spec = task_spec(task)
    extras = TrialSetup(task, 0, seed, two, tuple(objects), tuple(appliances), p).to_dict()
    if force is not None:
        extras["force_situation"] = force
    return Task(id=f"t{task}", dataset="cowp", instruction=spec.instruction, scene_file=str(spec.scene_file),
                goal=spec.goal_text, skillset="dining", subset=spec.key, extras=extras)


def run(method: str, task: Task, planner, llm=None, seed: int = 0):
    return get_method(method).run(task, RunContext(llm=llm, planner=planner, seed=seed))


# --------------------------------------------------------------------------- skill set, tasks


def test_dining_skill_set_gives_each_task_its_cowp_domain(planner):
    from groundplan.methods.cowp.world import TrialSetup, build_trial

    for t in TASKS:
        trial = build_trial(TrialSetup(t, 0, 1, False, (), ()))
        names = {a.name for a in trial.domain.actions}
        assert not any(n.endswith(f"_t{k}") for n in names for k in TASKS)
        assert "operate" in names and "walk" in names
        res = planner.plan(trial.domain, trial.problem)
        assert res.solved and res.plan, t
        true = planner.plan(trial.true_domain, trial.true_problem)
        assert true.solved and len(true.plan) == len(res.plan)
    # task 9's place_plate puts the plate in the sink, task 11's on the table
    t9 = build_trial(TrialSetup(9, 0, 1, False, (), ())).domain.action_map["place_plate"]
    t11 = build_trial(TrialSetup(11, 0, 1, False, (), ())).domain.action_map["place_plate"]
    assert "robot_near_sink" in t9.precondition.pddl() and "table_at" in t11.precondition.pddl()


def test_situations_are_all_annotated_with_report_counts():
    from groundplan.methods.cowp.spec import task_spec

    totals = {1: 91, 4: 95, 6: 92, 9: 91, 10: 90, 11: 83}
    for t, total in totals.items():
        spec = task_spec(t)
        assert sum(s.count for s in spec.situations) == total
        for s in spec.situations:
            assert abs(sum(s.actions.values()) - s.count) < 1e-6
            assert set(s.actions) <= set(spec.action_names), (t, s.text)
            assert s.target is None or s.target in spec.roles
        for role in spec.substitutes:
            assert role in spec.roles


def test_dataset_has_150_seeded_trials_per_task_with_half_the_objects():
    from groundplan.bench.datasets import get_dataset
    from groundplan.methods.cowp.spec import task_spec, word_list

    tasks = get_dataset("cowp").loader()
    assert len(tasks) == 900 and len({t.id for t in tasks}) == 900
    again = get_dataset("cowp").loader()
    assert [t.extras for t in tasks] == [t.extras for t in again]
    for t in tasks[:: 150]:
        spec = task_spec(t.extras["cowp_task"])
        assert len(t.extras["spawned"]) == round(len(word_list(spec.candidates_file)) / 2)
        assert len(t.extras["appliances"]) == round(len(word_list("appliances.txt")) / 2)
        assert t.skillset == "dining" and t.extras["p_situation"] == 0.1
    share = sum(t.extras["two_objects"] for t in tasks) / len(tasks)
    assert 0.18 < share < 0.32  # GPT-Planner's 0.25


# --------------------------------------------------------------------------- the simulator


def test_a_situation_blocks_the_action_and_its_object_until_an_accepted_fixer_runs(planner):
    from groundplan.methods.cowp.world import SituationWorld, trial_for

    task = trial_task(4, appliances=("dishwasher", "washing machine"), force=(2, "hold_cup"))
    trial = trial_for(task.extras)
    w = SituationWorld(trial, planner=planner, forced=(2, "hold_cup"))
    for s in ("walk dining kitchen robot0", "find_cup cup1 kitchen robot0"):
        assert w.observe(s) == [] and w.apply(s).ok
    obs = w.observe("hold_cup cup1 kitchen robot0")
    assert [o.text for o in obs] == ["the cup is dirty."] and obs[0].new and obs[0].target == "cup1"
    r = w.apply("hold_cup cup1 kitchen robot0")
    assert not r.ok and "the cup is dirty" in r.reason
    assert w.active.solvable is True  # the dishwasher
    assert w.apply("operate washing_machine0 kitchen kitchen robot0").ok  # not accepted: nothing changes
    assert not w.apply("hold_cup cup1 kitchen robot0").ok
    assert w.apply("operate dishwasher0 kitchen kitchen robot0").ok
    assert w.apply("hold_cup cup1 kitchen robot0").ok and w.active.resolved


def test_only_accepted_substitutes_can_play_a_role_in_the_true_world(planner):
    from groundplan.methods.cowp.world import trial_for

    trial = trial_for(trial_task(4).extras)
    d, p = trial.true_domain, trial.true_problem
    assert d.types.is_subtype(p.objects["dish_bowl0"], "cup") and d.types.is_subtype(p.objects["drinking_glass0"], "cup")
    assert not d.types.is_subtype(p.objects["frying_pan0"], "cup")
    kd = trial.domain  # the robot's knowledge: only categories
    assert not kd.types.is_subtype(trial.problem.objects["dish_bowl0"], "cup")
    assert kd.types.is_subtype(trial.problem.objects["dish_bowl0"], "utensil")


def test_situation_draws_depend_only_on_the_trial_the_run_seed_and_the_actions(planner):
    from groundplan.methods.cowp.world import SituationWorld, trial_for

    def met(p: float, run_seed: int = 0):
        trial = trial_for(trial_task(10, p=p, seed=3).extras)
        w = SituationWorld(trial, run_seed=run_seed)
        plan = planner.plan(trial.domain, trial.problem).plan
        for s in plan:
            w.observe(s)
            if w.active is not None:
                return w.active.situation.key, w.active.step
            w.apply(s)
        return None

    assert met(0.0) is None
    first = met(1.0)
    assert first is not None and first[1].startswith("find_")  # the first action any situation can arise at
    assert met(0.5) == met(0.5) and met(0.5, 1) == met(0.5, 1)


# --------------------------------------------------------------------------- COWP


def _scripted_cowp(answers: dict[str, str]):
    """A scripted LLM for COWP prompts: the first key found in the prompt's question decides."""
    def fn(req):
        text = req.messages[-1].content
        question = [ln for ln in text.splitlines() if "?" in ln or ln.startswith("sentence:")][-1]
        for key, answer in answers.items():
            if key in question:
                return answer
        return "no"
    return ScriptedLLM(fn)


def test_cowp_serve_water_cup_is_dirty_adds_the_precondition_and_acquires_a_bowl(planner):
    llm = _scripted_cowp({"which is the most suitable": "a dish bowl is the most suitable",
                          "finds a cup if the cup is dirty": "no, it is not suitable",
                          " if the cup is dirty": "yes",
                          "sentence:": "cup_is_dirty",
                          "dish bowl": "yes", "frying pan": "yes"})
    ep = run("cowp", trial_task(4, force=(2, "find_cup")), planner, llm)
    assert ep.success and ep.metrics["situation_met"] and ep.status == "success"
    changes = ep.metrics["knowledge_changes"]
    assert changes[0] == {"kind": "precondition", "action": "find_cup", "added": "(not (cup_is_dirty ?c))",
                          "belief": "(cup_is_dirty cup1)"}
    assert changes[1]["kind"] == "effect" and changes[1]["object"] == "dish_bowl0" and changes[1]["role"] == "cup"
    assert "(cup_is_empty dish_bowl0)" in changes[1]["facts"]
    assert ep.plan[-1] == "place_cup dish_bowl0 table0 dining robot0"
    prompts = [e["prompt"] for e in ep.trace if e["type"] == "llm_call"]
    assert prompts[0] == "is it suitable that a robot finds a cup if the cup is dirty?"
    assert any(p.endswith("is it suitable that a robot fills a dish bowl with water from faucet?\nanswer:")
               for p in prompts)


def test_cowp_with_an_unacceptable_choice_fails_in_the_true_world(planner):
    llm = _scripted_cowp({"finds a cup if the cup is dirty": "no", " if the cup is dirty": "yes",
                          "sentence:": "cup_is_dirty", "frying pan": "yes"})
    ep = run("cowp", trial_task(4, force=(2, "find_cup")), planner, llm)
    assert not ep.success and "frying_pan0" in ep.error


def test_cowp_reports_no_solution_when_nothing_can_replace_the_object(planner):
    llm = _scripted_cowp({"finds a cup if the cup is broken": "no", "sentence:": "cup_is_broken"})
    ep = run("cowp", trial_task(4, force=(0, "find_cup")), planner, llm)
    assert ep.status == "no_plan" and ep.metrics["no_solution"] and "no solution" in ep.error


def test_cowp_uses_an_appliance_the_llm_says_can_fix_the_situation(planner):
    llm = _scripted_cowp({"can a dishwasher make a cup clean": "yes", "if the cup is dirty?": "no",
                          "sentence:": "cup_is_dirty"})
    ep = run("cowp", trial_task(4, appliances=("dishwasher", "oven"), force=(2, "hold_cup")), planner, llm)
    assert ep.success and any(s.startswith("operate dishwasher0 kitchen") for s in ep.plan)
    assert any(c["kind"] == "appliance" for c in ep.metrics["knowledge_changes"])


def test_cowp_monitor_saying_yes_means_the_action_fails(planner):
    llm = _scripted_cowp({"if the": "yes"})
    ep = run("cowp", trial_task(4, force=(3, "find_cup")), planner, llm)
    assert not ep.success and ep.metrics["situation_met"] and "the cup is missing" in ep.error


# --------------------------------------------------------------------------- oracle and closed world


FORCED = [(1, 2, "grasp_vacuum"), (1, 0, "turnon_vacuum"), (4, 2, "hold_cup"), (4, 3, "find_cup"), (4, 4, "fill_cup"),
          (6, 1, "find_plate"), (9, 0, "walk_sink"), (10, 13, "grasp_coke"), (11, 1, "find_burger")]


@pytest.mark.parametrize("two", [False, True])
def test_closed_world_handles_no_situation_and_the_oracle_every_solvable_one(planner, two):
    """Solvability is the true world's (a plan exists after the situation arose); the oracle
    handles exactly the solvable ones - here some solvable by a substitute, a fixer or the
    second object, some not (power outage, no accepted object)."""
    objects = {1: ("sponge", "rag"), 4: ("mug", "frying pan"), 6: ("dish", "bucket"), 9: ("sponge",),
               10: ("juice", "wine"), 11: ("wooden chair", "steak", "couch")}
    apps = ("dishwasher", "water filter", "fridge", "oven")
    kinds = set()
    for task, sid, action in FORCED:
        t = trial_task(task, objects=objects[task], appliances=apps, two=two, force=(sid, action))
        cw = run("cowp_cw", t, planner)
        assert cw.metrics["situation_met"] and not cw.success, (task, sid)
        oracle = run("cowp_oracle", t, planner)
        assert oracle.metrics["situation_met"]
        assert oracle.success == oracle.metrics["situation_solvable"], (task, sid, action, oracle.error)
        kinds.add(oracle.success)
    assert kinds == {True, False}


def test_external_knowledge_learns_from_the_failure_and_its_half_knowledge_base(planner):
    from groundplan.methods.cowp import external_knowledge as ek

    t = trial_task(4, objects=("mug", "frying pan"), force=(3, "find_cup"))
    original = ek.covered_half
    try:
        ek.covered_half = lambda trial, seed: {"mug"}
        ep = run("cowp_ek", t, planner)
        assert ep.success and "mug0" in " ".join(ep.plan)
        ek.covered_half = lambda trial, seed: {"frying pan"}
        assert not run("cowp_ek", t, planner).success
    finally:
        ek.covered_half = original


# --------------------------------------------------------------------------- replay


def test_replay_answers_logged_prompts_and_falls_back_for_the_rest():
    from groundplan.methods.cowp.replay import (
        APPROXIMATE,
        CowpDefaultLLM,
        CowpReplayLLM,
        question_of,
        rule_predicate,
    )
    from groundplan.prompts.cowp import render

    r = CowpReplayLLM(task=4, fallback=CowpDefaultLLM())
    c = r.chat(render("monitor.txt", action="a robot finds a cup", situation="the cup is dirty"))
    assert c.usage.source == "replay" and c.text.startswith("no")
    c = r.chat(render("object_suitable.txt", sentence="a robot fills a dish bowl with water from faucet"))
    assert c.usage.source == "replay" and c.text == "yes"
    c = r.chat(render("object_choice.txt", objects="sponge, drinking glass", role="cup", task="drinking water",
                      situation="the cup is dirty"))
    assert c.finish_reason == APPROXIMATE and "drinking glass" in c.text
    c = r.chat(render("predicate.txt", situation="the cup is dirty."))
    assert c.usage.source == "model" and c.text == "cup_is_dirty"
    assert question_of("a\nis it x?\nanswer:") == "is it x?"
    assert rule_predicate("there is a power outage.") == "power_outage"
    from groundplan.llm.errors import ReplayMissError

    with pytest.raises(ReplayMissError):
        CowpReplayLLM(task=4).chat("is it suitable that a robot juggles a cup?")


def test_cowp_gpt3_replays_the_worked_example(planner):
    ep = run("cowp_gpt3", trial_task(4, force=(2, "find_cup")), planner)
    assert ep.success and "drinking_glass0" in ep.plan[-1]
    assert ep.usage.replayed_calls >= 10 and ep.metrics["llm_coverage"]["other"] <= 1


# --------------------------------------------------------------------------- LLM-planner baselines


def test_grounding_maps_words_to_the_tasks_actions():
    from groundplan.methods.cowp.grounding import Grounder
    from groundplan.methods.cowp.world import SituationWorld, trial_for

    trial = trial_for(trial_task(4, objects=("mug", "frying pan")).extras)
    w, g = SituationWorld(trial), Grounder(trial)
    assert g.ground("Walk to kitchen", w).step == "walk dining kitchen robot0"
    w.apply("walk dining kitchen robot0")
    assert g.ground("find mug", w).step == "find_cup mug0 kitchen robot0"
    assert g.ground("Step 3: turn on the faucet", w).step == "turnon_faucet faucet0 kitchen robot0"
    assert g.ground("grab frying pan", w).step is None  # not accepted as a cup
    assert g.ground("grab water bottle", w).step is None
    assert g.ground("dance", w).step is None


PROGRAM = """    walk('kitchen')
    find('cup')
    assert('cup' is 'present')
        else: find('mug')
    grab('cup')
    find('faucet')
    switch_on('faucet')
    fill('cup', 'faucet')
    switch_off('faucet')
    walk('dining')
    put('cup', 'table')
"""


def test_progprompt_program_is_parsed_and_its_assert_recovers(planner):
    from groundplan.methods.cowp.progprompt import Call, Guard, parse_program

    items = parse_program(PROGRAM)
    assert isinstance(items[2], Guard) and items[2].recovery[0].args == ["mug"]
    assert isinstance(items[0], Call) and items[0].verb == "walk"

    def fn(req):
        text = req.messages[-1].content
        if "Is the assertion true" in text:
            return "False" if "missing" in text else "True"
        return PROGRAM
    ep = run("cowp_progprompt", trial_task(4, objects=("mug",), force=(3, "find_cup")), planner, ScriptedLLM(fn))
    assert ep.success and ep.plan[-1] == "place_cup mug0 table0 dining robot0"


def test_lmzsp_runs_the_plan_open_loop_and_fails_on_a_situation(planner):
    plan = ("Step 1: Walk to kitchen\nStep 2: Find cup\nStep 3: Grab cup\nStep 4: Find faucet\nStep 5: Turn on faucet\n"
            "Step 6: Fill cup\nStep 7: Turn off faucet\nStep 8: Walk to dining room\nStep 9: Put cup on table\n")
    llm = ScriptedLLM(lambda req: plan)
    ok = run("cowp_lmzsp", trial_task(4, p=0.0), planner, llm)
    assert ok.success and len(ok.plan) == 9
    bad = run("cowp_lmzsp", trial_task(4, force=(2, "hold_cup")), planner, llm)
    assert not bad.success and bad.metrics["situation_met"]


def test_inner_monologue_reacts_to_the_scene_description(planner):
    seq = iter(["walk to kitchen", "find cup", "find mug", "grab mug", "find faucet", "turn on faucet",
                "fill mug", "turn off faucet", "walk to dining", "put mug on table", "done"])
    ep = run("cowp_im", trial_task(4, objects=("mug",), force=(3, "find_cup")), planner,
             ScriptedLLM(lambda req: next(seq)))
    assert ep.success and ep.metrics["situation_met"]
    prompts = [e["prompt"] for e in ep.trace if e["type"] == "llm_call"]
    assert "Scene: the cup is missing." in prompts[2]


def test_knowledge_runs_augmented_actions_as_their_base_action():
    from groundplan.methods.cowp.knowledge import Knowledge
    from groundplan.methods.cowp.world import trial_for

    k = Knowledge.from_trial(trial_for(trial_task(4).extras))
    k = k.with_object("water_sit", "water")
    k2, pred = k.with_precondition("fill_cup cup1 faucet0 kitchen robot0", "water_is_dirty", "water_sit")
    act = k2.domain.action_map["fill_cup"]
    assert act.parameters[-1].type == "water" and "(not (water_is_dirty ?sit0))" in act.precondition.pddl()
    assert k2.to_base("fill_cup cup1 faucet0 kitchen robot0 water_sit") == "fill_cup cup1 faucet0 kitchen robot0"
    k3 = k2.with_fixer("oven0", pred, "water_sit")
    assert k3.to_base("operate_water_is_dirty oven0 kitchen kitchen robot0 water_sit") == \
        "operate oven0 kitchen kitchen robot0"


def test_bench_run_records_situation_metrics(tmp_path, planner):
    from groundplan.bench.executors import make_executor
    from groundplan.bench.runner import RunSpec, run_benchmark
    from groundplan.bench.store import ResultStore

    ids = ("task4:000", "task4:001", "task10:000")
    with ResultStore(tmp_path / "r.sqlite") as store:
        s = run_benchmark(RunSpec("cowp", "cowp_cw", task_ids=ids), store, make_executor("local", workers=1))
        rows = list(store.episodes([s.run_id]))
    assert s.total == 3 and len(rows) == 3
    assert all("situation_met" in r.metrics for r in rows)
    assert s.metrics["situation_handling"] in (None, 0.0)


@pytest.mark.embedded
def test_cowp_runs_on_the_embedded_model(planner):
    from groundplan.llm import LLMConfig, build_llm

    llm = build_llm(LLMConfig(cache=False))
    ep = run("cowp", trial_task(4, objects=("mug",), appliances=("oven",), force=(2, "find_cup")), planner, llm)
    assert ep.status in ("success", "failure", "no_plan") and ep.usage.model_calls >= 1
    assert ep.metrics["situation_met"]


def test_task_row_replace_keeps_extras():
    t = trial_task(4)
    assert replace(t, id="x").extras == t.extras
