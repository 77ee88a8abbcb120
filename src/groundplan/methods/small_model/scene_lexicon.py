"""The scene's lexicon: the words that name its things (class names, synonyms, plural forms,
category and function words, compounds, states and contents said of a thing), and the
mentions of things a text makes (``Lexicon.mentions``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Optional, Sequence

from groundplan.knowledge.goalsearch_words import word_list_text
from groundplan.methods.small_model.candidates import ORDINALS, SceneView, split_name
from groundplan.pddl.formula import Atom
from groundplan.schemas import yaml_lines as yaml_fast

NUMBERS = {"two": 2, "both": 2, "couple": 2, "pair": 2, "three": 3, "four": 4, "five": 5, "2": 2, "3": 3, "4": 4,
           "5": 5}


_MEASURES = ("pieces", "bags", "loaves", "bottles", "cans", "slices", "packs", "packets", "boxes", "bars", "cartons",
             "jars", "bunches")


#: verbs whose goal needs no named destination (the trash, the user, the robot's hand)
_NO_DEST = re.compile(r"\b(throw|toss|discard|dispose|bin|dump|get\s+rid|trash|bring|give|hand|fetch|pass|clear|"
                      r"empty|remove)\b", re.IGNORECASE)


#: state verbs need no destination either: "heat the water in the kettle" says which water
_STATE_VERB = re.compile(r"\b(slice|chop|dice|cut|heat|warm|boil|hot|fill|pour|wipe|clean|wash|open|close|shut)\b",
                         re.IGNORECASE)


_WORD = re.compile(r"[a-z0-9']+")


#: (``state_descriptors``): "the open box", "the box that's shut", "the clean mugs"
#: "the coffee one" (``said_compounds``)
_MODIFIED_ONE = re.compile(r"\bthe\s+([a-z]+)\s+(one|ones)\b")


#: "the second one", "the ones"
_ONE = re.compile(r"\b(?:the\s+)?(?:(first|second|third|fourth|fifth)\s+)?(one|ones)\b")


#: a state word as an adjective after a determiner ("the clean mugs", "two open boxes")
STATE_ADJ = re.compile(r"\b(the|those|these|my|your|an?|two|three|both|some)\s+(?:clean|open|closed|shut|opened)\b"
                       r"(?=\s+[a-z])")


#: "the box of ...", "the jar full of ...", "the tin with ... in it" (``state_descriptors``)
_CONTAINING = re.compile(r"\s+(?:of|full\s+of|with)\s+(?:the\s+|some\s+|my\s+|all\s+the\s+)?")


_DIRTY = frozenset({"dirty", "grubby", "filthy", "mucky", "used", "unwashed", "grimy"})


_STATE_BEFORE = re.compile(r"\b(?:the|an?|that|this|my|those|these)\s+(open|opened|closed|shut|clean|dirty|grubby|filthy|"
                           r"mucky|used|unwashed|grimy)\s+$")


#: (``empty_state``) "the empty vases", "every empty bottle", "the jars that are empty"
_EMPTY_BEFORE = re.compile(r"\b(?:the|an?|that|this|my|those|these|every|each|all|any)\s+(empty)\s+$")


_EMPTY_AFTER = re.compile(r"\s+(?:that's|that\s+is|which\s+is|that\s+are|which\s+are|that're)\s+(empty)\b")


_STATE_AFTER = re.compile(r"\s+(?:that's|that\s+is|which\s+is|that\s+was|that\s+are|which\s+are|left)\s+"
                          r"(open|closed|shut|clean|dirty)\b")


@lru_cache(maxsize=1)
def functions_data() -> dict:
    """``knowledge/data/goalsearch/functions.yaml``: function words, group heads, state verbs ."""
    text = word_list_text("functions.yaml")
    return yaml_fast.safe_load(text) or {}


@lru_cache(maxsize=1)
def synonyms() -> dict[str, tuple[str, ...]]:
    """``knowledge/data/goalsearch/synonyms.yaml``: a name -> the other names of its group ."""
    text = word_list_text("synonyms.yaml")
    out: dict[str, tuple[str, ...]] = {}
    for group in yaml_fast.safe_load(text) or []:
        names = [str(n).replace("_", " ").lower() for n in group]
        for n in names:
            out[n] = tuple(dict.fromkeys(o for o in names if o != n))
    return out


@lru_cache(maxsize=1)
def categories() -> dict[str, dict]:
    text = word_list_text("categories.yaml")
    return yaml_fast.safe_load(text) or {}


def plural_forms(noun: str) -> tuple[str, ...]:
    out = [noun + "s"]
    if noun.endswith(("s", "x", "ch", "sh", "o")):
        out.append(noun + "es")
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        out.append(noun[:-1] + "ies")
    if noun.endswith("fe"):
        out.append(noun[:-2] + "ves")
    elif noun.endswith("f"):
        out.append(noun[:-1] + "ves")
    return tuple(out)


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    objects: frozenset[str]
    cls: str = ""  # "" for a category word or "one"
    plural: bool = False
    category: bool = False
    ordinal: Optional[int] = None
    count: Optional[int] = None  # a number word before the noun
    #: a place that only says where the previous mention is ("the orange on the table")
    descriptor: bool = False


class Lexicon:
    """The scene's nouns: class names (singular / plural), categories, place names."""

    def __init__(self, view: SceneView, is_a: Optional[Callable[[str, str], bool]] = None, *,
                 functions: bool = False, states: bool = False, synonyms_on: bool = False,
                 compounds: bool = False, compound_words: Optional[frozenset[str]] = None,
                 category_heads: bool = False, modals: bool = False, more_descriptors: bool = False,
                 said_compounds: bool = False, state_descriptors: bool = False, place_modifiers: bool = False,
                 relative_places: bool = False, joined_names: bool = False,
                 class_words: bool = False, empty_state: bool = False):
        self.view = view
        #: is object o of type (or affordance) t in the scene's domain (None: not known)
        self.is_a = is_a
        #: "the empty vases": of several, those holding nothing now (with ``state_descriptors``)
        self.empty_state = empty_state
        #: a function's phrase that says the scene's class nouns ("the pots and pans")
        #: names those classes' things, not the function's
        self.class_words = class_words
        #: "the screw that's sitting on the board" says which screw too
        self.relative_places = relative_places
        #: "the cutting table", "the sewing table": of several places of a class, the one
        #: holding a thing whose class name has that word (the cutting mat, the sewing machine)
        self.place_modifiers = place_modifiers
        #: "the open lunchbox", "the drawer that's shut": which one by its state
        self.state_descriptors = state_descriptors
        self.states = states
        #: the modal "can" ("can you ...", "I can't reach") names no can (a trash can,
        #: a watering can)
        self.modals = modals
        #: "the cup that's on the table", "the ones standing in the sink" say which too
        self.more_descriptors = more_descriptors
        #: a class noun right before another ("the coffee table", "the salad bowl") is a
        #: modifier of that noun, not a mention of its own (English compounds end in their head)
        self.compounds = compounds
        #: a one-word compound class name is also named by its last word ("the bench" for a
        #: workbench, "the shelf" for a bookshelf) when both parts are words of ``compound_words``
        #: and the scene has no class of that word
        self.compound_words = compound_words or frozenset()
        #: a class of several words is of a category when its last word is ("rib_tool": a
        #: tool; "beekeeping_gloves": gloves, clothing), if its objects are carried
        self.category_heads = category_heads
        #: groups named by function : (pattern, members, name)
        self._fn = self._function_groups(view, is_a) if functions and is_a is not None else []
        spec = (functions_data() if self._fn else {}).get("functions") or {}
        #: a function's words said anywhere ("this tag needs snipping"): name -> (pattern, members)
        self.function_words = {name: (re.compile(r"\b(?:" + "|".join(
            re.escape(w) for w in sorted({name, *(spec[name].get("forms") or ())}, key=len, reverse=True)) + r")\b"),
            members) for _, members, name in self._fn if not spec[name].get("places")}
        by_cls: dict[str, list[str]] = {}
        for o, c in view.objects.items():
            if o in view.humans or o in view.robots:
                continue
            by_cls.setdefault(c, []).append(o)
        self.by_cls = {c: sorted(v, key=lambda n: split_name(n)[1]) for c, v in by_cls.items()}
        forms: list[tuple[str, str, bool]] = []  # (phrase, class, plural)
        heads: dict[str, list[str]] = {}
        names = {c.replace("_", " ").replace("-", " ").lower() for c in self.by_cls}
        for c in self.by_cls:
            noun = c.replace("_", " ").replace("-", " ").lower()
            forms.append((noun, c, False))
            forms += [(p, c, True) for p in plural_forms(noun)]
            if joined_names and " " in noun:  #  "the teapot" for a tea_pot, "the tea-pot"
                for joined in (noun.replace(" ", ""), noun.replace(" ", "-")):
                    if joined not in names:
                        forms.append((joined, c, False))
                        forms += [(p, c, True) for p in plural_forms(joined)]
            if synonyms_on:  # "the fridge" for a refrigerator
                for other in synonyms().get(noun, ()):
                    if other not in names:
                        forms.append((other, c, False))
                        forms += [(p, c, True) for p in plural_forms(other)]
            if " " in noun:  # "lime soda" is a soda, "kitchen knife" a knife
                heads.setdefault(noun.split()[-1], []).append(c)
            elif self.compound_words and (tail := compound_head(noun, self.compound_words)):
                heads.setdefault(tail, []).append(c)
        for head, classes in heads.items():
            if head in self.by_cls:
                continue  # a class of that name is matched by its own forms
            key = "@" + head
            self.by_cls[key] = sorted(o for c in classes for o in self.by_cls[c])
            forms.append((head, key, False))
            forms += [(p, key, True) for p in plural_forms(head)]
        cats = categories()
        for word, spec in cats.items():
            objs = self._category_objects(spec, is_a, word)
            if objs:
                for form in [word, *(spec.get("forms") or [])]:
                    forms.append((form, "#" + word, form != word and form.endswith("s")))
                self.by_cls["#" + word] = sorted(objs)
        forms.sort(key=lambda f: -len(f[0]))
        self.forms = forms
        self._re = re.compile(r"\b(" + "|".join(re.escape(f[0]) for f in forms) + r")\b") if forms else None
        self._form = {f[0]: (f[1], f[2]) for f in forms}
        #: a one-word compound the instruction says names the scene's class of its last
        #: part ("the lunchbox" for the box, "the saucepan" for the pan), when that class holds or
        #: carries things (contain / support) and the first part is a word of ``compound_words``
        self._said: dict[str, str] = {}
        if said_compounds and self.compound_words and is_a is not None:
            self._said = {c: c for c, objs in self.by_cls.items() if re.fullmatch(r"[a-z]{3,}", c)
                          and any(is_a(o, "contain") or is_a(o, "support") for o in objs)}
        self._said_re = re.compile(r"\b([a-z]{3,}?)(" + "|".join(sorted(self._said, key=len, reverse=True))
                                   + r")(es|s)?\b") if self._said else None

    @staticmethod
    def _function_groups(view: SceneView, is_a) -> list[tuple[re.Pattern, frozenset[str], str]]:
        """"things to cut with", "cleaning supplies", "something to drink", "the cold stuff",
        "cookware": the objects whose affordances (in the scene's map) serve the function, or
        that a place of the named classes holds (``knowledge/data/goalsearch/functions.yaml``)."""
        spec = functions_data()
        heads = spec.get("heads") or {}
        plural, singular = heads.get("plural") or [], heads.get("singular") or []
        head = "|".join(re.escape(h) for h in sorted(plural + singular, key=len, reverse=True))
        agents = set(view.humans) | set(view.robots)
        liquid_in = [a.args for a in view.init if a.predicate == "liquid_in" and len(a.args) == 2]
        out = []
        for name, f in (spec.get("functions") or {}).items():
            affs, nots = f.get("affordances") or (), f.get("not") or ()
            members: set[str] = set()
            if affs:
                for o in view.objects:
                    if o in agents or not is_a(o, "carry"):
                        continue
                    if any(is_a(o, a) for a in affs) and not any(is_a(o, n) for n in nots):
                        members.add(o)
                if f.get("filled"):  # a bottle of water is something to drink
                    members |= {c for li, c in liquid_in if c in view.objects and is_a(c, "carry")
                                and any(is_a(li, a) for a in affs)
                                and not any(is_a(c, n) for n in f.get("filled_not") or ())}
            places = set(f.get("places") or ())
            if places:
                members |= {o for o, pl in view.place.items() if view.cls(pl) in places and o not in agents}
            classes = set(f.get("classes") or ())  #  members by class: cutlery to eat with
            if classes:
                members |= {o for o, c in view.objects.items() if o not in agents and (
                    c in classes or any(c.endswith("_" + k) for k in classes))}
            if not members:
                continue
            words = "|".join(re.escape(w) for w in sorted({name, *(f.get("forms") or ())}, key=len, reverse=True))
            nouns = "|".join(re.escape(w) for w in sorted(f.get("nouns") or (), key=len, reverse=True))
            alts = [rf"(?P<h1>{head})\s+(?:(?:that\s+)?(?:you|i|we)\s+can\s+|to\s+|for\s+)(?:{words})"
                    rf"(?:\s+(?:with|from|out\s+of|into|in|on))?",
                    rf"(?:{words})\s+(?P<h2>{head})"]
            if nouns:
                alts.append(rf"(?P<n>{nouns})")
            out.append((re.compile(r"\b(?:" + "|".join(alts) + r")\b"), frozenset(members), name))
        return out

    def _function_mentions(self, low: str, out: list[Mention]) -> list[Mention]:
        plural_heads = set((functions_data().get("heads") or {}).get("plural") or ())
        found: list[Mention] = []
        hits = [(m, members, name) for pat, members, name in self._fn for m in pat.finditer(low)]
        hits.sort(key=lambda h: (h[0].start() - h[0].end(), h[0].start()))  # the longest phrase first
        for m, members, name in hits:
            if any(m.start() < x.end and x.start < m.end() for x in found):
                continue
            if self.class_words and any(m.start() <= x.start < m.end() and not x.category and x.objects
                                        and not x.cls.startswith("@") for x in out):
                continue  #  "the pots and pans" where the scene has a pot and a pan: those
            h = m.group("h1") or m.group("h2")
            plural = bool(m.groupdict().get("n")) or (h in plural_heads)
            before = _WORD.findall(low[max(0, m.start() - 40):m.start()])[-4:]
            if _one_of(before):
                plural = False  # "one of the things to cut with": one member
            count = next((NUMBERS[w] for w in reversed(before) if w in NUMBERS), None)
            found.append(Mention(m.start(), m.end(), members, "%" + name, plural, True, None, count))
        if not found:
            return out
        keep = [x for x in out if not any(f.start <= x.start < f.end for f in found)]
        return sorted(keep + found, key=lambda x: x.start)

    def _category_objects(self, spec: dict, is_a, word: str = "") -> set[str]:
        classes = set(spec.get("classes") or ())
        if self.category_heads and classes:
            heads = {word, *classes}
            heads |= {p for h in list(heads) for p in plural_forms(h)}
            for c in self.by_cls:
                if c.startswith(("#", "@")) or c in classes:
                    continue
                parts = c.lower().replace("-", "_").split("_")
                if len(parts) > 1 and parts[-1] in heads and (is_a is None or all(
                        is_a(o, "carry") for o in self.by_cls[c])):
                    classes.add(c)  # (a thing one carries: no wardrobe is a robe)
        affs = spec.get("affordances") or ()
        unless = spec.get("unless") or ()
        out = set()
        for c, objs in self.by_cls.items():
            if c.startswith(("#", "@")):
                continue
            if c in classes:
                out |= set(objs)
            elif affs and is_a is not None:
                for o in objs:
                    if any(is_a(o, a) for a in affs) and not any(is_a(o, a) for a in unless):
                        out.add(o)
        return out

    def mentions(self, text: str) -> list[Mention]:
        low = text.lower()
        out: list[Mention] = []
        if self._re is not None:
            for m in self._re.finditer(low):
                if self.modals and m.group(1) in _MODAL_NOUNS and _modal_at(low, m.start(), m.end()):
                    continue
                cls, plural = self._form[m.group(1)]
                objs = self.by_cls.get(cls, [])
                before = _WORD.findall(low[max(0, m.start() - 40):m.start()])[-4:]
                ordinal = next((ORDINALS.index(w) for w in reversed(before[-3:]) if w in ORDINALS), None)
                count = next((NUMBERS[w] for w in reversed(before) if w in NUMBERS), None)
                if before[-1:] == ["of"] and len(before) >= 2 and before[-2] in _MEASURES:
                    plural = True  # "pieces of cheese", "bags of chips"
                chosen = set(objs)
                if ordinal is not None and not cls.startswith("#") and ordinal < len(objs):
                    chosen = {objs[ordinal]}
                out.append(Mention(m.start(), m.end(), frozenset(chosen), cls, plural, cls.startswith("#"),
                                   ordinal, count))
            out += self._said_compounds(low, out)
            if self.compounds:
                out = self._heads_only(low, out)
        # "the second one", "the one in the bowl": the class of the nearest mention before
        for m in _ONE.finditer(low):
            if not m.group(1) and "the" not in m.group(0):
                continue
            prev = [x for x in out if x.end <= m.start() and not x.category]
            if not prev:
                continue
            cls = prev[-1].cls
            objs = self.by_cls.get(cls, [])
            chosen = set(objs)
            if m.group(1):
                i = ORDINALS.index(m.group(1))
                chosen = {objs[i]} if i < len(objs) else set()
            else:
                tail = low[m.end():m.end() + 40]
                place = self.place_named(tail)
                if place is not None:
                    chosen = {o for o in objs if self.view.place.get(o) == place}
            out.append(Mention(m.start(), m.end(), frozenset(chosen), cls, m.group(2) == "ones", False,
                               None if not m.group(1) else ORDINALS.index(m.group(1))))
        out.sort(key=lambda x: x.start)
        if self._said_re is not None:  #  "a cup, not the coffee one": the coffee cup
            out = self._modified_ones(low, out)
        if self._fn:
            out = self._function_mentions(low, out)
        if self.state_descriptors:
            out = [self._by_state(low, m) for m in out]
        if self.place_modifiers:
            out = [self._by_contents(low, m) for m in out]
        return self._descriptors(low, out)

    def _by_contents(self, low: str, m: Mention) -> Mention:
        """"The cutting table": of several places of a class, the one holding a thing whose class
        name has the word said right before the place's (the table with the cutting mat on it)."""
        if m.category or len(m.objects) < 2:
            return m
        before = _WORD.findall(low[max(0, m.start - 24):m.start])
        if not before or before[-1] in _NOT_MODIFIERS or before[-1] in NUMBERS or before[-1] in ORDINALS:
            return m
        word = before[-1]
        held = frozenset(o for o in m.objects if any(
            word in self.view.cls(x).split("_") for x in held_by(self.view, o, True)))
        if len(held) != 1:
            return m
        return Mention(m.start, m.end, held, m.cls, m.plural, m.category, m.ordinal, m.count, m.descriptor)

    def _by_state(self, low: str, m: Mention) -> Mention:
        """"The open box", "the box that's open", "the clean mugs", "the grubby one": of several
        objects, those in that state now."""
        if m.category or len(m.objects) < 2:
            return m
        said = _STATE_BEFORE.search(low[max(0, m.start - 16):m.start]) or _STATE_AFTER.match(low[m.end:m.end + 24])
        if said is None and self.empty_state:
            said = _EMPTY_BEFORE.search(low[max(0, m.start - 16):m.start]) or _EMPTY_AFTER.match(low[m.end:m.end + 24])
        if said is None:
            return m
        word = said.group(1)
        if word == "empty":  #  "every empty vase": those holding nothing now
            held = frozenset(o for o in m.objects if _holds_nothing(self.view, o, True))
        elif word in _DIRTY:  # "the grubby mug": one that is not clean now
            held = frozenset(o for o in m.objects if Atom("clean", (o,)) not in self.view.init)
        else:
            pred = {"clean": "clean", "closed": "closed", "shut": "closed"}.get(word, "opened")
            held = frozenset(o for o in m.objects if Atom(pred, (o,)) in self.view.init)
        if not held or held == m.objects:
            return m
        return Mention(m.start, m.end, held, m.cls, m.plural, m.category, m.ordinal, m.count, m.descriptor)

    def _modified_ones(self, low: str, out: list[Mention]) -> list[Mention]:
        """"The coffee one" after "a cup": the scene's class ``coffee_cup``, when it has one."""
        for m in _MODIFIED_ONE.finditer(low):
            prev = [x for x in out if x.end <= m.start() and not x.category]
            if not prev:
                continue
            cls = f"{m.group(1)}_{prev[-1].cls.lstrip('@').split('_')[-1]}"
            if cls not in self.by_cls:
                continue
            out = [x for x in out if not (m.start() <= x.start < m.end())]
            out.append(Mention(m.start(), m.end(), frozenset(self.by_cls[cls]), cls, m.group(2) == "ones"))
        return sorted(out, key=lambda x: x.start)

    def _said_compounds(self, low: str, found: Sequence[Mention]) -> list[Mention]:
        """Mentions of a scene class by a one-word compound said for it ("lunchbox": the box)."""
        if self._said_re is None:
            return []
        out = []
        for m in self._said_re.finditer(low):
            word = m.group(0)
            if m.group(1) not in self.compound_words or word in self._form or \
                    any(x.start < m.end() and m.start() < x.end for x in found):
                continue
            cls = self._said[m.group(2)]
            out.append(Mention(m.start(), m.end(), frozenset(self.by_cls.get(cls, ())), cls, bool(m.group(3))))
        return out

    def _descriptors(self, low: str, ms: list[Mention]) -> list[Mention]:
        """"the chips in the refrigerator": the fridge says which chips, it is no destination."""
        out = list(ms)
        for k in range(len(out) - 1):
            a, b = out[k], out[k + 1]
            if a.category or b.category or a.descriptor:
                continue
            gap = low[a.end:b.start]
            if self.state_descriptors and _CONTAINING.fullmatch(gap):
                #  "the box of energy bars", "the jar with the buttons in": what it holds
                # says which container; the contents are no target
                holding = {self.view.place.get(o) for o in b.objects} & set(a.objects)
                if holding:
                    out[k] = Mention(a.start, a.end, frozenset(holding), a.cls, a.plural, a.category, a.ordinal,
                                     a.count)
                    out[k + 1] = Mention(b.start, b.end, b.objects, b.cls, b.plural, b.category, b.ordinal,
                                         b.count, True)
                    continue
            if not re.fullmatch(_DESCRIBING_MORE if self.more_descriptors else _DESCRIBING, gap) and \
                    not (self.relative_places and _DESCRIBING_RELATIVE.fullmatch(gap)):
                continue
            there = {o for o in a.objects if self.view.place.get(o) in b.objects}
            if not there:
                continue
            # only when the goal's destination is elsewhere: a later place, or a verb that
            # needs none ("bring me the fork in the drawer"); else it is the destination
            places = set(self.view.place.values())
            later = any(set(x.objects) & places for x in out[k + 2:] if not x.category)
            verbs = STATE_ADJ.sub(r"\1", low) if self.state_descriptors else low  # ("two clean mugs")
            if not later and not _NO_DEST.search(low) and not (self.states and _STATE_VERB.search(verbs)):
                continue
            out[k] = Mention(a.start, a.end, frozenset(there), a.cls, a.plural, a.category, a.ordinal, a.count)
            out[k + 1] = Mention(b.start, b.end, b.objects, b.cls, b.plural, b.category, b.ordinal, b.count, True)
        return out

    def place_named(self, text: str) -> Optional[str]:
        """The first object named in ``text`` after "in / on / from / off / at" that holds things."""
        places = set(self.view.place.values())
        for m in self.mentions_simple(text):
            hit = [o for o in m.objects if o in places]
            if hit and len(hit) == 1:
                return hit[0]
            if hit and m.ordinal is None and len(m.objects) == 1:
                return hit[0]
        return None

    def mentions_simple(self, text: str) -> list[Mention]:
        low = text.lower()
        out = []
        if self._re is None:
            return out
        for m in self._re.finditer(low):
            cls, plural = self._form[m.group(1)]
            if cls.startswith("#"):
                continue
            objs = self.by_cls.get(cls, [])
            before = _WORD.findall(low[max(0, m.start() - 30):m.start()])[-2:]
            ordinal = next((ORDINALS.index(w) for w in reversed(before) if w in ORDINALS), None)
            chosen = {objs[ordinal]} if ordinal is not None and ordinal < len(objs) else set(objs)
            out.append(Mention(m.start(), m.end(), frozenset(chosen), cls, plural, False, ordinal))
        out = sorted(out + self._said_compounds(low, out), key=lambda x: x.start)
        return self._heads_only(low, out) if self.compounds else out

    def without_modifiers(self, text: str) -> str:
        """``text`` without the class nouns that only modify the next one ("hand me the towel
        basket": "hand me the basket"), so that no phrase about them scores for the words."""
        if not self.compounds or self._re is None:
            return text
        low = text.lower()
        ms = [Mention(m.start(), m.end(), frozenset(), self._form[m.group(1)][0], self._form[m.group(1)][1],
                      self._form[m.group(1)][0].startswith("#")) for m in self._re.finditer(low)]
        kept = {(m.start, m.end) for m in self._heads_only(low, ms)}
        cut = [m for m in ms if (m.start, m.end) not in kept]
        for m in reversed(cut):
            text = text[:m.start] + text[m.end + 1:]
        return text

    @staticmethod
    def _heads_only(low: str, ms: list[Mention]) -> list[Mention]:
        """Drop a singular noun that only modifies the class noun right after it ("coffee" in
        "the coffee table", "fruit" in "the fruit bowl"); a head that is only the last word of
        a longer class name ("can" of "trash can") or a category is no head ("the coke can"), nor
        a part the scene models as its whole ("the fridge door": opening it opens the fridge)."""
        out = []
        for a, b in zip(ms, ms[1:] + [None]):
            if b is not None and not a.plural and not b.category and not b.cls.startswith("@") \
                    and b.cls not in _PARTS and low[a.end:b.start] == " ":
                continue
            out.append(a)
        return out


#: between a thing and the place that says which one it is ("the chips in the fridge")
_DESCRIBING = re.compile(r"\s+(?:that\s+is\s+|which\s+is\s+|lying\s+|sitting\s+)?(?:on|in|from|inside|at)\s+"
                         r"(?:the\s+|my\s+)?(?:\w+\s+)?")


#:  also "that's", "that are", "which are", "standing", "sat", "left", "over"
_DESCRIBING_MORE = re.compile(r"\s+(?:(?:that|which)(?:'s|\s+is|\s+are|\s+was|\s+were)\s+|thats\s+|lying\s+|"
                              r"sitting\s+|standing\s+|sat\s+|left\s+|stood\s+)?(?:(?:still|just|over|down|up|"
                              r"out)\s+)?(?:on|in|from|inside|at|by|next\s+to)\s+(?:the\s+|my\s+|your\s+)?(?:\w+\s+)?")


#:  a relative clause with a verb of lying: "that's sitting on", "which were left in"
_DESCRIBING_RELATIVE = re.compile(r"\s+(?:that|which)(?:'s|\s+is|\s+are|'re|\s+was|\s+were)\s+(?:(?:still|just|now)\s+)?"
                                  r"(?:sitting|lying|standing|resting|perched|kept|stored|left|stuck|sat|stood)\s+"
                                  r"(?:(?:still|just|over|down|up|out)\s+)?(?:on|in|from|inside|at|by|next\s+to)\s+"
                                  r"(?:the\s+|my\s+|your\s+)?(?:\w+\s+)?")


#: nouns that are also modal verbs, and the words around a modal use ("can you", "I can't", "we can")
_MODAL_NOUNS = frozenset({"can"})


_MODAL_NEXT = re.compile(r"(?:'t|n't|not\b|\s+(?:you|u|i|we|they|he|she|someone|somebody|anyone|anybody|"
                         r"it|not|just|only|also|still|really|never|barely|hardly|now)\b|\s+\w+\s+(?:it|them|me|you|"
                         r"that|this|those|these|the|a|an|my|your|some)\b)")


_MODAL_PREV = re.compile(r"\b(?:i|you|u|we|they|he|she|it|who|that|which|robot|one|someone|somebody|anyone|anybody|"
                         r"nobody|you\s+guys)\s+$")


def _modal_at(low: str, start: int, end: int) -> bool:
    """The word at ``low[start:end]`` is used as a modal verb: after a subject ("I can", "you
    can"), or before a subject, a negation or a verb and its object ("can you", "can't", "can pass me")."""
    before = low[max(0, start - 20):start]
    if start == 0 or _MODAL_PREV.search(before) or re.search(r"[.!?,;]\s*$", before):
        return True
    return bool(_MODAL_NEXT.match(low[end:end + 30]))


#: parts named after their whole ("the fridge door"): the whole stays a mention
_PARTS = frozenset({"door"})


def _one_of(before: list[str], adjective: bool = False) -> bool:
    """"one of the", "any of": one member of a plural ("every one of the" is all of them);
    ``adjective`` : also with a word between ("one of the clean cloths")."""
    if adjective and len(before) >= 4 and before[-4:-2] in (["one", "of"], ["any", "of"], ["either", "of"]) and \
            before[-2] in ("the", "these", "those", "my", "your") and before[-1] not in ("of", "the"):
        return before[-5:-4] not in (["every"], ["each"])
    for n in (3, 2):
        tail = before[-n:]
        if len(tail) == n and tail[:2] in (["one", "of"], ["any", "of"], ["either", "of"]) and \
                (n == 2 or tail[2] in ("the", "these", "those", "my", "your")):
            return before[-n - 1:-n] not in (["every"], ["each"])
    return False


def compound_head(noun: str, words: frozenset[str]) -> Optional[str]:
    """The head of a one-word compound ("workbench": "bench", "bookshelf": "shelf"): the longest
    last part of 4 or more letters after a first part of 3 or more, both in ``words``."""
    for i in range(3, len(noun) - 3):
        if noun[:i] in words and noun[i:] in words:
            return noun[i:]
    return None


#: words before a place's noun that are no modifier naming what it holds
_NOT_MODIFIERS = frozenset({"the", "a", "an", "my", "your", "our", "that", "this", "those", "these", "other", "big",
                            "small", "little", "large", "same", "whole", "empty", "clean", "dirty", "open", "closed",
                            "left", "right", "top", "bottom", "middle", "front", "back", "far", "near", "old", "new",
                            "of", "on", "in", "to", "from", "off", "onto", "into", "at", "by", "and", "or"})


def held_by(view: SceneView, place: str, every_place: bool = False) -> set[str]:
    """The things on or in ``place`` (``every_place``, by every relation of the initial
    state, where a scene puts a thing on two places; else by each thing's first place)."""
    out = {o for o, p in view.place.items() if p == place}
    if every_place:
        out |= {a.args[0] for a in view.init if a.predicate in ("on", "in") and len(a.args) == 2 and a.args[1] == place}
    return {o for o in out if o not in view.humans and o not in view.robots}


#:  a relative clause saying what a group's members hold: "the bowls that have nuts in
#: them", "the jars with buttons in", "the tins that are full of screws", "... that are empty"
_HOLDING = re.compile(
    r"\b(?:(?:that|which)(?:'s|'re|\s+(?:has|have|had|is|are))?\s+(?:got\s+|still\s+)?(?:has\s+|have\s+)?"
    r"(?:got\s+)?(?:contains?|holds?|has|have|had|got)?\s*|with\s+)(?P<what>[^,.;!?]+?)\s+"
    r"(?:in|inside)(?:\s+(?:it|them))?(?=\s*(?:[,.;!?]|$|\b(?:and|then|but|on|onto|to|into|over)\b))|"
    r"\b(?:that|which)(?:'s|'re|\s+(?:is|are))\s+(?:full\s+of|filled\s+with)\s+(?P<full>[^,.;!?]+?)"
    r"(?=\s*(?:[,.;!?]|$|\b(?:and|then|but|on|onto|to|into|over)\b))", re.IGNORECASE)


_EMPTY_ONE = re.compile(r"\b(?:the\s+)?empty\s+(?:ones?|\w+)\b|\b(?:that|which)(?:'s|'re|\s+(?:is|are))\s+empty\b|"
                        r"\b(?:that|which)\s+(?:has|have)\s+nothing\s+in\b", re.IGNORECASE)


def _holds_nothing(view: SceneView, o: str, every_place: bool) -> bool:
    return not held_by(view, o, every_place) and not any(
        a.predicate == "liquid_in" and len(a.args) == 2 and a.args[1] == o for a in view.init)


def _by_contents(text: str, spans, group: set[str], excluded: set[str], view: SceneView, lex: "Lexicon",
                 every_place: bool) -> tuple[set[str], set[str], str]:
    """(``contents``): a group's members narrowed by what they hold, or an "empty one"
    said in a negated span left out."""
    said = text.replace("’", "'")
    for m in _HOLDING.finditer(said):
        if any(a <= m.start() < b for a, b in spans):
            continue
        what = m.group("what") or m.group("full") or ""
        if re.fullmatch(r"\s*(?:nothing|no\s+\w+)\s*", what, re.IGNORECASE):
            kept = {o for o in group if _holds_nothing(view, o, every_place)}
        else:
            things = {o for mm in lex.mentions(what) for o in mm.objects}
            kept = {o for o in group if things & held_by(view, o, every_place)}
        if kept:
            return kept, excluded, m.group(0)
    for a, b in spans:  # "take the bowls through, though not the empty one"
        if _EMPTY_ONE.search(said[a:b]):
            empty = {o for o in group if _holds_nothing(view, o, every_place)}
            if empty and empty != group:
                excluded = excluded | empty
    return group, excluded, ""


functions = functions_data  # the name search.py imports
