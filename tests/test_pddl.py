import pytest

from groundplan.errors import GoalError, GoalErrorKind
from groundplan.pddl import And, Atom, Not, Or, check_goal, extract_goal_text, parse_goal, to_dnf
from groundplan.pddl.parser import parse_domain, parse_problem
from groundplan.pddl.semantics import check_semantics
from groundplan.pddl.writer import write_domain, write_problem


def test_parse_autogpt_p_form_and_standard_form_agree():
    a = parse_goal("and (and (or (inhand  coke0 robot0)))")
    b = parse_goal("(:goal (and (and (or (inhand coke0 robot0)))))")
    assert a == b
    assert isinstance(a, And)
    assert parse_goal("or (inhand a0 human0) (inhand b0 human0)") == Or(
        (Atom("inhand", ("a0", "human0")), Atom("inhand", ("b0", "human0"))))


def test_extract_goal_from_free_text():
    ans = "Step 1 ... Therefore:\n(:goal (and (inhand apple0 human0)))\nDone."
    assert extract_goal_text(ans) == "(:goal (and (inhand apple0 human0)))"
    assert parse_goal(extract_goal_text(ans)) == And((Atom("inhand", ("apple0", "human0")),))


@pytest.mark.parametrize("text,kind,needle", [
    ("and (inhand apple0 human0", GoalErrorKind.PARENTHESES, "unbalanced"),
    ("and (inhand apple0 human0))", GoalErrorKind.PARENTHESES, "unbalanced"),
    ("and (holding apple0 human0)", GoalErrorKind.UNKNOWN_PREDICATE, "holding"),
    ("and (inhand pear0 human0)", GoalErrorKind.UNKNOWN_OBJECT, "pear0"),
    ("and (inhand counter0 human0)", GoalErrorKind.WRONG_TYPE, "counter0"),
    ("and (inhand apple0)", GoalErrorKind.WRONG_ARITY, "inhand"),
    ("and (inhand ?x human0)", GoalErrorKind.VARIABLE, "?x"),
])
def test_goal_errors_name_the_fault(kitchen_task, text, kind, needle):
    with pytest.raises(GoalError) as ei:
        check_goal(parse_goal(text), kitchen_task.domain, kitchen_task.problem)
    assert ei.value.kind == kind
    assert needle in str(ei.value)
    assert "\n" not in str(ei.value)
    assert ei.value.feedback


def test_quantified_goal_checks_and_expands(kitchen_task):
    g = parse_goal("(exists (?x - consumable) (inhand ?x human0))")
    check_goal(g, kitchen_task.domain, kitchen_task.problem)
    dnf = to_dnf(g, objects_of_type=lambda t: kitchen_task.problem.objects_of_type(kitchen_task.domain, t))
    assert {c[0].atom.args[0] for c in dnf} >= {"apple0", "banana0", "salmon0"}


def test_dnf_distributes_and_negates():
    g = parse_goal("and (or (p a) (p b)) (not (or (q a) (q b)))")
    dnf = to_dnf(g)
    assert len(dnf) == 2
    for conj in dnf:
        assert sum(1 for lit in conj if not lit.positive) == 2


def test_dnf_cap():
    g = parse_goal("and " + " ".join(f"(or (p a{i}) (p b{i}))" for i in range(20)))
    with pytest.raises(GoalError) as ei:
        to_dnf(g, max_disjuncts=1000)
    assert ei.value.kind == GoalErrorKind.TOO_LARGE


def test_semantic_conditions_pick_best_disjunct(kitchen_task):
    conds = kitchen_task.skillset.semantic_conditions
    bad = parse_goal("and (inhand apple0 human0) (on apple0 table0)")
    with pytest.raises(GoalError) as ei:
        check_semantics(bad, kitchen_task.domain, kitchen_task.problem, conds)
    assert ei.value.kind == GoalErrorKind.SEMANTIC
    assert "in the hand" in ei.value.feedback
    # a disjunction with one consistent disjunct passes (Alg. 4)
    ok = parse_goal("or (and (inhand apple0 human0) (on apple0 table0)) (inhand apple0 human0)")
    check_semantics(ok, kitchen_task.domain, kitchen_task.problem, conds)
    with pytest.raises(GoalError):
        check_semantics(parse_goal("and (opened fridge0) (closed fridge0)"), kitchen_task.domain,
                        kitchen_task.problem, conds)


def test_domain_problem_round_trip(kitchen_task):
    dtext = write_domain(kitchen_task.domain)
    d2 = parse_domain(dtext)
    assert [a.name for a in d2.actions] == [a.name for a in kitchen_task.domain.actions]
    assert d2.types.is_subtype("apple", "carry")
    p = kitchen_task.problem.with_goal(parse_goal("and (inhand apple0 human0)"))
    p2 = parse_problem(write_problem(p))
    assert p2.init == p.init and p2.goal == p.goal and dict(p2.objects) == dict(p.objects)


def test_not_formula_repr():
    assert Not(Atom("p", ("a",))).pddl() == "(not (p a))"


def test_goal_wrapper_with_autogpt_p_form():
    assert parse_goal("(:goal and(inhand apple0 human0))") == And((Atom("inhand", ("apple0", "human0")),))
