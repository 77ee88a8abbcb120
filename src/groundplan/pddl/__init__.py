"""PDDL layer: formulas, domain/problem model, parse/write, goal checks, DNF, semantics, evaluation."""

from groundplan.pddl.formula import And, Atom, Exists, Forall, Formula, Imply, Literal, Not, Or, TypedVar
from groundplan.pddl.goal import GoalLimits, check_goal, extract_goal_text, parse_goal, to_dnf
from groundplan.pddl.model import Action, DerivedPredicate, Domain, Predicate, Problem, TypeHierarchy
from groundplan.pddl.state import Evaluator, GoalReport, evaluate_goal
from groundplan.pddl.writer import write_domain, write_problem

__all__ = [
    "And", "Atom", "Exists", "Forall", "Formula", "Imply", "Literal", "Not", "Or", "TypedVar",
    "GoalLimits", "check_goal", "extract_goal_text", "parse_goal", "to_dnf",
    "Action", "DerivedPredicate", "Domain", "Predicate", "Problem", "TypeHierarchy",
    "Evaluator", "GoalReport", "evaluate_goal", "write_domain", "write_problem",
]
