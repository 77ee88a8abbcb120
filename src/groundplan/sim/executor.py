"""The symbolic executor: applies ground actions by interpreting the skill set's action
schemas (one executor for every skill set). A failed action reports, in words, which
precondition failed and where the objects involved are - the feedback BrainBody-LLM,
Wake et al. and COWP consume."""

from __future__ import annotations

import contextlib
import contextvars
import itertools
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Mapping, Optional, Sequence

from groundplan.pddl.formula import (
    And,
    Atom,
    Exists,
    Forall,
    ForallEffect,
    Formula,
    Imply,
    Increase,
    Literal,
    Not,
    Or,
    When,
    substitute,
)
from groundplan.pddl.model import Domain, Problem
from groundplan.pddl.state import Evaluator, GoalReport, evaluate_goal
from groundplan.planners.pruning import register_plan_check

DEFAULT_PHRASES: Mapping[str, str] = {
    "on": "{0} is on {1}", "in": "{0} is in {1}", "at": "{0} is at {1}", "inhand": "{0} is in the hand of {1}",
    "liquid_in": "{0} is in {1}", "closed": "{0} is closed", "opened": "{0} is open",
    "hand_occupied": "the hand of {0} is occupied", "free": "nothing stands on {0}",
    "reachable": "{0} is reachable from {1} for {2}", "indirect_on": "{0} stands on {1}",
    "wet": "{0} is wet", "clean": "{0} is clean", "chopped": "{0} is chopped", "visited": "{0} was visited",
    "=": "{0} is {1}",
}
LOCATING = ("at", "on", "in", "inhand", "liquid_in")


@dataclass(frozen=True)
class StepResult:
    step: str
    ok: bool
    reason: str = ""
    added: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    cost: float = 0.0


@dataclass(frozen=True)
class ExecutionTrace:
    steps: tuple[StepResult, ...]
    final_facts: frozenset[Atom]
    cost: float
    planned: int

    @property
    def executed(self) -> int:
        return sum(1 for s in self.steps if s.ok)

    @property
    def failed(self) -> StepResult | None:
        return next((s for s in self.steps if not s.ok), None)

    @property
    def executability(self) -> float:
        return self.executed / self.planned if self.planned else 1.0


def _phrase(a: Atom, phrases: Mapping[str, str], positive: bool = True) -> str:
    tmpl = phrases.get(a.predicate)
    text = tmpl.format(*a.args) if tmpl and tmpl.count("{") <= len(a.args) else a.pddl()
    if positive:
        return text
    if tmpl:
        for verb in (" is ", " was "):
            if verb in text:
                return text.replace(verb, verb.rstrip() + " not ", 1)
    return f"not {text}"


class _Arg(str):
    """An action argument in a check's message template: ``{x}`` is the name, ``{x.cls}``
    its type (the object's class), ``{x.idx}`` the number the name ends with."""

    def __new__(cls, name: str, type_: str):
        obj = super().__new__(cls, name)
        obj.cls = type_
        digits = len(name) - len(name.rstrip("0123456789"))
        obj.idx = name[len(name) - digits:] if digits else name
        return obj


#: a check every executed step passes first, set for one episode (one thread) by
#: ``step_guard``: ``guard(executor, step_text) -> reason or None``; a reason refuses the step
#: (it is not applied; the step fails with that reason, which feedback-driven methods see)
_STEP_GUARD: contextvars.ContextVar[Optional[Callable[["Executor", str], Optional[str]]]] = contextvars.ContextVar(
    "groundplan_step_guard", default=None)


@contextlib.contextmanager
def step_guard(guard: Optional[Callable[["Executor", str], Optional[str]]]) -> Iterator[None]:
    """Every step an ``Executor`` applies inside this block (this thread) is first put to
    ``guard``; the method template installs the safety check this way, so that a method that
    executes step by step itself is checked too. ``None``: no guard."""
    token = _STEP_GUARD.set(guard)
    try:
        yield
    finally:
        _STEP_GUARD.reset(token)


class Executor:
    """Holds the current state and applies steps. ``step`` is ``"name arg1 arg2"``."""

    def __init__(self, domain: Domain, problem: Problem, facts: Iterable[Atom] | None = None,
                 phrases: Mapping[str, str] | None = None):
        self.domain = domain
        self.problem = problem
        self.facts: frozenset[Atom] = frozenset(problem.init if facts is None else facts)
        self.numeric = dict(problem.numeric_init)
        self.phrases = {**DEFAULT_PHRASES, **(phrases or {})}
        self.cost = 0.0

    # -- parsing a step
    def _parse(self, step: str | Sequence[str]) -> tuple[str, tuple[str, ...]]:
        toks = step.replace("(", " ").replace(")", " ").split() if isinstance(step, str) else list(step)
        if not toks:
            return "", ()
        return toks[0].lower(), tuple(t.lower() for t in toks[1:])

    def check(self, step: str | Sequence[str]) -> StepResult:
        return self._run(step, apply=False)

    def apply(self, step: str | Sequence[str]) -> StepResult:
        return self._run(step, apply=True)

    def _run(self, step, apply: bool) -> StepResult:
        name, args = self._parse(step)
        text = " ".join((name, *args))
        act = self.domain.action_map.get(name)
        if act is None:
            return StepResult(text, False, f"unknown action '{name}' (the skill set has: "
                                           f"{', '.join(a.name for a in self.domain.actions)})")
        if len(args) != len(act.parameters):
            sig = " ".join(p.name for p in act.parameters)
            return StepResult(text, False, f"{name} takes {len(act.parameters)} arguments ({sig}), got {len(args)}")
        for arg, p in zip(args, act.parameters):
            t = self.problem.type_of(self.domain, arg)
            if t is None:
                return StepResult(text, False, f"cannot {name}: there is no object '{arg}' in the scene")
            if not self.domain.types.is_subtype(t, p.type):
                return StepResult(text, False, f"cannot {name}: {arg} is a {t}, not a {p.type} "
                                               f"(parameter {p.name})")
        binding = dict(zip((p.name for p in act.parameters), args))
        ev = Evaluator(self.domain, self.problem, self.facts)
        pre = substitute(act.precondition, binding)
        if not ev.holds(pre):
            msg = self._check_message(act, args, binding, ev) if act.checks else None
            return StepResult(text, False, msg or self._explain(name, args, pre, ev))
        guard = _STEP_GUARD.get() if apply else None
        if guard is not None:
            why = guard(self, text)
            if why:
                return StepResult(text, False, why)
        adds: set[Atom] = set()
        dels: set[Atom] = set()
        cost = 0.0
        for eff in act.effects:
            cost += self._effect(eff, binding, ev, adds, dels)
        if apply:
            self.facts = frozenset((self.facts - dels) | adds)
            self.cost += cost
        changed_add = tuple(sorted(a.pddl() for a in adds - ev.facts))
        changed_del = tuple(sorted(a.pddl() for a in (dels - adds) & ev.facts))
        return StepResult(text, True, "", changed_add, changed_del, cost)

    def _effect(self, eff, binding, ev: Evaluator, adds: set, dels: set) -> float:
        if isinstance(eff, Literal):
            a = eff.atom.substitute(binding)
            (adds if eff.positive else dels).add(a)
            return 0.0
        if isinstance(eff, Increase):
            if eff.function.predicate != "total-cost":
                return 0.0
            if isinstance(eff.value, Atom):
                return float(self.numeric.get(eff.value.substitute(binding), 0.0))
            return float(eff.value)
        if isinstance(eff, When):
            if ev.holds(substitute(eff.condition, binding)):
                return sum(self._effect(e, binding, ev, adds, dels) for e in eff.effects)
            return 0.0
        if isinstance(eff, ForallEffect):
            total = 0.0
            for combo in itertools.product(*[ev.objects_of_type(v.type) for v in eff.vars]):
                b = {**binding, **{v.name: o for v, o in zip(eff.vars, combo)}}
                total += sum(self._effect(e, b, ev, adds, dels) for e in eff.effects)
            return total
        return 0.0

    # -- explanation of a failed precondition
    def _check_message(self, act, args: tuple[str, ...], binding: Mapping[str, str], ev: Evaluator) -> str | None:
        """The message of the action's first failing check (optional skill-set data)."""
        for cond, template in act.checks:
            if not ev.holds(substitute(cond, binding)):
                fields = {p.name.lstrip("?"): _Arg(a, self.problem.type_of(self.domain, a) or "object")
                          for p, a in zip(act.parameters, args)}
                try:
                    return template.format(**fields)
                except (KeyError, IndexError, AttributeError, ValueError):
                    return template
        return None


    def _failed_literals(self, f: Formula, ev: Evaluator) -> list[tuple[Atom, bool]]:
        if isinstance(f, Atom):
            return [] if ev.holds(f) else [(f, True)]
        if isinstance(f, Not) and isinstance(f.arg, Atom):
            return [] if ev.holds(f) else [(f.arg, False)]
        if isinstance(f, And):
            out = []
            for x in f.args:
                out.extend(self._failed_literals(x, ev))
            return out
        if isinstance(f, Or):
            options = [self._failed_literals(x, ev) for x in f.args]
            return min(options, key=len) if options else []
        if isinstance(f, Not):
            return [] if ev.holds(f) else [(Atom("not", ()), True)]
        if isinstance(f, Imply):
            return self._failed_literals(Or((Not(f.left), f.right)), ev)
        return [] if ev.holds(f) else [(Atom(f.pddl(), ()), True)]

    def _explain(self, name: str, args: tuple[str, ...], pre: Formula, ev: Evaluator) -> str:
        failed = self._failed_literals(pre, ev)
        needs = [_phrase(a, self.phrases, positive) for a, positive in failed] or ["its precondition does not hold"]
        involved: list[str] = []
        for a, _ in failed:
            for o in a.args:
                if o not in involved:
                    involved.append(o)
        context = []
        for o in involved:
            for f in sorted(self.facts, key=lambda x: (x.predicate, x.args)):
                if f.predicate in LOCATING and f.args and f.args[0] == o:
                    context.append(_phrase(f, self.phrases))
        msg = f"cannot {name} {' '.join(args)}: needs " + " and ".join(dict.fromkeys(needs))
        if context:
            msg += "; but " + ", ".join(dict.fromkeys(context))
        return msg

    def goal_report(self, goal: Formula) -> GoalReport:
        return evaluate_goal(goal, self.domain, self.problem, self.facts)


def execute_plan(domain: Domain, problem: Problem, plan: Sequence[str], *, stop_on_failure: bool = True,
                 phrases: Mapping[str, str] | None = None) -> ExecutionTrace:
    ex = Executor(domain, problem, phrases=phrases)
    results = []
    for step in plan:
        r = ex.apply(step)
        results.append(r)
        if not r.ok and stop_on_failure:
            break
    return ExecutionTrace(tuple(results), ex.facts, ex.cost, len(plan))


def check_plan(domain: Domain, problem: Problem, plan: Sequence[str]) -> str | None:
    """None when ``plan`` executes in ``problem`` and reaches its goal, else why not (the
    check a planner that plans in a reduced task applies in the full one)."""
    trace = execute_plan(domain, problem, plan)
    if trace.failed is not None:
        return f"step {trace.failed.step!r}: {trace.failed.reason}"
    if problem.goal is not None and not evaluate_goal(problem.goal, domain, problem, trace.final_facts).success:
        return "the goal does not hold after the plan"
    return None


register_plan_check(check_plan)

__all__ = ["Executor", "step_guard", "ExecutionTrace", "StepResult", "check_plan", "execute_plan", "Exists", "Forall"]
