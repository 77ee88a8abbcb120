"""What an instruction says about the scene's objects, for goalsearch (issue 21).

* mentions: class nouns (singular and plural, longest match first: "coffee table" before
  "table"), with an ordinal ("the second plate" is ``plate1``) or a place ("the one in the
  bowl"), and category words ("fruit", "snacks", "drinks": ``prompts/small_model/categories.yaml``,
  classes or affordances);
* negation: "except X", "but not X", "not X", "other than X", "X isn't ...", "don't give me X",
  "leave X where it is": the objects named there are excluded from the goal, and the
  negated words are removed from the text that is scored;
* groups: "all / every / each / everything", a plural noun, or a number word before a noun
  ("two plastic cups", "three apples"): the set of objects the goal is about, optionally
  restricted to a named place ("everything on the second shelf", "the fruit in the bowl").

Nothing here reads a gold goal; only the instruction and the scene view."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Callable, Optional, Sequence

from groundplan.methods.small_model.candidates import ORDINALS, SceneView, split_name
from groundplan.pddl.formula import Atom
from groundplan.schemas import yaml_lines as yaml_fast

NUMBERS = {"two": 2, "both": 2, "couple": 2, "pair": 2, "three": 3, "four": 4, "five": 5, "2": 2, "3": 3, "4": 4,
           "5": 5}
ALL_WORDS = ("all", "every", "each", "everything")
_MEASURES = ("pieces", "bags", "loaves", "bottles", "cans", "slices", "packs", "packets", "boxes", "bars", "cartons",
             "jars", "bunches")
#: the user as the receiver: "give me", "bring it to me", "I'd like"
PERSON = re.compile(r"\b(?:give|hand|bring|get|pass|fetch|grab|toss)\s+me\b|\b(?:to|for)\s+me\b|"
                    r"\bi\s*(?:'d|would)?\s*(?:like|want|need)\b|\bcan\s+i\s+(?:have|get)\b", re.IGNORECASE)
#: verbs whose goal needs no named destination (the trash, the user, the robot's hand)
_NO_DEST = re.compile(r"\b(throw|toss|discard|dispose|bin|dump|get\s+rid|trash|bring|give|hand|fetch|pass|clear|"
                      r"empty|remove)\b", re.IGNORECASE)
#: state verbs need no destination either: "heat the water in the kettle" says which water (round 3)
_STATE_VERB = re.compile(r"\b(slice|chop|dice|cut|heat|warm|boil|hot|fill|pour|wipe|clean|wash|open|close|shut)\b",
                         re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9']+")
#: where a negated span starts (the span runs to the next comma / clause boundary)
_NEG_CUE = re.compile(
    r"\b(?:except(?:\s+for)?|but\s+not|other\s+than|apart\s+from|excluding|besides|without|"
    r"(?<=\ball )but|(?<=\beverything )but|(?<=\banything )but|(?<=\beach )but|(?<=\bevery one )but|"
    r"(?:is|are|was)n'?t|(?:is|are)\s+not|do\s*n[o']?t\s+(?:give|bring|hand|get|take|put|move|throw|use|touch|want|open|close|shut|"
    r"eat|drink|pour|cut|slice|chop|wash|clean|heat|warm|fill|empty|toss|bin|drop|forget\s+about)"
    r"(?:\s+me)?|never|not)\b", re.IGNORECASE)
#: "just no peanuts", ", no tomatoes though", "but no X": a bare "no" after a clause boundary (round 3)
_NO_CUE = re.compile(r"(?:(?<=[,;:\-])\s*|\b(?:just|but|and|though)\s+)no\b(?!\s+(?:one|need|thanks|problem|way)\b)",
                     re.IGNORECASE)
#: "the X stays on the Y", "the X can stay there", "keep the X on it": X is kept where it is (round 3)
_STAYS = re.compile(r"\b((?:the|my|your)\s+)([a-z_ ]+?)\s+(?:stays|remains|can\s+stay|should\s+stay|must\s+stay|"
                    r"has\s+to\s+stay)\b", re.IGNORECASE)
#: round 13 (``bar_cue``): "anything bar the coke", "all of them barring the blue one"
_NEG_CUE_BAR = re.compile(r"\b(?:(?<=\ball )bar|(?<=\beverything )bar|(?<=\banything )bar|(?<=\beach )bar|"
                          r"(?<=\bthem )bar|(?<=\bthose )bar|barring|"
                          # (round 20) "set it on the counter, bar the milk"
                          r"(?<=, )bar(?=\s+(?:the|my|your|our|that|this|those|these|a|an)\b))\b", re.IGNORECASE)
#: round 8 (``cue_words``): "I don't need the veil", "no need for the ladder", "the knife isn't needed",
#: "don't you dare move my coffee"
_NEG_CUE_MORE = re.compile(r"\b(?:do\s*n[o']?t|won'?t|will\s+not)\s+(?:really\s+)?need\b|\bno\s+need\s+for\b|"
                           r"\bnot\s+needed\b|\bdo\s*n[o']?t\s+(?:you\s+)?(?:dare|even\s+think\s+about)\b",
                           re.IGNORECASE)
#: round 14 (``subject_negation``): "..., but the knives shouldn't go in there", "and the lid
#: mustn't come off": a thing named as the subject of a negated modal is left out
_NEG_SUBJECT = re.compile(r"\b(?:but|and|though|while|just)\s+((?:the|my|your|our|those|these)\s+[a-z_ ]+?)\s+"
                          r"(?:should\s*n[o']?t|should\s+not|must\s*n[o']?t|must\s+not|can\s*n[o']?t|can't|"
                          r"do\s*n[o']?t|does\s*n[o']?t|do\s+not|does\s+not|won'?t|will\s+not|are\s*n'?t\s+to|"
                          r"are\s+not\s+to|is\s*n'?t\s+to|is\s+not\s+to|need\s*n[o']?t|need\s+not)\b",
                          re.IGNORECASE)
#: round 13 (``state_descriptors``): "the open box", "the box that's shut", "the clean mugs"
#: "the coffee one" (round 13, ``said_compounds``)
_MODIFIED_ONE = re.compile(r"\bthe\s+([a-z]+)\s+(one|ones)\b")
#: "the second one", "the ones"
_ONE = re.compile(r"\b(?:the\s+)?(?:(first|second|third|fourth|fifth)\s+)?(one|ones)\b")
#: a state word as an adjective after a determiner ("the clean mugs", "two open boxes"; round 13)
STATE_ADJ = re.compile(r"\b(the|those|these|my|your|an?|two|three|both|some)\s+(?:clean|open|closed|shut|opened)\b"
                       r"(?=\s+[a-z])")
#: "the box of ...", "the jar full of ...", "the tin with ... in it" (round 13, ``state_descriptors``)
_CONTAINING = re.compile(r"\s+(?:of|full\s+of|with)\s+(?:the\s+|some\s+|my\s+|all\s+the\s+)?")
_DIRTY = frozenset({"dirty", "grubby", "filthy", "mucky", "used", "unwashed", "grimy"})
_STATE_BEFORE = re.compile(r"\b(?:the|an?|that|this|my|those|these)\s+(open|opened|closed|shut|clean|dirty|grubby|filthy|"
                           r"mucky|used|unwashed|grimy)\s+$")
#: (round 16, ``empty_state``) "the empty vases", "every empty bottle", "the jars that are empty"
_EMPTY_BEFORE = re.compile(r"\b(?:the|an?|that|this|my|those|these|every|each|all|any)\s+(empty)\s+$")
_EMPTY_AFTER = re.compile(r"\s+(?:that's|that\s+is|which\s+is|that\s+are|which\s+are|that're)\s+(empty)\b")
_STATE_AFTER = re.compile(r"\s+(?:that's|that\s+is|which\s+is|that\s+was|that\s+are|which\s+are|left)\s+"
                          r"(open|closed|shut|clean|dirty)\b")
#: round 8 (``cue_words``): "get a coke out and hand it over", "pass them here", "fetch the salad":
#: handed to the person too
PERSON_MORE = re.compile(r"\b(?:hand|pass|give|toss|chuck|bring)\s+(?:(?:it|them|that|this|those|these|one|some)\s+)?"
                         r"(?:over|here)\b|\bfetch\b", re.IGNORECASE)
_NEG_END = re.compile(r"[,.;!?]|\b(?:and|then|but|give|bring|hand|instead|please)\b", re.IGNORECASE)
#: "leave the hammer where it is" / "keep the sponge on the counter": that object stays
_LEAVE = re.compile(r"\b(?:leave|keep)\s+((?:the|my|your|a|an)\s+)?([a-z_ ]+?)\s+(?:where\s+it\s+is|alone|as\s+it\s+is|"
                    r"where\s+they\s+are|there|be|untouched|on|in|out)\b", re.IGNORECASE)
#: round 21: "chuck the tomato in the bin, but keep the chopping board": a thing kept, with
#: nothing after it in its clause (not "keep the door shut", "keep the milk cold")
_KEPT_THING = r"((?:the|my|your|a|an)\s+)?([a-z_ ]+?)\s*(?=[,.;!?]|$)"
_KEEP_END = re.compile(r"(?:\b(?:but|and|though|just)|,)\s+keep\s+" + _KEPT_THING, re.IGNORECASE)
#: words that make "keep the X ..." a state or a place, not a thing kept: "keep the door shut"
_KEPT_STATES = frozenset({"shut", "closed", "open", "cold", "cool", "warm", "hot", "clean", "dry", "safe", "tidy",
                          "full", "empty", "on", "off", "out", "in", "going", "running", "away", "handy", "nearby",
                          "close", "ready", "covered", "upright", "locked", "chilled", "wet", "separate", "apart",
                          "whole", "intact", "fresh", "aside", "back", "it", "them", "there", "here"})


#: round 23 (``bother_cue``): "don't bother with the glass, it's clean", "no need to worry about the plate"
_NEG_CUE_BOTHER = re.compile(r"\b(?:do\s*n[o']?t|no\s+need\s+to|never)\s+(?:bother|worry)\s+(?:with|about)\b", re.IGNORECASE)
#: round 23 (``leave_end``): "bring me my keys and wallet, but leave the jacket": "leave" as "keep"
#: (round 24) and at the start: "leave the mug, but put the rag in the drawer"
_LEAVE_END = re.compile(r"(?:^\s*(?:please\s+)?|(?:\b(?:but|and|though|just)|,)\s+)(?:keep|leave)\s+" + _KEPT_THING,
                        re.IGNORECASE)


def _kept_at_end(text: str, leave: bool = False) -> list:
    """The matches of ``_KEEP_END`` (with ``leave``, ``_LEAVE_END``) whose kept words are a thing
    alone, with no state or place: not "keep the door shut", "keep the tomato off it", "keep the
    other one whole"."""
    return [m for m in (_LEAVE_END if leave else _KEEP_END).finditer(text)
            if not _KEPT_STATES.intersection(m.group(2).lower().split())]


@lru_cache(maxsize=1)
def functions_data() -> dict:
    """``prompts/small_model/functions.yaml``: function words, group heads, state verbs (round 3)."""
    text = resources.files("groundplan.prompts.small_model").joinpath("functions.yaml").read_text()
    return yaml_fast.safe_load(text) or {}


#: "all" that quantifies nothing: "crumbs all over the table", "all day", "not at all" (round 4)
_ALL_IDIOM = re.compile(r"\ball(?=\s+(?:over|around|along|day|night|week|morning|evening|alone|right|set|done|gone|"
                        r"of\s+a\s+sudden|the\s+time|the\s+way|in\s+all)\b)|(?<=\bat\s)all\b|(?<=\bafter\s)all\b",
                        re.IGNORECASE)


#: round 8 (``cue_words``): "tea all across my notes", "mud all down my jeans", "all through the night"
_ALL_IDIOM_MORE = re.compile(r"\ball(?=\s+(?:across|through|down|up|about|under|into)\b)", re.IGNORECASE)


#: round 14 (``adverb_all``): "all" as an intensifier after a linking verb, before a word that is
#: no determiner: "my fingers are all tacky", "I'm all sweaty", "it's got all sticky"
_ALL_ADVERB = re.compile(r"\b(?:am|are|is|was|were|be|been|get|gets|got|getting|feel|feels|look|looks|'re|'m|'s)"
                         r"\s+(all)\s+(?!(?:the|of|my|your|our|their|his|her|its|those|these|that|this|them|us|you|"
                         r"mine|yours|ours|theirs|set|done|gone|in|out|here|there|right|over|around)\b)[a-z]",
                         re.IGNORECASE)


def quantifier_text(text: str, more_cues: bool = False, adverb: bool = False) -> str:
    """``text`` with idiomatic "all" blanked (same length, so positions stay)."""
    out = _ALL_IDIOM.sub(lambda m: " " * len(m.group(0)), text)
    if adverb:
        out = _ALL_ADVERB.sub(lambda m: m.group(0)[:m.start(1) - m.start(0)] + "   " + m.group(0)[m.end(1) - m.start(0):],
                              out)
    return _ALL_IDIOM_MORE.sub(lambda m: " " * len(m.group(0)), out) if more_cues else out


@lru_cache(maxsize=1)
def synonyms() -> dict[str, tuple[str, ...]]:
    """``prompts/small_model/synonyms.yaml``: a name -> the other names of its group (round 4)."""
    text = resources.files("groundplan.prompts.small_model").joinpath("synonyms.yaml").read_text()
    out: dict[str, tuple[str, ...]] = {}
    for group in yaml_fast.safe_load(text) or []:
        names = [str(n).replace("_", " ").lower() for n in group]
        for n in names:
            out[n] = tuple(dict.fromkeys(o for o in names if o != n))
    return out


@lru_cache(maxsize=1)
def categories() -> dict[str, dict]:
    text = resources.files("groundplan.prompts.small_model").joinpath("categories.yaml").read_text()
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


@dataclass(frozen=True)
class Analysis:
    text: str  # the instruction without its negated spans
    mentions: tuple[Mention, ...] = ()
    excluded: frozenset[str] = frozenset()
    #: the objects a group instruction is about (empty: not a group instruction)
    group: frozenset[str] = frozenset()
    #: "all": every object of the group; k >= 2: that many of them
    count: Optional[int] = None
    #: a place the group is taken from ("everything on the second shelf")
    source: Optional[str] = None
    negated_spans: tuple[str, ...] = field(default=())
    #: objects the instruction keeps where they are ("leave the X on the Y", "the X stays")
    kept: frozenset[str] = frozenset()
    #: round 8 (``cue_words``): "hand it over", "fetch" hand things to the person too
    more_cues: bool = False

    @property
    def named(self) -> frozenset[str]:
        return frozenset(o for m in self.mentions if not m.category and not m.descriptor for o in m.objects)

    @property
    def kinds(self) -> frozenset[str]:
        """Objects of a category the instruction names ("some cutlery")."""
        return frozenset(o for m in self.mentions if m.category for o in m.objects)

    @property
    def to_person(self) -> bool:
        return to_person(self.text, self.more_cues)

    @property
    def descriptors(self) -> frozenset[str]:
        return frozenset(o for m in self.mentions if m.descriptor for o in m.objects)


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
        #: round 16: "the empty vases": of several, those holding nothing now (with ``state_descriptors``)
        self.empty_state = empty_state
        #: round 16: a function's phrase that says the scene's class nouns ("the pots and pans")
        #: names those classes' things, not the function's
        self.class_words = class_words
        #: round 16: "the screw that's sitting on the board" says which screw too
        self.relative_places = relative_places
        #: round 14: "the cutting table", "the sewing table": of several places of a class, the one
        #: holding a thing whose class name has that word (the cutting mat, the sewing machine)
        self.place_modifiers = place_modifiers
        #: round 13: "the open lunchbox", "the drawer that's shut": which one by its state
        self.state_descriptors = state_descriptors
        self.states = states
        #: round 12: the modal "can" ("can you ...", "I can't reach") names no can (a trash can,
        #: a watering can)
        self.modals = modals
        #: round 12: "the cup that's on the table", "the ones standing in the sink" say which too
        self.more_descriptors = more_descriptors
        #: round 7: a class noun right before another ("the coffee table", "the salad bowl") is a
        #: modifier of that noun, not a mention of its own (English compounds end in their head)
        self.compounds = compounds
        #: round 8: a one-word compound class name is also named by its last word ("the bench" for a
        #: workbench, "the shelf" for a bookshelf) when both parts are words of ``compound_words``
        #: and the scene has no class of that word
        self.compound_words = compound_words or frozenset()
        #: round 8: a class of several words is of a category when its last word is ("rib_tool": a
        #: tool; "beekeeping_gloves": gloves, clothing), if its objects are carried
        self.category_heads = category_heads
        #: groups named by function (round 3): (pattern, members, name)
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
            if joined_names and " " in noun:  # (round 16) "the teapot" for a tea_pot, "the tea-pot"
                for joined in (noun.replace(" ", ""), noun.replace(" ", "-")):
                    if joined not in names:
                        forms.append((joined, c, False))
                        forms += [(p, c, True) for p in plural_forms(joined)]
            if synonyms_on:  # "the fridge" for a refrigerator (round 4)
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
        #: round 13: a one-word compound the instruction says names the scene's class of its last
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
        that a place of the named classes holds (``prompts/small_model/functions.yaml``)."""
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
            classes = set(f.get("classes") or ())  # (round 13) members by class: cutlery to eat with
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
                continue  # (round 16) "the pots and pans" where the scene has a pot and a pan: those
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
        if self._said_re is not None:  # (round 13) "a cup, not the coffee one": the coffee cup
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
        if word == "empty":  # (round 16) "every empty vase": those holding nothing now
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
                # (round 13) "the box of energy bars", "the jar with the buttons in": what it holds
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
#: (round 12) also "that's", "that are", "which are", "standing", "sat", "left", "over"
_DESCRIBING_MORE = re.compile(r"\s+(?:(?:that|which)(?:'s|\s+is|\s+are|\s+was|\s+were)\s+|thats\s+|lying\s+|"
                              r"sitting\s+|standing\s+|sat\s+|left\s+|stood\s+)?(?:(?:still|just|over|down|up|"
                              r"out)\s+)?(?:on|in|from|inside|at|by|next\s+to)\s+(?:the\s+|my\s+|your\s+)?(?:\w+\s+)?")

#: (round 16) a relative clause with a verb of lying: "that's sitting on", "which were left in"
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


#: parts named after their whole ("the fridge door"): the whole stays a mention (round 7)
_PARTS = frozenset({"door"})


def _clause_end(text: str, start: int) -> int:
    m = re.compile(r"[,.;!?]|\b(?:and|then|but|instead|please)\b", re.IGNORECASE).search(text, start)
    return m.start() if m else len(text)


def _is_pronoun(words: str) -> bool:
    return words.strip().lower() in ("it", "them", "this", "that", "these", "those", "this one", "that one",
                                     "both", "them both", "both of them", "them all", "all of them")  # (round 14)


def _one_of(before: list[str], adjective: bool = False) -> bool:
    """"one of the", "any of": one member of a plural ("every one of the" is all of them);
    ``adjective`` (round 16): also with a word between ("one of the clean cloths")."""
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


def to_person(text: str, more_cues: bool = False) -> bool:
    """Whether ``text`` hands something to the person ("give me", "for me", "I'd like"; with
    ``more_cues`` (round 8) also "hand it over", "pass them here", "fetch")."""
    return bool(PERSON.search(text) or (more_cues and PERSON_MORE.search(text)))


def _negated_spans(text: str, keep: bool = False, more_cues: bool = False,
                   bar: bool = False, subject: bool = False, leave: bool = False,
                   bother: bool = False) -> list[tuple[int, int]]:
    """Negated spans; with ``keep`` (round 3) also "just no X", and a kept object's span runs to
    the end of its clause ("leave the broom on the counter": the counter is no destination);
    with ``more_cues`` (round 8) also "I don't need the X", "no need for the X"."""
    spans = []
    cues = list(_NEG_CUE.finditer(text))
    if more_cues:
        cues += [m for m in _NEG_CUE_MORE.finditer(text) if not any(c.start() <= m.start() < c.end() for c in cues)]
    if bar:
        cues += list(_NEG_CUE_BAR.finditer(text))
    if bother:
        cues += list(_NEG_CUE_BOTHER.finditer(text))
    for m in cues:
        end_m = _NEG_END.search(text, m.end())
        end = end_m.start() if end_m else len(text)
        # "isn't coke" / "not the banana": the span is the cue and what follows it
        spans.append((m.start(), end))
    if subject:  # (round 14) "but the knives shouldn't go in there": the subject to the clause's end
        spans += [(m.start(1), _clause_end(text, m.end())) for m in _NEG_SUBJECT.finditer(text)]
    for m in _LEAVE.finditer(text):
        if keep and _is_pronoun(m.group(2)):
            continue  # "pick up the spoon and leave it on the counter": a placement, nothing kept
        spans.append((m.start(), _clause_end(text, m.end(2)) if keep else m.end(2)))
    if keep:
        for m in _NO_CUE.finditer(text):
            end_m = _NEG_END.search(text, m.end())
            spans.append((m.start(), end_m.start() if end_m else len(text)))
        for m in list(_STAYS.finditer(text)) + _kept_at_end(text, leave):
            if not _is_pronoun(m.group(2)):
                spans.append((m.start(), _clause_end(text, m.end())))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for s, e in spans:
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return merged


def _kept_objects(text: str, mentions: list[Mention], leave: bool = False) -> set[str]:
    """The objects of "leave / keep the X ..." and "the X stays ...": the first mention of each."""
    out: set[str] = set()
    starts = [m.start(2) for m in list(_LEAVE.finditer(text)) + list(_STAYS.finditer(text))
              + _kept_at_end(text, leave) if not _is_pronoun(m.group(2))]
    for st in starts:
        m = next((x for x in mentions if x.start >= st and not x.category), None)
        if m is not None and m.start - st < 30:
            out |= set(m.objects)
    return out


#: a definite article before a mention: "the fruit", "your cutlery" (round 6)
_DEFINITE = re.compile(r"\b(?:the|my|your|our|these|those)\s+(?:\w+\s+)?$")
#: "all the fabric", "all of the bread": every object of a singular (mass) noun (round 6)
_ALL_THE = re.compile(r"\ball\s+(?:of\s+)?(?:the|my|your|our|these|those)\s+(?:\w+\s+)?$")


#: between two things said together: "the fruit and (all the) vegetables", "the apple, and the bananas"
_AND_GAP = re.compile(r"\s*(?:,\s*)?(?:and|or|&)\s+(?:the\s+|all\s+the\s+|any\s+)?")
#: a source place said as a pronoun: "take everything out of it", "shift every single thing off it"
_PLACE_PRONOUN = re.compile(r"\b(?:out\s+of|off(?:\s+of)?|from)\s+(?:it|there)\b")


#: words before a place's noun that are no modifier naming what it holds
_NOT_MODIFIERS = frozenset({"the", "a", "an", "my", "your", "our", "that", "this", "those", "these", "other", "big",
                            "small", "little", "large", "same", "whole", "empty", "clean", "dirty", "open", "closed",
                            "left", "right", "top", "bottom", "middle", "front", "back", "far", "near", "old", "new",
                            "of", "on", "in", "to", "from", "off", "onto", "into", "at", "by", "and", "or"})


def held_by(view: SceneView, place: str, every_place: bool = False) -> set[str]:
    """The things on or in ``place`` (``every_place``, round 14: by every relation of the initial
    state, where a scene puts a thing on two places; else by each thing's first place)."""
    out = {o for o, p in view.place.items() if p == place}
    if every_place:
        out |= {a.args[0] for a in view.init if a.predicate in ("on", "in") and len(a.args) == 2 and a.args[1] == place}
    return {o for o in out if o not in view.humans and o not in view.robots}


#: (round 15) a relative clause saying what a group's members hold: "the bowls that have nuts in
#: them", "the jars with buttons in", "the tins that are full of screws", "... that are empty"
_HOLDING = re.compile(
    r"\b(?:(?:that|which)(?:'s|'re|\s+(?:has|have|had|is|are))?\s+(?:got\s+|still\s+)?(?:has\s+|have\s+)?"
    r"(?:got\s+)?(?:contains?|holds?|has|have|had|got)?\s*|with\s+)(?P<what>[^,.;!?]+?)\s+"
    r"(?:in|inside)(?:\s+(?:it|them))?(?=\s*(?:[,.;!?]|$|\b(?:and|then|but|on|onto|to|into|over)\b))|"
    r"\b(?:that|which)(?:'s|'re|\s+(?:is|are))\s+(?:full\s+of|filled\s+with)\s+(?P<full>[^,.;!?]+?)"
    r"(?=\s*(?:[,.;!?]|$|\b(?:and|then|but|on|onto|to|into|over)\b))", re.IGNORECASE)
_EMPTY_ONE = re.compile(r"\b(?:the\s+)?empty\s+(?:ones?|\w+)\b|\b(?:that|which)(?:'s|'re|\s+(?:is|are))\s+empty\b|"
                        r"\b(?:that|which)\s+(?:has|have)\s+nothing\s+in\b", re.IGNORECASE)


_ON_PLACE = re.compile(r"\s+(?:on|in|inside|from|off|under)\s+(?:the|my|your|our|that|this)\s+", re.IGNORECASE)


def _placed_one(text: str, m: "Mention", kept, view: SceneView) -> Optional[str]:
    """Round 15: of the objects a mention names, the one on or in the place said right after it
    ("the basket on the shelf", "the box in the cupboard"); None unless exactly one."""
    after = _ON_PLACE.match(text, m.end)
    if after is None:
        return None
    where = next((x for x in kept if x.start == after.end() and not x.category), None)
    if where is None:
        return None
    there = {o for o in m.objects if view.place.get(o) in where.objects}
    return next(iter(there)) if len(there) == 1 else None


def _holds_nothing(view: SceneView, o: str, every_place: bool) -> bool:
    return not held_by(view, o, every_place) and not any(
        a.predicate == "liquid_in" and len(a.args) == 2 and a.args[1] == o for a in view.init)


def _by_contents(text: str, spans, group: set[str], excluded: set[str], view: SceneView, lex: "Lexicon",
                 every_place: bool) -> tuple[set[str], set[str], str]:
    """Round 15 (``contents``): a group's members narrowed by what they hold, or an "empty one"
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


#: (round 18) "not the apple from my lunch box": the words between a thing and its place
_LOCATED_GAP = re.compile(r"\s*(?:that's\s+|that\s+is\s+|which\s+is\s+|that\s+are\s+|still\s+)?(?:from|in|on|inside|"
                          r"out\s+of|off)\s+(?:(?:the|my|your|our|his|her|their|this|that)\s+)?(?:[a-z'-]+\s+)?", re.IGNORECASE)


def _excluded_places(text: str, mentions, spans, view: SceneView) -> dict[int, set[str]]:
    """Round 18 (``located_exclusions``): in a negated span, a thing of several followed by where it
    is ("not the apple from my lunch box") excludes the ones there, and the place is no exclusion.
    Mention index -> excluded objects (an empty set for the place)."""
    out: dict[int, set[str]] = {}
    for k in range(len(mentions) - 1):
        m, at = mentions[k], mentions[k + 1]
        span = next(((s, e) for s, e in spans if s <= m.start < e), None)
        if span is None or len(m.objects) < 2 or not (span[0] <= at.start < span[1]) or at.category \
                or not _LOCATED_GAP.fullmatch(text[m.end:at.start]):
            continue
        there = {o for o in m.objects if view.place.get(o) in at.objects}
        if there and there != set(m.objects):
            out[k], out[k + 1] = there, set()
    return out


def with_vessels(objs: set[str], view: SceneView) -> set[str]:
    """``objs`` and the vessels that hold those of them that are liquids (not a person's hand)."""
    return objs | {a.args[1] for a in view.init if a.predicate == "liquid_in" and len(a.args) == 2
                   and a.args[0] in objs and a.args[1] not in view.humans}


def analyze(instruction: str, view: SceneView, lex: Lexicon, *, negation: bool = True,
            groups: bool = True, keep: bool = False, singular_all: bool = False,
            mass_groups: bool = False, more_cues: bool = False, bar: bool = False,
            adverb_all: bool = False, place_pronoun: bool = False, every_place: bool = False,
            subject_negation: bool = False, conjoined: bool = False, contents: bool = False,
            nested_places: bool = False, plural_pairs: bool = False, definite_source: bool = False,
            excluded_vessels: bool = False,
            one_of_adjective: bool = False, located_exclusions: bool = False,
            nested_sources: bool = False, leave_end: bool = False, bother: bool = False) -> Analysis:
    """``keep`` (round 3): "just no X", kept objects ("leave the X on the Y"); ``singular_all``:
    "every mug", "each glass" name every object of the class; ``mass_groups`` (round 6): a
    definite category word with an exception names the category's members ("the fruit, apart
    from the tomato", "the cutlery but not the knives"), and "all the fabric" every object of
    a singular noun. ``more_cues`` (round 8): "don't need the X" negates, "hand it over" / "fetch"
    hand to the person, "everything out of the fridge" takes the group from the fridge."""
    text = instruction
    mentions = lex.mentions(text)
    excluded: set[str] = set()
    spans = _negated_spans(text, keep, more_cues, bar, subject_negation, leave_end, bother) if negation else []
    kept_objs = frozenset(_kept_objects(text, mentions, leave_end)) if negation and keep else frozenset()
    kept = []
    where = _excluded_places(text, mentions, spans, view) if located_exclusions else {}
    for k, m in enumerate(mentions):
        inside = any(s <= m.start < e for s, e in spans)
        if inside:
            excluded |= where.get(k, set(m.objects))
        else:
            kept.append(m)
    excluded -= {view.place.get(o) for o in kept_objs}  # "leave the X on the counter": the counter is not excluded
    if excluded_vessels and excluded:  # (round 20) "everything out of the fridge, bar the milk": the milk carton
        excluded |= with_vessels(excluded, view) - {o for m in kept for o in m.objects}
    positive = text
    for s, e in reversed(spans):
        positive = positive[:s] + " " + positive[e:]
    positive = re.sub(r"\s+", " ", re.sub(r"\s+([,.;!?])", r"\1", positive)).strip(" ,;")
    named_excl = frozenset(excluded)
    if not groups:
        return Analysis(positive or text, tuple(kept), named_excl, negated_spans=tuple(text[s:e] for s, e in spans),
                        kept=kept_objs, more_cues=more_cues)
    words = _WORD.findall(quantifier_text(positive, more_cues, adverb_all).lower())
    group: set[str] = set()
    count: Optional[int] = None
    source: Optional[str] = None
    # "clear the table (into the trash)": everything there
    has_all = any(w in ALL_WORDS for w in words) or bool(re.search(r"\b(clear|empty)\s+(off\s+|out\s+)?the\b",
                                                                     positive, re.IGNORECASE))
    # a plural noun is a group; a category word ("fruit", "food") only with "all"
    grouped = [m for m in kept if (m.plural or (m.category and has_all)) and len(m.objects - excluded) >= 2
               and not (lex.state_descriptors and m.descriptor)]  # (round 13: "the box of energy bars")
    if singular_all:  # "hand me one of the drinks": one member
        low = instruction.lower()
        grouped = [m for m in grouped if not _one_of(_WORD.findall(low[max(0, m.start - 40):m.start])[-5:],
                                                     one_of_adjective)]
    if singular_all:  # "every mug you can find", "each glass", "every single juice"
        low = instruction.lower()
        grouped += [m for m in kept if not m.plural and not m.category and m not in grouped
                    and re.search(r"\b(?:every|each)\s+(?:single\s+)?" + (r"(?:empty\s+|clean\s+|dirty\s+|open\s+|"
                                  r"closed\s+)?" if lex.empty_state else "") + "$", low[max(0, m.start - 26):m.start])
                    and len(m.objects - excluded) >= 2]
    if mass_groups:
        low = instruction.lower()
        grouped += [m for m in kept if m not in grouped and len(m.objects - excluded) >= 2 and (
            (m.category and excluded and _DEFINITE.search(low[max(0, m.start - 25):m.start])
             and not _one_of(_WORD.findall(low[max(0, m.start - 40):m.start])[-4:])
             and not re.search(r"\b(?:any|one|either|some)\s+(?:of\s+)?(?:the\s+)?(?:\w+\s+)?$",
                               low[max(0, m.start - 25):m.start]))
            or (not m.plural and not m.category and _ALL_THE.search(low[max(0, m.start - 30):m.start])))]
    if definite_source and not grouped:
        # (round 16) "tip the fruit out of the bowl": a definite category taken out of a place that
        # holds two or more of its members is all of them there
        low = instruction.lower()
        places = set(view.place.values())
        for m in kept:
            if not m.category or not _DEFINITE.search(low[max(0, m.start - 12):m.start]):
                continue
            after = re.match(r"\s+(?:out\s+of|off|from)\s+(?:the|my|your|that|this)\s+", low[m.end:])
            at = next((x for x in kept if after and x.start == m.end + after.end() and not x.category), None)
            if at is not None and len(at.objects) == 1 and set(at.objects) <= places and \
                    len(held_by(view, next(iter(at.objects)), every_place) & (m.objects - excluded)) >= 2:
                grouped = [m]
                break
    if plural_pairs and has_all and not grouped:
        # (round 16) "all the pots and pans" with one pot and one pan: plurals joined by "and"
        low = instruction.lower()
        pair = [m for m in kept if m.plural and not m.category and m.objects - excluded]
        joined = [m for m in pair if any(_AND_GAP.fullmatch(low[g.end:m.start]) or _AND_GAP.fullmatch(low[m.end:g.start])
                                         for g in pair if g is not m)]
        if joined and len(frozenset().union(*(m.objects for m in joined)) - excluded) >= 2:
            grouped = joined
    if conjoined and grouped:  # (round 14) "all the fruit and vegetables", "the apple and the bananas": one joins too
        low = instruction.lower()
        grouped += [m for m in kept if m not in grouped and m.objects - excluded and any(
            _AND_GAP.fullmatch(low[g.end:m.start]) or _AND_GAP.fullmatch(low[m.end:g.start]) for g in grouped)]
    counted = [m for m in kept if m.count and m.count >= 2 and len(m.objects - excluded) >= m.count]
    if counted:
        count = counted[0].count
        group = set(counted[0].objects) - excluded
    elif grouped or has_all:
        for m in grouped:
            group |= set(m.objects)
        places = set(view.place.values())
        # a source place: "on / in / from / off the X" naming a place that holds members
        for m in kept:
            if m.category or not (set(m.objects) & places):
                continue
            pre = instruction.lower()[max(0, m.start - 25):m.start]
            prep = re.search(r"\b(on|in|from|off|at|inside|clear|empty" + (r"|out\s+of" if more_cues else "") +
                             r")\b(\s+\w+){0,2}\s*$", pre)
            if not prep:
                continue
            # a source when said so ("from", "off", "clear the table"), when a destination
            # follows, or when the verb needs none ("throw away all the fruit in the bowl");
            # else a destination
            later = [x for x in kept if x.start > m.end and not x.category and (set(x.objects) & places)]
            said = prep.group(1) in ("from", "off", "clear", "empty") or prep.group(1).startswith("out")
            if not said and not later and not _NO_DEST.search(instruction):
                continue
            place = next(iter(m.objects)) if len(m.objects) == 1 else None
            if place is None and nested_places:  # (round 15) "the basket on the shelf": the one there
                place = _placed_one(instruction, m, kept, view)
            if place is None:
                continue
            here = held_by(view, place, every_place)
            if nested_sources and group:  # (round 18) "all the food from the table": the apple on a plate there too
                here = here | {o for x in here for o in held_by(view, x, every_place) if o in group}
            if group and not (group & here):
                continue  # "put all the books on the coffee table": a destination
            if not group and not has_all:
                continue
            source = place
            group = (group & here) if group else here
            break
        if source is None and place_pronoun and has_all and not (group and len(group) >= 2):
            # (round 14) "I'm restocking the drawer, so take everything out of it": the place said before
            low = instruction.lower()
            ref = _PLACE_PRONOUN.search(low)
            before = [x for x in kept if ref and x.end <= ref.start() and not x.category and len(x.objects) == 1
                      and set(x.objects) & places]
            if ref and before:
                place = next(iter(before[-1].objects))
                here = held_by(view, place, every_place)
                if len(here) >= 2:
                    source, group = place, here
        if not group and not has_all:
            group = set()
    if contents and group:  # (round 15) "the bowls that have nuts in them", "not the empty one"
        group, excluded, said = _by_contents(instruction, spans, group, excluded, view, lex, every_place)
        if said:  # the words scored say "two of the bowls", not "... in them" (no destination)
            positive = re.sub(r"\s+", " ", positive.replace("’", "'").replace(said, " ")).strip()
    group -= excluded
    if group and len(group) < 2 and count is None:
        group = set()
    return Analysis(positive or text, tuple(kept), named_excl, frozenset(group), count, source,
                    tuple(text[s:e] for s, e in spans), kept_objs, more_cues)


functions = functions_data  # the name search.py imports

__all__ = ["Analysis", "Lexicon", "Mention", "analyze", "categories", "functions", "functions_data", "held_by",
           "plural_forms", "with_vessels"]
