"""Fast Downward, the real one from the up-fast-downward wheel.

The translator runs in a forked child of this process (no fresh interpreter per plan; held
to the call's time and memory bounds), and its output is cached per (domain, initial
state): the task is translated once with an anchor goal and all variables kept, and each
new goal is written straight into the SAS task - a goal section for a plain conjunction,
or a goal axiom for disjunctions and negations. The
search binary (``downward``, ``astar(ff())`` by default as in AutoGPT+P) then runs on it.
``translate_cache=False`` gives the plain translate-then-search pipeline."""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import math
import os
import re
import resource
import subprocess
import tempfile
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path

from groundplan.errors import GoalError, PlannerError
from groundplan.pddl.formula import TRUE, And, Atom, Literal, Or, TypedVar
from groundplan.pddl.goal import to_dnf
from groundplan.pddl.model import Action, Domain, Predicate, Problem
from groundplan.pddl.state import Evaluator
from groundplan.pddl.writer import write_domain, write_problem
from groundplan.planners.base import PlannerLimits, PlanResult, PlanStatus, packaged_binary, register
from groundplan.planners.h2 import h2_preprocess

ANCHOR = "groundplan-anchor"
#: Fast Downward's ``lama-first`` configuration (the driver's alias, written out for the search
#: binary): greedy search with FF and landmarks, unit costs, preferred operators. The fallback
#: search for IPC tasks (``groundplan plan --domain --problem``), where plain greedy FF stalls.
LAMA_FIRST = ("let(hlm, eval_modify_costs(landmark_sum(lm_factory=lm_reasonable_orders_hps(lm_rhw()),pref=false),"
              "cost_type=one),let(hff, eval_modify_costs(ff(),cost_type=one),"
              "lazy_greedy([hff,hlm],preferred=[hff,hlm],cost_type=one,reopen_closed=false)))")
_TRANSLATE_LOCK = threading.Lock()
#: Fast Downward's relaxation heuristics (ff, add, hmax) by default compute the negation of
#: every derived variable's axioms exactly ("approximate_negative_cycles"): a conjunction of
#: its rules' negated bodies, multiplied out - exponential in the number of rules. VirtualHome's
#: skill set derives "near" from one rule per object (about 10^27 terms on a 15-object task:
#: the search never got past its heuristic's construction); household tasks stay below
#: 10^7. Above this bound (log10 of that product) the heuristics over-approximate negated
#: derived facts as true instead ("approximate_negative": weaker estimates, same plans' validity).
AXIOM_NEGATION_LOG10_BOUND = 8.0
_RELAXATION_HEURISTIC = re.compile(r"\b(ff|add|hmax)\((\)?)")


def axiom_negation_log10(sas_text: str) -> float:
    """log10 of the largest product of rule body sizes over one derived variable of a
    translated task: the size of the exact negation a relaxation heuristic would build."""
    logs: dict[str, float] = {}
    lines = sas_text.split("\n")
    i = 0
    while True:
        try:
            i = lines.index("begin_rule", i)
        except ValueError:
            break
        n = int(lines[i + 1])
        head = lines[i + 2 + n].split()[0]
        if n > 1:
            logs[head] = logs.get(head, 0.0) + math.log10(n)
        i += 3 + n
    return max(logs.values(), default=0.0)


def with_negated_axioms_approximated(search: str) -> str:
    """``search`` with ``axioms=approximate_negative`` in every ff / add / hmax call that sets
    no axioms option itself."""
    if "axioms=" in search:
        return search
    return _RELAXATION_HEURISTIC.sub(
        lambda m: f"{m[1]}(axioms=approximate_negative" + (")" if m[2] else ", "), search)


def downward_binary() -> Path:
    return packaged_binary("up_fast_downward", "downward", "builds", "release", "bin", "downward",
                           what="Fast Downward's search binary")


def _import_translator():
    from fast_downward.translate import main as tmain
    from fast_downward.translate import normalize, options
    from fast_downward.translate.pddl import actions
    from fast_downward.translate.pddl_parser import lisp_parser, parsing_functions

    actions.PropositionalAction.__init__ = _propositional_action_init
    return tmain, normalize, options, lisp_parser, parsing_functions


def _propositional_action_init(self, name, precondition, effects, cost) -> None:
    """Fast Downward's ``PropositionalAction.__init__`` with its delete-effect filter in linear
    time (the original tests each delete effect against the list of add effects: "O(N^2),
    could be turned into O(N)", its comment says). Same fields in the same order: a delete is
    kept unless an add effect has the same condition and atom. VirtualHome's WALK and FIND
    carry thousands of conditional effects per operator; the quadratic filter took half of
    translation."""
    self.name = name
    self.precondition = precondition
    self.add_effects = [(cond, eff) for cond, eff in effects if not eff.negated]
    adds = {(tuple(cond), eff) for cond, eff in self.add_effects}
    self.del_effects = []
    for cond, eff in effects:
        if eff.negated and (tuple(cond), eff.negate()) not in adds:
            self.del_effects.append((cond, eff.negate()))
    self.cost = cost


def _one_line(text: str, limit: int = 300) -> str:
    """A translator message (its ParseError spans lines) as one line of bounded length."""
    s = " ".join(text.split())
    return s if len(s) <= limit else s[:limit] + " ..."


def _translate(domain_text: str, problem_text: str, extra_options: tuple[str, ...]) -> tuple[str, str]:
    tmain, normalize, options, lisp_parser, parsing_functions = _import_translator()
    log = io.StringIO()
    with contextlib.redirect_stdout(log):
        options.set_options(["domain.pddl", "problem.pddl", *extra_options])
        try:
            dom = lisp_parser.parse_nested_list(io.StringIO(domain_text))
            prob = lisp_parser.parse_nested_list(io.StringIO(problem_text))
            task = parsing_functions.parse_task(dom, prob)
            normalize.normalize(task)
            sas = tmain.pddl_to_sas(task)
        except SystemExit as exc:  # the translator exits on bad input
            last = (log.getvalue().strip().splitlines() or [str(exc)])[-1]
            raise PlannerError(f"Fast Downward translator rejected the task: {_one_line(last)}") from None
        except MemoryError:
            raise
        except Exception as exc:  # noqa: BLE001 - report translator crashes as planner errors
            raise PlannerError(f"Fast Downward translator failed: {type(exc).__name__}: {_one_line(str(exc))}") from None
        out = io.StringIO()
        sas.output(out)
    return out.getvalue(), log.getvalue()


def translate_in_process(domain_text: str, problem_text: str, extra_options: tuple[str, ...] = ()) -> tuple[str, str]:
    """Run FD's translator in this interpreter, unbounded. Returns (sas_text, translator_log)."""
    with _TRANSLATE_LOCK:
        return _translate(domain_text, problem_text, extra_options)


def rss_kb(pid: str) -> int:
    """Resident memory of a process in KB (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
    except (OSError, ValueError, IndexError):
        return 0


def backstop_address_space(memory_mb: int) -> None:
    """In a forked child whose parent bounds its resident growth to ``memory_mb``: an
    address-space cap well above that, as a backstop only (right at such a cap a translator
    can spin on failing allocations instead of failing)."""
    with contextlib.suppress(ValueError, OSError):
        with open("/proc/self/statm") as fh:
            size = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        cap = size + (2 * memory_mb + 512) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


class TranslationTimeout(PlannerError):
    """The translator did not finish within its wall-time bound."""


def _translate_child(domain_text: str, problem_text: str, extra_options: tuple[str, ...], memory_mb: int,
                     fd: int) -> None:
    """Runs in the forked child: translate under an address-space cap, write one pickled
    message to ``fd``, and leave with os._exit (no atexit handlers, no parent state)."""
    import pickle

    code = 0
    try:
        backstop_address_space(memory_mb)
        try:
            msg = ("ok", *_translate(domain_text, problem_text, extra_options))
        except MemoryError:
            msg = ("memory", "", "")
        except PlannerError as exc:
            msg = ("error", str(exc), "")
        except BaseException as exc:  # noqa: BLE001 - reported to the parent
            msg = ("error", f"Fast Downward translator failed: {type(exc).__name__}: {_one_line(str(exc))}", "")
        data = pickle.dumps(msg, protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except BaseException:  # noqa: BLE001 - out of memory while reporting: the parent sees no message
        code = 3
    finally:
        os._exit(code)


def translate_bounded(domain_text: str, problem_text: str, extra_options: tuple[str, ...] = (), *,
                      timeout: float, memory_mb: int) -> tuple[str, str]:
    """FD's translator in a forked child (no fresh interpreter: the modules are imported here
    first) with a wall-time and a memory bound: grounding a pathological task can take
    minutes and gigabytes. Raises TranslationTimeout past ``timeout``, PlannerError when the
    child's resident memory grows by more than ``memory_mb`` over its size at the fork (checked
    while it runs, and its peak when it ends). The fork costs a few milliseconds; translations are cached per task. A
    bare os.fork, so it works inside daemonic worker processes too."""
    import pickle
    import select
    import signal

    _import_translator()
    deadline = time.monotonic() + max(0.01, timeout)
    limit_kb = memory_mb * 1024
    rfd, wfd = os.pipe()
    with _TRANSLATE_LOCK:  # no other thread is inside the translator's module state while we fork
        pid = os.fork()
    if pid == 0:  # child
        os.close(rfd)
        _translate_child(domain_text, problem_text, extra_options, memory_mb, wfd)
    # the child's resident size right after the fork (inherited pages count only once touched)
    base_kb = rss_kb(str(pid)) or rss_kb("self")
    os.close(wfd)
    chunks: list[bytes] = []
    timed_out = over_memory = False
    poll = 0.005
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([rfd], [], [], min(left, poll))
            if not ready:
                poll = min(0.1, poll * 2)
                if rss_kb(str(pid)) - base_kb > limit_kb:
                    over_memory = True
                    break
                continue
            chunk = os.read(rfd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(rfd)
        if timed_out or over_memory:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        _, _, usage = os.wait4(pid, 0)
    if timed_out:
        raise TranslationTimeout(f"translation exceeded the {timeout:.1f} s bound (limit planner_timeout)")
    over_memory = over_memory or usage.ru_maxrss - base_kb > limit_kb  # the peak, in KB on Linux
    try:
        msg = pickle.loads(b"".join(chunks)) if chunks and not over_memory else None
    except Exception:  # noqa: BLE001 - a cut message: the child died writing it
        msg = None
    if msg is None or msg[0] == "memory":
        raise PlannerError(f"translation needed more than {memory_mb} MB (limit planner_memory_mb); the goal or "
                           f"scene is too large")
    if msg[0] == "error":
        raise PlannerError(msg[1])
    return msg[1], msg[2]


# ----------------------------------------------------------------------------- SAS base task

_ATOM_RE = re.compile(r"^(Atom|NegatedAtom) ([^()]+)\((.*)\)$")


@dataclass
class _Var:
    name: str
    layer: int
    values: list[str]


class SASBase:
    """A translated task whose goal can be replaced."""

    def __init__(self, sas_text: str):
        lines = sas_text.splitlines()
        i = 0
        assert lines[i] == "begin_version"
        self.header = "\n".join(lines[0:6])  # version + metric
        i = 6
        nvars = int(lines[i])
        i += 1
        self.vars: list[_Var] = []
        for _ in range(nvars):
            assert lines[i] == "begin_variable"
            name, layer, nvals = lines[i + 1], int(lines[i + 2]), int(lines[i + 3])
            vals = lines[i + 4:i + 4 + nvals]
            self.vars.append(_Var(name, layer, vals))
            i += 4 + nvals + 1
        nmutex = int(lines[i])
        j = i + 1
        for _ in range(nmutex):
            while lines[j] != "end_mutex_group":
                j += 1
            j += 1
        self.mutex = "\n".join(lines[i:j])
        i = j
        assert lines[i] == "begin_state"
        self.init = [int(x) for x in lines[i + 1:i + 1 + nvars]]
        i += nvars + 2
        assert lines[i] == "begin_goal"
        ngoal = int(lines[i + 1])
        i += ngoal + 3
        nops = int(lines[i])
        start_ops = i
        # operators until the axiom count line (the line after the last end_operator)
        k = i + 1
        for _ in range(nops):
            while lines[k] != "end_operator":
                k += 1
            k += 1
        self.operators = "\n".join(lines[start_ops:k])
        nax = int(lines[k])
        self.n_axioms = nax
        self.axioms = "\n".join(lines[k + 1:])
        self.max_layer = max((v.layer for v in self.vars), default=-1)
        self.atom_index: dict[tuple[str, tuple[str, ...]], tuple[int, int]] = {}
        self.neg_index: dict[tuple[str, tuple[str, ...]], tuple[int, int]] = {}
        for vi, v in enumerate(self.vars):
            for val_i, val in enumerate(v.values):
                m = _ATOM_RE.match(val)
                if not m:
                    continue
                args = tuple(a.strip() for a in m.group(3).split(",")) if m.group(3).strip() else ()
                key = (m.group(2), args)
                (self.atom_index if m.group(1) == "Atom" else self.neg_index)[key] = (vi, val_i)

    def _var_block(self, v: _Var) -> str:
        return "\n".join(["begin_variable", v.name, str(v.layer), str(len(v.values)), *v.values, "end_variable"])

    def assemble(self, goal_pairs: list[tuple[int, int]], goal_rules: list[list[tuple[int, int]]] | None) -> str:
        vars_ = list(self.vars)
        init = list(self.init)
        axioms = self.axioms
        n_axioms = self.n_axioms
        if goal_rules is not None:
            gv = len(vars_)
            vars_.append(_Var(f"var{gv}", self.max_layer + 1, [f"Atom {ANCHOR}-goal()", f"NegatedAtom {ANCHOR}-goal()"]))
            init.append(1)
            rules = []
            for conds in goal_rules:
                rules.append("\n".join(["begin_rule", str(len(conds)), *(f"{a} {b}" for a, b in conds),
                                        f"{gv} 1 0", "end_rule"]))
            axioms = (axioms + "\n" if axioms else "") + "\n".join(rules)
            n_axioms += len(rules)
            goal_pairs = [(gv, 0)]
        parts = [self.header, str(len(vars_)), *(self._var_block(v) for v in vars_), self.mutex,
                 "begin_state", *(str(x) for x in init), "end_state",
                 "begin_goal", str(len(goal_pairs)), *(f"{a} {b}" for a, b in goal_pairs), "end_goal",
                 self.operators, str(n_axioms)]
        if axioms:
            parts.append(axioms)
        return "\n".join(parts) + "\n"


def factor_common_disjuncts(f):
    """``(and (or N X) (or N Y) ...)`` as ``(and (or N (and X Y)) ...)`` (distributivity: the
    same formula). The translator splits a disjunctive precondition into one operator per
    combination of disjuncts, each with every effect: VirtualHome's FIND states "close
    already, or ..." in three checks, eight operators per target instead of two."""
    if not isinstance(f, And):
        return f
    ors = [a for a in f.args if isinstance(a, Or)]
    for common in dict.fromkeys(d for o in ors for d in o.args):
        sharing = [o for o in ors if common in o.args]
        if len(sharing) < 2:
            continue
        rest = [a for o in sharing for a in (And(tuple(d for d in o.args if d != common)) if len(o.args) > 2
                                               else next(d for d in o.args if d != common),)]
        merged = Or((common, And(tuple(rest))))
        others = tuple(a for a in f.args if not any(a is o for o in sharing))
        return factor_common_disjuncts(And((*others, merged)))
    return f


def without_duplicate_actions(domain: Domain, problem: Problem) -> Domain:
    """The domain as the translator gets it: preconditions with shared disjuncts factored
    (``factor_common_disjuncts``), and without an action that repeats an earlier one: the
    same parameter names, precondition and effects, and parameters whose objects in
    ``problem`` are all objects of the earlier action's parameter types. Every ground instance
    of it is then a ground instance of the earlier action with the same precondition and
    effects, so no plan is lost; the translator grounds it once. (VirtualHome's skill set has
    RUN and WALKTOWARDS as WALK, PUT as PUTBACK, RELEASE as DROP, RINSE and SCRUB as WASH,
    MOVE as PULL, POINTAT as LOOKAT: 47 actions, 36 distinct.)"""
    def objects(t: str) -> frozenset[str]:
        return frozenset(problem.objects_of_type(domain, t))

    kept: list[Action] = []
    for act in (replace(a, precondition=factor_common_disjuncts(a.precondition)) for a in domain.actions):
        if not any(a.precondition == act.precondition and a.effects == act.effects
                   and [p.name for p in a.parameters] == [p.name for p in act.parameters]
                   and all(objects(q.type) <= objects(p.type) for p, q in zip(a.parameters, act.parameters))
                   for a in kept):
            kept.append(act)
    if kept == list(domain.actions):
        return domain
    return Domain(domain.name, domain.types, domain.predicates, tuple(kept), domain.derived, domain.constants,
                  domain.functions, domain.requirements, domain.hidden_predicates)


def _anchored(domain: Domain) -> Domain:
    pred = Predicate(ANCHOR, ())
    act = Action(ANCHOR, (), TRUE, (Literal(Atom(ANCHOR), True),))
    return Domain(domain.name, domain.types, (*domain.predicates, pred), (*domain.actions, act), domain.derived,
                  domain.constants, domain.functions, domain.requirements, domain.hidden_predicates)


# ----------------------------------------------------------------------------- planner

@register("fast-downward")
class FastDownwardPlanner:
    name = "fast-downward"

    def __init__(self, search: str = "astar(ff())", translate_cache: bool = True, cache_size: int = 64,
                 limits: PlannerLimits | None = None, max_goal_rules: int = 20_000,
                 fallback_search: str | None = "lazy_greedy([ff()], preferred=[ff()])", primary_share: float = 0.5,
                 bound_translation: bool = True, h2: bool = False, h2_share: float = 0.25,
                 primary_max: float | None = None):
        """`search` runs first with `primary_share` of the time left (at most `primary_max`
        seconds when set); if it runs out of time, `fallback_search` (greedy, usually far faster
        on long-horizon goals such as clearing a counter, with no guarantee of a cheapest plan)
        gets the rest. None disables it.
        ``h2``: prune the translated task by h^2 analysis first (``groundplan.planners.h2``;
        at most `h2_share` of the time bound; on a timeout or failure the search runs on the
        task as translated)."""
        self.h2 = h2
        self.h2_share = h2_share
        self.search = search
        self.fallback_search = fallback_search
        self.primary_share = primary_share
        self.primary_max = primary_max
        self.translate_cache = translate_cache
        self.cache_size = cache_size
        self.limits = limits or PlannerLimits.configured()
        self.bound_translation = bound_translation
        self.max_goal_rules = max_goal_rules
        self._cache: OrderedDict[str, SASBase] = OrderedDict()
        self._binary = downward_binary()
        self.stats = {"translations": 0, "cache_hits": 0}

    # -- public
    def plan(self, domain: Domain, problem: Problem, *, timeout: float | None = None) -> PlanResult:
        t0 = time.perf_counter()
        timeout = timeout if timeout is not None else self.limits.timeout
        if problem.goal is None:
            return PlanResult(PlanStatus.INVALID, error="problem has no goal")
        timings: dict[str, float] = {}
        deadline = t0 + timeout
        domain = without_duplicate_actions(domain, problem)
        try:
            sas_text = self._sas_with_goal(domain, problem, timings, deadline) if self.translate_cache else None
            if sas_text is _FALLBACK or sas_text is None:
                ta = time.perf_counter()
                sas_text, _ = self._translate(write_domain(domain, comments=False), write_problem(problem), (),
                                              deadline)
                self.stats["translations"] += 1
                timings["translate"] = time.perf_counter() - ta
        except TranslationTimeout as exc:
            return PlanResult(PlanStatus.TIMEOUT, seconds=time.perf_counter() - t0, error=str(exc), timings=timings)
        except GoalError as exc:
            return PlanResult(PlanStatus.INVALID, seconds=time.perf_counter() - t0, error=str(exc))
        except PlannerError as exc:
            return PlanResult(PlanStatus.ERROR, seconds=time.perf_counter() - t0, error=str(exc))
        if isinstance(sas_text, PlanResult):
            return PlanResult(sas_text.status, sas_text.plan, sas_text.cost, time.perf_counter() - t0,
                              sas_text.log, sas_text.error, timings)
        if self.h2:
            pruned = self._h2(sas_text, timeout * self.h2_share, timings)
            if isinstance(pruned, PlanResult):
                return PlanResult(pruned.status, seconds=time.perf_counter() - t0, log=pruned.log,
                                  error=pruned.error, timings=timings)
            sas_text = pruned
        search, fallback_search = self.search, self.fallback_search
        if "begin_rule" in sas_text and axiom_negation_log10(sas_text) > AXIOM_NEGATION_LOG10_BOUND:
            search = with_negated_axioms_approximated(search)
            fallback_search = fallback_search and with_negated_axioms_approximated(fallback_search)
            timings["axioms_approximated"] = 1.0
        remaining = max(0.05, timeout - (time.perf_counter() - t0))
        if fallback_search is None:
            res = self._search(sas_text, remaining, timings, search)
        else:
            share = remaining * self.primary_share
            if self.primary_max is not None:
                share = min(share, self.primary_max)
            res = self._search(sas_text, share, timings, search)
            if res.status == PlanStatus.TIMEOUT:
                timings["primary_search"] = timings.get("search", 0.0)
                left = max(0.05, timeout - (time.perf_counter() - t0))
                fb = self._search(sas_text, left, timings, fallback_search)
                note = f"{search} ran out of its {share:.1f} s; {fallback_search}:\n"
                res = PlanResult(fb.status, fb.plan, fb.cost, log=note + fb.log, error=fb.error)
                timings["fallback_used"] = 1.0
        return PlanResult(res.status, res.plan, res.cost, time.perf_counter() - t0, res.log, res.error, timings)

    def _h2(self, sas_text: str, budget: float, timings: dict) -> "str | PlanResult":
        out = h2_preprocess(sas_text, timeout=budget, memory_mb=self.limits.memory_mb)
        timings["h2"] = out.seconds
        if out.status == "pruned":
            removed = out.operators_before - out.operators_after
            timings["h2_operators_removed"] = float(removed)
            # nothing pruned: search the task as translated (the rewritten one orders its
            # variables differently, which can only change the search's tie-breaking)
            return (out.sas or sas_text) if removed > 0 else sas_text
        if out.status == "unsolvable":
            return PlanResult(PlanStatus.UNSOLVABLE, log=out.note, error="no plan exists for this goal (h^2)")
        timings["h2_skipped"] = 1.0
        return sas_text

    # -- translation with the per-task cache
    def _translate(self, dtext: str, ptext: str, options: tuple[str, ...], deadline: float) -> tuple[str, str]:
        if not self.bound_translation:
            return translate_in_process(dtext, ptext, options)
        left = deadline - time.perf_counter()
        if left <= 0:
            raise TranslationTimeout("no time left for translation (limit planner_timeout)")
        return translate_bounded(dtext, ptext, options, timeout=left, memory_mb=self.limits.memory_mb)

    def _base(self, domain: Domain, problem: Problem, timings: dict, deadline: float) -> SASBase:
        dtext = write_domain(_anchored(domain), comments=False)
        ptext = write_problem(problem, goal_override=f"({ANCHOR})")
        key = hashlib.sha256((dtext + "\0" + ptext).encode()).hexdigest()
        base = self._cache.get(key)
        if base is not None:
            self._cache.move_to_end(key)
            self.stats["cache_hits"] += 1
            timings["translate"] = 0.0
            return base
        ta = time.perf_counter()
        sas, _ = self._translate(dtext, ptext, ("--keep-unimportant-variables",), deadline)
        base = SASBase(sas)
        timings["translate"] = time.perf_counter() - ta
        self.stats["translations"] += 1
        self._cache[key] = base
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return base

    def _sas_with_goal(self, domain: Domain, problem: Problem, timings: dict, deadline: float):
        base = self._base(domain, problem.with_goal(None), timings, deadline)
        ev = Evaluator(domain, problem, problem.init)
        dnf = to_dnf(problem.goal, objects_of_type=ev.objects_of_type)
        try:
            return self._goal_sas(base, dnf, ev)
        except _NeedsFullTranslation:
            return _FALLBACK

    def _goal_sas(self, base: SASBase, dnf, ev: Evaluator):
        alternatives: list[list[list[tuple[int, int]]]] = []
        for conj in dnf:
            lits: list[list[tuple[int, int]]] = []
            possible = True
            for lit in conj:
                opts = self._options(base, lit, ev)
                if opts is True:
                    continue
                if opts is False:
                    possible = False
                    break
                lits.append(opts)
            if possible:
                if not lits:  # already satisfied
                    return PlanResult(PlanStatus.SOLVED, (), 0.0, log="goal holds in the initial state")
                alternatives.append(lits)
        if not alternatives:
            return PlanResult(PlanStatus.UNSOLVABLE, log="every disjunct of the goal names an unreachable fact",
                              error="goal unreachable: its facts cannot be produced by any action")
        if len(alternatives) == 1 and all(len(o) == 1 for o in alternatives[0]):
            pairs = [o[0] for o in alternatives[0]]
            seen: dict[int, int] = {}
            for var, val in pairs:
                if seen.get(var, val) != val:
                    return PlanResult(PlanStatus.UNSOLVABLE, log="goal requires two values of one variable",
                                      error="goal is contradictory (mutually exclusive facts)")
                seen[var] = val
            return base.assemble(sorted(seen.items()), None)
        rules: list[list[tuple[int, int]]] = []
        for lits in alternatives:
            for combo in itertools.product(*lits):
                d: dict[int, int] = {}
                ok = True
                for var, val in combo:
                    if d.get(var, val) != val:
                        ok = False
                        break
                    d[var] = val
                if ok:
                    rules.append(sorted(d.items()))
                if len(rules) > self.max_goal_rules:
                    raise GoalError(_too_large(), f"goal expands to more than {self.max_goal_rules} goal rules")
        if not rules:
            return PlanResult(PlanStatus.UNSOLVABLE, error="goal is contradictory (mutually exclusive facts)")
        return base.assemble([], rules)

    @staticmethod
    def _options(base: SASBase, lit: Literal, ev: Evaluator):
        a = lit.atom
        if a.predicate == "=":
            return (a.args[0] == a.args[1]) == lit.positive
        key = (a.predicate, a.args)
        if key not in base.atom_index:
            # not a variable: static, unreachable, or a derived atom the translator pruned
            # because no precondition uses it. Static and unreachable atoms keep their
            # initial value; anything else needs a translation with this goal.
            value = ev.literal(lit)
            if not value or a.predicate in ev.domain.derived_map:
                raise _NeedsFullTranslation()
            return value
        var, val = base.atom_index[key]
        if lit.positive:
            return [(var, val)]
        if key in base.neg_index:
            return [base.neg_index[key]]
        return [(var, other) for other in range(len(base.vars[var].values)) if other != val]

    # -- search
    def _search(self, sas_text: str, timeout: float, timings: dict, search: str) -> PlanResult:
        mem = self.limits.memory_mb * 1024 * 1024

        def limit() -> None:  # runs in the child
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
            with contextlib.suppress(Exception):  # die with the parent (Linux PR_SET_PDEATHSIG)
                import ctypes
                import signal

                ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)

        ts = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="gp-fd-") as tmp:
            plan_file, log_file = os.path.join(tmp, "plan"), os.path.join(tmp, "log")
            # The search log goes to a file, not a pipe: the binary flushes every line, and
            # draining a pipe line by line costs several milliseconds per plan.
            with open(log_file, "wb") as log_out:
                try:
                    proc = subprocess.run([str(self._binary), "--search", search, "--internal-plan-file",
                                           plan_file], input=sas_text.encode(), stdout=log_out,
                                          stderr=subprocess.STDOUT, timeout=timeout, preexec_fn=limit, cwd=tmp)
                except subprocess.TimeoutExpired:
                    timings["search"] = time.perf_counter() - ts
                    return PlanResult(PlanStatus.TIMEOUT, error=f"search exceeded {timeout:.1f} s")
            timings["search"] = time.perf_counter() - ts
            log = _tail(log_file, 4000)
            if proc.returncode == 0 and os.path.exists(plan_file):
                steps, cost = parse_plan_file(Path(plan_file).read_text())
                return PlanResult(PlanStatus.SOLVED, steps, cost, log=log)
            if proc.returncode in (11, 12):
                return PlanResult(PlanStatus.UNSOLVABLE, log=log, error="no plan exists for this goal")
            if proc.returncode == 23:
                return PlanResult(PlanStatus.TIMEOUT, log=log, error="search out of time")
            if proc.returncode == 22 or proc.returncode < 0:
                return PlanResult(PlanStatus.ERROR, log=log, error="search ran out of memory")
            return PlanResult(PlanStatus.ERROR, log=log,
                              error=f"Fast Downward search exited with code {proc.returncode}")


def _tail(path: str, n: int) -> str:
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        f.seek(max(0, f.tell() - n))
        return f.read().decode("utf-8", "replace")


class _NeedsFullTranslation(Exception):
    pass


_FALLBACK = object()


def _too_large():
    from groundplan.errors import GoalErrorKind
    return GoalErrorKind.TOO_LARGE


def parse_plan_file(text: str) -> tuple[tuple[str, ...], float | None]:
    steps = []
    cost = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(";"):
            m = re.search(r"cost = ([0-9.]+)", line)
            if m:
                cost = float(m.group(1))
        elif line.startswith("("):
            step = line[1:-1].strip()
            if step.split()[0] != ANCHOR:
                steps.append(step)
    return tuple(steps), cost


__all__ = ["LAMA_FIRST", "FastDownwardPlanner", "translate_in_process", "translate_bounded", "TranslationTimeout", "downward_binary", "parse_plan_file", "TypedVar"]
