"""pyperplan: a pure-Python fallback for STRIPS tasks (no derived predicates, no
disjunctions, no action costs)."""

from __future__ import annotations

import contextlib
import io
import logging
import tempfile
import time
from pathlib import Path

from groundplan.pddl.formula import And, Atom, Literal
from groundplan.pddl.model import Domain, Problem
from groundplan.pddl.writer import write_domain, write_problem
from groundplan.planners.base import PlanResult, PlanStatus, register


def _is_strips_formula(f) -> bool:
    if isinstance(f, Atom):
        return f.predicate != "="
    if isinstance(f, And):
        return all(_is_strips_formula(a) for a in f.args)
    return False


def is_strips(domain: Domain, problem: Problem) -> str | None:
    """None when the task is plain STRIPS, else the reason it is not."""
    if domain.derived:
        return "the domain has derived predicates"
    for a in domain.actions:
        if not _is_strips_formula(a.precondition):
            return f"action {a.name} has a non-STRIPS precondition"
        for e in a.effects:
            if not isinstance(e, Literal) and type(e).__name__ != "Increase":
                return f"action {a.name} has conditional or quantified effects"
    if problem.goal is not None and not _is_strips_formula(problem.goal):
        return "the goal is not a conjunction of atoms"
    return None


@register("pyperplan")
class PyperplanPlanner:
    name = "pyperplan"

    def __init__(self, search: str = "astar", heuristic: str = "hff"):
        self.search = search
        self.heuristic = heuristic

    def plan(self, domain: Domain, problem: Problem, *, timeout: float | None = None) -> PlanResult:
        t0 = time.perf_counter()
        why = is_strips(domain, problem)
        if why:
            return PlanResult(PlanStatus.INVALID, error=f"pyperplan needs a STRIPS task: {why}")
        from pyperplan import planner as pp

        strip_cost = Domain(domain.name, domain.types, domain.predicates,
                            tuple(type(a)(a.name, a.parameters, a.precondition,
                                          tuple(e for e in a.effects if isinstance(e, Literal)))
                                  for a in domain.actions),
                            (), domain.constants, (), tuple(r for r in domain.requirements if r in (":strips", ":typing")))
        prob = Problem(problem.name, problem.domain_name, problem.objects, problem.init, problem.goal, {}, None)
        log = io.StringIO()
        with tempfile.TemporaryDirectory(prefix="gp-pp-") as tmp:
            dfile, pfile = Path(tmp, "domain.pddl"), Path(tmp, "problem.pddl")
            dfile.write_text(write_domain(strip_cost, comments=False))
            pfile.write_text(write_problem(prob))
            logging.disable(logging.INFO)
            try:
                with contextlib.redirect_stdout(log):
                    sol = pp.search_plan(str(dfile), str(pfile), pp.SEARCHES[self.search],
                                         pp.HEURISTICS[self.heuristic])
            except Exception as exc:  # noqa: BLE001 - pyperplan reports parse errors as exceptions
                return PlanResult(PlanStatus.ERROR, seconds=time.perf_counter() - t0, error=f"pyperplan: {exc}")
            finally:
                logging.disable(logging.NOTSET)
        if sol is None:
            return PlanResult(PlanStatus.UNSOLVABLE, seconds=time.perf_counter() - t0, log=log.getvalue())
        steps = tuple(op.name.strip("()") for op in sol)
        return PlanResult(PlanStatus.SOLVED, steps, float(len(steps)), time.perf_counter() - t0, log.getvalue())
