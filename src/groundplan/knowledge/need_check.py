"""Does anything in the scene meet a stated need? (the need half of ``knowledge.abstain``)

A request that states a need ("I'm freezing", "I've cut my finger", "it's too dark to read")
is refused when nothing in the scene can meet it, with the reason ("nothing to keep you warm
in the scene"), instead of handing over whatever comes nearest. What meets each need is data
(``data/needs_met.yaml``), keyed by the plain need sentences of goalsearch's need lexicon:

- ``affordance``: an object with any of these affordances meets it (thirst: ``drinkable``);
- ``kinds``: an object whose class is one of these WordNet words, or a kind of one (a cardigan
  is a garment; a flashlight a source of illumination);
- ``states``: "<predicate> <class word>": an object of that class that can be put in that
  state ("opened window": a window not open lets fresh air in; "closed door": an open door
  shut against the draught; a door the scene does not say is open is no help).

A need without an entry is never refused: only needs whose meeting things the table names are
judged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Callable, Iterable, Mapping, Optional, Sequence

from groundplan.schemas import yaml_lines as yaml_fast

_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")


@dataclass(frozen=True)
class NeedSpec:
    """What meets one need, and the words of its refusal ("nothing <word> in the scene")."""

    word: str
    affordances: tuple[str, ...] = ()
    kinds: frozenset[str] = frozenset()
    states: tuple[tuple[str, str], ...] = ()


def _spec(e: Mapping) -> NeedSpec:
    affs = e.get("affordance") or []
    affs = tuple(str(a) for a in (affs if isinstance(affs, list) else [affs]))
    kinds = frozenset(str(k) for k in e.get("kinds") or ())
    states = tuple(tuple(str(s).split(None, 1)) for s in e.get("states") or ())
    word = str(e.get("words") or (affs[0] if affs else "for it"))
    return NeedSpec(word, affs, kinds, states)  # type: ignore[arg-type]


@dataclass(frozen=True)
class NeedTable:
    #: plain need sentence -> what meets it
    needs: Mapping[str, NeedSpec]
    #: a phrase that asks for something by its use ("something to drink") -> what meets it
    asked: Mapping[str, NeedSpec]


@lru_cache(maxsize=1)
def table() -> NeedTable:
    text = resources.files("groundplan.knowledge").joinpath("data/needs_met.yaml").read_text()
    d = yaml_fast.safe_load(text) or {}
    needs = {str(k): _spec(v) for k, v in (d.get("needs") or {}).items()}
    asked = {str(p): _spec(e) for e in d.get("asked_needs") or () for p in e.get("says") or ()}
    return NeedTable(needs, asked)


def need_specs(needs: Sequence[str], text: str = "") -> list[NeedSpec]:
    """What meets each stated need (plain needs, or a phrase of ``text`` that asks for something
    by its use: "something to drink"; not when a preposition follows: "something to drink out of")."""
    t = table()
    specs = [t.needs[n] for n in needs if n in t.needs]
    low = " ".join(_WORD.findall(text.lower().replace("’", "'")))
    specs += [spec for phrase, spec in t.asked.items()
              if re.search(r"\b" + re.escape(phrase) + r"\b(?!\s+(?:out|from|with|in|on)\b)", low)]
    return specs


def _parts(cls: str) -> list[str]:
    return [w for w in re.split(r"[_\s-]+", cls.lower()) if w]


def meets(spec: NeedSpec, obj: str, cls: str, has: Callable[[str, str], bool],
          kinds_of: Callable[[str], Iterable[str]] = lambda c: (),
          holds: Callable[[str, str], bool] = lambda pred, obj: False) -> bool:
    """Whether object ``obj`` of class ``cls`` meets the need: an affordance, a kind
    (``kinds_of(cls)``: the class's WordNet synonyms and hypernyms), or a state it can be put in."""
    if any(has(obj, a) for a in spec.affordances):
        return True
    parts = _parts(cls)
    names = {"_".join(parts), parts[-1]} if parts else set()
    if spec.kinds and (spec.kinds & names or spec.kinds & set(kinds_of(cls))):
        return True
    return any(noun in names and _changes(pred, obj, holds) for pred, noun in spec.states)


def _changes(pred: str, obj: str, holds: Callable[[str, str], bool]) -> bool:
    """Putting ``obj`` in state ``pred`` changes something: it is not so yet, and a door or
    window to be shut is open now (one the scene does not say is open is no help)."""
    return not holds(pred, obj) and (pred != "closed" or holds("opened", obj))


def unmet_need(needs: Sequence[str], objects: Iterable[str] | Mapping[str, str], has: Callable[[str, str], bool],
               text: str = "", kinds_of: Callable[[str], Iterable[str]] = lambda c: (),
               holds: Callable[[str, str], bool] = lambda pred, obj: False) -> Optional[str]:
    """The refusal word of the first stated need (``need_specs``) when no object meets any of
    them, else None (a request stating two needs, one met, is served: "a painkiller and nothing
    to wash it down with" has a drink). ``objects``: object names, or object -> class (kinds and
    states are judged only then)."""
    objs = dict(objects) if isinstance(objects, Mapping) else {o: "" for o in objects}
    specs = need_specs(needs, text)
    if not specs or any(meets(spec, o, c, has, kinds_of, holds) for spec in specs for o, c in objs.items()):
        return None
    return specs[0].word


__all__ = ["NeedSpec", "NeedTable", "meets", "need_specs", "table", "unmet_need"]
