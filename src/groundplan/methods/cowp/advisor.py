"""Where COWP's common sense comes from: an LLM asked COWP's prompts (``LLMAdvisor``), or
the project's acceptability table (``OracleAdvisor``, "COWP with an oracle LLM").

The questions are COWP's (paper Sec. 3.2, GPT-Planner's wording):

* plan monitor, prompt 1: is it suitable that [action] if [situation]?
* predicate generator (few-shot): the situation as a predicate, ``cup_is_dirty``;
* knowledge acquirer, prompt 2: is it suitable that [action with the other object]? - asked
  for every plan sentence that names the situation's object (not the ``find`` ones), an
  object is capable when every answer is yes;
* prompt 3: which of these objects is the most suitable to replace [object] in the task of
  [task] if [situation]?;
* and, as GPT-Planner also does, for appliances: can a [appliance] make [the opposite of
  the situation] if [situation]? and which appliance is the most possible to do it."""

from __future__ import annotations

import re
from typing import Optional, Protocol, Sequence

from groundplan.prompts.cowp import render

from .common import LLMCaller, words_in, yes_no
from .replay import rule_predicate
from .world import Observation, Trial, parse_step

_IDENT = re.compile(r"[a-z][a-z0-9_]*")


def _strip_dot(text: str) -> str:
    return text[:-1] if text.endswith(".") else text


class Advisor(Protocol):
    name: str

    def locate(self, obs: Observation, plan: Sequence[str]) -> Optional[str]: ...

    def suitable(self, sentence: str, step: str, obs: Observation) -> bool: ...

    def predicate(self, obs: Observation) -> str: ...

    def object_ok(self, sentences: Sequence[str], word: str, obs: Observation) -> bool: ...

    def pick_object(self, words: Sequence[str], role: str, obs: Observation) -> Optional[str]: ...

    def appliance_ok(self, word: str, obs: Observation) -> bool: ...

    def pick_appliance(self, words: Sequence[str], obs: Observation) -> Optional[str]: ...


def locate_by_word(trial: Trial, obs: Observation, plan: Sequence[str]) -> Optional[str]:
    """GPT-Planner's locate_object: the first object of the plan whose name contains the
    situation's object word ("cup" -> cup1); the robot for "robot"; None if no object does
    (the situation is about something the task does not model: power, water, a door)."""
    if obs.object == "robot":
        return trial.robot
    skip = set(trial.locations) | {trial.robot}
    seen: list[str] = []
    for step in plan:
        for a in parse_step(step)[1]:
            if a not in skip and a not in seen:
                seen.append(a)
    for a in seen:
        if trial.word(a) == obs.object:
            return a
    for a in seen:
        if obs.object in trial.word(a):
            return a
    return None


class LLMAdvisor:
    name = "llm"

    def __init__(self, trial: Trial, caller: LLMCaller):
        self.trial = trial
        self.caller = caller

    def locate(self, obs: Observation, plan: Sequence[str]) -> Optional[str]:
        return locate_by_word(self.trial, obs, plan)

    def suitable(self, sentence: str, step: str, obs: Observation) -> bool:
        prompt = render("monitor.txt", action=_strip_dot(sentence), situation=_strip_dot(obs.text))
        answer = self.caller.ask("plan monitor (prompt 1)", prompt)
        return yes_no(answer) is not False  # GPT-Planner: infeasible only when the answer says no

    def predicate(self, obs: Observation) -> str:
        answer = self.caller.ask("predicate generator", render("predicate.txt", situation=obs.text), max_tokens=20)
        m = _IDENT.search(answer.lower().replace(" ", "_"))
        pred = m.group(0).strip("_") if m else ""
        return pred if len(pred) >= 3 else rule_predicate(obs.text)

    def object_ok(self, sentences: Sequence[str], word: str, obs: Observation) -> bool:
        if not sentences:
            return False
        for s in sentences:
            answer = self.caller.ask("knowledge acquirer (prompt 2)", render("object_suitable.txt",
                                                                             sentence=_strip_dot(s)))
            if yes_no(answer) is not True:  # GPT-Planner's template_response: yes or nothing
                return False
        return True

    def pick_object(self, words: Sequence[str], role: str, obs: Observation) -> Optional[str]:
        prompt = render("object_choice.txt", objects=", ".join(words), role=role, task=self.trial.spec.phrase,
                        situation=_strip_dot(obs.text))
        return _first_named(self.caller.ask("knowledge acquirer (prompt 3)", prompt), words)

    def appliance_ok(self, word: str, obs: Observation) -> bool:
        prompt = render("appliance_suitable.txt", appliance=word, opposite=_strip_dot(obs.opposite),
                        situation=_strip_dot(obs.text))
        return yes_no(self.caller.ask("knowledge acquirer (appliance)", prompt)) is True

    def pick_appliance(self, words: Sequence[str], obs: Observation) -> Optional[str]:
        prompt = render("appliance_choice.txt", appliances=", ".join(words), opposite=_strip_dot(obs.opposite),
                        situation=_strip_dot(obs.text))
        return _first_named(self.caller.ask("knowledge acquirer (appliance choice)", prompt), words)


def _first_named(answer: str, words: Sequence[str]) -> Optional[str]:
    """GPT-Planner: the first candidate (in list order) the answer mentions."""
    a = answer.lower()
    return next((w for w in words if w in a), None)


class OracleAdvisor:
    """Answers from the acceptability table and the simulator's ground truth: the situation
    blocks exactly what the world blocks, an object is suitable iff the table accepts it in
    the disabled role, an appliance iff it is an accepted fixer."""

    name = "oracle"

    def __init__(self, trial: Trial):
        self.trial = trial

    def locate(self, obs: Observation, plan: Sequence[str]) -> Optional[str]:
        return obs.target

    def suitable(self, sentence: str, step: str, obs: Observation) -> bool:
        name, args = parse_step(step)
        blocked = (obs.target is not None and obs.target in args) or (obs.blocks_action and name == obs.action)
        return not blocked

    def predicate(self, obs: Observation) -> str:
        return rule_predicate(obs.text)

    def object_ok(self, sentences: Sequence[str], word: str, obs: Observation) -> bool:
        role = obs.situation.target
        return role is not None and not obs.blocks_action and word in self.trial.spec.accepted(role)

    def pick_object(self, words: Sequence[str], role: str, obs: Observation) -> Optional[str]:
        return words[0] if words else None

    def appliance_ok(self, word: str, obs: Observation) -> bool:
        return word in obs.situation.fixers

    def pick_appliance(self, words: Sequence[str], obs: Observation) -> Optional[str]:
        return words[0] if words else None


__all__ = ["Advisor", "LLMAdvisor", "OracleAdvisor", "locate_by_word", "words_in"]
