"""Stages 2 and 3, parse and resolve: the typed request (``records.Request``) of a normalised
instruction, its mentions resolved against the scene."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Optional

from groundplan.methods.small_model.candidates import (
    SceneView,
)
from groundplan.methods.small_model.mentions import Analysis, analyze
from groundplan.methods.small_model.needs import (
    is_need_statement,
    paraphrase_needs,
    spill_said,
    strip_purpose,
)
from groundplan.methods.small_model.options import SearchOptions
from groundplan.methods.small_model.patterns import _CLAUSE_SPLIT, _WORD, _asks_nothing, _statement
from groundplan.methods.small_model.records import Request
from groundplan.methods.small_model.scene_lexicon import Lexicon

#: "something to bang the pegs in with", "a thing I can open this jar with": the tool's purpose,
#: whose objects are acted on, not handed over (``tool_purpose``)
_PURPOSE_TOOL = re.compile(r"\b(?:something|anything|a\s+thing|a\s+tool|things|stuff)\s+(?:(?:that\s+)?(?:i|we|you)\s+can\s+|"
                           r"to\s+)([a-z]+\b.*?)\s+with\b", re.IGNORECASE)


def _purpose_spans(text: str) -> list[tuple[int, int]]:
    return [(m.start(1), m.end(1)) for m in _PURPOSE_TOOL.finditer(text)]


#: "into" / "onto", which say a placement, except where a spill went (``spill_needs``)
_INTO = re.compile(r"\b(?:into|onto)\b", re.IGNORECASE)


#: (``milk_added``) milk asked for by the splash, and the plain need of a drink too strong
_MILK_ADDED = re.compile(r"\b(?:(?:splash|drop|dash|drizzle|touch|spot|glug|dribble|bit)\s+of\s+(?:milk|cream)|"
                         r"take\s+(?:it|mine|my\s+(?:tea|coffee))\s+white|white\s+(?:coffee|tea)|"
                         r"(?:tea|coffee)\s+with\s+(?:a\s+(?:bit|drop|splash)\s+of\s+)?milk)\b")


def parse_request(instruction: str, view: SceneView, lex: Lexicon, opts: SearchOptions) -> Request:
    """Stages 2 and 3, parse and resolve: the typed request of a normalised instruction, its
    mentions resolved against the scene (``mentions.analyze``)."""
    an: Optional[Analysis] = None
    if opts.rule("negation") or opts.rule("mention_groups") or opts.weights.mention:
        an = analyze(instruction, view, lex, negation=opts.rule("negation"), groups=opts.rule("mention_groups"),
                     keep=opts.rule("keep_in_place"), singular_all=opts.rule("singular_all"), mass_groups=opts.rule("mass_groups"),
                     more_cues=opts.rule("cue_words"), bar=opts.rule("bar_cue"), adverb_all=opts.rule("adverb_all"),
                     place_pronoun=opts.rule("place_pronoun"), every_place=opts.rule("every_place"),
                     subject_negation=opts.rule("subject_negation"), conjoined=opts.rule("np_conjuncts"),
                     contents=opts.rule("contents_clauses"), nested_places=opts.rule("nested_places"),
                     plural_pairs=opts.rule("plural_pairs"), definite_source=opts.rule("definite_source"),
                     one_of_adjective=opts.rule("one_of_adjective"), located_exclusions=opts.rule("located_exclusions"),
                     nested_sources=opts.rule("nested_sources"), excluded_vessels=opts.rule("excluded_vessels"),
                     leave_end=opts.rule("leave_end"), bother=opts.rule("bother_cue"))
    acted_on: frozenset[str] = frozenset()
    if an is not None and opts.rule("tool_purpose"):  # "something to bang the pegs in with": not the pegs
        acted_on = frozenset(o for m in an.mentions if not m.category and any(
            a <= m.start < b for a, b in _purpose_spans(instruction)) for o in m.objects)
        if acted_on & an.group:
            an = replace(an, group=frozenset())
    text = an.text if an is not None else instruction
    if opts.rule("multistep_refs"):
        text = strip_purpose(text)
    if opts.rule("compound_nouns"):  # "hand me the towel basket": the words scored say "the basket"
        text = lex.without_modifiers(text)
    milky = opts.rule("milk_added") and bool(_MILK_ADDED.search(instruction.lower().replace("’", "'")))
    spill = opts.rule("spills") and spill_said(instruction) and not milky  # ("a splash of milk" spills nothing)
    need = opts.rule("need_mode") and (is_need_statement(text, opts.rule("wish_pairs")) or (
        spill and opts.rule("spill_needs") and is_need_statement(_INTO.sub("in", text))))
    # a colloquial need, unless a request names what it wants ("I spilled my coke, bring me another")
    plain = paraphrase_needs(text, opts.rule("loose_needs"), opts.rule("more_needs")) if opts.rule("need_paraphrases") and (need or an is None or not an.named) else ()
    # a state verb of a one-clause instruction ("slice the tomato", "I'd love some hot water")
    asking = [c for c in _CLAUSE_SPLIT.split(text) if c and _WORD.search(c)
              and not (opts.rule("empty_clauses") and _asks_nothing(c, opts.rule("courtesy_tags")))]
    if opts.rule("statement_clauses") and not need and len(asking) >= 2:
        #  "it's so stuffy in here, open the window": a statement beside one request
        requests = [c for c in asking if not _statement(c)]
        asking = requests if len(requests) == 1 else asking
    one_clause = len(asking) < 2
    return Request(instruction, text, an, acted_on, bool(need), bool(spill), bool(milky), tuple(plain), one_clause)
