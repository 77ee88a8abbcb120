"""goalsearch's first stage on a large scene: the part of the scene a request is about.

goalsearch's candidate goals pair objects with places, so their number (and the phrases the
encoder embeds) grows with every pair of objects: a 300-object home took minutes. A request
is about few objects: all of the classes it names ("the coke", "the fridge", "coke0"), a few of
the classes its words are closest to ("I'm thirsty": the drinks), and one of every other
class (a request that names nothing, "the rain's blowing in", may be met by any kind of
thing: the window). ``focus`` keeps those objects, the agents and the places that hold what
is kept (the whole chain: a cup in a cabinet on a counter), and hands goalsearch that smaller
problem, whose size grows with the scene's classes, not its objects; the plan is still
made and checked in the whole scene. Class similarities are computed per class, not per
object, and cached, so a 1,000-object scene of 50 classes costs 50 phrases.

Scenes of at most ``FOCUS_ABOVE`` objects are searched whole (every evaluation set's scene
but two, of 62 and 71 objects): the stage changes nothing there.
"""

from __future__ import annotations

import re
from typing import Any, Optional

import numpy as np

from groundplan.knowledge.uses import ClassUses
from groundplan.methods.small_model.candidates import scene_view, split_name
from groundplan.methods.small_model.needs import disposal_said, is_disposal_class
from groundplan.methods.small_model.scene_lexicon import categories, plural_forms, synonyms
from groundplan.pddl.model import Problem

#: scenes with more objects (agents included) than this are focused
FOCUS_ABOVE = 60
#: how many classes the instruction's words are nearest to are kept besides the named ones,
#: and how many objects of each such class (a named class keeps all of its objects)
NEAREST_CLASSES = 6
PER_NEAREST_CLASS = 3

_WORD = re.compile(r"[a-z0-9]+")
_CLASS_VECTORS: dict[tuple[int, str], np.ndarray] = {}
#: relations whose second argument holds the first (what keeps a place in the focus)
_HOLDERS = ("on", "in", "inhand", "liquid_in", "at")


def _named_classes(text: str, classes: set[str]) -> set[str]:
    """Classes the instruction names: the class noun or its plural, its head word, a synonym,
    or a category word whose classes include it."""
    low = " " + " ".join(_WORD.findall(text.lower().replace("_", " "))) + " "
    syn = synonyms()
    out = set()
    for c in classes:
        noun = c.replace("_", " ").replace("-", " ").lower()
        forms = {noun, noun.replace(" ", ""), *plural_forms(noun), noun.split()[-1], *syn.get(noun, ())}
        if any(f" {f} " in low for f in forms if f):
            out.add(c)
    for word, spec in categories().items():
        if any(f" {f} " in low for f in [word.replace("_", " "), *(spec.get("forms") or ())]):
            out |= classes & set(spec.get("classes") or ())
    return out


def _class_vector(encoder: Any, uses: ClassUses, c: str) -> np.ndarray:
    key = (id(encoder), c)
    hit = _CLASS_VECTORS.get(key)
    if hit is None:
        noun = c.replace("_", " ").replace("-", " ")
        hit = _CLASS_VECTORS[key] = encoder.encode([f"the {noun}", *uses.direct(c)])
    return hit


def focus(instruction: str, domain: Any, problem: Problem, encoder: Any = None) -> Optional[Problem]:
    """The part of ``problem`` the instruction is about (see the module), or None when the
    scene is small enough to search whole."""
    if len(problem.objects) <= FOCUS_ABOVE:
        return None
    view = scene_view(domain, problem)
    agents = set(view.humans) | set(view.robots)
    by_class: dict[str, list[str]] = {}
    for o, c in view.objects.items():
        if o not in agents:
            by_class.setdefault(c, []).append(o)
    classes = set(by_class)
    keep_classes = _named_classes(instruction, classes)
    if disposal_said(instruction):
        keep_classes |= {c for c in classes if is_disposal_class(c)}
    nearest: set[str] = set()
    if encoder is not None:
        uses = ClassUses.load()
        q = encoder.encode([instruction])[0]
        sims = {c: float(np.max(_class_vector(encoder, uses, c) @ q)) for c in classes - keep_classes}
        nearest = set(sorted(sims, key=lambda c: (-sims[c], c))[:NEAREST_CLASSES])
    low = set(_WORD.findall(instruction.lower()))
    keep = agents | {o for c in keep_classes for o in by_class[c]} | {o for o in view.objects if o in low}
    for c in nearest:
        keep.update(sorted(by_class[c], key=lambda o: split_name(o)[1])[:PER_NEAREST_CLASS])
    for c in classes - keep_classes - nearest:
        # one of every other class: a request that names nothing ("the rain's blowing in") may be
        # met by any kind of thing (the window); only the repeats of a kind are left out
        keep.add(min(by_class[c], key=lambda o: split_name(o)[1]))
    holder: dict[str, set[str]] = {}
    for a in problem.init:
        if a.predicate in _HOLDERS and len(a.args) == 2:
            holder.setdefault(a.args[0], set()).add(a.args[1])
    todo = list(keep)
    while todo:  # the places holding what is kept, up the chain
        for h in holder.get(todo.pop(), ()):
            if h in problem.objects and h not in keep:
                keep.add(h)
                todo.append(h)
    objects = {o: t for o, t in problem.objects.items() if o in keep}
    known = set(objects) | set(domain.constants)
    init = frozenset(a for a in problem.init if all(x in known for x in a.args))
    numeric = {a: v for a, v in problem.numeric_init.items() if all(x in known for x in a.args)}
    return Problem(problem.name, problem.domain_name, objects, init, problem.goal, numeric, problem.metric)


__all__ = ["focus", "FOCUS_ABOVE", "NEAREST_CLASSES", "PER_NEAREST_CLASS"]
