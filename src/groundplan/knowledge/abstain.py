"""Answer or abstain: does the scene hold what a request names or needs?

A robot that silently hands over a screwdriver when asked for a wrench is worse than one that
says it has no wrench. Two checks, both over the request's words and the scene's classes only
(no gold goal, no method internals):

- ``absent_thing``: the request names a thing with a determiner in the object of a request word
  ("bring me the wrench", "I need a torch", "I'd like an umbrella"), and no class of the scene
  is that thing, a kind of it (WordNet hypernyms over every sense of the class name: a coke is
  a drink, a screwdriver a tool), a synonym, a compound head (the bench of a workbench) or one
  of the scene's category words;
- ``unmet_need``: the request states a need whose meeting takes an affordance (thirst: something
  ``drinkable``; hunger: something ``consumable``) and no object of the scene has it.

Either gives an ``Abstention``: the thing or need, and the nearest alternative (the object a
method chose instead, else the scene class sharing most of the thing's WordNet hypernyms), said
as ``no wrench in the scene; nearest: screwdriver0``. The words are data
(``knowledge/data/abstain.yaml``); a noun that does not name a physical thing in WordNet's
first sense (a cut, a match on television) is never an absent thing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Callable, Iterable, Mapping, Optional, Sequence

from groundplan.knowledge.wordnet import PHYSICAL_LEXFILES, WordNet
from groundplan.schemas import yaml_lines as yaml_fast

_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")
#: how many of a noun's most frequent WordNet senses may make it a physical thing
SENSES = 3


@dataclass(frozen=True)
class Abstention:
    """Why nothing in the scene meets a request, and what comes nearest."""

    kind: str  # "absent" (a thing the scene lacks) or "need" (a need nothing meets)
    wanted: str  # the noun asked for ("wrench"), or the need's word ("drinkable")
    nearest: Optional[str] = None  # an object of the scene, or None

    @property
    def reason(self) -> str:
        what = f"no {self.wanted} in the scene" if self.kind == "absent" else f"nothing {self.wanted} in the scene"
        return what + (f"; nearest: {self.nearest}" if self.nearest else "")

    def to_dict(self) -> dict:
        return {"kind": self.kind, "wanted": self.wanted, "nearest": self.nearest, "reason": self.reason}


@dataclass(frozen=True)
class Words:
    determiners: frozenset[str]
    between: frozenset[str]
    request_words: frozenset[str]
    between_verb: frozenset[str]
    like_after: frozenset[str]
    not_things: frozenset[str]
    #: plain need -> (affordances any of which meets it, word of the refusal)
    needs: Mapping[str, tuple[tuple[str, ...], str]]
    #: a phrase that asks for something by its use -> (affordances, word of the refusal)
    asked: Mapping[str, tuple[tuple[str, ...], str]] = ()  # type: ignore[assignment]


@lru_cache(maxsize=1)
def words() -> Words:
    text = resources.files("groundplan.knowledge").joinpath("data/abstain.yaml").read_text()
    d = yaml_fast.safe_load(text) or {}

    def fs(key: str) -> frozenset[str]:
        return frozenset(str(w) for w in d.get(key) or ())

    def spec(e: Mapping) -> tuple[tuple[str, ...], str]:
        affs = e["affordance"]
        affs = tuple(str(a) for a in (affs if isinstance(affs, list) else [affs]))
        return affs, str(e.get("words") or affs[0])

    needs = {str(k): spec(v) for k, v in (d.get("needs") or {}).items()}
    asked = {str(p): spec(e) for e in d.get("asked_needs") or () for p in e.get("says") or ()}
    return Words(fs("determiners"), fs("between"), fs("request_words"), fs("between_verb"), fs("like_after"),
                 fs("not_things"), needs, asked)


def _parts(cls: str) -> list[str]:
    return [w for w in re.split(r"[_\s-]+", cls.lower()) if w]


class Vocabulary:
    """The words a scene's classes cover (their own words, joined forms, WordNet synonyms and
    hypernyms over every sense), cached per class: built once per scene, O(classes)."""

    def __init__(self, wn: WordNet):
        self.wn = wn
        self._phys: dict[str, bool] = {}
        self._cov: dict[str, frozenset[str]] = {}

    def physical(self, word: str) -> bool:
        """Whether one of the word's ``SENSES`` most frequent noun senses is a physical thing
        (artifact, food, ...): a wrench is first a strain, then a twist, then the tool."""
        hit = self._phys.get(word)
        if hit is None:
            hit = False
            for lemma in self.wn.lemmas(word):
                offs = self.wn.index.get(lemma, ())
                if offs:
                    hit = any(self.wn._synset(o).lexfile in PHYSICAL_LEXFILES for o in offs[:SENSES])
                    break
            self._phys[word] = hit
        return hit

    def covered(self, cls: str) -> frozenset[str]:
        hit = self._cov.get(cls)
        if hit is None:
            parts = _parts(cls)
            out = set(parts) | {"_".join(parts), "".join(parts), "-".join(parts)}
            k = self.wn.kinds(cls)
            if k is not None:
                out.update(k[1])
            hit = self._cov[cls] = frozenset(out)
        return hit

    def hypernyms(self, word: str) -> frozenset[str]:
        k = self.wn.kinds(word)
        return k[1] if k is not None else frozenset()


def _requested(toks: Sequence[str], det: int, w: Words) -> bool:
    """The determiner at ``det`` opens the object of a request word ("bring me the", "I need a")."""
    k = det - 1
    while k >= 0 and toks[k] in w.between_verb:
        k -= 1
    if k >= 0 and toks[k] == "like":
        return k > 0 and toks[k - 1] in w.like_after
    return k >= 0 and toks[k] in w.request_words


def absent_thing(text: str, classes: Iterable[str], vocab: Vocabulary,
                 known: Callable[[str], bool] = lambda word: False) -> Optional[str]:
    """The first noun ``text`` asks for that no scene class covers (see the module), else None.
    ``known(word)``: the caller's own words for scene things (synonyms, category words)."""
    w = words()
    toks = [m.group(0) for m in _WORD.finditer(text.lower().replace("’", "'"))]
    covered: set[str] = set()
    for c in classes:
        covered |= vocab.covered(c)
    for i, word in enumerate(toks):
        if word in w.not_things or word in w.determiners or word in w.between or len(word) < 3:
            continue
        j = i - 1
        while j >= 0 and toks[j] in w.between:
            j -= 1
        if j < 0 or toks[j] not in w.determiners:
            continue
        nxt = toks[i + 1] if i + 1 < len(toks) else ""
        if nxt in ("of", "one", "ones"):
            continue  # "a glass of water" asks for the water; "the gilt one" names no class
        if nxt and (nxt in covered or vocab.physical(nxt)):
            continue  # a modifier: "the coffee mug", "the balcony door"
        if not _requested(toks, j, w) or not vocab.physical(word):
            continue
        lemmas = set(vocab.wn.lemmas(word))
        if word in covered or lemmas & covered or known(word) or any(known(x) for x in lemmas):
            continue
        if any(len(word) >= 4 and c.endswith(word) for c in covered):
            continue  # "the bench" for the workbench
        return word
    return None


def need_specs(needs: Sequence[str], text: str = "") -> list[tuple[tuple[str, ...], str]]:
    """(affordances any of which meets it, refusal word) of each stated need (plain needs, or a
    phrase of ``text`` that asks for something by its use: "something to drink")."""
    w = words()
    specs = [w.needs[n] for n in needs if n in w.needs]
    low = " ".join(_WORD.findall(text.lower().replace("’", "'")))
    specs += [spec for phrase, spec in w.asked.items()
              if re.search(r"\b" + re.escape(phrase) + r"\b(?!\s+(?:out|from|with|in|on)\b)", low)]
    return specs


def unmet_need(needs: Sequence[str], objects: Iterable[str], has: Callable[[str, str], bool],
               text: str = "") -> Optional[str]:
    """The refusal word of the first stated need (plain needs, e.g. from goalsearch's
    ``paraphrase_needs``, or a phrase of ``text`` that asks for something by its use: "something
    to drink") that takes an affordance no object has (``has(obj, affordance)``)."""
    specs = need_specs(needs, text)
    objs = list(objects)
    for affordances, word in specs:
        if not any(has(o, a) for o in objs for a in affordances):
            return word
    return None


def nearest_object(wanted: str, objects: Mapping[str, str], vocab: Vocabulary) -> Optional[str]:
    """The scene object (name -> class) whose class shares most WordNet hypernyms with
    ``wanted`` (a wrench and a screwdriver: hand tools), or None when none shares any."""
    mine = vocab.hypernyms(wanted)
    if not mine:
        return None
    best, best_n = None, 0
    for o, c in sorted(objects.items()):
        n = len(mine & vocab.covered(c))
        if n > best_n:
            best, best_n = o, n
    return best


__all__ = ["Abstention", "Vocabulary", "absent_thing", "need_specs", "unmet_need", "nearest_object", "words"]
