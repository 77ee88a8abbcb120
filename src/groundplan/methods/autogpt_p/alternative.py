"""The Suggest Alternative tool (AutoGPT+P Sec. IV-C, Alg. 2) and the paper's naive baseline.

Alg. 2: ask which affordances of the missing class the task needs; keep the scene's classes
that have all of them; take the rarest of those affordances in the scene; ask which kept
class replaces the missing one best for that affordance. Fallback (no class has them all, the
answer is not a kept class, or the affordance answer names none): ask directly, without
affordances. The naive baseline only asks directly."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from groundplan.knowledge.affordances import catalogue
from groundplan.knowledge.oam import OAM
from groundplan.llm.types import Message
from groundplan.methods.autogpt_p.dialogue import (
    Dialogue,
    affordance_list_grammar,
    object_grammar,
    parse_list,
    parse_object,
)
from groundplan.methods.autogpt_p.prompting import affordances_prompt, direct_object_prompt, object_prompt


@dataclass(frozen=True)
class AlternativeResult:
    alternative: Optional[str]
    #: how it was found: affordance | single (one class has the affordances; no question) |
    #: direct (fallback) | naive
    path: str
    relevant: tuple[str, ...] = ()
    rarest: Optional[str] = None
    candidates: tuple[str, ...] = ()


def _descriptions() -> dict[str, str]:
    return {a.name: a.description for a in catalogue()}


def rarest_affordance(affordances: Sequence[str], classes: Sequence[str], oam: OAM) -> str:
    """The affordance the fewest scene classes have (first on ties)."""
    return min(affordances, key=lambda a: sum(1 for c in classes if a in oam.affordances(c)))


def ask_for_object_direct(dialogue: Dialogue, missing: str, classes: Sequence[str], request: str) -> Optional[str]:
    answer = dialogue.ask("alternative_direct", [Message("user", direct_object_prompt(missing, request, classes))],
                          grammar=object_grammar(classes), max_tokens=200)
    return parse_object(answer)


def alternative_suggestion(dialogue: Dialogue, missing: str, classes: Sequence[str], request: str,
                           oam: OAM) -> AlternativeResult:
    """Algorithm 2."""
    desc = _descriptions()
    aff_m = [a for a in sorted(oam.affordances(missing), key=lambda a: list(desc).index(a) if a in desc else 99)]
    prompt = affordances_prompt(missing, request, [(a, desc.get(a, a)) for a in aff_m])
    answer = dialogue.ask("alternative_affordances", [Message("user", prompt)],
                          grammar=affordance_list_grammar(aff_m or ["grasp"]), max_tokens=300)
    relevant = tuple(dict.fromkeys(a for a in parse_list(answer) if a in aff_m))
    filtered = tuple(c for c in classes if relevant and set(relevant) <= oam.affordances(c))
    if not filtered:
        return AlternativeResult(ask_for_object_direct(dialogue, missing, classes, request), "direct", relevant)
    if len(filtered) == 1:
        return AlternativeResult(filtered[0], "single", relevant, None, filtered)
    best = rarest_affordance(relevant, classes, oam)
    answer = dialogue.ask("alternative_object", [Message("user", object_prompt(missing, best, filtered))],
                          grammar=object_grammar(filtered), max_tokens=200)
    alt = parse_object(answer)
    if alt not in filtered:
        return AlternativeResult(ask_for_object_direct(dialogue, missing, classes, request), "direct", relevant,
                                 best, filtered)
    return AlternativeResult(alt, "affordance", relevant, best, filtered)


def naive_alternative(dialogue: Dialogue, missing: str, classes: Sequence[str], request: str) -> AlternativeResult:
    """The paper's baseline: which scene object replaces the missing one best, no reasoning."""
    return AlternativeResult(ask_for_object_direct(dialogue, missing, classes, request), "naive")


__all__ = ["AlternativeResult", "alternative_suggestion", "naive_alternative", "rarest_affordance",
           "ask_for_object_direct"]
