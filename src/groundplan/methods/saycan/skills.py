"""SayCan's skills on groundplan's substrate: every ground action of the skill set the robot
could take in the scene, with its text description, and its affordance value in the current
state (the executor's precondition check: 1 if it can be done now, else 0).

The candidate set is bounded: parameters range over the scene objects of their types (the
skill set's type hierarchy, AutoGPT+P's affordance types for ``household``), the actor is the
robot, and only actions whose precondition holds in the current state are kept (affordance 0
makes the product 0, so those are never scored)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional, Sequence

from groundplan.errors import ConfigError
from groundplan.pddl.formula import Atom, substitute
from groundplan.pddl.state import Evaluator
from groundplan.prompts.saycan import skill_texts
from groundplan.sim.executor import Executor
from groundplan.skills.builder import PlanningTask

#: ground actions tried per schema at most (a schema with more combinations is cut, in a
#: fixed order; the household skill set on SayCan's kitchens stays far below it)
MAX_COMBINATIONS = 20_000

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


@dataclass(frozen=True)
class Skill:
    """One ground skill: the executor's step text and SayCan's description of it."""

    step: str
    text: str


class Namer:
    """Objects in words: the class name with spaces ("grapefruit soda"), an ordinal when the
    scene has several of a class ("first counter", by index), "you" for a person; a task's
    own names (``extras['saycan_names']``) override."""

    def __init__(self, objects: Mapping[str, str], persons: Iterable[str], overrides: Optional[Mapping[str, str]] = None):
        self.persons = frozenset(persons)
        self.overrides = dict(overrides or {})
        by_class: dict[str, list[str]] = {}
        for name, cls in objects.items():
            by_class.setdefault(cls, []).append(name)
        self._ordinal: dict[str, str] = {}
        for names in by_class.values():
            if len(names) > 1:
                for i, n in enumerate(sorted(names, key=_index_key)):
                    if i < len(ORDINALS):
                        self._ordinal[n] = ORDINALS[i]
        self.objects = dict(objects)

    def word(self, name: str) -> str:
        if name in self.overrides:
            return self.overrides[name]
        if name in self.persons:
            return "you"
        cls = self.objects.get(name, name.rstrip("0123456789") or name).replace("_", " ")
        ordinal = self._ordinal.get(name)
        return f"{ordinal} {cls}" if ordinal else cls


def _index_key(name: str) -> tuple[int, str]:
    digits = name[len(name.rstrip("0123456789")):]
    return (int(digits) if digits else -1, name)


class Describer:
    """Ground action -> text, from ``prompts/saycan/skills.yaml`` for the skill set."""

    def __init__(self, skillset: str, namer: Namer):
        data = skill_texts()
        self.done = str(data.get("done", "done"))
        self.templates: Mapping[str, Any] = data.get(skillset) or {}
        self.namer = namer

    def text(self, action: str, params: Sequence[str], args: Sequence[str], holding: bool) -> str:
        tmpl = self.templates.get(action, self.templates.get("_default"))
        if isinstance(tmpl, list):
            tmpl = next((v["text"] for v in tmpl if self._holds(v.get("when") or [], params, args, holding)), None)
        words = {p: self.namer.word(a) for p, a in zip(params, args)}
        if not tmpl:
            tmpl = "{action} {args}"
        return tmpl.format(action=action.replace("_", " "), args=" ".join(words.values()), **words)

    def _holds(self, conds: Sequence[str], params: Sequence[str], args: Sequence[str], holding: bool) -> bool:
        binding = dict(zip(params, args))
        for c in conds:
            kind, _, rest = c.partition(":")
            if kind == "holding":
                ok = holding
            elif kind == "to_person":
                ok = binding.get(rest) in self.namer.persons
            elif kind == "same":
                a, _, b = rest.partition(":")
                ok = binding.get(a) is not None and binding.get(a) == binding.get(b)
            else:
                raise ConfigError(f"prompts/saycan/skills.yaml: unknown condition '{c}' "
                                  "(known: holding, to_person:PARAM, same:PARAM:PARAM)")
            if not ok:
                return False
        return True


class SkillSpace:
    """The ground skills of one planning task for one robot, and which are afforded now."""

    def __init__(self, pt: PlanningTask, robot: str, persons: Iterable[str],
                 names: Optional[Mapping[str, str]] = None):
        self.pt = pt
        self.robot = robot
        self.namer = Namer(pt.problem.objects, persons, names)
        self.describer = Describer(pt.skillset.name, self.namer)
        self._schemas = [(a, [p for p in a.parameters]) for a in pt.domain.actions]

    def afforded(self, executor: Executor) -> list[Skill]:
        """Every ground action whose precondition holds in the executor's state, described."""
        ev = Evaluator(self.pt.domain, self.pt.problem, executor.facts)
        holding = any(isinstance(f, Atom) and f.predicate == "inhand" and f.args[-1] == self.robot
                      for f in executor.facts)
        out: list[Skill] = []
        seen: set[str] = set()
        for act, params in self._schemas:
            domains = []
            for p in params:
                if p.name == "?actor":
                    objs = [self.robot] if self.robot in ev.objects_of_type(p.type) else []
                else:
                    objs = sorted(ev.objects_of_type(p.type))
                domains.append(objs)
            if any(not d for d in domains):
                continue
            names = [p.name for p in params]
            for combo in itertools.islice(itertools.product(*domains), MAX_COMBINATIONS):
                # the precondition on the current state (the executor's own test, without
                # its failure explanation: combinations are type-correct by construction)
                if not ev.holds(substitute(act.precondition, dict(zip(names, combo)))):
                    continue
                step = " ".join((act.name, *combo))
                shown = [(p.name.lstrip("?"), a) for p, a in zip(params, combo) if p.name != "?actor"]
                text = self.describer.text(act.name, [s for s, _ in shown], [a for _, a in shown], holding)
                if text in seen:  # two ground actions read the same: SayCan sees one skill
                    continue
                seen.add(text)
                out.append(Skill(step, text))
        return out


__all__ = ["Skill", "Namer", "Describer", "SkillSpace", "MAX_COMBINATIONS"]
