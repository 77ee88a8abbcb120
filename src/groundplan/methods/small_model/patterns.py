"""The word patterns more than one stage of goal search reads (clause splitting, number
words, pronouns, places said after a preposition, ...)."""

from __future__ import annotations

import re

from groundplan.methods.small_model.candidates import (
    SceneView,
)
from groundplan.methods.small_model.mentions import Analysis
from groundplan.methods.small_model.needs import (
    is_need_statement,
    wanted,
)
from groundplan.methods.small_model.scene_lexicon import Lexicon, functions_data

#:  the verbs of placing a thing, for ``_CORRECTION`` and ``_TAKEN_THEN_PUT``
_PLACE_VERBS = r"(?:put|place|set|stand|store|keep|move|pop|stick|leave|hang|lay|stack|chuck|throw|drop)"


#: (``corrections``) a placing said not to be done, then the one to do with a pronoun
_CORRECTION = re.compile(
    r"^\s*(?:(?:please|no|oh)\s*,?\s+)?(?:(?:don't|do\s+not|dont|never)\s+" + _PLACE_VERBS + r"\s+(?P<np1>.+?)"
    r"|(?P<np2>(?:the|my|your|those|these|that|this)\s+.+?)\s+(?:shouldn't|should\s+not|mustn't|must\s+not|can't|"
    r"cannot|don't|do\s+not|doesn't|does\s+not|won't)\s+(?:go|be\s+(?:put|kept|stored|left))"
    r")\s+(?:in|into|on|onto|inside|under|by|next\s+to)\s+(?:the|a|an|my|your|that|this)\s+[^,;.!?-]+?"
    r"\s*(?:[,;.!]|\s-|\s\u2013|\s\u2014)\s*(?:(?:but|instead|rather|please|just)\s*,?\s+)*"
    r"(?P<verb>" + _PLACE_VERBS + r")\s+(?:them|it|those|these|they)\b(?P<rest>.*)$", re.IGNORECASE | re.DOTALL)


#: (``taken_then_put``) things taken off a place, with some kept back, then put
#: somewhere with a pronoun
_TAKEN_THEN_PUT = re.compile(
    r"^\s*(?:(?:please|can\s+you|could\s+you|would\s+you)\s+)?(?:take|clear|get|move|grab|remove|lift)\s+"
    r"(?P<np>everything|all\s+the\s+[a-z]+|all\s+of\s+the\s+[a-z]+|all)\s+(?P<src>off|from|out\s+of|off\s+of)\s+"
    r"(?P<place>(?:the|my|your|that|this)\s+[^,]+?)(?P<kept>\s*,?\s*(?:except(?:\s+for)?|apart\s+from|but\s+not|"
    r"other\s+than|bar|besides|but)\s+[^,]+?)?\s*,?\s*(?:and\s+then|and|then)\s+" + _PLACE_VERBS + r"\s+(?:it|them)(?:\s+all)?\s+(?P<prep>on|onto|in|into|on\s+to|in\s+to)\s+(?P<dest>(?:the|my|your|that|this)\s+"
    r"[^,.;!?]+?)\s*(?P<end>[.!]?)\s*$", re.IGNORECASE)


NUMBER_WORDS = {"two": 2, "both": 2, "pair": 2, "couple": 2, "three": 3, "four": 4, "five": 5, "2": 2, "3": 3,
                "4": 4, "5": 5}


ALL_WORDS = ("all", "everything", "every", "each")


_CLAUSE_SPLIT = re.compile(r"\s*(?:,\s*(?:and\s+)?(?:then\s+)?|;|\band then\b|\bthen\b|\band\b"
                           r"|(?<=\w)[.!?]\s+(?=\w)|\b(?:after that|afterwards)\b,?)\s*", re.IGNORECASE)


_PRONOUN = re.compile(r"\b(it|them|this|that one)\b", re.IGNORECASE)


_WORD = re.compile(r"[a-z0-9]+")


#: words that alone make no request (a clause of only these is dropped)
_FILLER_WORDS = frozenset({"but", "and", "then", "so", "or", "though", "please", "thanks", "thank", "you", "ok",
                           "okay", "now", "too", "also", "cheers", "ta", "love", "mate", "yes", "right", "pls", "plz",
                           "thx", "x", "first", "after", "that", "mind"})


#:  a clause that only says the count again: "... Only one, mind.", "Just the one."
_COUNT_ECHO = re.compile(r"\s*(?:but\s+|and\s+)?(?:just|only)\s+(?:the\s+)?(?:one|two|three|four|a\s+single\s+one|"
                         r"a\s+couple|the\s+pair)\b(?:\s*,?\s*(?:mind(?:\s+you)?|please|though|thanks))?\s*[.!]*\s*$",
                         re.IGNORECASE)


#: between a carried destination and its place: "a plate at the table", "the bowl on the counter"
_NESTED_GAP = re.compile(r"\s+(?:at|on|onto|over\s+on|on\s+top\s+of)\s+(?:the|my|our|your)\s+(?:[a-z]+\s+)?")


#: before a mention: what caused a need ("after that fruit", "because of all the dust")
_CAUSE = re.compile(r"\b(?:after|because\s+of|thanks\s+to)\s+(?:(?:eating|having|drinking|peeling|cracking|"
                    r"shelling|handling|cutting|all|that|those|these|the|my|some|this|of|so\s+many|so\s+much)\s+){0,3}"
                    r"(?:[a-z]+\s+)?$", re.IGNORECASE)


def _caused(text: str, an: Analysis) -> set[str]:
    """What ``text``'s mentions name as the cause of a need, unless asked for."""
    return {o for m in an.mentions if _CAUSE.search(text[max(0, m.start - 45):m.start])
            and not wanted(text, m.start) for o in m.objects}


#: states of a liquid: a state verb about its vessel is about it ("boil the kettle")
_LIQUID_STATES = frozenset({"liquid_warm"})


#: a clause that states how things are ("I'm parched", "it's so stuffy in here", "the table's
#: filthy", "there's no milk"), after an interjection (``statement_clauses``)
_STATEMENT_OPEN = re.compile(r"^\W*(?:(?:oh|ugh|phew|wow|hmm|gosh|blimey|well|so|god|man|honestly|ah)\W+)*"
                             r"(?:i'm|i\s+am|i've\s+got|i\s+feel|it's|it\s+is|its|there's|there\s+is|there\s+are|"
                             r"we're|we\s+are|(?:the|my|this|that|these|those|our)\s+(?:[a-z]+\s+){0,2}?"
                             r"(?:is|are|was|were|'s|'re|has|have|looks?|feels?|smells?))\b", re.IGNORECASE)


def _statement(clause: str) -> bool:
    """A clause that says how things are and asks for nothing itself."""
    return bool(_STATEMENT_OPEN.match(clause.replace("’", "'"))) and is_need_statement(clause)


def _asks_nothing(clause: str, courtesy: bool = False) -> bool:
    """A clause of only conjunctions and courtesy words ("but.", "thanks"); with ``courtesy``
     also a courtesy tag ("would you?", "if you don't mind", "when you get a chance");
     a clause that only says the count again ("only one, mind")."""
    return set(_WORD.findall(clause.lower())) <= _FILLER_WORDS or bool(
        courtesy and _COURTESY_TAG.match(clause.replace("’", "'"))) or bool(_COUNT_ECHO.match(clause))


#: a trailing clause after a comma, dash or semicolon; a leading "if you would / when you can,"
_COURTESY_TAIL = re.compile(r"\s*[,;\u2013\u2014-]\s*([^,;.!?\u2013\u2014]*[.!?]*)\s*$")


#: a trailing clause after a comma, dash or semicolon; a leading "if you would / when you can,"
_COURTESY_TAIL = re.compile(r"\s*[,;\u2013\u2014-]\s*([^,;.!?\u2013\u2014]*[.!?]*)\s*$")


#:  a clause that only softens a request
_COURTESY_TAG = re.compile(
    r"^\W*(?:please\s+)?(?:(?:would|could|can|will|won't)\s+you(?:\s+please)?(?:\s+(?:do\s+that|mind))?|"
    r"if\s+you\s+(?:would|could|can|like|please|don't\s+mind|do\s+not\s+mind|wouldn't\s+mind|get\s+(?:a|the)\s+chance)|"
    r"when\s+you\s+(?:can|get\s+a\s+(?:chance|sec|second|moment|minute)|have\s+a\s+(?:sec|second|moment|minute))|"
    r"if\s+(?:that's|it's|that\s+is|it\s+is)\s+(?:ok|okay|alright|all\s+right|fine)|if\s+possible|"
    r"(?:there's|that's)\s+a\s+(?:love|dear|good\s+\w+)|no\s+rush|no\s+hurry|when\s+you're\s+free)"
    r"(?:\s+(?:please|thanks|mate|love))?\W*$", re.IGNORECASE)


#: "close the lid", "shut it again"; "from it" / "out of it" (a source); "fill" / "top up"
_CLOSE = re.compile(r"\b(?:close|shut)\b", re.IGNORECASE)


#:  a place's things moved to a destination: "clear the coffee table into the basket",
#: "tidy the bench onto the shelf", "put everything from the fruit bowl in the fridge", "move the veg
#: in the basket on the bench over to the worktop", "empty the fruit bowl out onto the counter"
_DET = r"(?:the|my|your|our|that|this|his|her|their)"


_NOUNS = r"(?:\s+(?!(?:on|in|into|onto|to|over|from|off|out|up|and|but|except|apart|for|with|please|then)\b)[a-z'-]+){1,4}"


_HEAT = re.compile(r"\b(?:warm|heat|boil)", re.IGNORECASE)


_SENTENCE = re.compile(r"[^.!?]+")


_HOT_KINDS = frozenset({"tea", "coffee", "cocoa", "chocolate", "espresso", "latte", "cappuccino"})


def _class_words(view: SceneView, obj: str) -> frozenset[str]:
    """ the words of an object's class name ("coffee_cup": coffee, cup)."""
    return frozenset(view.cls(obj).lower().split("_"))


def _drinking_vessels(lex: Lexicon) -> frozenset[str]:
    """ the scene's things people drink from (functions.yaml ``drink from``)."""
    return lex.function_words.get("drink from", (None, frozenset()))[1]


def _cold_places(view: SceneView) -> set[str]:
    """The scene's cold places (functions.yaml ``cold``: the fridge, the freezer)."""
    classes = set((functions_data().get("functions", {}).get("cold") or {}).get("places") or ())
    return {o for o, c in view.objects.items() if c in classes}


_PLANT_WORDS = frozenset({"plant", "houseplant", "flower", "flowers", "herb", "herbs", "seedling", "fern", "cactus",
                          "orchid", "bonsai", "succulent", "geranium", "basil", "tulips", "roses", "bouquet"})


def _kind(predicate: str) -> str:
    """Facts of one kind about one object replace each other (placements; open / closed)."""
    if predicate in ("on", "in", "inhand", "at"):
        return "place"
    if predicate in ("opened", "closed"):
        return "open"
    return predicate
