"""Planning on a VirtualHome home graph (300-450 nodes) is fast: the planner on the gold goal
of a ProgPrompt task plans, and the plan executes, within a bound that the unpruned task (a
translator that never finished in 300 s, a search stuck building its FF heuristic) missed.
The parts: goal-relevant objects for VirtualHome (rooms, containers, a knife), a plan from
the reduced task re-checked in the full one, identical actions grounded once, a disjunctive
precondition factored, and negated axioms approximated by the heuristic when exact negation
would be exponential."""

from __future__ import annotations

import time

import pytest

from groundplan.datadir import data_dir
from groundplan.pddl.formula import And, Atom, Not, Or
from groundplan.pddl.goal import parse_goal
from groundplan.planners.base import PlanResult, PlanStatus
from groundplan.planners.fast_downward import (
    axiom_negation_log10,
    factor_common_disjuncts,
    with_negated_axioms_approximated,
)
from groundplan.planners.pruning import PruningPlanner, relevant_objects

_VH = (data_dir(required=False) / "progprompt-vh").is_dir()
needs_vh = pytest.mark.skipif(not _VH, reason="needs ../shared/data/progprompt-vh")


def _unseen_task(i: int):
    from groundplan.bench.adapters import ROWS, cell
    from groundplan.bench.datasets import load_tasks
    from groundplan.sim.pipeline import build

    task = load_tasks("progprompt-test_unseen")[i]
    row = next(r for r in ROWS if r.label == "planner on the gold goal (oracle)")
    task = cell(row, "progprompt-test_unseen", task).prepare(task)
    return task, build(task.scene_file, skillset=task.skillset, oam_file=task.oam_file, strict=False)


@needs_vh
def test_gold_goal_on_a_virtualhome_home_plans_within_bound():
    """'throw away the apple' (test_unseen:3): 444 nodes. Before: translation > 300 s."""
    from groundplan.planners import get_planner
    from groundplan.sim.pipeline import plan_and_check

    task, pt = _unseen_task(3)
    assert len(pt.problem.objects) > 400
    planner = get_planner()
    t0 = time.perf_counter()
    out = plan_and_check(pt, task.goal, planner, typecheck=False, timeout=60)
    assert out.status == "solved" and out.goal_reached, (out.status, out.error)
    assert time.perf_counter() - t0 < 45  # ~2 s alone; generous for a loaded machine
    assert planner.last_report.kept < 40 and not planner.last_report.widened


@needs_vh
def test_virtualhome_relevance_keeps_rooms_and_what_goal_objects_are_in():
    task, pt = _unseen_task(3)
    problem = pt.problem.with_goal(parse_goal(task.goal))
    keep = relevant_objects(pt.domain, problem)
    rooms = set(problem.objects_of_type(pt.domain, "vh_room"))
    assert rooms and rooms <= keep  # a node's room is a quantified condition of WALK
    for obj in ("apple_437", "apple_438", "garbagecan_229", "character_1"):
        assert obj in keep
    # the apples' support is kept (upward closure), and what sits inside a room is not
    holders = {f.args[1] for f in problem.init if f.predicate in ("on", "inside") and f.args[0] == "apple_437"}
    assert holders <= keep
    assert len(keep) < 40


class _FakeInner:
    name = "fake"

    def __init__(self):
        self.sizes: list[int] = []

    def plan(self, domain, problem, *, timeout=None):
        self.sizes.append(len(problem.objects))
        return PlanResult(PlanStatus.SOLVED, (f"step{len(problem.objects)}",), 1.0)


def test_pruned_plan_rejected_in_the_full_task_widens():
    """A plan of the reduced task that fails in the full task is not returned: the full task
    is planned instead (the check here rejects any plan made without every object)."""
    from groundplan.knowledge.oam import default_oam
    from groundplan.skills.builder import build_task
    from groundplan.skills.skillset import load_skillset
    from groundplan.world.generate import household_scene

    pt = build_task(load_skillset("household"), household_scene(60, seed=1), default_oam(), strict=False)
    n = len(pt.problem.objects)
    problem = pt.problem.with_goal(parse_goal("(opened refrigerator0)") if "refrigerator0" in pt.problem.objects
                                   else parse_goal(f"(clean {next(iter(pt.problem.objects))})"))

    def check(domain, prob, plan):
        return None if plan == (f"step{n}",) else "fails in the full task"

    inner = _FakeInner()
    res = PruningPlanner(inner, 40, check=check).plan(pt.domain, problem, timeout=10)
    assert inner.sizes[0] < n and inner.sizes[-1] == n
    assert res.plan == (f"step{n}",) and res.timings.get("widened") == 1.0
    inner = _FakeInner()
    res = PruningPlanner(inner, 40, check=lambda d, p, plan: None).plan(pt.domain, problem, timeout=10)
    assert len(inner.sizes) == 1 and res.plan != (f"step{n}",)


def test_common_disjunct_factored():
    n, x, y, z, w = (Atom(s) for s in ("n", "x", "y", "z", "w"))
    f = And((Or((n, x)), Or((n, y)), w, Or((n, And((z, Not(w)))))))
    g = factor_common_disjuncts(f)
    assert g == And((w, Or((n, And((x, y, And((z, Not(w)))))))))
    # the same truth table
    import itertools

    def ev(formula, val):
        if isinstance(formula, Atom):
            return val[formula.predicate]
        if isinstance(formula, Not):
            return not ev(formula.arg, val)
        if isinstance(formula, And):
            return all(ev(a, val) for a in formula.args)
        return any(ev(a, val) for a in formula.args)

    for bits in itertools.product((False, True), repeat=5):
        val = dict(zip("nxyzw", bits))
        assert ev(f, val) == ev(g, val)
    assert factor_common_disjuncts(And((Or((x, y)), Or((z, w))))) == And((Or((x, y)), Or((z, w))))


def test_negated_axioms_approximated_only_when_exponential():
    assert with_negated_axioms_approximated("astar(ff())") == "astar(ff(axioms=approximate_negative))"
    assert (with_negated_axioms_approximated("lazy_greedy([ff()], preferred=[ff()])")
            == "lazy_greedy([ff(axioms=approximate_negative)], preferred=[ff(axioms=approximate_negative)])")
    assert with_negated_axioms_approximated("astar(hmax(cost_type=one))") == \
        "astar(hmax(axioms=approximate_negative, cost_type=one))"
    rule = "begin_rule\n2\n1 0\n2 0\n0 1 0\nend_rule"
    small = "\n".join([rule] * 3)  # 2^3
    big = "\n".join([rule] * 40)  # 2^40
    assert axiom_negation_log10(small) == pytest.approx(3 * 0.30103, rel=1e-3)
    assert axiom_negation_log10(big) > 8.0
