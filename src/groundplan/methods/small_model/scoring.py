"""Stage: score. Each candidate atom's base score for an instruction: the sentence-embedding
similarity of its phrases to the words said, word overlap with the names of its arguments,
and the frame prior of the nearest solved examples of the pool."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional, Sequence

import numpy as np

from groundplan.methods.small_model import completions, cues, need_cues
from groundplan.methods.small_model.candidates import (
    CandidateAtom,
    SceneView,
)
from groundplan.methods.small_model.patterns import _WORD
from groundplan.methods.small_model.records import GoalCandidate, Request, Scored
from groundplan.methods.small_model.scene_lexicon import Lexicon

if TYPE_CHECKING:
    from groundplan.methods.small_model.search import GoalSearcher


#: food or drink left standing out ("the milk has been sitting out", "left their lunch out")
_LEFT_OUT = re.compile(r"\b(?:sitting|left|standing|lying|stood|sat)\s+(?:[\w']+\s+){0,3}?out\b(?!\s+of\s+(?:reach|sight))",
                       re.IGNORECASE)


#: (``spoiling``) food or drink said to be about to spoil or warm up where it is: "those
#: bananas are going to go brown in this heat", "this fruit won't last long out in the warm", "the
#: butter's melting", "my juice is getting warm" (not "it's gone off": that is thrown away)
_SPOILING = re.compile(
    r"\b(?:(?:will|'ll|going\s+to|gonna|about\s+to|start(?:ing)?\s+to|before\s+(?:it|they)|could|might|would)\s+"
    r"(?:\w+\s+)?(?:go|turn)\s+(?:off|bad|brown|soft|mushy|mouldy|moldy|sour|rotten|warm)|"
    r"(?:going|turning|getting)\s+(?:brown|bad|soft|mushy|mouldy|moldy|sour|warm|wilted|limp|runny)|"
    r"(?:won't|will\s+not|isn't\s+going\s+to|aren't\s+going\s+to|not\s+going\s+to)\s+(?:last|keep|stay\s+fresh)|"
    r"(?:will|'ll|going\s+to)\s+spoil|spoiling|melting|sweating|"
    r"in\s+(?:this|the)\s+(?:heat|warm|warmth|sun|sunshine)|out\s+in\s+the\s+(?:warm|heat|sun))\b",
    re.IGNORECASE)


_STRONG_DRINK_NEED = re.compile(r"\btoo bitter or strong\b")


def _coarse(frame: str) -> str:
    parts = frame.split("/")
    if parts[0] in ("on", "in", "liquid_in") and len(parts) == 3 and parts[2] not in ("human", "robot"):
        parts[2] = "?"
    return "/".join(parts)


def atom_scores(gs: "GoalSearcher", q: Optional[np.ndarray], emb: np.ndarray, owner: np.ndarray, n: int) -> np.ndarray:
    if q is None or not gs.options.embeddings:
        return np.zeros(n)
    sims = emb @ q
    best = np.full(n, -1.0)
    np.maximum.at(best, owner, sims)
    if gs.options.weights.second:
        # the second-best phrase breaks ties of a shared phrase ("something to sweep with" for a
        # towel and a broom: the broom's "I need to sweep the floor" decides)
        idx = np.lexsort((-sims, owner))
        first = np.ones(len(idx), dtype=bool)
        first[1:] = owner[idx][1:] != owner[idx][:-1]
        second = np.zeros(n)
        rest = idx[~first]
        firsts_of_rest = np.ones(len(rest), dtype=bool)
        firsts_of_rest[1:] = owner[rest][1:] != owner[rest][:-1]
        second[owner[rest][firsts_of_rest]] = sims[rest][firsts_of_rest]
        best = best + gs.options.weights.second * second
    return best

def frame_prior(gs: "GoalSearcher", q: Optional[np.ndarray], cands: Sequence[CandidateAtom]) -> tuple[np.ndarray, list, float]:
    """Frame prior from the nearest examples, the examples, and the expected number of parts."""
    if q is None or gs.retriever is None or not gs.options.retrieval:
        return np.zeros(len(cands)), [], 1.0
    near = gs.retriever.nearest(q, gs.options.k_examples)
    sims = np.array([s for _, s in near])
    w = np.exp((sims - sims.max()) / gs.options.temperature)
    w /= w.sum()
    # a fine frame (in/?/trash_can) and a coarse one (in/?/?): verbs transfer with or
    # without the destination the example used
    frame_w: dict[str, float] = {}
    for (ex, _), wi in zip(near, w):
        for f in ex.frames | {_coarse(f) for f in ex.frames}:
            frame_w[f] = frame_w.get(f, 0.0) + float(wi)
    prior = np.array([0.5 * frame_w.get(c.frame, 0.0) + 0.5 * frame_w.get(_coarse(c.frame), 0.0) for c in cands])
    parts = float(sum(wi * ex.parts for (ex, _), wi in zip(near, w)))
    return prior, near, parts

def base_scores(gs: "GoalSearcher", text: str, cands, emb, owner) -> tuple[np.ndarray, list, float, Optional[np.ndarray]]:
    q = gs.encoder.encode([text])[0] if gs.encoder is not None else None
    s = atom_scores(gs, q, emb, owner, len(cands))
    if gs.options.weights.lex:
        s = s + gs.options.weights.lex * lexical(gs, text, cands)
    prior, near, parts = frame_prior(gs, q, cands)
    holds = np.array([c.holds for c in cands], dtype=float)
    return s + gs.options.weights.pool * prior - gs.options.weights.holds_penalty * holds, near, parts, q

def lexical(gs: "GoalSearcher", text: str, cands: Sequence[CandidateAtom]) -> np.ndarray:
    said = set(_WORD.findall(text.lower()))
    out = np.zeros(len(cands))
    for i, c in enumerate(cands):
        words = c.arg_words
        if words:
            out[i] = sum(w in said for w in words) / len(words)
    return out


def score(gs: GoalSearcher, req: Request, cands: Sequence[CandidateAtom], emb: np.ndarray, owner: np.ndarray,
          view: SceneView, lex: Lexicon) -> Scored:
    """Stage 5, score: every candidate atom's score for the request (``scores`` plus the cues
    of ``cues`` and ``need_cues``), and the atoms in score order."""
    opts = gs.options
    instruction, text, an, acted_on, need, spill, milky, plain, one_clause = req.instruction, req.text, req.analysis, req.acted_on, req.need, req.spill, req.milky, req.plain, req.one_clause
    scores, near, parts, _ = base_scores(gs, text, cands, emb, owner)
    if plain:  # each atom as close as it is to the words said or to the plain need
        scores = np.maximum(scores, base_scores(gs, " ".join(plain), cands, emb, owner)[0] - opts.weights.paraphrase_margin)
    bonus = cues.mention_bonus(gs, an, cands, view) if an is not None else np.zeros(len(cands))
    for i, c in enumerate(cands) if acted_on else ():  # what the tool is for is not handed over
        if c.frame == "inhand/?/human" and c.focus in acted_on:
            bonus[i] -= 2 * opts.weights.mention + opts.weights.context
    scores = scores + bonus
    # "I want to slice the bread": the person slices it (a knife), unless the state is asked for
    sb = cues.state_bonus(gs, text, cands, lex, person_does=need) if opts.rule("state_verbs") and one_clause \
        else np.zeros(len(cands))
    if acted_on:  # "something I can clean the jug with": the person cleans it, with what is handed
        sb = np.where([c.focus in acted_on or any(a in acted_on for a in c.atom.args) for c in cands], 0.0, sb)
    scores = scores + sb
    if opts.rule("need_functions") and opts.rule("function_groups") and not sb.any():
        scores = scores + cues.need_bonus(gs, text, cands, lex)
    if opts.rule("multistep_refs"):  # "the bottle out of the fridge": a source, not a destination
        scores = scores + cues.clause_refs(gs, text, [], cands, lex, person=False)
        if an is not None:
            scores = scores + cues.empty_ones(gs, instruction, an, cands, view)
    if need:
        scores = scores + need_cues.need_mode(gs, instruction, an, cands, view, lex)
        if opts.rule("dirty_named") and an is not None:
            scores = scores + need_cues.dirty_named(gs, an, cands)
        if opts.rule("cold_named") and an is not None:
            scores = scores + need_cues.cold_named(gs, instruction, an, cands, view)
        if opts.rule("foul_liquid") and an is not None:
            scores = scores + need_cues.foul_liquid(gs, an, cands, view)
        if opts.rule("floor_tools"):
            scores = scores + need_cues.floor_tools(gs, instruction, cands, view)
    if opts.rule("milk_added") and (milky or any(_STRONG_DRINK_NEED.search(n) for n in plain)):
        scores = scores + need_cues.milk_added(gs, instruction, an, cands, view, lex)
    if opts.rule("destinations"):
        scores = scores + cues.dest_bonus(gs, text, cands, lex)
    if opts.rule("disposal_cue"):
        scores = scores + need_cues.disposal(gs, instruction, an, cands, view)
    if opts.rule("which_one"):
        scores = scores + cues.which_one(gs, text, cands, lex)
    if opts.rule("need_states") and plain and (need or an is None or not an.named):
        scores = scores + need_cues.need_state_bonus(gs, plain, cands, view)
    chill: Optional[GoalCandidate] = None
    if opts.rule("left_out") and need and an is not None and (_LEFT_OUT.search(instruction) or (
            opts.rule("spoiling") and _SPOILING.search(instruction.replace("’", "'")))):
        scores = scores + need_cues.left_out(gs, an, cands, view)
        if opts.rule("spoiling"):
            chill = completions.chilled_group(an, cands, view, scores)
    if spill and need and an is not None:
        scores = scores + need_cues.spill(gs, an, cands, view, lex)
    if opts.rule("negated_kinds") and an is not None:
        scores = scores + need_cues.negated_kinds(gs, instruction, an, cands, view)
    scores = scores + cues.hand_me(gs, text, cands)  #  "hand me two bowls", "grab two mugs for us"
    watered = need_cues.watered(gs, text, cands, view, lex) if opts.rule("water_plant") else np.zeros(len(cands))
    scores = scores + watered
    if opts.weights.holds:  #  a goal that holds already asks the robot for nothing
        scores = scores - opts.weights.holds * np.array([c.holds for c in cands], dtype=float)
    if need and opts.rule("need_holds"):  #  a need asks for a change, never for what is so now
        scores = scores - np.array([c.holds for c in cands], dtype=float)
    order = list(np.argsort(-scores, kind="stable"))
    keep = cues.keep_atoms(gs, instruction, an, view, cands, lex) if an is not None and opts.rule("keep_in_place") else ()

    return Scored(scores, order, near, bonus, watered, chill, keep)
