"""BrainBody-LLM in a household scene (the ``household`` skill set): the environment behind
``make_env`` for the user's own scenes (``groundplan run --method brainbody``).

The Body writes a command in the tabletop form, ``<robot0> [grasp] <apple0>``: the action and
the objects the step is about. The environment grounds it to the skill set's full action
(``grasp apple0 counter0 counter0 robot0``): the named objects fill the action's parameters in
order, the robot its actor, and the remaining parameters (where the object is, ...) are the
ones whose precondition holds now. When no such grounding holds, the executor's reason for a
type-correct one is the feedback the Brain replans from ("cannot grasp apple0: robot0 is at
table0, ..."). The final state is scored on the task's check goal.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any, Optional

from groundplan.core.task import Task
from groundplan.errors import GroundplanError
from groundplan.prompts.brainbody import load_text

#: at most this many ground candidates are tried for one command
MAX_GROUNDINGS = 5000
#: at most this many failing groundings are compared for the feedback message
EXPLAIN_AT_MOST = 400


@dataclass(frozen=True)
class _Outcome:
    ok: bool
    message: str = ""
    command: str = ""


def parse_command(command: str) -> Optional[tuple[str, list[str]]]:
    """``<robot0> [grasp] <apple0>`` -> ("grasp", ["apple0"]); a bare plan step
    ``grasp apple0 counter0 counter0 robot0`` is read too. None when it is neither."""
    text = command.strip().strip("`").strip().splitlines()[0] if command.strip() else ""
    m = re.search(r"\[([^\[\]]+)\]((?:\s*<[^<>]+>)*)", text)
    if m:
        return m.group(1).strip().lower().replace(" ", "_"), [a.strip() for a in re.findall(r"<([^<>]+)>", m.group(2))]
    words = re.findall(r"[A-Za-z_][\w-]*", text)
    return (words[0].lower(), words[1:]) if words else None


class HouseholdEnv:
    """One BrainBody episode in a groundplan scene with the household skill set."""

    def __init__(self, task: Task):
        from groundplan.sim.executor import Executor
        from groundplan.sim.pipeline import build

        if not task.goal:
            raise GroundplanError("brainbody in a household scene needs a check goal to score (--check GOAL)")
        self.task = task
        self.pt = build(task.scene_file, skillset=task.skillset, oam_file=task.oam_file, strict=False)
        robots = [a.name for a in self.pt.scene.agents if a.kind == "robot"]
        if not robots:
            raise GroundplanError(f"{task.scene_file}: the scene has no robot agent to act")
        self.robot = robots[0]
        self.agent = f"the household robot {self.robot}"
        self.executor = Executor(self.pt.domain, self.pt.problem)
        self.actions = tuple(a.name for a in self.pt.domain.actions)
        self._schemas = {a.name: a for a in self.pt.domain.actions}

    # -- prompts
    def object_list(self) -> list[str]:
        return sorted(o for o in self.pt.problem.objects if o != self.robot)

    def environment_info(self, task: str = "", limit: int = 60) -> str:
        facts = sorted((f for f in self.executor.facts if getattr(f, "args", None)), key=str)
        triplets = [f"({f.args[0]}, {f.predicate}, {', '.join(f.args[1:])})" if len(f.args) > 1
                    else f"({f.args[0]}, {f.predicate})" for f in facts if f.predicate not in ("visited",)]
        return ", ".join(triplets[:limit])

    def prompt_spec(self) -> dict[str, Any]:
        return {"planning_examples": load_text("household_planning_examples.txt"),
                "feedback_examples": load_text("household_feedback_examples.txt"),
                "execution_examples": load_text("household_execution_examples.txt"),
                "program_examples": load_text("household_program_examples.txt"),
                "syntax": f"<{self.robot}> [action] <object> <object>",
                "render": lambda a, objs: f"<{self.robot}> [{a}]" + "".join(f" <{o}>" for o in objs)}

    # -- acting
    def _groundings(self, action: str, named: list[str]) -> list[str]:
        """Type-correct ground steps of ``action`` in which every named object fills a
        parameter (each assignment of them to parameters their types fit), the robot the
        actor, and the other parameters any object of their type."""
        from groundplan.pddl.state import Evaluator

        params = self._schemas[action].parameters
        ev = Evaluator(self.pt.domain, self.pt.problem, self.executor.facts)
        typed = [set(ev.objects_of_type(p.type)) for p in params]
        objs = [n for n in named if n != self.robot]
        free = [i for i, p in enumerate(params) if p.name != "?actor"]
        out: list[str] = []
        seen: set[str] = set()
        for slots in itertools.permutations(free, len(objs)):
            if not all(o in typed[i] for o, i in zip(objs, slots)):
                continue
            fixed = dict(zip(slots, objs))
            domains = [[self.robot] if p.name == "?actor" else
                       [fixed[i]] if i in fixed else sorted(typed[i])
                       for i, p in enumerate(params)]
            if params and params[-1].name == "?actor" and self.robot not in typed[-1]:
                return []
            for combo in itertools.product(*domains):
                step = " ".join((action, *combo))
                if step not in seen:
                    seen.add(step)
                    out.append(step)
                if len(out) >= MAX_GROUNDINGS:
                    return out
        return out

    def execute(self, command: str) -> _Outcome:
        parsed = parse_command(command)
        if parsed is None:
            return _Outcome(False, f"cannot read the command '{command.strip()[:60]}'", command.strip())
        action, named = parsed
        if action not in self._schemas:
            return _Outcome(False, f"there is no action '{action}' (actions: {', '.join(self.actions)})",
                            command.strip())
        unknown = [n for n in named if n not in self.pt.problem.objects]
        if unknown:
            return _Outcome(False, f"there is no object '{unknown[0]}' in the scene", command.strip())
        candidates = self._groundings(action, named)
        if not candidates:
            return _Outcome(False, f"{action} does not take {', '.join(named) or 'no objects'}", command.strip())
        for step in candidates:
            if self.executor.check(step).ok:
                r = self.executor.apply(step)
                return _Outcome(True, "", r.step)
        # the feedback: why the grounding closest to the current state fails - the fewest
        # unmet preconditions, then the arguments the state relates most to the named objects
        # (coke0 -> fridge0, where it is)
        checked = [(c, self.executor.check(c).reason or "") for c in candidates[:EXPLAIN_AT_MOST]]
        step, reason = min(checked, key=lambda cr: (_unmet(cr[1]), -self._relatedness(cr[0].split()[1:], named)))
        return _Outcome(False, reason or f"{action} is not possible now", step)

    def _relatedness(self, args: list[str], named: list[str]) -> int:
        related = [set(f.args) for f in self.executor.facts if set(getattr(f, "args", ())) & set(named)]
        return sum(1 for a in args if a != self.robot for r in related if a in r)

    # -- scoring
    def score(self):
        from groundplan.methods.brainbody.envs import Score
        from groundplan.pddl.goal import parse_goal
        from groundplan.pddl.state import evaluate_goal

        rep = evaluate_goal(parse_goal(self.task.goal or ""), self.pt.domain, self.pt.problem, self.executor.facts)
        return Score(rep.success, rep.gcr, {"unsatisfied": [str(u) for u in rep.unsatisfied]})


def _unmet(reason: str) -> int:
    """How many preconditions an executor message says are unmet ("needs A and B; but ...")."""
    needs = reason.split("needs", 1)[-1].split(";", 1)[0]
    return needs.count(" and ") + 1


__all__ = ["HouseholdEnv", "parse_command"]
