"""Candidate goals enumerated from the domain and the scene, for small-model planning.

Every candidate atom is type-correct by construction (arguments are scene objects of the
predicate's parameter types), is not already true, and passes affordance pruning (food and
drinks are not containers, furniture is not carried, only a robot that can move is sent
somewhere). Each atom reads as short English phrases (``knowledge/data/goalsearch/phrases.yaml``)
that the sentence-embedding scorer compares with the instruction."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Mapping, Optional

from groundplan.knowledge.goalsearch_words import word_list_text
from groundplan.pddl.formula import Atom
from groundplan.pddl.model import Domain, Problem
from groundplan.schemas import yaml_lines as yaml_fast

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
#: predicates never proposed as goals (besides the domain's hidden ones)
SKIP_PREDICATES = frozenset({"indirect_on", "carried"})
_NAME = re.compile(r"^(.*?)(\d+)$")


@lru_cache(maxsize=1)
def phrase_templates() -> Mapping[str, object]:
    text = word_list_text("phrases.yaml")
    return yaml_fast.safe_load(text)


def split_name(name: str) -> tuple[str, int]:
    m = _NAME.match(name)
    return (m.group(1), int(m.group(2))) if m and m.group(1) else (name, 0)


@dataclass(frozen=True)
class SceneView:
    """What the candidate generator and the phrase renderer need to know about the scene."""

    objects: Mapping[str, str]  # name -> class
    words: Mapping[str, str]  # name -> "the second counter", "me", "you"
    place: Mapping[str, str]  # object -> what it stands on / is in (initial state)
    humans: tuple[str, ...]
    robots: tuple[str, ...]
    init: frozenset[Atom] = field(repr=False, default=frozenset())

    def cls(self, obj: str) -> str:
        return self.objects.get(obj, split_name(obj)[0])


def scene_view(domain: Domain, problem: Problem) -> SceneView:
    types = domain.types
    classes: dict[str, str] = {}
    for o, t in problem.objects.items():
        classes[o] = split_name(o)[0] if types.is_subtype(t, "actor") else t
    humans = tuple(o for o, t in problem.objects.items() if types.is_subtype(t, "human"))
    robots = tuple(o for o, t in problem.objects.items()
                   if types.is_subtype(t, "actor") and o not in humans)
    by_class: dict[str, list[str]] = {}
    for o, c in classes.items():
        by_class.setdefault(c, []).append(o)
    words: dict[str, str] = {}
    for c, objs in by_class.items():
        noun = c.replace("_", " ").replace("-", " ")
        if len(objs) == 1:
            for o in objs:
                words[o] = f"the {noun}"
        else:
            for i, o in enumerate(sorted(objs, key=lambda n: split_name(n)[1])):
                words[o] = f"the {ORDINALS[i] if i < len(ORDINALS) else str(i + 1)} {noun}"
    for h in humans:
        words[h] = "me"
    for r in robots:
        words[r] = "you"
    place: dict[str, str] = {}
    for a in problem.init:
        if a.predicate in ("on", "in") and len(a.args) == 2:
            place.setdefault(a.args[0], a.args[1])
        elif a.predicate in ("inhand", "liquid_in") and len(a.args) == 2:
            place.setdefault(a.args[0], a.args[1])  # a liquid is where its container is: "the water in the kettle"
    return SceneView(classes, words, place, humans, robots, problem.init)


@dataclass(frozen=True)
class CandidateAtom:
    atom: Atom
    #: the object the atom is about (moved / changed object; the place for at / visited)
    focus: str
    phrases: tuple[str, ...]
    #: a "frame": the predicate and the roles of its arguments that are agents
    frame: str
    #: already true in the initial state (kept: "put the soda on the counter" where it stands)
    holds: bool = False
    #: the words naming the arguments ("second", "counter", "coke"), without articles and people
    arg_words: tuple[str, ...] = ()
    #: how many of the last phrases are the needs the object's class meets (class uses)
    n_uses: int = 0
    #: a state change written for a need (``needs`` of phrases.yaml: "it is stuffy in here")
    meets_need: bool = False

    @property
    def text(self) -> str:
        return self.atom.pddl()


def _role(view: SceneView, obj: str) -> str:
    if obj in view.humans:
        return "human"
    if obj in view.robots:
        return "robot"
    return ""


def frame_of(atom: Atom, view: SceneView) -> str:
    """``inhand/?/human``, ``in/?/trash_can``: predicate, then per argument the agent role,
    or for the second argument of on / in / liquid_in the destination's class, else ``?``."""
    parts = [atom.predicate]
    for i, a in enumerate(atom.args):
        role = _role(view, a)
        if role:
            parts.append(role)
        elif i == 1 and atom.predicate in ("on", "in", "liquid_in"):
            parts.append(view.cls(a))
        else:
            parts.append("?")
    return "/".join(parts)


def render(atom: Atom, view: SceneView, *, with_source: bool = True, affordances: tuple[str, ...] = (),
           class_uses: tuple[str, ...] = ()) -> tuple[str, ...]:
    t = phrase_templates()
    roles = [_role(view, a) for a in atom.args]
    keys = ["/".join([atom.predicate, *[r for r in roles if r]]), atom.predicate]
    if atom.predicate == "at" and len(roles) == 2 and roles[1]:
        keys.insert(0, f"at/{roles[0]}/{roles[1]}")
    templates = next((t[k] for k in keys if k in t), None)
    if templates is None:
        templates = [atom.predicate.replace("_", " ") + " " + " ".join("{%d}" % i for i in range(len(atom.args)))]
    words = [view.words.get(a, a) for a in atom.args]
    out = [tpl.format(*words) for tpl in templates]
    if len(atom.args) == 2 and with_source:
        dest = (t.get("dest") or {}).get(f"{atom.predicate}/{view.cls(atom.args[1])}")
        if dest:
            out.extend(tpl.format(*words) for tpl in dest)
    src = view.place.get(atom.args[0]) if atom.args else None
    source = t.get("source") or {}
    skey = next((k for k in keys if k in source), None)
    if with_source and skey and src and src not in atom.args and not _role(view, src):
        out.append(source[skey].format(*words, src=view.words.get(src, src)))
    if keys[0] == "inhand/human" and affordances:
        uses = t.get("uses") or {}
        use = next((uses[a] for a in uses if a in affordances), None)
        if use:
            out.extend([use] if isinstance(use, str) else use)
    if keys[0] == "inhand/human" and class_uses:
        out.extend(class_uses)  # what this class is for, as needs ("I am thirsty")
    if with_source and len(atom.args) == 1:
        need = need_phrases(atom, view)
        if need:
            out.extend(tpl.format(*words) for tpl in need)
    return tuple(out)


def need_phrases(atom: Atom, view: SceneView) -> tuple[str, ...]:
    """What a state change is for ("it is stuffy in here": a window opened), by predicate and
    class of its object, else its head noun (``garage_door``: a door), else by predicate alone
    (``{0}`` is the object's words); () when nothing is written for it."""
    needs = phrase_templates().get("needs") or {}
    if len(atom.args) != 1:
        return ()
    cls = view.cls(atom.args[0])
    for key in (f"{atom.predicate}/{cls}", f"{atom.predicate}/{cls.rsplit('_', 1)[-1]}", atom.predicate):
        need = needs.get(key)
        if need:
            return tuple([need] if isinstance(need, str) else need)
    return ()


@dataclass(frozen=True)
class CandidateOptions:
    #: drop atoms that affordances make pointless (food as a container, carrying furniture, ...)
    affordance_pruning: bool = True
    #: also render "... from <where it is now>"
    source_phrases: bool = True
    #: for objects handed to a person, also "something to <use>" from the object's affordances
    use_phrases: bool = True
    #: for objects handed to a person, also the needs their class meets (knowledge/class_uses.yaml)
    class_uses: bool = True
    #: cups, mugs and glasses hold things too, and so do the classes of ``OPEN_CONTAINERS``
    open_containers: bool = True
    #: a liquid is not cleaned or wetted ("get the milk" is no "clean the milk")
    liquid_states: bool = True


def enumerate_atoms(domain: Domain, problem: Problem, view: Optional[SceneView] = None,
                    options: CandidateOptions = CandidateOptions(),
                    uses_of: Optional[Callable[[str], tuple[str, ...]]] = None) -> list[CandidateAtom]:
    """``uses_of``: class -> the needs it meets (with ``options.class_uses``)."""
    view = view or scene_view(domain, problem)
    types = domain.types
    hidden = set(domain.hidden_predicates) | SKIP_PREDICATES
    init = problem.init
    out: list[CandidateAtom] = []

    def is_a(o: str, t: str) -> bool:
        ot = problem.type_of(domain, o)
        return ot is not None and types.is_subtype(ot, t)

    for pred in domain.predicates:
        if pred.name in hidden or domain.is_derived(pred.name):
            continue
        domains = [problem.objects_of_type(domain, p.type) for p in pred.params]
        if not all(domains):
            continue
        for args in itertools.product(*domains):
            if len(set(args)) < len(args):
                continue
            atom = Atom(pred.name, tuple(args))
            if options.affordance_pruning and not _plausible(atom, view, is_a, options.open_containers,
                                                             options.liquid_states):
                continue
            focus = args[1] if pred.name == "at" else args[0]
            affs = tuple(a for a in _AFFORDANCE_ORDER if is_a(args[0], a)) if options.use_phrases else ()
            named = [a for a in args if not _role(view, a)]
            src = view.place.get(args[0])
            if options.source_phrases and src and src not in args and not _role(view, src):
                named.append(src)  # "... from the second counter"
            words = tuple(dict.fromkeys(w for a in named
                                        for w in re.findall(r"[a-z0-9]+", view.words.get(a, a).lower())
                                        if w != "the"))
            # the needs a class meets are phrases of handing it to a person (render appends them last)
            cu = tuple(uses_of(view.cls(args[0]))) if options.class_uses and uses_of is not None and \
                pred.name == "inhand" and args[1] in view.humans else ()
            phrases = render(atom, view, with_source=options.source_phrases, affordances=affs, class_uses=cu)
            out.append(CandidateAtom(atom, focus, phrases, frame_of(atom, view), atom in init, words, len(cu),
                                     bool(need_phrases(atom, view))))
    return out


_AFFORDANCE_ORDER = ("wet-swipe", "dry-swipe", "cut", "heat", "contact-connect", "pound", "drinkable", "drink",
                     "consumable", "liquid-contain", "contain")


#: carried containers things are put into, by the class name's last word (pots, jars,
#: bags, ...; before, only the first seven, and cups, mugs and glasses were pruned as drinks)
OPEN_CONTAINERS = frozenset({"bowl", "box", "basket", "bucket", "cup", "mug", "glass", "pot", "jar", "bag", "crate",
                             "tub", "bin", "pail", "tin", "caddy", "canister", "container", "holder", "pouch", "sack",
                             "tote", "hamper", "case", "chest", "organizer", "dish", "pan", "saucepan", "tray"})


def _plausible(atom: Atom, view: SceneView, is_a, open_containers: bool = True, liquid_states: bool = False) -> bool:
    p, args = atom.predicate, atom.args
    if liquid_states and p in ("clean", "wet") and len(args) == 1 and is_a(args[0], "liquid"):
        return False  # nobody washes the milk
    agents = set(view.humans) | set(view.robots)
    if p in ("on", "in", "inhand", "liquid_in") and args:
        obj = args[0]
        if obj in agents or is_a(obj, "location") and p != "liquid_in":
            return False  # people and furniture are not carried
    if p in ("on", "in"):
        dest = args[1]
        if open_containers:
            open_container = view.cls(dest).rsplit("_", 1)[-1] in OPEN_CONTAINERS  # ("salad_bowl": a bowl)
            drink = is_a(dest, "drink") and not open_container  # (a mug one drinks from holds pens)
        else:
            open_container = view.cls(dest) in ("bowl", "box", "basket", "bucket", "cup", "mug", "glass")
            drink = is_a(dest, "drink")
        if dest in agents or is_a(dest, "consumable") or drink:
            return False  # food and drinks hold nothing
        if p == "in" and not (is_a(dest, "location") or not is_a(dest, "carry") or is_a(dest, "pour")
                              or open_container):
            # small carried things are containers only when their class says so
            return not is_a(dest, "carry")
    if p == "inhand":
        return args[1] in agents
    if p == "at":
        return args[0] in view.robots
    if len(args) == 1 and args[0] in view.robots:
        return False  # visited / clean / ... the robot itself
    if p == "liquid_in":
        return not is_a(args[1], "consumable") or is_a(args[1], "liquid-contain")
    return True


__all__ = ["CandidateAtom", "CandidateOptions", "SceneView", "enumerate_atoms", "frame_of", "need_phrases", "phrase_templates",
           "render", "scene_view", "split_name"]
