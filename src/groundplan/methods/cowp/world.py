"""COWP's situation simulator (paper Sec. 4.2), as a hidden world every method acts in.

A trial of a task (``TrialSetup``, drawn by the data set loader and stored in the task row):
the two-object setting with probability 0.25 (GPT-Planner's main.py chooses problem_basic_2
that often), half of the task's candidate objects and half of the appliances spawned at
random (``select_object`` / ``select_appliance`` with ratio 2).

``build_trial`` makes two views of the trial:

* the **knowledge** the robot plans with: the task's domain (COWP's closed-world action
  knowledge) and a problem with every object it perceives - the spawned objects only by
  name and COWP category (utensil, food, ...), the appliances at the kitchen;
* the **true world** the executor runs: the same plus what a person would accept. An
  object accepted in a role by the acceptability table is, here, of the role's type with
  the role object's initial facts (a mug *is* a cup in the true world of "drinking
  water"), so a plan using it executes and the goal - stated over roles - counts it; any
  other object cannot stand in. Situations are compiled in: every action requires
  ``(not (sit_blocked ?x))`` of its arguments and ``(not (sit_blocked_<action>))``, and
  operating an appliance marked ``sit_fixer`` clears the blocks.

``SituationWorld`` runs a trial. Before an action the method asks ``observe(step)`` (the
robot's perception): at each action a situation arises with probability P (0.1), at most
one per trial, drawn by report count among the task's situations that humans reported at
that action. The situation disables its target - the object of its role the robot is
using, from then on for every action - and, when no argument of the action is that object
(or the situation has no object, like a power outage), the action itself. ``apply(step)``
executes; an action that ignores the situation fails with the situation as the reason.
The random draws are a function of (trial seed, run seed, how many actions have been
executed, action name), so two methods that execute the same actions meet the same
situations.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Optional, Sequence

from groundplan.core.datasets.cowp.spec import (
    Situation,
    TaskSpec,
    categories,
    nl_word,
    task_domain,
    task_spec,
)
from groundplan.core.datasets.cowp.trials import (
    P_SITUATION,
    TrialSetup,
    draw_setup,
)
from groundplan.pddl.formula import (
    And,
    Atom,
    ForallEffect,
    Formula,
    Literal,
    Not,
    TypedVar,
    When,
)
from groundplan.pddl.model import Domain, Predicate, Problem, TypeHierarchy
from groundplan.sim.executor import Executor, StepResult
from groundplan.skills import build_task, load_skillset
from groundplan.world import load_scene
from groundplan.world.scene import split_name

REQUIREMENTS = (":strips", ":typing", ":negative-preconditions", ":conditional-effects")


# --------------------------------------------------------------------------- views of a trial

@dataclass(frozen=True)
class Trial:
    spec: TaskSpec
    setup: TrialSetup
    domain: Domain  # the robot's knowledge: the task's closed-world domain
    problem: Problem  # ... and what it perceives, with the task's goal
    true_domain: Domain
    true_problem: Problem
    words: Mapping[str, str]  # object -> how it is said ("dish_bowl0" -> "dish bowl")
    spawned: Mapping[str, str]  # spawned candidate object -> word
    appliances: Mapping[str, str]  # spawned appliance object -> word
    roles: Mapping[str, tuple[str, ...]]  # role -> the task's own objects of it (cup1, cup2)
    robot: str = "robot0"
    locations: tuple[str, ...] = ()

    def word(self, obj: str) -> str:
        return self.words.get(obj) or nl_word(obj)

    def accepted_objects(self) -> list[str]:
        """Every object a plan may use: the task's own and the spawned ones accepted in some role."""
        ok = {w for role in self.spec.roles for w in self.spec.accepted(role)}
        fix = {w for s in self.spec.situations for w in s.fixers}
        out = [o for o in self.problem.objects if o not in self.spawned and o not in self.appliances]
        out += [o for o, w in self.spawned.items() if w in ok]
        out += [o for o, w in self.appliances.items() if w in fix]
        return out


def _with_types(domain: Domain, extra: Mapping[str, set[str]]) -> Domain:
    parents = {t: set(ps) for t, ps in domain.types.parents.items()}
    for t, ps in extra.items():
        parents.setdefault(t, set()).update(ps)
    return replace(domain, types=TypeHierarchy({t: frozenset(ps) for t, ps in parents.items()}))


def _rename_facts(facts, old: str, new: str) -> set[Atom]:
    return {Atom(f.predicate, tuple(new if a == old else a for a in f.args)) for f in facts if old in f.args}


def build_trial(setup: TrialSetup, *, root: Optional[str] = None) -> Trial:
    spec = task_spec(setup.task, root)
    scene = load_scene(spec.scene_file)
    pt = build_task(load_skillset("dining"), scene)
    domain = task_domain(pt.domain, spec)
    domain = replace(domain, requirements=REQUIREMENTS)
    objects = dict(pt.problem.objects)
    init = set(pt.problem.init)
    roles: dict[str, list[str]] = {r: [o for o, t in objects.items() if t == r] for r in spec.roles}
    # the two-object setting (COWP's problem_basic_2): a second object of some roles
    if setup.two_objects:
        for role in spec.duplicate:
            first = roles[role][0]
            cls, idx = split_name(first)
            new = f"{cls}{(idx or 0) + 1}"
            objects[new] = objects[first]
            init |= _rename_facts(pt.problem.init, first, new)
            roles[role].append(new)
    cats = categories(root)
    taken = set(domain.types.parents) | {t for t in objects.values()}
    words = {o: nl_word(o) for o in objects}
    spawned: dict[str, str] = {}
    appliances: dict[str, str] = {}
    ktypes: dict[str, set[str]] = {}
    kitchen = next((o for o in objects if o == "kitchen"), None)
    for group, out in ((setup.objects, spawned), (setup.appliances, appliances)):
        for w in group:
            cls = w.replace(" ", "_")
            if cls in taken:  # e.g. a spawned "cupboard" must not become the task's cupboard
                cls += "_item"
            taken.add(cls)
            name = f"{cls}0"
            objects[name] = cls
            words[name] = w
            out[name] = w
            cat = "appliance" if out is appliances else cats.get(w, "other")
            ktypes[cls] = {cat}
            if out is appliances and kitchen:
                init.add(Atom("appliance_at", (name, kitchen)))
    kdomain = _with_types(domain, ktypes)
    goal = spec.goal
    problem = Problem(pt.problem.name, domain.name, objects, frozenset(init), goal, {}, None)
    # the true world: accepted substitutes are of their role's type, with the role's facts
    ttypes = {k: set(v) for k, v in ktypes.items()}
    tinit = set(init)
    by_word = {w: o for o, w in spawned.items()}
    for role in spec.roles:
        for w in spec.accepted(role):
            o = by_word.get(w)
            if o is None:
                continue
            ttypes[objects[o]].add(role)
            tinit |= _rename_facts(pt.problem.init, roles[role][0], o)
    tdomain = compile_situations(_with_types(domain, ttypes))
    tproblem = Problem(pt.problem.name, domain.name, objects, frozenset(tinit), goal, {}, None)
    robot = next((a.name for a in scene.agents if a.kind == "robot"), "robot0")
    locs = tuple(o for o, t in objects.items() if domain.types.is_subtype(t, "location"))
    return Trial(spec, setup, kdomain, problem, tdomain, tproblem, words, spawned, appliances,
                 {r: tuple(v) for r, v in roles.items()}, robot, locs)


def compile_situations(domain: Domain) -> Domain:
    """Every action requires its arguments not ``sit_blocked`` and itself not blocked;
    ``operate`` with a ``sit_fixer`` appliance clears every block."""
    preds = [Predicate("sit_blocked", (TypedVar("?o", "object"),)),
             Predicate("sit_fixer", (TypedVar("?a", "appliance"),))]
    preds += [Predicate(f"sit_blocked_{a.name}", ()) for a in domain.actions]
    actions = []
    for a in domain.actions:
        extra: list[Formula] = [Not(Atom(f"sit_blocked_{a.name}"))]
        extra += [Not(Atom("sit_blocked", (p.name,))) for p in a.parameters if p.name != "?actor"]
        effects = a.effects
        if a.name == "operate":
            fixer = Atom("sit_fixer", (a.parameters[0].name,))
            clear_obj = ForallEffect((TypedVar("?sitobj", "object"),),
                                     (When(fixer, (Literal(Atom("sit_blocked", ("?sitobj",)), False),)),))
            clear_act = When(fixer, tuple(Literal(Atom(f"sit_blocked_{b.name}"), False) for b in domain.actions))
            effects = (*effects, clear_obj, clear_act)
        actions.append(replace(a, precondition=And((a.precondition, *extra)), effects=effects))
    return replace(domain, predicates=(*domain.predicates, *preds), actions=tuple(actions))


# --------------------------------------------------------------------------- running a trial

def _uniform(*parts: Any) -> float:
    h = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(h[:8], "big") / 2 ** 64


def parse_step(step: str | Sequence[str]) -> tuple[str, tuple[str, ...]]:
    toks = step.replace("(", " ").replace(")", " ").split() if isinstance(step, str) else list(step)
    return (toks[0].lower(), tuple(t.lower() for t in toks[1:])) if toks else ("", ())


@dataclass
class ActiveSituation:
    situation: Situation
    step: str  # the action at which it arose
    action: str
    target: Optional[str]  # the object it disables
    blocks_action: bool  # the action itself fails whatever its arguments
    index: int  # executed actions before it arose
    solvable: Optional[bool] = None
    resolved: bool = False
    fixers: tuple[str, ...] = ()

    def blocks(self, name: str, args: Sequence[str]) -> bool:
        if self.resolved:
            return False
        return (self.target is not None and self.target in args) or (self.blocks_action and name == self.action)

    def to_dict(self) -> dict[str, Any]:
        s = self.situation
        return {"key": s.key, "id": s.id, "text": s.text, "object": s.object, "step": self.step,
                "target": self.target, "blocks_action": self.blocks_action, "index": self.index,
                "solvable": self.solvable, "resolved": self.resolved}


@dataclass(frozen=True)
class Observation:
    """What the robot perceives before an action: a situation, said in words, and (for
    oracles only) what it disables."""

    text: str
    object: str  # the situation's object word
    opposite: str
    step: str
    new: bool
    situation: Situation = field(repr=False)
    target: Optional[str] = field(default=None, repr=False)
    blocks_action: bool = field(default=False, repr=False)
    action: str = field(default="", repr=False)


class SituationWorld:
    def __init__(self, trial: Trial, *, run_seed: int = 0, planner: Any = None,
                 planner_timeout: Optional[float] = None, forced: Optional[tuple[int, str]] = None):
        self.trial = trial
        self.spec = trial.spec
        self.ex = Executor(trial.true_domain, trial.true_problem)
        self.run_seed = run_seed
        self.planner = planner
        self.planner_timeout = planner_timeout
        self.forced = forced  # (situation id, action): fire it at the first such action (tests, docs)
        self.active: Optional[ActiveSituation] = None
        self.executed: list[str] = []
        self.failures: list[tuple[str, str]] = []
        self._observed: Optional[tuple[int, str]] = None

    # ------------------------------------------------------------------ perception
    def observe(self, step: str) -> list[Observation]:
        name, args = parse_step(step)
        k = len(self.executed)
        self._observed = (k, " ".join((name, *args)))
        new = False
        if self.active is None:
            s = self._draw(name, k)
            if s is not None:
                self._fire(s, name, args)
                new = True
        a = self.active
        if a is None or not a.blocks(name, args):
            return []
        s = a.situation
        return [Observation(s.text, s.object, s.opposite, self._observed[1], new, s, a.target, a.blocks_action,
                            a.action)]

    def _draw(self, name: str, k: int) -> Optional[Situation]:
        if self.forced is not None:
            sid, action = self.forced
            if action != name:
                return None
            return next(s for s in self.spec.situations if s.id == sid)
        cands = self.spec.situations_at(name)
        if not cands:
            return None
        seed = self.trial.setup.seed
        if _uniform("cowp-p", seed, self.run_seed, k, name) >= self.trial.setup.p_situation:
            return None
        total = sum(w for _, w in cands)
        u = _uniform("cowp-which", seed, self.run_seed, k, name) * total
        for s, w in cands:
            u -= w
            if u < 0:
                return s
        return cands[-1][0]

    def _fire(self, s: Situation, name: str, args: tuple[str, ...]) -> None:
        tp = self.trial.true_problem
        td = self.trial.true_domain
        target = None
        if s.target is not None:
            target = next((a for a in args if (t := tp.type_of(td, a)) is not None and td.types.is_subtype(t, s.target)),
                          None)
            if target is None:
                own = self.trial.roles.get(s.target) or ()
                target = own[0] if own else None
        blocks_action = target is None or target not in args
        fixers = tuple(o for o, w in self.trial.appliances.items() if w in s.fixers)
        step = " ".join((name, *args))
        self.active = ActiveSituation(s, step, name, target, blocks_action, len(self.executed), fixers=fixers)
        facts = set(self.ex.facts)
        if target is not None:
            facts.add(Atom("sit_blocked", (target,)))
        if blocks_action:
            facts.add(Atom(f"sit_blocked_{name}"))
        facts |= {Atom("sit_fixer", (o,)) for o in fixers}
        self.ex.facts = frozenset(facts)
        self.active.solvable = self.solvable()

    # ------------------------------------------------------------------ acting
    def apply(self, step: str) -> StepResult:
        name, args = parse_step(step)
        text = " ".join((name, *args))
        if self._observed != (len(self.executed), text):
            self.observe(text)  # the world does not wait for a method to look
        a = self.active
        if a is not None and a.blocks(name, args):
            r = StepResult(text, False, f"cannot {text}: {a.situation.text.rstrip('.')}")
        else:
            r = self.ex.apply(text)
        if r.ok:
            self.executed.append(text)
            if a is not None and not a.resolved and name == "operate" and args and args[0] in a.fixers:
                a.resolved = True
        else:
            self.failures.append((text, r.reason))
        self._observed = None
        return r

    # ------------------------------------------------------------------ judging
    def goal_holds(self) -> bool:
        return self.ex.goal_report(self.trial.true_problem.goal).success

    def solvable(self) -> Optional[bool]:
        """Whether the task can still be completed in the true world from here (None: no planner)."""
        if self.planner is None:
            return None
        prob = self.trial.true_problem.with_init(self.ex.facts)
        res = self.planner.plan(self.trial.true_domain, prob, timeout=self.planner_timeout)
        return res.solved

    @property
    def situation_met(self) -> bool:
        return self.active is not None

    def objects_used(self) -> list[str]:
        skip = set(self.trial.locations) | {self.trial.robot}
        out: list[str] = []
        for s in self.executed:
            for a in parse_step(s)[1]:
                if a not in skip and a not in out:
                    out.append(a)
        return out

    def metrics(self) -> dict[str, Any]:
        a = self.active
        return {"situation_met": a is not None, "situation": a.to_dict() if a else None,
                "situation_solvable": a.solvable if a else None, "objects_used": self.objects_used(),
                "executed_steps": len(self.executed), "failed_steps": len(self.failures),
                "two_objects": self.trial.setup.two_objects}


def trial_for(task_extras: Mapping[str, Any], *, root: Optional[str] = None) -> Trial:
    return build_trial(TrialSetup.from_extras(task_extras), root=root)


__all__ = ["P_SITUATION", "TrialSetup", "draw_setup", "Trial", "build_trial", "compile_situations",
           "SituationWorld", "Observation", "ActiveSituation", "parse_step", "trial_for"]
