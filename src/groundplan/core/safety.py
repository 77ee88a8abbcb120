"""The safety check between goal and plan (issue 50): no goal and no step hands a person a
hazard to meet a need, nor gives a child any hazard, whatever the method and the LLM.

A *person* is an agent of kind ``human``; a *child* is one marked ``child: true`` in the
scene (or written ``kind: child``; ``world.scene.Agent.child``). A goal or step *gives*
something when it makes a person hold it (``inhand O P``, and the other holding predicates of
``GIVE_PREDICATES``); what is given includes what the thing holds (``liquid_in``, ``in``:
the bottle and the ethanol in it), in the goal or in the state. Hazards come from
``knowledge.hazards`` (curated classes, WordNet hypernyms, ``heat`` in the map).

Refused:

1. a child given any hazard: ``unsafe: marble0 is small enough to swallow; not for a child (baby0)``;
2. a person given a toxic, corrosive or flammable thing as food or drink (the instruction states
   a consumption need; without an instruction, the goal gives a thing typed ``drinkable`` or
   ``consumable``): ``unsafe: ethanol0 is flammable and toxic; not a drink``;
   and nothing small enough to swallow is food either (a knife to cut the bread, a kettle for the
   tea are no food themselves and are let through);
3. a person given any hazard to meet a stated comfort need (a cut, a burn, pain, cold, boredom,
   ...) that the instruction does not name by its class ("something for the cut on my finger"
   does not ask for the box cutter; "hand me the box cutter" does).

``check_goal`` and ``check_step`` return None when nothing is refused, else a
``SafetyResult`` whose ``reason`` is the verdict text (status ``UNSAFE``). The episode
template (methods/base.py) calls them before planning and before each executed step;
``--allow-unsafe`` skips them for experiments (docs/safety.md).

    res = check_goal("(inhand bottle0 human0)", pt, instruction="I'm thirsty")
    res.reason      # "unsafe: bottle0 holds ethanol0, which is flammable and toxic; not a drink"
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional, Sequence

from groundplan.knowledge.hazards import Hazard, hazard_of
from groundplan.pddl.formula import And, Atom, Formula, Literal, Not, Or, substitute
from groundplan.pddl.goal import parse_goal

#: the status / verdict kind of a refused unsafe goal or step
UNSAFE = "unsafe"
#: predicates that make their second argument (a person) hold their first (an object)
GIVE_PREDICATES = frozenset({"inhand", "holds", "holding", "has", "given", "holds_rh", "holds_lh"})
#: predicates that put their first argument inside their second (what a given thing holds)
CONTENT_PREDICATES = frozenset({"liquid_in", "in", "inside"})
#: substance hazards: never food or drink
SUBSTANCE_KINDS = frozenset({"toxic", "corrosive", "flammable"})

_DRINK_NEED = re.compile(r"\b(thirst\w*|drink\w*|parched|dehydrated|sip|beverage|quench)\b", re.I)
_EAT_NEED = re.compile(r"\b(hungry|hunger|starving|famished|eat\w*|snack\w*|food|feed\w*|breakfast|lunch|dinner|"
                       r"supper|meal|peckish)\b", re.I)
_COMFORT_NEED = re.compile(r"\b((a|the|my|this|that)\s+(small\s+|little\s+|bad\s+)?cut|cut\s+(my|myself|on|in)|bleed\w*|wound\w*|hurt\w*|injur\w*|burn(ed|t)?|sting\w*|pain\w*|ache\w*|"
                           r"headache|sore|((i.?m|i am|feel\w*|so|too|getting)\s+(cold|freezing|chilly))|shiver\w*|tired|sleep\w*|nap|bored|play|toy|calm|"
                           r"cry\w*|fever\w*|sick|itch\w*|comfort\w*|teeth\w*|teething|scrape\w*|graze\w*|bruise\w*)\b",
                           re.I)


@dataclass(frozen=True)
class SafetyResult:
    """A refused goal or step: who would be given what, the hazard, which rule, and the
    reason (the verdict text, ``unsafe: ...``)."""

    reason: str
    recipient: str
    given: str  # the object handed over
    hazardous: str  # the hazardous object: the given one or one it holds
    hazard: Hazard
    rule: str  # "child" | "consumption" | "need"
    status: str = UNSAFE

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "reason": self.reason, "recipient": self.recipient, "given": self.given,
                "hazardous": self.hazardous, "hazard": self.hazard.to_dict(), "rule": self.rule}


def stated_need(instruction: str | None) -> Optional[str]:
    """``"drink"``, ``"eat"`` or ``"comfort"`` when the instruction states such a need, else None."""
    if not instruction:
        return None
    if _DRINK_NEED.search(instruction):
        return "drink"
    if _EAT_NEED.search(instruction):
        return "eat"
    if _COMFORT_NEED.search(instruction):
        return "comfort"
    return None


def _positive_atoms(f: Formula) -> list[Atom]:
    """Atoms a goal asks to hold (under and / or / exists, not under not)."""
    if isinstance(f, Atom):
        return [f]
    if isinstance(f, Literal):
        return [f.atom] if f.positive else []
    if isinstance(f, Not):
        return []
    if isinstance(f, (And, Or)):
        return [a for p in f.args for a in _positive_atoms(p)]
    body = getattr(f, "body", None)
    return _positive_atoms(body) if body is not None else []


def _people(scene: Any) -> dict[str, Any]:
    return {a.name: a for a in getattr(scene, "agents", ()) if a.kind == "human"}


def _class_of(scene: Any, obj: str) -> str:
    o = scene.object(obj) if scene is not None and hasattr(scene, "object") else None
    return o.cls if o is not None else re.sub(r"_?\d+$", "", obj)


def _is_a(pt: Any, obj: str, affordance: str) -> bool:
    if pt is None:
        return False
    t = pt.problem.type_of(pt.domain, obj)
    return t is not None and affordance in pt.domain.types and pt.domain.types.is_subtype(t, affordance)


def _trusted(pt: Any, cls: str, affordance: str) -> bool:
    """Whether the class's affordance is known (the map) or inferred with confidence (a
    thermometer guessed to ``heat`` at 0.48 is not a hot appliance)."""
    from groundplan.knowledge.infer import LOW_CONFIDENCE

    inf = getattr(pt, "inference", {}).get(cls)
    return inf is None or not hasattr(inf, "confidence_of") or inf.confidence_of(affordance) >= LOW_CONFIDENCE


def _named(instruction: str | None, cls: str) -> bool:
    """Whether the instruction names the class ("the box cutter" for box_cutter)."""
    if not instruction:
        return False
    words = [w for w in re.split(r"[_\s\-]+", cls.lower()) if w]
    text = " ".join(re.findall(r"[a-z0-9]+", instruction.lower()))
    return bool(words) and re.search(r"\b" + r"\s*".join(map(re.escape, words)) + r"s?\b", text) is not None


def _judge(recipient: str, given: str, contents: Sequence[str], pt: Any, scene: Any,
           instruction: str | None) -> Optional[SafetyResult]:
    people = _people(scene)
    person = people.get(recipient)
    if person is None:
        return None
    need = stated_need(instruction)
    if instruction:  # the person's words say whether it is food or drink they need
        consumption = need in ("drink", "eat")
    else:  # no words: the goal treats what it gives as food or drink
        consumption = any(_is_a(pt, o, a) for o in (given, *contents) for a in ("drinkable", "consumable"))
    what = "a drink" if need == "drink" or (need is None and any(
        _is_a(pt, o, "drinkable") for o in (given, *contents))) else "food"
    for obj in (*contents, given):  # what is inside first: the ethanol, then its bottle
        cls = _class_of(scene, obj)
        affs = [a for a in ("heat",) if _is_a(pt, obj, a) and _trusted(pt, cls, a)]
        hz = hazard_of(cls, affs)
        if hz is None:
            continue
        inside = obj != given
        subject = f"{given} holds {obj}, which is" if inside else f"{obj} is"
        if getattr(person, "child", False):
            return SafetyResult(f"{UNSAFE}: {subject} {hz.describe()}; not for a child ({recipient})",
                                recipient, given, obj, hz, "child")
        if hz.child_only:  # a grown-up may have a beer or a painkiller
            continue
        if consumption and set(hz.kinds) & SUBSTANCE_KINDS:
            return SafetyResult(f"{UNSAFE}: {subject} {hz.describe()}; not {what}", recipient, given, obj, hz,
                                "consumption")
        if consumption and "swallowable" in hz.kinds:  # a coin or a battery is no food
            return SafetyResult(f"{UNSAFE}: {subject} {hz.describe()}; not {what}", recipient, given, obj, hz,
                                "consumption")
        if need == "comfort" and not _named(instruction, cls) and not (
                inside and _named(instruction, _class_of(scene, given)) and not set(hz.kinds) & SUBSTANCE_KINDS):
            return SafetyResult(f"{UNSAFE}: {subject} {hz.describe()}; not given to meet a need ({recipient})",
                                recipient, given, obj, hz, "need")
    return None


def _contents(obj: str, facts: Iterable[Atom], goal_atoms: Iterable[Atom] = ()) -> list[str]:
    """What ``obj`` holds (``liquid_in X obj``, ``in X obj``), in the goal first, then the state."""
    out: list[str] = []
    for a in (*goal_atoms, *facts):
        if a.predicate in CONTENT_PREDICATES and len(a.args) == 2 and a.args[1] == obj and a.args[0] not in out:
            out.append(a.args[0])
    return out


def _gifts(atoms: Iterable[Atom], people: Mapping[str, Any]) -> list[tuple[str, str]]:
    return [(a.args[1], a.args[0]) for a in atoms
            if a.predicate in GIVE_PREDICATES and len(a.args) == 2 and a.args[1] in people]


def check_goal(goal: Formula | str, planning_task: Any, scene: Any = None, *,
               instruction: str | None = None) -> Optional[SafetyResult]:
    """The first thing the goal gives a person that it must not, or None (safe, or nothing
    given). ``goal``: a formula or PDDL text; ``planning_task``: the task the goal is for
    (its types say what is drinkable; its initial state what a thing holds); ``scene``: the
    scene (default: the task's); ``instruction``: the user's words, when known (a need stated
    there is judged; a class named there was asked for)."""
    f = parse_goal(goal) if isinstance(goal, str) else goal
    sc = scene if scene is not None else getattr(planning_task, "scene", None)
    atoms = _positive_atoms(f)
    init = planning_task.problem.init if planning_task is not None else frozenset()
    for person, obj in _gifts(atoms, _people(sc)):
        res = _judge(person, obj, _contents(obj, init, atoms), planning_task, sc, instruction)
        if res is not None:
            return res
    return None


def check_step(action: str | Sequence[str], planning_task: Any, state: Iterable[Atom] | None = None, *,
               instruction: str | None = None) -> Optional[SafetyResult]:
    """The step's refusal, or None. ``action``: ``"handover human0 bottle0 robot0"`` (or its
    tokens); ``state``: the facts before the step (default: the task's initial state). A step
    gives what its action's effects make a person hold."""
    toks = action.replace("(", " ").replace(")", " ").split() if isinstance(action, str) else list(action)
    if not toks or planning_task is None:
        return None
    act = planning_task.domain.action_map.get(toks[0].lower())
    if act is None or len(act.parameters) != len(toks) - 1:
        return None
    binding = dict(zip((p.name for p in act.parameters), (t.lower() for t in toks[1:])))
    added = [substitute(e.atom, binding) for e in act.effects if isinstance(e, Literal) and e.positive]
    facts = frozenset(planning_task.problem.init if state is None else state)
    sc = getattr(planning_task, "scene", None)
    for person, obj in _gifts([a for a in added if isinstance(a, Atom)], _people(sc)):
        res = _judge(person, obj, _contents(obj, facts), planning_task, sc, instruction)
        if res is not None:
            return res
    return None


def check_plan(plan: Sequence[str], planning_task: Any, *, instruction: str | None = None) -> Optional[SafetyResult]:
    """``check_step`` on each step of a plan, the state advanced by the executor; the first
    refusal, or None."""
    from groundplan.sim.executor import Executor

    ex = Executor(planning_task.domain, planning_task.problem)
    for step in plan:
        res = check_step(step, planning_task, ex.facts, instruction=instruction)
        if res is not None:
            return res
        if not ex.apply(step).ok:
            break
    return None


__all__ = ["UNSAFE", "SafetyResult", "check_goal", "check_step", "check_plan", "stated_need", "GIVE_PREDICATES"]
