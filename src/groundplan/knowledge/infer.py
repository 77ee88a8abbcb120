"""Affordances for object classes the object-affordance map lacks (open-vocabulary scenes).

When a scene names a class its map does not cover, the class would get no affordance and
every goal about it would be rejected. An *inferrer* fills such classes in:

- ``embedding`` (the default; offline, no LLM call): the class name's head noun when it is a
  known class ("coffee table" -> table, "toolbox" -> box) or a generic head noun of
  ``role_heads.yaml`` ("sharps container" -> container: contain), else the known classes nearest to
  the name by sentence embedding (all-MiniLM-L6-v2, ``knowledge.embedding``) vote on each
  affordance, weighted by similarity;
- ``lexical``: the head-noun rules alone (no model needed);
- ``llm`` (``LLMInferrer``): one of AutoGPT+P's three strategies (list / yes-no / logical,
  ``oam_llm.build_oam``) with the run's LLM, cached on disk per (class, model, strategy).

Two things are added to every inferrer's answer: *scene evidence* (a scene fact ``on pen0
desk0`` types pen0 as ``carry`` and desk0 as ``support`` in the household skill set; the
builder passes these as ``evidence``) and *implications* mined from the known map (``carry``
-> ``grasp``: every class of the map with the first also has the second).

The parameters of ``EmbeddingInferrer`` were chosen by leave-one-out on groundplan's default
map only (``benchmarks/unseen_classes.py --tune``); no evaluation class seeds or tunes it.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Optional, Protocol, Sequence

from groundplan.errors import ConfigError, did_you_mean
from groundplan.knowledge import reading as _reading
from groundplan.knowledge.lexicon import BEVERAGE as _BEVERAGE  # noqa: F401  (the dictionary's word: knowledge/lexicon.py)
from groundplan.knowledge.lexicon import CONTAINER_WORDS as _CONTAINER_WORDS
from groundplan.knowledge.lexicon import CUTTING_WORDS as _CUTTING_WORDS
from groundplan.knowledge.lexicon import POURING_WORDS as _POURING_WORDS
from groundplan.knowledge.lexicon import Kind as _Kind
from groundplan.knowledge.lexicon import an as _an
from groundplan.knowledge.lexicon import (
    drink_vessel,
    holds_undrinkable,
    ingestion_checked,
    portable,
    supports,
)
from groundplan.knowledge.lexicon import is_container as _is_container
from groundplan.knowledge.lexicon import kind_of as _kind
from groundplan.knowledge.oam import OAM
from groundplan.knowledge.wordnet import singulars
from groundplan.schemas import yaml_lines as yaml_fast


class Embedder(Protocol):
    def encode(self, sentences: Sequence[str]) -> Any: ...  # (n, d) unit rows (NumPy)


@dataclass(frozen=True)
class Inference:
    """The affordances given to one unseen class, and why."""

    cls: str
    affordances: tuple[str, ...]
    source: str  # head / embedding / llm-<strategy> / evidence
    neighbours: tuple[tuple[str, float], ...] = ()  # (known class, similarity)
    evidence: tuple[str, ...] = ()  # affordances the scene's facts require
    #: (affordance, confidence in [0, 1]) for each given affordance (see ``CONFIDENCE``)
    confidence: tuple[tuple[str, float], ...] = ()
    #: (affordance, why) for each affordance considered and not given: a hazard veto, a
    #: dictionary that says otherwise, a confidence below ``LOW_CONFIDENCE``
    withheld: tuple[tuple[str, str], ...] = ()
    #: affordances the scene's facts asked for that contradict what the class is (``in drill0
    #: workbench0``: a workbench is a table, not a container); not given; the builder warns
    contradicted: tuple[str, ...] = ()

    def confidence_of(self, affordance: str) -> float:
        """The confidence of a given affordance (0.0 when it is not given)."""
        return dict(self.confidence).get(affordance, 0.0)

    def trusted(self, threshold: float = 0.5) -> tuple[str, ...]:
        """The given affordances whose confidence reaches ``threshold``."""
        return tuple(a for a in self.affordances if self.confidence_of(a) >= threshold)

    def to_dict(self) -> dict[str, Any]:
        return {"class": self.cls, "affordances": list(self.affordances), "source": self.source,
                "neighbours": [[c, round(s, 3)] for c, s in self.neighbours], "evidence": list(self.evidence),
                "confidence": {a: round(c, 3) for a, c in self.confidence},
                "withheld": [[a, why] for a, why in self.withheld], "contradicted": list(self.contradicted)}


class AffordanceInferrer(Protocol):
    name: str

    def explain(self, classes: Iterable[str], known: OAM,
                evidence: Mapping[str, frozenset[str]] | None = None) -> dict[str, Inference]: ...

    def describe(self) -> dict[str, Any]: ...


# --------------------------------------------------------------------------- shared parts


def words(cls: str) -> list[str]:
    """``Coffee-Table`` / ``coffee_table`` / ``coffee table`` / ``CoffeeTable`` ->
    ``["coffee", "table"]``."""
    split = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", cls.strip())
    return [w for w in re.split(r"[\s_\-]+", split.lower()) if w]


def singular_forms(word: str) -> list[str]:
    """``word`` and the singulars it may be the plural of (``cups`` -> cup, ``boxes`` -> box,
    ``knives`` -> knife, ``berries`` -> berry); a known class decides which one is meant."""
    forms = [word, *singulars(word)]
    if len(word) > 3 and word.endswith("ves"):  # (wolves, calves: a known class decides)
        forms += [f for f in (word[:-3] + "f", word[:-3] + "fe") if f not in forms]
    return forms


def head_class(cls: str, known: Iterable[str], *, min_len: int = 3) -> Optional[str]:
    """The known class that is the head of ``cls``: the whole name spelt otherwise or in the
    plural (``Coffee-Mug`` -> ``coffee_mug``, ``cups`` -> ``cup``), its last words (``coffee_table`` ->
    ``table``, ``kitchen_paper_towel`` -> ``paper_towel`` before ``towel``), or the end of a
    closed compound (``toolbox`` -> ``box``, ``bookshelf`` -> ``shelf``; the head and the rest
    at least ``min_len`` letters each). None when no known class is a head."""
    ks = {"_".join(words(k)): k for k in known}
    ws = words(cls)
    if not ws:
        return None
    for i in range(len(ws)):  # the whole name in another spelling, then the longest multiword tail
        for last in singular_forms(ws[-1]):
            tail = "_".join([*ws[i:-1], last])
            if tail in ks:
                return ks[tail]
    for last in singular_forms(ws[-1]):
        for n in range(len(last) - min_len, min_len - 1, -1):  # longest compound head first
            if n < len(last) and len(last) - n >= min_len and last[n:] in ks:
                return ks[last[n:]]
    return None


@lru_cache(maxsize=1)
def role_heads() -> Mapping[str, frozenset[str]]:
    """Generic head nouns and the affordances they decide (package data ``role_heads.yaml``:
    container, bin, hamper, rack, dishwasher, ...)."""
    from importlib import resources


    text = resources.files("groundplan.knowledge").joinpath("data/role_heads.yaml").read_text()
    return {k: frozenset(v) for k, v in (yaml_fast.safe_load(text) or {}).items()}


def role_head(cls: str) -> Optional[str]:
    """The generic head noun (``role_heads``) that ends ``cls`` as a separate word, in the
    singular or the plural (``sharps_container`` -> container, ``dish racks`` -> rack), or
    the whole name (``dishwasher``); None otherwise (``cabin`` has no ``bin``)."""
    ws = words(cls)
    if not ws:
        return None
    roles = role_heads()
    for form in singular_forms(ws[-1]):
        if form in roles:
            return form
    for form in singular_forms(ws[-1]):  # a closed compound ending in a role of containers that stay
        for n in range(3, len(form) - 2):  # where they are: a bathtub is a tub, a dustbin a bin
            if form[n:] in roles and "carry" not in roles[form[n:]] and "contain" in roles[form[n:]]:
                return form[n:]
    return None


def _head_or_role(cls: str, known: OAM) -> tuple[Optional[str], frozenset[str]]:
    """``("head:<class>", affordances)`` when a known class is the head of ``cls``, else
    ``("role:<noun>", affordances)`` when a generic head noun ends it, else ``(None, ∅)``."""
    h = head_class(cls, known.mapping)
    if h is not None:
        return f"head:{h}", frozenset(known.affordances(h))
    r = role_head(cls)
    if r is not None:
        return f"role:{r}", role_heads()[r]
    return None, frozenset()


def implications(known: OAM, *, min_support: int = 3, confidence: float = 1.0) -> tuple[tuple[str, str], ...]:
    """Rules ``a -> b`` that hold for every (``confidence``) class of ``known`` having ``a``,
    ``a`` held by at least ``min_support`` classes."""
    affs = sorted({a for v in known.mapping.values() for a in v})
    rules = []
    for a in affs:
        having = [v for v in known.mapping.values() if a in v]
        if len(having) < min_support:
            continue
        for b in affs:
            if b != a and sum(b in v for v in having) >= confidence * len(having):
                rules.append((a, b))
    return tuple(rules)


def close_under(affs: Iterable[str], rules: Sequence[tuple[str, str]]) -> frozenset[str]:
    out = set(affs)
    changed = True
    while changed:
        changed = False
        for a, b in rules:
            if a in out and b not in out:
                out.add(b)
                changed = True
    return frozenset(out)




#: the confidence of an affordance by where it came from (an embedding vote: its share of the votes)
CONFIDENCE: Mapping[str, float] = {"evidence": 1.0, "head": 0.9, "role": 0.85, "wordnet": 0.7, "llm": 0.6}
#: below this, an inferred consumption or container affordance is withheld from the map: no
#: goal meets a need with it and nothing is put in it (``Inference.withheld`` says so)
LOW_CONFIDENCE = 0.5
CONSUMPTION = frozenset({"drink", "drinkable", "consumable"})
CONTAINERS = frozenset({"contain", "liquid-contain", "enclosed-contain"})


def _not_a_container(cls: str, source: str, affs: frozenset[str], known: OAM, kind: Optional[_Kind]) -> Optional[str]:
    """Why the class is known not to be a container (a scene fact putting something in it is
    then a contradiction), or None: a known head class or role lacking ``contain`` (a
    ``coffee_table``), or a WordNet sense under a known class without it (a workbench is a
    table); never when some WordNet sense of it is a container or its gloss names drawers."""
    if "contain" in affs:
        return None
    wn_kind = kind if kind is not None else _kind(cls)
    if wn_kind is not None and (wn_kind.every_sense & _CONTAINER_WORDS or wn_kind.has(_CONTAINER_WORDS) or re.search(
            r"\b(drawers?|compartments?|storage)\b", wn_kind.gloss)):
        return None  # the dictionary says it holds things (a parts tray is a receptacle; a desk has drawers)
    if source.startswith(("head:", "role:")):
        return _an(source.split(':', 1)[1])
    if kind is None:
        return None
    for w in kind.words:
        if w in known and "contain" not in known.affordances(w):
            return f"{_an(w)} by WordNet"
        if w in known:
            return None
    return None  # (no known class above it: a toothbrush holder is a "device", yet holds toothbrushes)


def _read_whole(cls: str, source: str, known: OAM, conf: dict[str, float], ev: set[str],
                withheld: list[tuple[str, str]], rules: Sequence[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """What the whole named thing is (``knowledge.reading``), applied to ``conf`` in place:
    ``drink``, ``drinkable`` and ``consumable`` only on positive evidence that the whole thing is a
    drinking vessel, a drink or food (whatever the neighbours or a known head class say: a pencil
    cup is headed by cup, a play dough by dough); ``contain``, ``support`` and ``carry`` added when
    the name's artifact sense is a container, a surface or furniture, a small carried thing, and
    a vote for ``carry`` dropped when it is furniture, a fixture, a structure or a vehicle (a role
    head noun decides carrying and surfaces for itself). Returns the consumption affordances
    withheld, each with why."""
    head = source.split(":", 1)[1] if source.startswith("head:") else None
    head_affs = frozenset(known.affordances(head)) if head is not None else frozenset()
    sure = CONFIDENCE["head"] if head is not None else CONFIDENCE["wordnet"]
    known_food = "drinkable" if "drinkable" in head_affs else "consumable" if "consumable" in head_affs else None
    eaten, why = _reading.consumption(cls, known_food)
    vessel, vwhy = _reading.drink_vessel_named(cls, "drink" in head_affs)
    before = set(conf)
    gone = []
    unread = not _reading.read_at_all(cls)  # no word of it in WordNet ("zqxv")
    for a, yes, reason in (("consumable", "consumable" in eaten, why), ("drinkable", "drinkable" in eaten, why),
                           ("drink", vessel, vwhy)):
        if a in ev:
            continue
        if unread:  # a name the dictionary lacks: eaten or drunk only as its known head class is
            if a in conf and head is None:  # (a ginger_ale by ale), never by the neighbours' vote alone
                withheld.append((a, f"no WordNet sense of {cls}; the neighbours' vote ({conf[a]:.2f}) is no "
                                    f"evidence that a person eats or drinks it"))
                conf.pop(a)
                gone.append((a, "the neighbours' vote is no evidence of food or drink"))
            continue
        if yes:
            conf[a] = max(conf.get(a, 0.0), sure)
        elif a in conf:
            withheld.append((a, reason))
            conf.pop(a)
            gone.append((a, reason))
    art = _reading.artifact_kind(cls)
    from_votes = not source.startswith(("head:", "role:"))
    holds = _reading.holds_things(art)
    if holds:
        conf["contain"] = max(conf.get("contain", 0.0), 0.8)
    role = source.startswith("role:")
    bears = _reading.bears_things(art)
    if not role and bears and "support" not in conf:
        conf["support"] = CONFIDENCE["wordnet"]
    moved = _reading.carried(art)
    if moved and "carry" not in conf:  # (a role head says what a thing is for, not its size: a toy bin is carried)
        conf["carry"] = CONFIDENCE["wordnet"]
    elif moved is False and from_votes and art.whole:  # (the whole name: a toy car is no vehicle)
        for a in ("carry", "grasp"):
            if a in conf and a not in ev:
                withheld.append((a, f"WordNet: {_an(art.first.lemma)}, not carried"))
                conf.pop(a)
    if from_votes and art is not None and art.whole and _reading.held_in_hand(art) and not bears \
            and "support" in conf and "support" not in ev:
        withheld.append(("support", f"WordNet: {_an(art.first.lemma)}, a thing held in the hand, not a surface"))
        conf.pop("support")  # (a spanner's neighbours by name are a table and a shelf)
    if set(conf) != before:
        changed = True  # the map's implications of what was added (drink -> grasp, carry -> grasp)
        while changed:
            changed = False
            for a, b in rules:
                if a in conf and conf[a] > conf.get(b, -1.0) and b not in CONSUMPTION:
                    conf[b] = conf[a]
                    changed = True
    return tuple(gone)


def _finish(cls: str, affs: Iterable[str] | Mapping[str, float], source: str, known: OAM,
            evidence: Mapping[str, frozenset[str]], rules: Sequence[tuple[str, str]],
            neighbours: tuple[tuple[str, float], ...] = ()) -> Inference:
    """The inferrer's answer made safe: scene evidence added unless it contradicts what the
    class is, the map's implications, WordNet's word on consumption and containers, the
    hazard vetoes, and each affordance's confidence (``affs``: affordances, or affordance ->
    confidence)."""
    from groundplan.knowledge.hazards import VETOED, hazard_of

    kind_of = source.split(":", 1)[0].split(" ", 1)[0]
    default = CONFIDENCE.get("llm" if kind_of.startswith("llm") else kind_of, 0.5)
    conf: dict[str, float] = dict(affs) if isinstance(affs, Mapping) else dict.fromkeys(affs, default)
    withheld: list[tuple[str, str]] = []
    decided = source.startswith("head:")  # a known head class decides for itself ("ginger_beer" -> beer)
    kind = _kind(cls)
    read = _reading.available()  # WordNet installed: consumption and placing from what the whole name is
    if not read and decided and ((kind is not None and kind.whole) or "drink" in conf):  # unless the dictionary has the
        whole = kind is not None and kind.whole  # whole name and says it is no food, drink nor drinking vessel
        for a in sorted(CONSUMPTION & set(conf) - set(evidence.get(cls, ()))):  # (an egg cup), or the name's
            if (a == "drink" and ((whole and not drink_vessel(kind)) or holds_undrinkable(cls, frozenset(
                    c for c in known.classes if 'drinkable' in known.affordances(c))))) or (  # modifier
                    a != "drink" and whole and a in ingestion_checked(cls, {a})[1]):  # is no drink (an oil bottle)
                what = _an(kind.first() if whole else '_'.join(words(cls)))
                withheld.append((a, f"WordNet: {what}, not {'made to drink from' if a == 'drink' else 'food or drink'}"))
                conf.pop(a)
    if decided:
        kind = None
    if not decided and not source.startswith("role:") and kind is not None:
        above = next((w for w in kind.words if w in known), None)  # WordNet: a workbench is a table
        genus = kind.genus()  # or its definition: a kitchen island is "an unattached counter"
        if above is None and genus in known and kind.whole:
            above = genus
        if above is not None:
            for a in known.affordances(above):
                conf.setdefault(a, CONFIDENCE["wordnet"])
        if _is_container(kind) and "contain" not in conf:  # WordNet: an envelope is a container
            conf["contain"] = CONFIDENCE["wordnet"]
        if supports(kind) and "support" not in conf:  # a sofa is a seat, a sawhorse a supporting structure
            conf["support"] = CONFIDENCE["wordnet"]
        if portable(kind) and "carry" not in conf:  # a hand tool, a toy, a garment, a small device is carried
            conf.update({"carry": CONFIDENCE["wordnet"], "grasp": conf.get("grasp", CONFIDENCE["wordnet"])})
    ev = set(evidence.get(cls, frozenset()))
    why_not = _not_a_container(cls, source, frozenset(conf), known, kind) if ev & CONTAINERS else None
    contradicted = tuple(sorted(a for a in ev & CONTAINERS if a not in conf)) if why_not else ()
    for a in contradicted:
        ev.discard(a)
        withheld.append((a, f"a scene fact asks for it, but {cls} is {why_not}"))
    for a in ev:
        conf[a] = 1.0
    changed = True  # the map's implications: b as sure as the surest a -> b
    while changed:
        changed = False
        for a, b in rules:
            if a in conf and conf[a] > conf.get(b, -1.0):
                conf[b] = conf[a]
                changed = True
    if not decided and not read:
        kept, gone = ingestion_checked(cls, conf)
        for a in gone:
            withheld.append((a, "no food or drink sense in WordNet"))
            conf.pop(a, None)
        if gone:
            source += f" ({', '.join(gone)} withheld: no food or drink sense in WordNet)"
        if kind is not None:  # the dictionary agrees it is food or drink: as sure as a WordNet kind
            for a in ("consumable", "drinkable"):  # (a drink is drinkable, not eaten: the map's convention)
                if a in conf and not (a == "consumable" and "beverage" in kind.every_sense):
                    conf[a] = max(conf[a], CONFIDENCE["wordnet"])
            if "drink" in conf and drink_vessel(kind):
                conf["drink"] = max(conf["drink"], CONFIDENCE["wordnet"])
    if not decided:
        if not read and "drink" in conf and "drink" not in ev and kind is not None and not drink_vessel(kind):
            withheld.append(("drink", f"WordNet: {_an(kind.first())}, not made to drink from"))
            conf.pop("drink")
        if kind is not None:
            hz = hazard_of(cls)
            checks = (("cut", _CUTTING_WORDS, "does not cut", hz is not None and "sharp" in hz.kinds),
                      ("pour", _POURING_WORDS, "not a vessel to pour from", False),
                      ("precise-pour", _POURING_WORDS, "not a vessel to pour from", False))
            for a, table, what, keep in checks:
                if a in conf and a not in ev and not keep and (
                        not (kind.has(table) or kind.every_sense & table) or kind.has(frozenset({"vehicle"}))):
                    withheld.append((a, f"WordNet: {_an(kind.first())}, {what}"))
                    conf.pop(a)
            for a in ("carry", "grasp"):
                if a in conf and a not in ev and kind.whole and portable(kind) is False:
                    # (the whole name only: a toy car is no vehicle; a vehicle, furniture, white goods
                    # or a thing its definition calls large)
                    withheld.append((a, f"WordNet: {_an(kind.first())}, not carried"))
                    conf.pop(a)
        if kind is not None and _is_container(kind) is True:
            for a in CONTAINERS & set(conf):
                conf[a] = max(conf[a], 0.8)
        elif kind is not None and _is_container(kind) is False and not source.startswith("role:"):
            # (a role head noun says what its kinds hold: a magazine rack's slots, a pill organizer)
            for a in sorted(CONTAINERS & set(conf) - ev):
                withheld.append((a, f"WordNet: {_an(kind.first())}, not a container"))
                conf.pop(a)
    if read:
        gone = [(a, why) for a, why in _read_whole(cls, source, known, conf, ev, withheld, rules) if a != "drink"]
        for why in dict.fromkeys(w for _, w in gone):
            source += f" ({', '.join(a for a, w in gone if w == why)} withheld: {why})"
    hz = hazard_of(cls, conf)
    if hz is not None and not hz.child_only:
        for a in sorted(VETOED & set(conf)):
            withheld.append((a, f"{cls} is {hz.describe()}"))
            conf.pop(a)
    for a in sorted((CONSUMPTION | CONTAINERS) & set(conf)):
        if conf[a] < LOW_CONFIDENCE - 1e-9:
            withheld.append((a, f"confidence {conf[a]:.2f} below {LOW_CONFIDENCE}"))
            conf.pop(a)
    final = tuple(sorted(conf))
    return Inference(cls, final, source, neighbours, tuple(sorted(evidence.get(cls, frozenset()))),
                     tuple((a, round(conf[a], 4)) for a in final), tuple(withheld), contradicted)


# --------------------------------------------------------------------------- inferrers


@dataclass
class LexicalInferrer:
    """The head-noun rule alone; classes without a known head get only the scene's evidence."""

    name: str = "lexical"
    min_support: int = 3

    def explain(self, classes: Iterable[str], known: OAM,
                evidence: Mapping[str, frozenset[str]] | None = None) -> dict[str, Inference]:
        ev = evidence or {}
        rules = implications(known, min_support=self.min_support)
        out = {}
        for c in dict.fromkeys(classes):
            src, affs = _head_or_role(c, known)
            out[c] = _finish(c, affs, src or "evidence", known, ev, rules)
        return out

    def describe(self) -> dict[str, Any]:
        return {"name": self.name}


@dataclass
class EmbeddingInferrer:
    """Nearest known classes by sentence embedding vote on affordances.

    The ``k`` nearest known classes (cosine similarity of ``template.format(name)``) vote
    with weight ``similarity ** power``; an affordance is given when its share of the votes
    reaches ``threshold``. A known head noun (``head_class``) decides alone when ``use_head``.
    When even the nearest known class is less similar than ``min_similarity``, the neighbours
    are not trusted: the class gets only what the scene's evidence and the implications give
    ("spark plug" is nearest to stove, juice, coke at 0.32-0.38: not a drink)."""

    embedder: Any = None  # an Embedder; None: the bundled MiniLM, loaded on first use
    k: int = 8
    threshold: float = 0.4
    power: float = 4.0
    template: str = "{}"
    use_head: bool = True
    min_similarity: float = 0.0
    min_support: int = 3
    name: str = "embedding"
    _known_cache: dict = field(default_factory=dict, repr=False)

    def _enc(self) -> Any:
        if self.embedder is None:
            from groundplan.knowledge.embedding import shared_minilm

            self.embedder = shared_minilm()
        return self.embedder

    def _text(self, cls: str) -> str:
        return self.template.format(" ".join(words(cls)))

    def neighbours(self, classes: Sequence[str], known: OAM) -> list[list[tuple[str, float]]]:
        import numpy as np

        names = tuple(known.classes)
        key = (names, self.template)
        kv = self._known_cache.get(key)
        if kv is None:  # one map's vectors kept (a local reference: safe if another thread replaces it)
            kv = np.asarray(self._enc().encode([self._text(c) for c in names]))
            self._known_cache.clear()
            self._known_cache[key] = kv
        if not classes or not names:
            return [[] for _ in classes]
        q = np.asarray(self._enc().encode([self._text(c) for c in classes]))
        sims = q @ kv.T
        out = []
        for row in sims:
            order = sorted(range(len(names)), key=lambda i: (-float(row[i]), names[i]))[: self.k]
            out.append([(names[i], float(row[i])) for i in order])
        return out

    def vote(self, nbrs: Sequence[tuple[str, float]], known: OAM) -> set[str]:
        return set(self.vote_shares(nbrs, known))

    def vote_shares(self, nbrs: Sequence[tuple[str, float]], known: OAM) -> dict[str, float]:
        """The affordances given, each with its share of the weighted votes (its confidence)."""
        weights = {c: max(s, 0.0) ** self.power for c, s in nbrs}
        total = sum(weights.values())
        if total <= 0:
            return {}
        score: dict[str, float] = {}
        for c, w in weights.items():
            for a in known.affordances(c):
                score[a] = score.get(a, 0.0) + w
        return {a: s / total for a, s in score.items() if s / total >= self.threshold - 1e-9}

    def explain(self, classes: Iterable[str], known: OAM,
                evidence: Mapping[str, frozenset[str]] | None = None) -> dict[str, Inference]:
        ev = evidence or {}
        rules = implications(known, min_support=self.min_support)
        cls = list(dict.fromkeys(classes))
        out: dict[str, Inference] = {}
        rest = []
        for c in cls:
            src, affs = _head_or_role(c, known) if self.use_head else (None, frozenset())
            if src is not None:
                nb = ((src.split(":", 1)[1], 1.0),) if src.startswith("head:") else ()
                out[c] = _finish(c, affs, src, known, ev, rules, nb)
            else:
                rest.append(c)
        for c, nb in zip(rest, self.neighbours(rest, known)):
            if nb and nb[0][1] >= self.min_similarity - 1e-9:
                out[c] = _finish(c, self.vote_shares(nb, known), "embedding", known, ev, rules, tuple(nb))
            else:  # nothing known is close enough: the scene's evidence alone
                out[c] = _finish(c, (), "evidence (no known class within "
                                 f"{self.min_similarity:g})", known, ev, rules, tuple(nb))
        return {c: out[c] for c in cls}

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "model": "all-MiniLM-L6-v2", "k": self.k, "threshold": self.threshold,
                "power": self.power, "template": self.template, "use_head": self.use_head,
                "min_similarity": self.min_similarity}


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[:120] or "model"


@dataclass
class LLMInferrer:
    """One of AutoGPT+P's three strategies with an LLM, asked once per (class, model,
    strategy): answers are kept as ``<cache_dir>/<strategy>/<model>/<class>.json``."""

    llm: Any
    strategy: str
    specs: Sequence[Any]  # oam_llm.AffordanceSpec
    model_id: str
    cache_dir: Optional[Path] = None
    constrained: bool = False
    usage: Any = None
    min_support: int = 3
    name: str = "llm"
    calls: int = 0

    def _path(self, cls: str) -> Optional[Path]:
        if self.cache_dir is None:
            return None
        return Path(self.cache_dir) / self.strategy / _slug(self.model_id) / f"{_slug(cls)}.json"

    def ask(self, cls: str) -> tuple[frozenset[str], bool]:
        """(affordances, from_cache)."""
        from groundplan.knowledge.oam_llm import build_oam, class_key

        p = self._path(cls)
        if p is not None and p.is_file():
            try:
                rec = json.loads(p.read_text())
                return frozenset(rec["affordances"]), True
            except (ValueError, KeyError, TypeError):
                pass
        t0 = time.perf_counter()
        res = build_oam(self.llm, [cls], self.strategy, self.specs, usage=self.usage, constrained=self.constrained)
        self.calls += res.llm_calls
        affs = res.oam.affordances(class_key(cls))
        if p is not None:
            p.parent.mkdir(parents=True, exist_ok=True)
            tmp = p.with_suffix(".tmp")
            tmp.write_text(json.dumps({"class": cls, "model": self.model_id, "strategy": self.strategy,
                                       "affordances": sorted(affs), "llm_calls": res.llm_calls,
                                       "seconds": round(time.perf_counter() - t0, 3)}) + "\n")
            tmp.replace(p)
        return affs, False

    def explain(self, classes: Iterable[str], known: OAM,
                evidence: Mapping[str, frozenset[str]] | None = None) -> dict[str, Inference]:
        ev = evidence or {}
        rules = implications(known, min_support=self.min_support)
        return {c: _finish(c, self.ask(c)[0], f"llm-{self.strategy}", known, ev, rules) for c in dict.fromkeys(classes)}

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "strategy": self.strategy, "model": self.model_id,
                "cache_dir": str(self.cache_dir) if self.cache_dir else None}


# --------------------------------------------------------------------------- registry and resolution

#: the tuned parameters of the default inferrer (leave-one-out on the default map only)
DEFAULT_PARAMS: Mapping[str, Any] = {"k": 8, "threshold": 0.4, "power": 4.0, "template": "{}", "use_head": True,
                                     "min_similarity": 0.4}

_FACTORIES: dict[str, Callable[[], Optional[AffordanceInferrer]]] = {}


def register_inferrer(name: str) -> Callable[[Callable[[], Optional[AffordanceInferrer]]], Callable]:
    def deco(factory):
        _FACTORIES[name] = factory
        return factory
    return deco


@register_inferrer("off")
def _off() -> None:
    return None


@register_inferrer("lexical")
def _lexical() -> AffordanceInferrer:
    return LexicalInferrer()


@register_inferrer("embedding")
def _embedding() -> AffordanceInferrer:
    return EmbeddingInferrer(**DEFAULT_PARAMS)


_SHARED: dict[str, Optional[AffordanceInferrer]] = {}


def get_inferrer(name: str = "default") -> Optional[AffordanceInferrer]:
    """An inferrer by name (``default`` = ``embedding``; ``off`` = None), one per process."""
    key = "embedding" if name == "default" else name
    if key not in _FACTORIES:
        raise ConfigError(f"unknown affordance inference '{name}'{did_you_mean(name, inferrer_names())} "
                          f"(choose from default, {', '.join(sorted(_FACTORIES))})")
    if key not in _SHARED:
        _SHARED[key] = _FACTORIES[key]()
    return _SHARED[key]


def default_inferrer() -> AffordanceInferrer:
    inf = get_inferrer("default")
    assert inf is not None
    return inf


def inferrer_names() -> list[str]:
    return ["default", *sorted(_FACTORIES)]


def extend_for(oam: OAM, classes: Iterable[str], inferrer: Optional[AffordanceInferrer],
               evidence: Mapping[str, frozenset[str]] | None = None) -> tuple[OAM, dict[str, Inference]]:
    """``oam`` plus inferred entries for those of ``classes`` it lacks; the inferences."""
    missing = [c for c in dict.fromkeys(classes) if c not in oam]
    if inferrer is None or not missing:
        return oam, {}
    try:
        found = inferrer.explain(missing, oam, evidence or {})
    except ConfigError:
        if not isinstance(inferrer, EmbeddingInferrer):
            raise
        found = LexicalInferrer().explain(missing, oam, evidence or {})  # no embedding model installed
    m = dict(oam.mapping)
    m.update({c: frozenset(i.affordances) for c, i in found.items()})
    return OAM(m, f"{oam.name}+inferred", oam.source), found


def summary_line(found: Mapping[str, Inference], oam_name: str) -> str:
    """One line: which classes were inferred and with which affordances."""
    parts = [f"{c}: {', '.join(i.affordances) or '(none)'}" for c, i in found.items()]
    return (f"affordances inferred for {len(found)} class{'es' if len(found) != 1 else ''} the map '{oam_name}' "
            f"lacks: " + "; ".join(parts))


__all__ = ["CONFIDENCE", "LOW_CONFIDENCE", "CONSUMPTION", "CONTAINERS", "Embedder", "Inference", "AffordanceInferrer", "EmbeddingInferrer", "LexicalInferrer", "LLMInferrer",
           "DEFAULT_PARAMS", "register_inferrer", "get_inferrer", "default_inferrer", "inferrer_names", "extend_for",
           "summary_line", "head_class", "role_head", "role_heads", "singular_forms", "implications", "close_under", "words"]
