"""The automatic feedback system of Wake et al. (Sec. III-C): it stands in for a user who
knows task planning. Every answer is checked; when something is wrong one message goes
back to the model, and the rounds until the answer is executable and correct are counted
(Table III).

The checks, in order:

1. the answer is not a readable dictionary (or the model only asked a question);
2. a step fails in the executor - with the two failure patterns the paper names spelled
   out: the wrong verb for the target (Put onto a container with a door that needs PutIn,
   PutIn into something that cannot be opened) and an omitted step (putting something into
   a closed container without opening it first);
3. the plan ran but the instruction is not done: omitted steps again (a container opened
   and not closed, a switch not turned on, turned on before the object was put inside),
   then the goal conditions that do not hold;
4. the answer breaks a rule of the instruction template (an LfO sequence not starting with
   move_hand or not ending with release_object; unequal list lengths or a malformed
   environment only while no goal confirms the plan: once the plan runs and the instruction
   is done, the sequence counts as successful, as in Table III).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Optional, Sequence

from groundplan.methods.wake_prompts.judge import Judgement, WakeWorld
from groundplan.methods.wake_prompts.prompts import feedback_templates
from groundplan.methods.wake_prompts.session import Answer
from groundplan.world.wake_actions import ActionSet, ParsedItem
from groundplan.world.wake_env import display_name


@dataclass(frozen=True)
class Feedback:
    kind: str  # which check fired (a key of feedback.yaml)
    text: str  # the message sent to the model (prefix included)


@dataclass(frozen=True)
class Affordances:
    """What the checks need to know about entities (scene names): whether they open, hold
    things inside, have a switch; and whether a state fact holds."""

    openable: Callable[[str], bool]
    container: Callable[[str], bool]
    switchable: Callable[[str], bool]
    is_on: Callable[[str, frozenset], bool] = lambda name, facts: False
    is_open: Callable[[str, frozenset], bool] = lambda name, facts: False


def no_affordances() -> Affordances:
    return Affordances(lambda n: False, lambda n: False, lambda n: False)


class AutoFeedback:
    def __init__(self, world: WakeWorld, actions: ActionSet, affordances: Optional[Affordances] = None,
                 templates: Optional[Mapping[str, str]] = None):
        self.world = world
        self.actions = actions
        self.aff = affordances or no_affordances()
        self.t = dict(templates or feedback_templates())

    def _msg(self, kind: str, **slots: str) -> Feedback:
        body = self.t[kind].format(**slots)
        return Feedback(kind, f"{self.t['prefix']} {body}")

    def _d(self, name: str) -> str:
        return display_name(self.world.written(name))

    # ------------------------------------------------------------------ entry point

    def check(self, answer: Answer, judgement: Judgement) -> Optional[Feedback]:
        """The message for this answer, or None when it is executable and correct and
        breaks no rule."""
        if answer.data is None:
            return self._msg("invalid_answer", problem=answer.problems[0] if answer.problems else "unreadable")
        items = [self.actions.parse_item(i) for i in judgement.items]
        if not items:
            if answer.question:
                return self._msg("question")
            return self._msg("invalid_answer", problem='"task_sequence" is empty')
        failed = judgement.failed
        if failed is not None:
            return self._failed(items, failed.index, failed.reason, failed.kind)
        if judgement.correct is False:
            return self._incorrect(items, judgement)
        return self._rules(answer, items, judgement)

    # ------------------------------------------------------------------ executor failures

    def _resolve(self, p: ParsedItem) -> list[str]:
        return [self.world.resolve(a) or a for a in p.args]

    def _failed(self, items: Sequence[ParsedItem], index: int, reason: str, kind: str) -> Feedback:
        p = items[index]
        if kind == "unknown_verb":
            return self._msg("unknown_verb", item=p.text)
        if kind == "unknown_entity":
            bad = next((a for a in p.args if self.world.resolve(a) is None), "")
            return self._msg("unknown_entity", item=p.text, entity=f"<{bad}>")
        name = p.spec.name.lower() if p.spec else ""
        args = self._resolve(p)
        if name == "put" and len(args) == 2 and self.aff.openable(args[1]) and self.aff.container(args[1]):
            return self._msg("put_into_container", object=self._d(args[0]), target=self._d(args[1]))
        if name == "open" and args and any(q.spec and q.spec.name.lower() == "switchon" and self._resolve(q)[:1] == args[:1]
                                           for q in items[:index]):
            return self._msg("switch_after_putin", object="the object", target=self._d(args[0]))
        if name == "putin" and len(args) == 2:
            if not self.aff.openable(args[1]):
                return self._msg("putin_not_container", object=self._d(args[0]), target=self._d(args[1]))
            opened_before = any(q.spec and q.spec.name.lower() == "open" and self._resolve(q)[:1] == [args[1]]
                                for q in items[:index])
            if not opened_before:
                return self._msg("open_before_putin", object=self._d(args[0]), target=self._d(args[1]))
        return self._msg("step_failed", item=p.text, reason=reason)

    # ------------------------------------------------------------------ plan ran, goal not reached

    def _incorrect(self, items: Sequence[ParsedItem], j: Judgement) -> Feedback:
        names = [(q.spec.name.lower() if q.spec else "", self._resolve(q)) for q in items]
        for i, (name, args) in enumerate(names):
            if name == "put" and len(args) == 2 and self.aff.openable(args[1]) and self.aff.container(args[1]):
                return self._msg("put_into_container", object=self._d(args[0]), target=self._d(args[1]))
            if name == "putin" and len(args) == 2 and not self.aff.openable(args[1]) \
                    and any(lit.startswith(f"(on {args[0]} ") for lit in (j.goal.unsatisfied if j.goal else ())):
                return self._msg("putin_not_container", object=self._d(args[0]), target=self._d(args[1]))
            if name == "putin" and len(args) == 2:
                target = args[1]
                later = names[i + 1:]
                if self.aff.openable(target) and not any(n == "close" and a[:1] == [target] for n, a in later):
                    return self._msg("close_after_putin", object=self._d(args[0]), target=self._d(target))
                if self.aff.switchable(target):
                    before = names[:i]
                    if any(n == "switchon" and a[:1] == [target] for n, a in before):
                        return self._msg("switch_after_putin", object=self._d(args[0]), target=self._d(target))
                    if not any(n == "switchon" and a[:1] == [target] for n, a in later) \
                            and not self.aff.is_on(target, j.facts):
                        return self._msg("switch_on_missing", target=self._d(target))
        goal = j.goal
        if j.missing_actions and (goal is None or goal.success):
            return self._msg("required_action", item=j.missing_actions[0])
        if goal is not None and goal.unsatisfied:
            missing = ", ".join(self.world.words(lit) for lit in goal.unsatisfied[:3])
            return self._msg("goal_missing", missing=_negate(missing))
        return self._msg("goal_missing", missing="the instruction is not done")

    # ------------------------------------------------------------------ template rules

    def _rules(self, answer: Answer, items: Sequence[ParsedItem], judgement: Judgement) -> Optional[Feedback]:
        if self.actions.name == "lfo":
            if items[0].spec is None or items[0].spec.name != "move_hand":
                return self._msg("first_move_hand")
            if items[-1].spec is None or items[-1].spec.name != "release_object":
                obj = answer.view.object_name or (f"<{items[-1].args[0]}>" if items[-1].args else "the object")
                return self._msg("release_missing", object=obj)
        # Table III counts rounds "to reach a successful sequence": once the plan runs and the
        # instruction is done (a goal was checked), a slip in the rest of the dictionary (an
        # environment_after state the format does not define) is not sent back as feedback.
        rest = [] if judgement.correct else list(answer.problems)
        if rest:
            return self._msg("invalid_answer", problem=rest[0])
        return None


def _negate(words: str) -> str:
    """Unsatisfied goal literals read as what is *not* the case: "<juice> is on ..." ->
    "<juice> is not on ..." (and "is not" -> "is", for a negative literal left unmet)."""
    parts = []
    for w in words.split(", "):
        if " is not " in w:
            parts.append(w.replace(" is not ", " is still ", 1))
        elif " is " in w:
            parts.append(w.replace(" is ", " is not ", 1))
        else:
            parts.append(f"not {w}")
    return ", ".join(parts)


__all__ = ["Feedback", "Affordances", "AutoFeedback", "no_affordances"]
