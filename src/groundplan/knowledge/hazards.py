"""Hazard knowledge: object classes a robot must never hand a person as food or drink, nor
give a small child (issue 50).

A class is a hazard of one or more *kinds* - ``toxic``, ``corrosive``, ``flammable``,
``sharp``, ``swallowable`` (small enough for a child to swallow or choke on), ``hot`` - by

1. the curated list of ``data/hazards.yaml`` (its header names the safety categories it
   follows: poison-centre exposure categories, the CPSC small-parts and battery warnings,
   the GHS hazard classes), matched on the class name in any spelling or plural, then on its
   head noun ("kitchen_bleach" -> bleach);
2. WordNet 3.0 hypernyms (``knowledge.wordnet``): a class whose first physical sense is, or
   lies under, a synset listed under ``wordnet:`` there (solvent, fuel, caustic, edge tool,
   ...), unless another sense of the same word is a food or drink ("coke" is first the fuel);
3. the affordance map: a class that ``heat``\\s is hot (a stove, a kettle in use).

The hazards are carried into every object-affordance map as vetoes (``veto_oam``): a hazard
is never ``drinkable``, ``consumable`` or ``drink`` (designed to drink from), whatever a
map, an LLM or the inference says.

    hazard_of("ethanol")            # Hazard(cls='ethanol', kinds=('flammable', 'toxic'), ...)
    hazard_of("ethanol").describe() # "flammable and toxic"
    hazard_of("teddy_bear")         # None
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Iterable, Mapping, Optional

from groundplan.knowledge.oam import OAM
from groundplan.knowledge.wordnet import singulars
from groundplan.schemas import yaml_lines as yaml_fast

#: the hazard kinds, in the order a reason names them
KINDS = ("flammable", "toxic", "corrosive", "sharp", "swallowable", "hot", "powered", "alcoholic", "medicine")
#: kinds that make a thing a hazard for a child only: a grown-up may be handed a beer or a painkiller
#: (and may drink the one), a child neither
CHILD_ONLY = frozenset({"alcoholic", "medicine"})
#: affordances a hazard never has: it is not drunk, eaten, or drunk from
VETOED = frozenset({"drinkable", "consumable", "drink"})
_WORDS = {"swallowable": "small enough to swallow", "powered": "a power tool", "alcoholic": "alcoholic",
          "medicine": "a medicine"}


@dataclass(frozen=True)
class Hazard:
    """Why a class is dangerous: its kinds and where that was found (``curated:bleach``,
    ``wordnet:solvent``, ``map:heat``)."""

    cls: str
    kinds: tuple[str, ...]
    evidence: tuple[str, ...]

    def describe(self) -> str:
        """``"flammable and toxic"``, ``"sharp"``, ``"toxic, corrosive and small enough to swallow"``."""
        ws = [_WORDS.get(k, k) for k in self.kinds]
        return ws[0] if len(ws) == 1 else ", ".join(ws[:-1]) + " and " + ws[-1]

    @property
    def child_only(self) -> bool:
        """A hazard for a child only (``CHILD_ONLY``: a beer, a painkiller)."""
        return set(self.kinds) <= CHILD_ONLY

    def to_dict(self) -> dict:
        return {"class": self.cls, "kinds": list(self.kinds), "evidence": list(self.evidence)}


def _key(name: str) -> str:
    split = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name.strip())
    return "_".join(w for w in re.split(r"[\s_\-]+", split.lower()) if w)


@lru_cache(maxsize=1)
def hazard_data() -> tuple[Mapping[str, tuple[str, ...]], Mapping[str, tuple[str, ...]]]:
    """(curated class -> kinds, WordNet hypernym word -> kinds) from ``data/hazards.yaml``."""
    text = resources.files("groundplan.knowledge").joinpath("data/hazards.yaml").read_text()
    data = yaml_fast.safe_load(text) or {}
    out = []
    for part in ("curated", "wordnet"):
        m = {}
        for k, v in (data.get(part) or {}).items():
            bad = [x for x in v if x not in KINDS]
            if bad:  # package data: a test keeps this from happening
                raise ValueError(f"hazards.yaml: {part}.{k}: unknown hazard kind '{bad[0]}' (kinds: {', '.join(KINDS)})")
            m[_key(str(k))] = tuple(v)
        out.append(m)
    return out[0], out[1]


def _curated(cls: str) -> Optional[tuple[str, tuple[str, ...]]]:
    """(matched name, kinds) of the whole name or its longest tail in the curated list."""
    curated, _ = hazard_data()
    ws = _key(cls).split("_")
    for i in range(len(ws)):
        for last in [ws[-1], *singulars(ws[-1])]:
            tail = "_".join([*ws[i:-1], last])
            if tail in curated:
                return tail, curated[tail]
    return None


def _wordnet(cls: str) -> Optional[tuple[str, tuple[str, ...]]]:
    """(hypernym word, kinds) by WordNet, or None (no database, no sense, no hazard, or a
    food / drink sense of the same word)."""
    from groundplan.knowledge.wordnet import WordNet

    try:
        wn = WordNet.load()
    except Exception:  # a misconfigured GROUNDPLAN_WORDNET: the curated list alone
        return None
    if wn is None:
        return None
    _, table = hazard_data()
    hit = wn._physical(_key(cls))
    if hit is None:
        return None
    lemma = hit[0]
    food = any(wn._synset(off).lexfile == 13 for off in wn.index.get(lemma, ()))  # noun.food: coke, soda
    for word in [lemma, *wn.broader(_key(cls), depth=8)]:
        if word in table:  # a food is judged only for what is a hazard to a child alone (a wine)
            return (word, table[word]) if not food or set(table[word]) <= CHILD_ONLY else None
    return None


@lru_cache(maxsize=4096)
def _hazard_by_name(cls: str) -> Optional[Hazard]:
    kinds: set[str] = set()
    evidence: list[str] = []
    cur = _curated(cls)
    if cur is not None:
        kinds |= set(cur[1])
        evidence.append(f"curated:{cur[0]}")
    wn = _wordnet(cls)
    if wn is not None:
        kinds |= set(wn[1])
        evidence.append(f"wordnet:{wn[0]}")
    if not kinds:
        return None
    return Hazard(cls, tuple(k for k in KINDS if k in kinds), tuple(evidence))


def hazard_of(cls: str, affordances: Iterable[str] = ()) -> Optional[Hazard]:
    """The hazard of an object class, or None. ``affordances``: what the map gives the class
    (``heat`` makes it hot)."""
    h = _hazard_by_name(cls)
    if "heat" in set(affordances):
        if h is None:
            return Hazard(cls, ("hot",), ("map:heat",))
        if "hot" not in h.kinds:
            kinds = set(h.kinds) | {"hot"}
            return Hazard(cls, tuple(k for k in KINDS if k in kinds), (*h.evidence, "map:heat"))
    return h


def is_hazard(cls: str, affordances: Iterable[str] = ()) -> bool:
    return hazard_of(cls, affordances) is not None


def vetoed(cls: str, affordances: Iterable[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    """(affordances without the consumption ones when the class is a hazard, the ones removed)."""
    affs = frozenset(affordances)
    risky = affs & VETOED
    hz = hazard_of(cls, affs) if risky else None
    if hz is None or hz.child_only:  # (a beer stays drinkable: the safety check keeps it from a child)
        return affs, ()
    return affs - VETOED, tuple(sorted(risky))


def veto_oam(oam: OAM, classes: Iterable[str] | None = None) -> tuple[OAM, dict[str, tuple[str, ...]]]:
    """``oam`` with the vetoes applied to ``classes`` (default: every class of the map): no
    hazard is drinkable, consumable or drunk from. Returns the map (the same object when
    nothing changed) and class -> the affordances removed."""
    removed: dict[str, tuple[str, ...]] = {}
    m = dict(oam.mapping)
    for c in (oam.mapping if classes is None else dict.fromkeys(classes)):
        if c not in m:
            continue
        kept, gone = vetoed(c, m[c])
        if gone:
            m[c] = kept
            removed[c] = gone
    if not removed:
        return oam, {}
    return OAM(m, oam.name, oam.source), removed


def veto_line(removed: Mapping[str, tuple[str, ...]]) -> str:
    """One warning line for the vetoes applied."""
    parts = [f"{c} ({hazard_of(c).describe() if hazard_of(c) else 'hazard'}): not {', '.join(a for a in gone)}"
             for c, gone in removed.items()]
    return "hazard vetoes applied to the affordance map: " + "; ".join(parts)


__all__ = ["CHILD_ONLY", "Hazard", "KINDS", "VETOED", "hazard_of", "is_hazard", "vetoed", "veto_oam", "veto_line", "hazard_data"]
