import pytest

from groundplan.pddl import evaluate_goal, parse_goal
from groundplan.planners import PlanStatus, get_planner
from groundplan.sim import Executor, execute_plan
from groundplan.sim.pipeline import plan_and_check


@pytest.mark.parametrize("goal,cost", [
    ("and (inhand apple0 human0)", 3),
    ("and (in salmon0 fridge0)", 0),
    ("and (inhand coke0 human0)", 5),
    ("or (inhand coke0 human0) (inhand apple0 human0)", 3),
    ("and (not (on apple0 counter0))", 1),
    ("and (in apple0 trash_can0) (inhand sponge0 human0)", 7),
])
def test_fast_downward_plans_and_executor_confirms(kitchen_task, planner, goal, cost):
    out = plan_and_check(kitchen_task, goal, planner)
    assert out.status == "solved", out.error
    assert out.goal_reached is True
    assert out.cost == cost


def test_cached_translation_matches_plain_translation(kitchen_task, planner):
    plain = get_planner("fast-downward", translate_cache=False)
    for g in ["and (inhand coke0 human0)", "or (inhand coke0 human0) (inhand banana0 human0)",
              "and (liquid_in water0 cup0)", "and (not (closed fridge0))"]:
        goal = parse_goal(g)
        a = planner.plan(kitchen_task.domain, kitchen_task.problem.with_goal(goal))
        b = plain.plan(kitchen_task.domain, kitchen_task.problem.with_goal(goal))
        assert a.status == b.status == PlanStatus.SOLVED
        assert a.cost == b.cost


def test_greedy_fallback_when_the_primary_search_runs_out_of_time(kitchen_task):
    # The primary search gets a share of the budget far too small to start; the greedy
    # fallback then plans within what is left, and says so in the log.
    planner = get_planner("fast-downward", primary_share=1e-6)
    out = planner.plan(kitchen_task.domain, kitchen_task.problem.with_goal(parse_goal("and (inhand coke0 human0)")),
                       timeout=30)
    assert out.status == PlanStatus.SOLVED and out.timings.get("fallback_used") == 1.0
    assert "lazy_greedy" in out.log
    off = get_planner("fast-downward", primary_share=1e-6, fallback_search=None)
    assert off.plan(kitchen_task.domain, kitchen_task.problem.with_goal(parse_goal("and (inhand coke0 human0)")),
                    timeout=30).status == PlanStatus.SOLVED  # no share applies without a fallback


def test_unsolvable_goal_is_reported(kitchen_task, planner):
    out = plan_and_check(kitchen_task, "and (chopped apple0)", planner)  # no cutting tool in the scene
    assert out.status == "unsolvable"


def test_derived_goal_falls_back_to_full_translation(kitchen_task, planner):
    out = plan_and_check(kitchen_task, "and (free table0)", planner)
    assert out.status == "solved" and out.goal_reached


def test_executor_failure_reasons(kitchen_task):
    ex = Executor(kitchen_task.domain, kitchen_task.problem)
    r = ex.apply("grasp banana0 table0 table0 robot0")
    assert not r.ok and "banana0" in r.reason and "robot0 is at counter0" in r.reason
    r = ex.apply("take_out coke0 fridge0 fridge0 robot0")
    assert not r.ok and "fridge0 is not closed" in r.reason
    assert not ex.apply("teleport robot0").ok
    assert "no object 'pear0'" in ex.apply("grasp pear0 counter0 counter0 robot0").reason
    assert ex.apply("grasp apple0 counter0 counter0 robot0").ok


def test_gcr_and_executability(kitchen_task):
    tr = execute_plan(kitchen_task.domain, kitchen_task.problem,
                      ["grasp apple0 counter0 counter0 robot0", "move counter0 human0 robot0",
                       "handover human0 apple0 robot0", "grasp sponge0 counter0 counter0 robot0"])
    assert tr.executed == 3 and tr.executability == 0.75
    rep = evaluate_goal(parse_goal("and (inhand apple0 human0) (inhand sponge0 human0)"),
                        kitchen_task.domain, kitchen_task.problem, tr.final_facts)
    assert rep.gcr == 0.5 and not rep.success


def test_pyperplan_on_strips(tmp_path):
    from groundplan.pddl.parser import parse_domain, parse_problem

    d = parse_domain("""(define (domain g) (:requirements :strips :typing) (:types box room)
      (:predicates (at ?b - box ?r - room) (adj ?a - room ?b - room))
      (:action push :parameters (?b - box ?x - room ?y - room)
        :precondition (and (at ?b ?x) (adj ?x ?y)) :effect (and (at ?b ?y) (not (at ?b ?x)))))""")
    p = parse_problem("""(define (problem q) (:domain g) (:objects b - box r1 r2 r3 - room)
      (:init (at b r1) (adj r1 r2) (adj r2 r3)) (:goal (and (at b r3))))""")
    res = get_planner("pyperplan").plan(d, p)
    assert res.status == PlanStatus.SOLVED and res.plan == ("push b r1 r2", "push b r2 r3")
    fd = get_planner("fast-downward").plan(d, p)
    assert fd.plan == res.plan


def test_pruning_keeps_every_object_a_quantified_goal_ranges_over():
    """A forall over a pruned problem would hold vacuously: all objects of its type stay."""
    from groundplan.knowledge.oam import default_oam
    from groundplan.planners.pruning import relevant_objects
    from groundplan.skills.builder import build_task
    from groundplan.skills.skillset import load_skillset
    from groundplan.world.generate import household_scene

    pt = build_task(load_skillset("household"), household_scene(60, seed=1), default_oam(), strict=False)
    assert len(pt.problem.objects) > 40  # above the pruning threshold
    goal = parse_goal("(forall (?x - apple) (on ?x table0))")
    keep = relevant_objects(pt.domain, pt.problem.with_goal(goal))
    apples = set(pt.problem.objects_of_type(pt.domain, "apple"))
    assert len(apples) == 8 and apples <= keep
    # end to end: (forall (?x - refrigerator) (opened ?x)) does not hold initially; the plan opens it
    goal = parse_goal("(forall (?x - refrigerator) (opened ?x))")
    assert not evaluate_goal(goal, pt.domain, pt.problem, pt.problem.init).success
    res = get_planner("fast-downward").plan(pt.domain, pt.problem.with_goal(goal), timeout=60)
    assert res.solved and res.plan, res
    final = execute_plan(pt.domain, pt.problem, res.plan)
    assert final.failed is None and evaluate_goal(goal, pt.domain, pt.problem, final.final_facts).success
