"""Executing an answer and judging it (Wake et al., Sec. III-C): executability (the
executor runs every step) and correctness (the final state satisfies the task's goal, which
the datasets compute by executing the reference program), plus whether the model's
``environment_after`` matches the executor's state.

A ``WakeWorld`` binds a task's planning task (skill set ``lfo`` or ``virtualhome``) to the
environment dictionary: which scene entities the environment shows, which are objects,
how names are written in it and how executor facts read as environment states.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, Sequence

from groundplan.methods.wake_prompts.session import Answer
from groundplan.pddl.formula import Atom, Formula
from groundplan.pddl.state import GoalReport, evaluate_goal
from groundplan.sim.executor import Executor
from groundplan.skills.builder import PlanningTask
from groundplan.world.wake_actions import ActionSet, ground_argless
from groundplan.world.wake_env import (
    LFO,
    LFO_VOCABULARY,
    EnvStyle,
    build_environment,
    closure,
    environment_facts,
    environments_equal,
    neutral_facts,
)

LFO_PHRASES: Mapping[str, str] = {
    "on": "<{0}> is on_something(<{1}>)", "in": "<{0}> is inside_something(<{1}>)", "inhand": "<{0}> is inside_hand()",
    "closed": "<{0}> is closed()", "opened": "<{0}> is open()", "hand_near": "the robot hand is near <{0}>",
    "above": "<{0}> is above <{1}>", "free": "<{0}> is not constrained by any plane",
    "reachable": "<{0}> is not inside something closed", "hand_empty": "the robot hand is empty",
    "hand_unconstrained": "the robot hand holds nothing constrained by the environment",
    "manipulable": "<{0}> is an object the robot can grasp", "plane": "<{0}> is a plane", "container": "<{0}> is a container",
    "rotatable": "<{0}> can be rotated", "slidable": "<{0}> can be slid", "wiped": "<{0}> is wiped",
    "handle_of": "<{0}> is the handle of <{1}>", "next_to": "<{0}> is next to <{1}>",
}


@dataclass
class WakeWorld:
    planning_task: PlanningTask
    entities: tuple[str, ...]  # scene names the environment shows, in order
    manipulable: frozenset[str]
    style: EnvStyle = LFO
    vocabulary: Mapping[str, str] = field(default_factory=lambda: dict(LFO_VOCABULARY))
    #: scene name -> how the environment writes it (without <>)
    written: Callable[[str], str] = lambda n: n
    #: name as written in an answer -> scene name (None: not in the scene)
    resolve: Callable[[str], Optional[str]] = lambda n: n
    properties: Mapping[str, Sequence[str]] = field(default_factory=dict)
    phrases: Mapping[str, str] = field(default_factory=lambda: dict(LFO_PHRASES))
    #: literal (pddl text) -> words for feedback; default: the executor's phrases
    literal_words: Optional[Callable[[str], str]] = None
    #: appended to every executor step (VirtualHome: the character acting)
    step_suffix: tuple[str, ...] = ()

    @property
    def initial_facts(self) -> frozenset[Atom]:
        return frozenset(self.planning_task.problem.init)

    def executor(self, facts: Optional[frozenset[Atom]] = None) -> Executor:
        return Executor(self.planning_task.domain, self.planning_task.problem,
                        facts=self.initial_facts if facts is None else facts, phrases=self.phrases)

    def environment(self, facts: Optional[frozenset[Atom]] = None) -> dict[str, Any]:
        """The environment dictionary of a state (default: the initial one) over the world's entities."""
        f = self.initial_facts if facts is None else facts
        neutral = {(x[0], *(self.written(a) for a in x[1:])) for x in neutral_facts(f, self.vocabulary)}
        return build_environment([self.written(e) for e in self.entities], {self.written(m) for m in self.manipulable},
                                 neutral, style=self.style,
                                 properties={self.written(k): v for k, v in self.properties.items()})

    def words(self, literal: str) -> str:
        if self.literal_words is not None:
            return self.literal_words(literal)
        text = literal.strip()
        neg = text.startswith("(not ")
        inner = text[5:-1].strip() if neg else text
        toks = inner.strip("()").split()
        if not toks:
            return text
        tmpl = self.phrases.get(toks[0])
        args = [self.written(a) for a in toks[1:]]
        if tmpl is None or tmpl.count("{") > len(args):
            return text
        phrase = tmpl.format(*args)
        if neg:
            phrase = phrase.replace(" is ", " is not ", 1) if " is " in phrase else f"not {phrase}"
        return phrase


def lfo_world(planning_task: PlanningTask, *, keep: Optional[Sequence[str]] = None) -> WakeWorld:
    """The world of an ``lfo`` scene: every entity shown (or ``keep`` and their supports),
    objects are the ``manipulable`` ones."""
    scene = planning_task.scene
    names = [o.name for o in scene.objects]
    man = frozenset(f.args[0] for f in scene.facts if f.predicate == "manipulable" and f.args)
    if keep is not None:
        wanted = closure(neutral_facts(scene.facts), keep)
        names = [n for n in names if n in wanted]
    known = frozenset(o.name for o in scene.objects)
    return WakeWorld(planning_task, tuple(names), man,
                     resolve=lambda n: n if n in known else (n.lower() if n.lower() in known else None))


# ----------------------------------------------------------------------------- execution


@dataclass(frozen=True)
class StepOutcome:
    index: int
    item: str
    step: Optional[str]  # the executor step, None if the item could not be translated
    ok: bool
    reason: str = ""
    kind: str = ""  # "", "unknown_verb", "unknown_entity", "arity", "precondition"


@dataclass(frozen=True)
class Judgement:
    items: tuple[str, ...]  # the items executed (grounded when the answer had no arguments)
    steps: tuple[StepOutcome, ...]
    readable: bool
    facts: frozenset[Atom] = field(compare=False, repr=False)
    env_after: Optional[Mapping[str, Any]] = None  # the executor's state as an environment
    env_match: Optional[bool] = None  # the answer's environment_after equals env_after
    goal: Optional[GoalReport] = None
    #: required actions (that leave no trace in the state, e.g. Drink) the plan did not execute
    missing_actions: tuple[str, ...] = ()
    #: whether any actions were required
    has_required: bool = False

    @property
    def planned(self) -> int:
        return len(self.items)

    @property
    def executed(self) -> int:
        return sum(1 for s in self.steps if s.ok)

    @property
    def failed(self) -> Optional[StepOutcome]:
        return next((s for s in self.steps if not s.ok), None)

    @property
    def executable(self) -> bool:
        return self.readable and self.planned > 0 and self.failed is None

    @property
    def correct(self) -> Optional[bool]:
        if self.goal is None and not self.has_required:
            return None
        return (self.goal is None or self.goal.success) and not self.missing_actions

    @property
    def success(self) -> bool:
        return self.executable and self.correct is not False

    def to_dict(self) -> dict[str, Any]:
        f = self.failed
        return {"items": list(self.items), "executable": self.executable, "executed": self.executed,
                "planned": self.planned, "failed_step": f.item if f else None, "failure": f.reason if f else None,
                "correct": self.correct, "gcr": self.goal.gcr if self.goal else None,
                "unsatisfied": list(self.goal.unsatisfied) if self.goal else [], "env_match": self.env_match,
                "missing_actions": list(self.missing_actions)}


def execute_answer(world: WakeWorld, actions: ActionSet, answer: Answer, facts: Optional[frozenset[Atom]] = None, *,
                   goal: Optional[Formula] = None, argless: bool = False,
                   required: Sequence[str] = ()) -> Judgement:
    """Run the answer's task sequence from ``facts`` (default: the initial state), stopping
    at the first step that fails; evaluate ``goal`` on the resulting state. ``required``:
    actions (as items, e.g. ``Drink(<waterglass_275>)``) the plan must have executed - for
    what a state cannot show."""
    ex = world.executor(facts)
    start = ex.facts
    if answer.data is None:
        return Judgement((), (), False, start, goal=_goal(world, goal, start), missing_actions=tuple(required),
                         has_required=bool(required))
    view = answer.view
    items = list(view.sequence)
    if argless:
        env = view.environment_before or world.environment(start)
        names = [n.strip("<>") for n in list(env.get("assets", [])) + list(env.get("objects", []))]
        items = ground_argless(items, view.step_instructions, view.object_name, view.environment_after or {}, names)
    steps: list[StepOutcome] = []
    for i, item in enumerate(items):
        p = actions.parse_item(item)
        if p.spec is None:
            steps.append(StepOutcome(i, item, None, False, f'"{p.verb}" is not an action of the "ROBOT ACTION LIST"',
                                     "unknown_verb"))
            break
        if len(p.args) != len(p.spec.params):
            steps.append(StepOutcome(i, item, None, False, f"{p.spec.name} takes {len(p.spec.params)} argument(s), "
                                                           f"got {len(p.args)}", "arity"))
            break
        unknown = [a for a in p.args if world.resolve(a) is None]
        if unknown:
            steps.append(StepOutcome(i, item, None, False, f"<{unknown[0]}> is not in the environment",
                                     "unknown_entity"))
            break
        step = " ".join((actions.to_step(p, world.resolve), *world.step_suffix))
        r = ex.apply(step)
        steps.append(StepOutcome(i, item, step, r.ok, r.reason, "" if r.ok else "precondition"))
        if not r.ok:
            break
    env_after = world.environment(ex.facts)
    model_after = view.environment_after
    match = environments_equal(model_after, env_after) if model_after is not None else None
    done = {s.step for s in steps if s.ok}
    missing = []
    for item in required:
        p = actions.parse_item(item)
        want = " ".join((actions.to_step(p, world.resolve), *world.step_suffix)) if p.ok else item
        if want not in done:
            missing.append(item)
    return Judgement(tuple(items), tuple(steps), True, ex.facts, env_after, match, _goal(world, goal, ex.facts),
                     tuple(missing), bool(required))


def _goal(world: WakeWorld, goal: Optional[Formula], facts: frozenset[Atom]) -> Optional[GoalReport]:
    if goal is None:
        return None
    return evaluate_goal(goal, world.planning_task.domain, world.planning_task.problem, facts)


def env_fact_diff(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> tuple[int, int]:
    """(missing, extra) state counts of ``actual`` against ``expected``."""
    e, a = environment_facts(expected), environment_facts(actual)
    return len(e - a), len(a - e)


__all__ = ["WakeWorld", "lfo_world", "StepOutcome", "Judgement", "execute_answer", "LFO_PHRASES", "env_fact_diff"]
