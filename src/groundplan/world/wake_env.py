"""The environment dictionary of Wake et al. (Sec. II-C, Fig. 4): the scene as the prompt
shows it to the model and as the model writes it back.

    {"assets": ["<table>", "<shelf_bottom>", ...],
     "asset_states": {"<shelf_bottom>": "on_something(<table>)", ...},
     "objects": ["<spam>", "<juice>"],
     "object_states": {"<spam>": "on_something(<table>)", "<juice>": "on_something(<shelf_bottom>)"}}

Entities are split into assets (cannot be manipulated: tables, shelves) and objects (can be
grasped: cans, handles). States come from a STATE LIST; two styles exist:

- ``lfo`` (the learning-from-observation set, Fig. 4): on_something(<x>), inside_something(<x>),
  inside_hand(), closed(), open() (and next_to(<x>), which the paper's window example uses);
  one state is written as a string, several as a list;
- ``virtualhome`` (Sec. III-C): ON(<x>), INSIDE(<x>), always a list, plus ``asset_properties``
  / ``object_properties`` (IS_OPENABLE / NOT_OPENABLE).

The dictionary is built from neutral facts - ``("on", x, y)``, ``("in", x, y)``,
``("inhand", x)``, ``("closed", x)``, ``("open", x)``, ``("next_to", x, y)`` - which come from a
scene, from the executor's state, or from a VirtualHome graph; only the entities a task
involves are kept, plus (transitively) the assets they stand on or are inside of. The reverse
direction (``environment_facts``) reads a dictionary back into neutral facts, so a model's
``environment_after`` can be compared with the executor's state and chained environments
can be checked for equality.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence

from groundplan.errors import SceneError

Fact = tuple[str, ...]  # ("on", "juice", "shelf_bottom"), ("inhand", "juice"), ...

RELATIONS = ("on", "in", "next_to")  # neutral binary relations
UNARY = ("inhand", "closed", "open")  # neutral unary states


@dataclass(frozen=True)
class EnvStyle:
    """How states are written. ``templates`` map a neutral predicate to its text, with
    ``{0}`` for the other entity (already in ``<...>`` form)."""

    name: str
    templates: Mapping[str, str]
    list_states: bool  # always write a list (VirtualHome) or a string when there is one state (LfO)
    properties: bool  # add asset_properties / object_properties (VirtualHome)
    #: neutral predicates this style can express (others are left out of the dictionary)
    expresses: frozenset[str]

    def state_text(self, fact: Fact, display: Callable[[str], str]) -> str:
        tmpl = self.templates[fact[0]]
        return tmpl.format(*(display(a) for a in fact[2:]))

    @property
    def state_list(self) -> tuple[str, ...]:
        """The STATE LIST entries of this style (for prompts and schemas)."""
        return tuple(self.templates[p] for p in (*RELATIONS, *UNARY) if p in self.expresses)


LFO = EnvStyle("lfo", {"on": "on_something({0})", "in": "inside_something({0})", "inhand": "inside_hand()",
                       "closed": "closed()", "open": "open()", "next_to": "next_to({0})"},
               list_states=False, properties=False,
               expresses=frozenset({"on", "in", "inhand", "closed", "open", "next_to"}))
VIRTUALHOME = EnvStyle("virtualhome", {"on": "ON({0})", "in": "INSIDE({0})"}, list_states=True, properties=True,
                       expresses=frozenset({"on", "in"}))
STYLES: Mapping[str, EnvStyle] = {"lfo": LFO, "virtualhome": VIRTUALHOME}

# state text -> neutral predicate, for reading dictionaries back (either style, any case)
_STATE_RE = re.compile(r"^\s*([A-Za-z_]+)\s*\(\s*(.*?)\s*\)\s*$")
_READ = {"on_something": "on", "on": "on", "inside_something": "in", "inside": "in", "in": "in",
         "inside_hand": "inhand", "inhand": "inhand", "holds": "inhand", "closed": "closed", "open": "open",
         "opened": "open", "next_to": "next_to"}


def display_name(name: str) -> str:
    """``juice`` -> ``<juice>``."""
    return f"<{name}>"


def strip_name(token: str) -> str:
    """``<juice>`` -> ``juice`` (whitespace and brackets removed, case kept)."""
    return token.strip().strip("<>").strip()


def closure(facts: Iterable[Fact], seeds: Iterable[str], *, max_depth: Optional[int] = None) -> list[str]:
    """``seeds`` plus, transitively, whatever they are on or inside of (in first-seen order).
    ``max_depth`` bounds how many levels of supports are added (None: all)."""
    supports: dict[str, list[str]] = {}
    for f in sorted(facts):  # sorted: the same order in every process (sets follow the hash seed)
        if f[0] in ("on", "in") and len(f) == 3:
            supports.setdefault(f[1], []).append(f[2])
    out: list[str] = []
    frontier = [s for s in seeds]
    depth = 0
    seen: set[str] = set()
    while frontier:
        nxt: list[str] = []
        for e in frontier:
            if e in seen:
                continue
            seen.add(e)
            out.append(e)
            nxt.extend(supports.get(e, ()))
        if max_depth is not None and depth >= max_depth:
            break
        frontier = nxt
        depth += 1
    return out


def build_environment(entities: Sequence[str], manipulable: Iterable[str], facts: Iterable[Fact], *,
                      style: EnvStyle | str = LFO, display: Callable[[str], str] = display_name,
                      properties: Optional[Mapping[str, Sequence[str]]] = None) -> dict[str, Any]:
    """The environment dictionary over ``entities`` (in their order). A state is listed when
    every entity it names is kept. Objects are the manipulable entities, assets the others."""
    st = STYLES[style] if isinstance(style, str) else style
    kept = list(dict.fromkeys(entities))
    keep = set(kept)
    man = set(manipulable)
    states: dict[str, list[str]] = {e: [] for e in kept}
    order = {p: i for i, p in enumerate((*RELATIONS, *UNARY))}
    for f in sorted(set(facts), key=lambda f: (order.get(f[0], 99), f)):
        if f[0] not in st.expresses or len(f) < 2 or f[1] not in keep:
            continue
        if any(a not in keep for a in f[2:]):
            continue
        states[f[1]].append(st.state_text(f, display))

    def state_value(e: str) -> Any:
        s = states[e]
        return list(s) if st.list_states or len(s) != 1 else s[0]

    assets = [e for e in kept if e not in man]
    objects = [e for e in kept if e in man]
    env: dict[str, Any] = {
        "assets": [display(e) for e in assets],
        "asset_states": {display(e): state_value(e) for e in assets if states[e]},
        "objects": [display(e) for e in objects],
        # VirtualHome lists every object (an empty list when nothing is known about it)
        "object_states": {display(e): state_value(e) for e in objects if states[e] or st.list_states},
    }
    if st.properties:
        props = properties or {}
        env["asset_properties"] = {display(e): list(props.get(e, ())) for e in assets}
        env["object_properties"] = {display(e): list(props.get(e, ())) for e in objects}
    return env


# ----------------------------------------------------------------------------- reading back


def parse_state(text: str) -> Optional[tuple[str, tuple[str, ...]]]:
    """``on_something(<table>)`` -> ("on", ("table",)); ``inside_hand()`` -> ("inhand", ()).
    None if the text is not a known state."""
    if not isinstance(text, str):
        return None
    m = _STATE_RE.match(text)
    if not m:
        return None
    pred = _READ.get(m.group(1).lower())
    if pred is None:
        return None
    args = tuple(strip_name(a) for a in m.group(2).split(",") if a.strip())
    if pred in RELATIONS and len(args) != 1:
        return None
    if pred in UNARY and args:
        args = ()
    return pred, args


def _state_items(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def environment_facts(env: Mapping[str, Any], *, normalize: Callable[[str], str] = strip_name) -> frozenset[Fact]:
    """Neutral facts stated by an environment dictionary (unknown states are ignored; see
    ``environment_problems`` for what is wrong with a dictionary)."""
    out: set[Fact] = set()
    if not isinstance(env, Mapping):
        return frozenset()
    for key in ("asset_states", "object_states"):
        states = env.get(key)
        if not isinstance(states, Mapping):
            continue
        for name, value in states.items():
            for item in _state_items(value):
                p = parse_state(item)
                if p is not None:
                    out.add((p[0], normalize(str(name)), *(normalize(a) for a in p[1])))
    return frozenset(out)


def environment_entities(env: Mapping[str, Any], *, normalize: Callable[[str], str] = strip_name
                         ) -> tuple[frozenset[str], frozenset[str]]:
    """(assets, objects) named by an environment dictionary."""
    if not isinstance(env, Mapping):
        return frozenset(), frozenset()

    def names(key: str) -> frozenset[str]:
        v = env.get(key)
        return frozenset(normalize(str(x)) for x in v) if isinstance(v, (list, tuple)) else frozenset()

    return names("assets"), names("objects")


def environment_problems(env: Any, *, style: EnvStyle | str | None = None) -> list[str]:
    """What is malformed in an environment dictionary: missing keys, states that are not in
    the STATE LIST, states naming entities the dictionary does not list."""
    if not isinstance(env, Mapping):
        return ["the environment is not a dictionary"]
    probs: list[str] = []
    for key in ("assets", "objects"):
        if not isinstance(env.get(key), (list, tuple)):
            probs.append(f'"{key}" is missing or not a list')
    assets, objects = environment_entities(env)
    known = assets | objects
    for key in ("asset_states", "object_states"):
        states = env.get(key, {})
        if not isinstance(states, Mapping):
            probs.append(f'"{key}" is not a dictionary')
            continue
        for name, value in states.items():
            n = strip_name(str(name))
            if known and n not in known:
                probs.append(f'{key} names {name}, which is not in "assets" or "objects"')
            for item in _state_items(value):
                p = parse_state(item)
                if p is None:
                    probs.append(f'{name}: "{item}" is not a state from the STATE LIST')
                elif any(a not in known for a in p[1]) and known:
                    probs.append(f'{name}: "{item}" names an entity that is not in the environment')
    return probs


def environments_equal(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return (environment_entities(a) == environment_entities(b)
            and environment_facts(a) == environment_facts(b))


def fact_text(f: Fact, style: EnvStyle | str = LFO) -> str:
    st = STYLES[style] if isinstance(style, str) else style
    if f[0] in st.templates:
        return f"{display_name(f[1])}: {st.state_text(f, display_name)}"
    return f"{display_name(f[1])}: {f[0]}({', '.join(display_name(a) for a in f[2:])})"


def environment_diff(expected: Mapping[str, Any], actual: Mapping[str, Any], *,
                     style: EnvStyle | str = LFO) -> list[str]:
    """Differences in words, ``expected`` first: missing and unexpected entities and states."""
    out: list[str] = []
    ea, eo = environment_entities(expected)
    aa, ao = environment_entities(actual)
    for label, e, a in (("asset", ea, aa), ("object", eo, ao)):
        for n in sorted(e - a):
            out.append(f"{label} {display_name(n)} is missing")
        for n in sorted(a - e):
            out.append(f"{label} {display_name(n)} is not in the environment")
    ef, af = environment_facts(expected), environment_facts(actual)
    for f in sorted(ef - af):
        out.append(f"missing state {fact_text(f, style)}")
    for f in sorted(af - ef):
        out.append(f"unexpected state {fact_text(f, style)}")
    return out


# ----------------------------------------------------------------------------- from scenes

#: scene predicate -> neutral predicate, per skill set (lfo: the lfo skill set's facts)
LFO_VOCABULARY: Mapping[str, str] = {"on": "on", "in": "in", "inhand": "inhand", "closed": "closed",
                                     "opened": "open", "next_to": "next_to"}


def neutral_facts(facts: Iterable[Any], vocabulary: Mapping[str, str] = LFO_VOCABULARY) -> set[Fact]:
    """Scene / executor atoms (anything with ``predicate`` and ``args``) in the neutral vocabulary."""
    out: set[Fact] = set()
    for f in facts:
        pred = vocabulary.get(f.predicate)
        if pred is None:
            continue
        if pred in UNARY:
            out.add((pred, f.args[0]))
        elif len(f.args) >= 2:
            out.add((pred, f.args[0], f.args[1]))
    return out


def environment_from_facts(facts: Iterable[Any], entities: Sequence[str], manipulable: Iterable[str], *,
                           keep: Optional[Iterable[str]] = None, style: EnvStyle | str = LFO,
                           vocabulary: Mapping[str, str] = LFO_VOCABULARY,
                           display: Callable[[str], str] = display_name,
                           properties: Optional[Mapping[str, Sequence[str]]] = None) -> dict[str, Any]:
    """The environment over a fact set (a scene's, or the executor's current state).
    ``keep``: the task's entities; the assets they are on or inside of are added (transitively).
    None keeps every entity."""
    neutral = neutral_facts(facts, vocabulary)
    if keep is None:
        kept = list(entities)
    else:
        wanted = set(closure(neutral, keep))
        kept = [e for e in entities if e in wanted]
        kept += [e for e in closure(neutral, keep) if e not in kept]
    return build_environment(kept, manipulable, neutral, style=style, display=display, properties=properties)


def environment_from_scene(scene: Any, *, keep: Optional[Iterable[str]] = None, style: EnvStyle | str = LFO,
                           manipulable: Optional[Iterable[str]] = None,
                           vocabulary: Mapping[str, str] = LFO_VOCABULARY) -> dict[str, Any]:
    """The environment of a groundplan scene. Objects are the entities the scene marks
    ``manipulable`` (the lfo skill set's static fact), or ``manipulable`` when given."""
    names = [o.name for o in scene.objects]
    if manipulable is None:
        manipulable = {f.args[0] for f in scene.facts if f.predicate == "manipulable" and f.args}
    man = set(manipulable)
    unknown = sorted(man - set(names))
    if unknown:
        raise SceneError(f"manipulable object '{unknown[0]}' is not an object of the scene", file=scene.source)
    if keep is not None:
        missing = [k for k in keep if k not in names]
        if missing:
            raise SceneError(f"task object '{missing[0]}' is not an object of the scene", file=scene.source)
    return environment_from_facts(scene.facts, names, man, keep=keep, style=style, vocabulary=vocabulary)


__all__ = [
    "Fact", "EnvStyle", "LFO", "VIRTUALHOME", "STYLES", "display_name", "strip_name", "closure",
    "build_environment", "parse_state", "environment_facts", "environment_entities", "environment_problems",
    "environments_equal", "environment_diff", "fact_text", "neutral_facts", "environment_from_facts",
    "environment_from_scene", "LFO_VOCABULARY",
]
