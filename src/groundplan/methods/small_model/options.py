"""goalsearch's options, grouped by stage: the few numbers and switches an experiment turns.

The language constructions and cues are rules (``rules.py``, switched on and off by name); the
scoring weights are one ``Weights`` record."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, make_dataclass, replace
from typing import Any

from groundplan.errors import ConfigError, did_you_mean
from groundplan.methods.small_model.rules import DEFAULT_ON, RULES


@dataclass(frozen=True)
class Weights:
    """The scoring stage's weights: what each cue adds to an atom's score."""

    #: : a class-use phrase's similarity counts ``w_class_uses`` of a name phrase's (a class the file lacks has only its name: "I need the thermometer"); and a class the file lacks gets no uses of the nearest class name (a wrench is no screw), only of its head noun
    class_uses: float = 0.9
    #: for atoms already true in the scene
    holds_penalty: float = 0.02
    #: weight of word overlap between the instruction and the words naming the atom's arguments (ordinals and names MiniLM blurs: "second counter" vs "first counter")
    lex: float = 0.1
    #: (w_pool)
    pool: float = 0.3
    #: weight of the whole instruction's score when a clause picks its atom ("... and then throw away the banana": the clause decides, the rest of the sentence breaks ties)
    clause_context: float = 0.5
    #: bonus for atoms about the objects the instruction names (with ordinals: "the second plate")
    mention: float = 0.1
    #: (w_state)
    state: float = 0.5
    #: (w_need)
    need: float = 0.15
    #: (w_need_mode)
    need_mode: float = 0.3
    #: (w_dest)
    dest: float = 0.15
    #: weight of an atom's second-best phrase similarity (ties of shared phrases; ); 0 disables
    second: float = 0.02
    #: what an atom's closeness to the plain need loses against its closeness to the words said (0.1: of 0, 0.05 and 0.1 on 15 paraphrase-sensitive instructions of the seen sets a-e)
    paraphrase_margin: float = 0.1
    #: (w_clause_object)
    clause_object: float = 0.3
    #: what handing over an object a need statement names only as context loses besides its mention bonus
    context: float = 0.3
    #: (w_disposal)
    disposal: float = 0.3
    #: (w_spill)
    spill: float = 0.3
    #: (w_left_out)
    left_out: float = 0.4
    #: (w_need_state)
    need_state: float = 0.3
    #: an atom that holds in the scene already ("the keyboard is miles away on the desk": not that it stays on the desk) loses this much (0: off)
    holds: float = 0.1
    #: "hand me two of the bowls", "pass me the tape": a giving verb with "me" as its first object makes the person's hand-overs gain this much (0: off)
    hand_me: float = 0.1


#: old names of the weights (``w_dest``), accepted by ``SearchOptions.of`` and ``--set``
WEIGHT_ALIASES: dict[str, str] = {'w_class_uses': 'class_uses', 'holds_penalty': 'holds_penalty', 'w_lex': 'lex', 'w_pool': 'pool', 'w_clause_context': 'clause_context', 'w_mention': 'mention', 'w_state': 'state', 'w_need': 'need', 'w_need_mode': 'need_mode', 'w_dest': 'dest', 'w_second': 'second', 'paraphrase_margin': 'paraphrase_margin', 'w_clause_object': 'clause_object', 'w_context': 'context', 'w_disposal': 'disposal', 'w_spill': 'spill', 'w_left_out': 'left_out', 'w_need_state': 'need_state', 'w_holds': 'holds', 'w_hand_me': 'hand_me'}


@dataclass(frozen=True)
class SearchOptions:
    """goalsearch's options (every one can be set with ``--set NAME=VALUE``)."""

    # -- score
    embeddings: bool = True  # MiniLM similarity of atom phrases to the instruction
    retrieval: bool = True  # frame prior from the nearest pool examples (and few-shot context for the LM)
    k_examples: int = 8  # retrieved examples for the frame prior
    temperature: float = 0.1  # softmax temperature over example similarities
    sense_template: str = "{}"  # sense_template
    hypernym_depth: int = 3  # hypernym_depth
    # -- structure
    decomposition: bool = True  # clauses, number words, "all ..."
    max_goals: int = 6  # ranked goals returned (self-correction tries them in order)
    # -- language model
    lm_scoring: bool = False  # rerank the best goals by LM log-probability; off by default since issue 21's ablation (on generated tuning data the SmolLM2 rerank never fixed a goal the structure got wrong, and it made one wrong, at several times the time per instruction)
    lm_top: int = 3  # goals the LM reranks
    lm_margin: float = 0.12  # ask the LM only when the best two goals are closer than this (a cascade: confident structure-and-embedding answers skip the model); 0 disables the cascade
    w_lm: float = 0.15  # w_lm
    k_shots: int = 3  # of which in the LM prompt
    # -- rules and weights
    rules: frozenset[str] = DEFAULT_ON  # the rules switched on (rules.py)
    weights: Weights = field(default_factory=Weights)  # the scoring weights

    def __post_init__(self) -> None:
        unknown = sorted(set(self.rules) - set(RULES))
        if unknown:
            raise ValueError(f"unknown goalsearch rule {unknown[0]!r}{did_you_mean(unknown[0], RULES)}")
        object.__setattr__(self, "rules", frozenset(self.rules))

    def rule(self, name: str) -> bool:
        """Whether rule ``name`` is on (a name ``RULES`` lacks is a programming error)."""
        if name not in RULES:
            raise KeyError(f"unknown goalsearch rule {name!r}{did_you_mean(name, RULES)}")
        return name in self.rules

    def without(self, *names: str) -> "SearchOptions":
        """These options with the rules ``names`` switched off."""
        return replace(self, rules=self.rules - set(names))

    @classmethod
    def of(cls, *, owner: str = "goalsearch", **values: Any) -> "SearchOptions":
        """Options from flat names, as ``--set`` gives them: an option (``max_goals=4``), a rule
        (``spills=False``) or a weight by its ``w_`` name (``w_dest=0.2``). Every key and value is
        checked (``core.config.config_from``: ConfigError naming the key, with a did-you-mean)."""
        from groundplan.core.config import config_from

        own = {f.name for f in fields(cls)}
        unknown = [k for k in values if k not in own and k not in RULES and k not in WEIGHT_ALIASES]
        if unknown:
            raise ConfigError(f"{owner}: unknown setting {unknown[0]!r}{did_you_mean(unknown[0], known_names())}")
        base = config_from(cls, {k: v for k, v in values.items() if k in own}, owner=owner)
        switches = config_from(_RULE_SWITCHES, {k: v for k, v in values.items() if k in RULES}, owner=owner)
        weights = config_from(Weights, {WEIGHT_ALIASES[k]: v for k, v in values.items() if k in WEIGHT_ALIASES},
                              owner=owner, base=base.weights)
        rules = base.rules if "rules" in values else frozenset(
            n for n in RULES if (getattr(switches, n) if n in values else n in base.rules))
        return replace(base, rules=rules, weights=weights)


#: every rule as a boolean setting (the type check and did-you-mean of ``config_from``)
_RULE_SWITCHES = make_dataclass("RuleSwitches", [(n, bool, field(default=r.on)) for n, r in RULES.items()],
                                frozen=True)


def known_names() -> list[str]:
    """Every flat name ``SearchOptions.of`` accepts."""
    own = [f.name for f in fields(SearchOptions) if f.name not in ("rules", "weights")]
    return sorted([*own, *RULES, *WEIGHT_ALIASES])
