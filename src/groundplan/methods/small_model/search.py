"""Goal search for small models: propose ranked candidate goals for an instruction in a
scene, by structure rather than model size.

1. Candidate atoms enumerated from the domain and the scene (type-correct, affordance-pruned),
   each rendered as English phrases.
2. Each atom scored by the MiniLM sentence-embedding similarity of its phrases to the
   instruction, plus a prior over goal frames (predicate + agent roles + destination class)
   from the most similar solved examples of the project's example pool.
3. Structure: the instruction is decomposed into clauses ("... and then ...", lists), number
   words ("two sodas") and quantifiers ("all the items on the table"); each part picks its
   best atom; atoms about the same object are merged (the later clause wins: "pick up the
   apple and move it to the trash" ends with the apple in the trash).
4. The language model (the embedded SmolLM2 by default) scores the best few goals by their
   log-probability after a few-shot prompt built from the retrieved examples (SayCan-style
   scoring in goal space; the prompt prefix is shared, the candidates are scored in one pass
   each).
The result is a ranked list: the method plans the first, and on a planner or semantic error
moves on to the next (the plan tool's self-correction).

Nothing here reads a task's gold goal: only the instruction, the domain and the problem.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Any, Optional, Sequence

import numpy as np

from groundplan.errors import GoalError
from groundplan.knowledge.embedding import vocabulary_words
from groundplan.knowledge.uses import ClassUses
from groundplan.knowledge.wordnet import WordNet
from groundplan.llm.goal_search import score_goals
from groundplan.llm.minilm import shared_minilm
from groundplan.methods.small_model.candidates import (
    CandidateAtom,
    CandidateOptions,
    SceneView,
    enumerate_atoms,
    scene_view,
)
from groundplan.methods.small_model.mentions import (
    STATE_ADJ,
    Analysis,
    Lexicon,
    analyze,
    functions,
    functions_data,
    held_by,
    quantifier_text,
    to_person,
    with_vessels,
)
from groundplan.methods.small_model.needs import (
    INFINITIVE,
    disposal_said,
    is_disposal_class,
    is_need_statement,
    missing,
    need_states,
    none_here,
    paraphrase_needs,
    plain_idioms,
    spill_said,
    strip_purpose,
    wanted,
)
from groundplan.methods.small_model.options import SearchOptions
from groundplan.methods.small_model.pool import Example, Retriever
from groundplan.pddl.formula import Atom, Not
from groundplan.pddl.goal import check_goal, parse_goal
from groundplan.pddl.model import Domain, Problem
from groundplan.pddl.semantics import check_semantics
from groundplan.planners import with_primary_bound
from groundplan.sim.pipeline import plan_and_check

NUMBER_WORDS = {"two": 2, "both": 2, "pair": 2, "couple": 2, "three": 3, "four": 4, "five": 5, "2": 2, "3": 3,
                "4": 4, "5": 5}
ALL_WORDS = ("all", "everything", "every", "each")
_CLAUSE_SPLIT = re.compile(r"\s*(?:,\s*(?:and\s+)?(?:then\s+)?|;|\band then\b|\bthen\b|\band\b"
                           r"|(?<=\w)[.!?]\s+(?=\w)|\b(?:after that|afterwards)\b,?)\s*", re.IGNORECASE)
_PRONOUN = re.compile(r"\b(it|them|this|that one)\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class GoalCandidate:
    atoms: tuple[Atom, ...]  # (round 18, ``clear_off``: also ``Not`` of an atom, added last)
    score: float
    source: str  # single | clauses | count | all
    lm_logprob: Optional[float] = None

    @property
    def text(self) -> str:
        return "(and " + " ".join(a.pddl() for a in self.atoms) + ")"


@dataclass
class SearchResult:
    goals: list[GoalCandidate]
    structure: str
    clauses: tuple[str, ...] = ()
    examples: tuple[tuple[str, float], ...] = ()
    timings: dict[str, float] = field(default_factory=dict)
    lm_usage: Any = None


class _SceneCache:
    """Candidate atoms and their phrase embeddings per scene (same objects and facts)."""

    def __init__(self, size: int = 32):
        self.size = size
        self.data: dict[Any, tuple[SceneView, list[CandidateAtom], np.ndarray, np.ndarray]] = {}

    def get(self, key):
        return self.data.get(key)

    def put(self, key, value) -> None:
        if len(self.data) >= self.size:
            self.data.pop(next(iter(self.data)))
        self.data[key] = value


def _coarse(frame: str) -> str:
    parts = frame.split("/")
    if parts[0] in ("on", "in", "liquid_in") and len(parts) == 3 and parts[2] not in ("human", "robot"):
        parts[2] = "?"
    return "/".join(parts)


def _template(name: str) -> str:
    return resources.files("groundplan.prompts.small_model").joinpath(name).read_text()


class GoalSearcher:
    def __init__(self, encoder, *, options: SearchOptions = SearchOptions(), retriever: Optional[Retriever] = None):
        self.encoder = encoder
        self.options = options
        self.retriever = retriever if retriever is not None else (Retriever(encoder) if encoder is not None else None)
        self._scenes = _SceneCache()
        self._prompt = _template("prompt.txt")
        self._shot = _template("example.txt")

    # ------------------------------------------------------------------ scene

    def scene(self, domain: Domain, problem: Problem):
        # (round 20) with the affordances of the scene's classes: the same scene under another
        # object-affordance map (the oracle map of a held-out set) is another scene
        kinds = tuple(sorted((t, tuple(sorted(domain.types.parents.get(t, ())))) for t in set(problem.objects.values())))
        key = (tuple(sorted(problem.objects.items())), problem.init, kinds, self.options)
        hit = self._scenes.get(key)
        if hit is None:
            view = scene_view(domain, problem)
            uses = ClassUses.load()
            enc = self.encoder if self.options.embeddings else None
            wordnet = WordNet.load() if (self.options.rule("wordnet_senses") or self.options.rule("wordnet_hypernyms")) else None
            senses = wordnet if self.options.rule("wordnet_senses") else None

            def uses_of(c: str) -> tuple[str, ...]:
                """What class ``c`` is for: the class-use lexicon's (its own or its head noun's),
                the WordNet sense (with ``wordnet_senses``), the nearest known class's uses."""
                direct = uses.direct(c)
                sense = senses.sense(c) if senses is not None and (self.options.rule("senses_all") or not direct) else None
                u = (*direct, self.options.sense_template.format(sense)) if sense else direct
                broader = wordnet.nearest_known(c, uses.table.__contains__, self.options.hypernym_depth) \
                    if wordnet is not None and self.options.rule("wordnet_hypernyms") and not direct else None
                if broader:
                    u = (*u, *uses.table[broader])  # waders: the uses of boot
                if not direct and self.options.rule("uses_nearest") and not broader \
                        and not (sense and self.options.rule("sense_over_nearest")):
                    u = (*u, *uses.of(c, enc))  # the nearest known class name's uses
                return u

            cands = enumerate_atoms(domain, problem, view, CandidateOptions(
                self.options.rule("affordance_pruning"), self.options.rule("source_phrases"), self.options.rule("use_phrases"),
                self.options.rule("class_uses"), self.options.rule("open_containers"), self.options.rule("liquid_states")), uses_of=uses_of)
            types = domain.types

            def is_a(o: str, t: str) -> bool:
                ot = problem.type_of(domain, o)
                return ot is not None and types.is_subtype(ot, t)

            if self.options.rule("unplaced"):
                lost = _unplaced(view, problem.objects, is_a)
                cands = [c for c in cands if not lost.intersection(c.atom.args)]
            phrases = [p for c in cands for p in c.phrases]
            owner = np.array([i for i, c in enumerate(cands) for _ in c.phrases], dtype=np.int64)
            emb = self.encoder.encode(phrases) if (self.encoder is not None and self.options.embeddings) \
                else np.zeros((len(phrases), 1), dtype=np.float32)
            if self.options.weights.class_uses != 1.0 and len(phrases):
                # need-shaped phrases of a class outscore the names of classes that have none
                row = 0
                for c in cands:
                    row += len(c.phrases)
                    if c.n_uses:
                        emb[row - c.n_uses:row] *= self.options.weights.class_uses
            hit = (view, cands, emb, owner, Lexicon(view, is_a, functions=self.options.rule("function_groups"),
                                                   states=self.options.rule("state_verbs"),
                                                   synonyms_on=self.options.rule("synonyms"),
                                                   compounds=self.options.rule("compound_nouns"),
                                                   compound_words=vocabulary_words() if self.options.rule("compound_heads")
                                                   else None, category_heads=self.options.rule("category_heads"),
                                                   modals=self.options.rule("modal_can"),
                                                   relative_places=self.options.rule("dest_locators"),
                                                   joined_names=self.options.rule("joined_names"),
                                                   class_words=self.options.rule("class_words"),
                                                   empty_state=self.options.rule("empty_state"),
                                                   more_descriptors=self.options.rule("more_descriptors"),
                                                   said_compounds=self.options.rule("said_compounds"),
                                                   state_descriptors=self.options.rule("state_descriptors"),
                                                   place_modifiers=self.options.rule("place_modifiers")))
            self._scenes.put(key, hit)
        return hit

    # ------------------------------------------------------------------ scoring

    def _atom_scores(self, q: Optional[np.ndarray], emb: np.ndarray, owner: np.ndarray, n: int) -> np.ndarray:
        if q is None or not self.options.embeddings:
            return np.zeros(n)
        sims = emb @ q
        best = np.full(n, -1.0)
        np.maximum.at(best, owner, sims)
        if self.options.weights.second:
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
            best = best + self.options.weights.second * second
        return best

    def _prior(self, q: Optional[np.ndarray], cands: Sequence[CandidateAtom]) -> tuple[np.ndarray, list, float]:
        """Frame prior from the nearest examples, the examples, and the expected number of parts."""
        if q is None or self.retriever is None or not self.options.retrieval:
            return np.zeros(len(cands)), [], 1.0
        near = self.retriever.nearest(q, self.options.k_examples)
        sims = np.array([s for _, s in near])
        w = np.exp((sims - sims.max()) / self.options.temperature)
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

    def _scores(self, text: str, cands, emb, owner) -> tuple[np.ndarray, list, float, Optional[np.ndarray]]:
        q = self.encoder.encode([text])[0] if self.encoder is not None else None
        s = self._atom_scores(q, emb, owner, len(cands))
        if self.options.weights.lex:
            s = s + self.options.weights.lex * self._lexical(text, cands)
        prior, near, parts = self._prior(q, cands)
        holds = np.array([c.holds for c in cands], dtype=float)
        return s + self.options.weights.pool * prior - self.options.weights.holds_penalty * holds, near, parts, q

    def _lexical(self, text: str, cands: Sequence[CandidateAtom]) -> np.ndarray:
        said = set(_WORD.findall(text.lower()))
        out = np.zeros(len(cands))
        for i, c in enumerate(cands):
            words = c.arg_words
            if words:
                out[i] = sum(w in said for w in words) / len(words)
        return out

    # ------------------------------------------------------------------ search

    def search(self, instruction: str, domain: Domain, problem: Problem, *, llm=None, usage=None) -> SearchResult:
        t0 = time.perf_counter()
        view, cands, emb, owner, lex = self.scene(domain, problem)
        timings = {"scene": time.perf_counter() - t0}
        if not cands:
            return SearchResult([], "none", timings=timings)
        t1 = time.perf_counter()
        opts = self.options
        if opts.rule("idioms"):
            instruction = plain_idioms(instruction)
        if opts.rule("along_with"):
            instruction = _along_with(instruction)
        if opts.rule("courtesy_tags"):
            instruction = _without_courtesy(instruction)
        if opts.rule("along_with_me"):  # (round 15) "pass me the mug along with the capo": both
            instruction = _ALONG_WITH_ME.sub(lambda m: f"{m.group('verb')}{m.group('obj')} and {m.group('other')}",
                                             instruction)
        if opts.rule("whatever_all") and _WHATEVER.search(instruction.replace("’", "'")):
            # (round 15) "whatever's on the coffee table": everything on it
            instruction = _WHATEVER.sub(lambda m: "everything " + m.group(1), instruction.replace("’", "'"))
        if opts.rule("empty_into"):  # (round 18) "empty the water bottle into the watering can": pour it
            instruction = _EMPTY_INTO.sub(lambda m: "pour" + m.group(0)[len(m.group(1)):] if any(
                a.predicate == "liquid_in" and len(a.args) == 2 and a.args[1] in mm.objects
                for mm in lex.mentions(m.group("np")) for a in view.init) else m.group(0), instruction)
        if opts.rule("into_opened"):  # (round 23) "open the kiln, pop the bowl inside": into the kiln
            instruction = _into_opened(instruction)
        if opts.rule("corrections"):  # (round 24) "don't put the roses in the fridge, put them in the vase"
            instruction = _corrected(instruction)
        if opts.rule("taken_then_put"):  # (round 24) "take everything off the desk but the laptop and put it on the bed"
            instruction = _taken_then_put(instruction)
        if opts.rule("counted_things"):  # (round 18) "the two things on the coffee table": everything on it
            instruction = _COUNTED_THINGS.sub("everything ", instruction)
        if opts.rule("missing_asked"):  # (round 20) "there's no fork up here": the fork, missing up here
            instruction = none_here(instruction)
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
        scores, near, parts, _ = self._scores(text, cands, emb, owner)
        if plain:  # each atom as close as it is to the words said or to the plain need
            scores = np.maximum(scores, self._scores(" ".join(plain), cands, emb, owner)[0] - opts.weights.paraphrase_margin)
        bonus = self._mention_bonus(an, cands, view) if an is not None else np.zeros(len(cands))
        for i, c in enumerate(cands) if acted_on else ():  # what the tool is for is not handed over
            if c.frame == "inhand/?/human" and c.focus in acted_on:
                bonus[i] -= 2 * opts.weights.mention + opts.weights.context
        scores = scores + bonus
        # a state verb of a one-clause instruction ("slice the tomato", "I'd love some hot water")
        asking = [c for c in _CLAUSE_SPLIT.split(text) if c and _WORD.search(c)
                  and not (opts.rule("empty_clauses") and _asks_nothing(c, opts.rule("courtesy_tags")))]
        if opts.rule("statement_clauses") and not need and len(asking) >= 2:
            # (round 13) "it's so stuffy in here, open the window": a statement beside one request
            requests = [c for c in asking if not _statement(c)]
            asking = requests if len(requests) == 1 else asking
        one_clause = len(asking) < 2
        # "I want to slice the bread": the person slices it (a knife), unless the state is asked for
        sb = self._state_bonus(text, cands, lex, person_does=need) if opts.rule("state_verbs") and one_clause \
            else np.zeros(len(cands))
        if acted_on:  # "something I can clean the jug with": the person cleans it, with what is handed
            sb = np.where([c.focus in acted_on or any(a in acted_on for a in c.atom.args) for c in cands], 0.0, sb)
        scores = scores + sb
        if opts.rule("need_functions") and opts.rule("function_groups") and not sb.any():
            scores = scores + self._need_bonus(text, cands, lex)
        if opts.rule("multistep_refs"):  # "the bottle out of the fridge": a source, not a destination
            scores = scores + self._clause_refs(text, [], cands, lex, person=False)
            if an is not None:
                scores = scores + self._empty_ones(instruction, an, cands, view)
        if need:
            scores = scores + self._need_mode(instruction, an, cands, view, lex)
            if opts.rule("dirty_named") and an is not None:
                scores = scores + self._dirty_named(an, cands)
            if opts.rule("cold_named") and an is not None:
                scores = scores + self._cold_named(instruction, an, cands, view)
            if opts.rule("foul_liquid") and an is not None:
                scores = scores + self._foul_liquid(an, cands, view)
            if opts.rule("floor_tools"):
                scores = scores + self._floor_tools(instruction, cands, view)
        if opts.rule("milk_added") and (milky or any(_STRONG_DRINK_NEED.search(n) for n in plain)):
            scores = scores + self._milk_added(instruction, an, cands, view, lex)
        if opts.rule("destinations"):
            scores = scores + self._dest_bonus(text, cands, lex)
        if opts.rule("disposal_cue"):
            scores = scores + self._disposal(instruction, an, cands, view)
        if opts.rule("which_one"):
            scores = scores + self._which_one(text, cands, lex)
        if opts.rule("need_states") and plain and (need or an is None or not an.named):
            scores = scores + self._need_states(plain, cands, view)
        chill: Optional[GoalCandidate] = None
        if opts.rule("left_out") and need and an is not None and (_LEFT_OUT.search(instruction) or (
                opts.rule("spoiling") and _SPOILING.search(instruction.replace("’", "'")))):
            scores = scores + self._left_out(an, cands, view)
            if opts.rule("spoiling"):
                chill = self._chilled_group(an, cands, view, scores)
        if spill and need and an is not None:
            scores = scores + self._spill(an, cands, view, lex)
        if opts.rule("negated_kinds") and an is not None:
            scores = scores + self._negated_kinds(instruction, an, cands, view)
        scores = scores + self._hand_me(text, cands)  # (round 15) "hand me two bowls", "grab two mugs for us"
        watered = self._watered(text, cands, view, lex) if opts.rule("water_plant") else np.zeros(len(cands))
        scores = scores + watered
        if opts.weights.holds:  # (round 14) a goal that holds already asks the robot for nothing
            scores = scores - opts.weights.holds * np.array([c.holds for c in cands], dtype=float)
        if need and opts.rule("need_holds"):  # (round 17) a need asks for a change, never for what is so now
            scores = scores - np.array([c.holds for c in cands], dtype=float)
        order = list(np.argsort(-scores, kind="stable"))
        timings["score"] = time.perf_counter() - t1
        keep = self._keep_atoms(instruction, an, view, cands, lex) if an is not None and opts.rule("keep_in_place") else ()

        goals: list[GoalCandidate] = []
        structure = "single"
        clauses: tuple[str, ...] = ()
        if opts.decomposition:
            words = _WORD.findall((quantifier_text(text, opts.rule("cue_words"), opts.rule("adverb_all")) if opts.rule("multistep_refs") else text).lower())
            multi: Optional[GoalCandidate] = None
            if opts.rule("open_ones") and an is not None:
                # (round 15) "shut whatever's been left open": each thing open now, of the kinds said
                multi = self._open_ones(instruction, an, cands, view, lex)
            if multi is None and an is not None and an.group and not (need and spill and opts.rule("spill_needs")) and not (need and any(
                    _DONE_TO.search(instruction[max(0, m.start - 40):m.start]) and not wanted(instruction, m.start, opts.rule("have_any"), opts.rule("want_modifiers"))
                    for m in an.mentions if m.objects & an.group)) and not (
                    need and opts.rule("cause_context") and _caused(instruction, an) & an.group):
                # (a need's group, unless the person does something to it: "I'd like to chop some
                # vegetables" asks for a knife; "there are no plates on the table" for the plates)
                multi = self._group_goal(an, cands, scores, order)
                if opts.rule("multistep_refs"):
                    multi = self._group_and_clauses(text, an, multi, cands, scores, emb, owner, bonus, lex)
            # no group from the mentions (a noun the scene's classes do not spell): issue 10's
            # word-level groups ("visit all the locations", "bring me two colas")
            fallback = an is None or not an.group
            if multi is None and fallback and any(w in ALL_WORDS for w in words):
                multi = self._all_group(text, words, cands, scores, order, view, require_place=opts.rule("mention_groups"),
                                        lex=lex if opts.rule("synonyms") else None)
                if opts.rule("multistep_refs"):
                    multi = self._group_and_clauses(text, None, multi, cands, scores, emb, owner, bonus, lex)
            if multi is None and fallback and (an is None or len(an.named) < 2):
                k = max((NUMBER_WORDS[w] for w in words if w in NUMBER_WORDS), default=0)
                if k >= 2:
                    multi = self._count_group(k, cands, scores, order)
            if multi is None and not need:  # a need is met by one thing
                clauses = tuple(c for c in _CLAUSE_SPLIT.split(text) if c and _WORD.search(c))
                if opts.rule("verbless_clauses") or opts.rule("drop_context_clauses"):
                    clauses = self._rewrite_clauses(clauses, lex)
                if opts.rule("statement_clauses") and len(clauses) >= 2:  # "I'm parched, pour me some water"
                    requests = tuple(c for c in clauses if not _statement(c))
                    clauses = requests if len(requests) == 1 else clauses
                if opts.rule("keep_reasons") and len(clauses) >= 2 and an is not None and (an.excluded or an.kept):
                    # (round 16) "..., but leave the capper out, I need it next": the reason for the kept one
                    clauses = tuple(c for c in clauses if not _KEEP_REASON.match(c.replace("’", "'"))) or clauses
                if len(clauses) >= 2 or (opts.rule("state_verbs") and len(clauses) == 1):
                    multi = self._clause_goal(text, clauses, cands, scores, emb, owner, bonus, lex, view)
            if multi is not None and opts.rule("all_but_one") and multi.source in ("all", "count") and \
                    _ALL_BUT_ONE.search(instruction.lower().replace("’", "'")):
                multi = self._but_one(multi, cands)
            if multi is not None and opts.rule("group_conjuncts") and an is not None and multi.source in ("all", "count"):
                multi = self._group_conjuncts(text, an, multi, cands, scores, lex)
            if multi is not None and multi.source == "clauses-one":
                # (round 17) the clauses' one atom first; the structure stays "single"
                goals.append(replace(multi, source="clauses"))
            elif multi is not None and len(multi.atoms) >= 2:
                goals.append(multi)
                structure = multi.source
        singles = [GoalCandidate((cands[i].atom,), float(scores[i]), "single") for i in order[:max(self.options.max_goals,
                                                                                                   self.options.lm_top)]]
        close = len(singles) < 2 or self.options.lm_margin <= 0 or \
            singles[0].score - singles[1].score < self.options.lm_margin
        if structure == "single" and llm is not None and self.options.lm_scoring and close:
            t2 = time.perf_counter()
            singles = self._lm_rerank(instruction, singles, near, llm, usage, goals)
            timings["lm"] = time.perf_counter() - t2
        if need and singles and structure == "single" and watered.any():
            # (round 20) "that plant on the table is wilting": the robot waters it (not a can handed over)
            j = max(np.nonzero(watered)[0], key=lambda k: scores[k])
            goals.insert(0, GoalCandidate((cands[j].atom,), float(scores[j]), "single"))
        elif need and opts.rule("fill_for_need") and singles:
            refill = self._refill(text, an, cands, view, singles[0].score) if an is not None and not (
                opts.rule("empty_state") and _EMPTY_WANTED.search(text)) else None
            if refill is not None:  # (before a group: "all the cups are empty")
                goals.insert(0, refill)
            elif structure == "single" and (filled := self._filled(singles[0], cands, view)) is not None:
                goals.append(filled)
        mine = opts.rule("warm_mine") and bool(_MINE.search(instruction.lower().replace("’", "'")))
        if (need or mine) and opts.rule("served_warm") and structure == "single" and (goals or singles):
            served = self._served_warm((goals or singles)[0], cands, view, lex)
            if served is not None:
                goals.insert(0, served)
        if opts.rule("served_drink") and plain and structure == "single" and (goals or singles) and not any(
                w in _PLANT_WORDS or w.rstrip("s") in _PLANT_WORDS for w in _WORD.findall(text.lower())):
            # (not "the seedlings look parched": the plants are thirsty)
            goals[:0] = self._served_drink(plain, (goals or singles)[0], cands, view, lex)
        if need and opts.rule("wet_wipe") and (goals or singles) and _STICKY_HANDS.search(instruction.lower().replace("’", "'")) \
                and not _WET_HANDS.search(instruction.lower().replace("’", "'")):
            wiped = self._wet_wipe((goals or singles)[0], cands, view)
            if wiped is not None:  # (round 23) "my hands are all sticky": a wet cloth
                goals.insert(0, wiped)
        if opts.rule("still_whole") and an is not None:  # (round 23) "the tomato's still in one piece": chopped
            cut = self._still_whole(an, cands, scores)
            if cut is not None:
                goals.insert(0, cut)
        if chill is not None:  # (round 22) "those bananas will go brown in this heat": both, chilled (not heated)
            goals.insert(0, chill)
        goals.extend(singles)
        if opts.rule("nested_destinations") and _NESTED_GAP.search(text.lower()):
            # "serve it on a plate at the table": the plate goes there too
            nested = self._nested(text, lex, view, {c.atom for c in cands})
            if nested:
                goals = [GoalCandidate(g.atoms + tuple(dict.fromkeys(
                    t for a in g.atoms if a.predicate in ("on", "in") and len(a.args) == 2
                    for t in nested.get(a.args[1], ()) if t not in g.atoms)), g.score, g.source, g.lm_logprob)
                    for g in goals]
        if opts.rule("closing_steps") and goals:  # (round 17) "..., then shut it again": it ends closed
            closed = self._closing_steps(text, goals[0].atoms, cands, lex)
            if closed is not None:
                goals.insert(0, GoalCandidate(closed, goals[0].score, goals[0].source, goals[0].lm_logprob))
        if opts.rule("negated_leave") and goals:  # (round 18) "don't leave the fridge open": it ends closed
            shut = self._left_shut(instruction, goals[0].atoms, cands, lex)
            if shut is not None:
                goals.insert(0, GoalCandidate(shut, goals[0].score, goals[0].source, goals[0].lm_logprob))
        if keep:  # kept objects stay where they are, whatever else the goal asks
            goals = [GoalCandidate(tuple(a for a in g.atoms if a not in keep) + keep, g.score, g.source, g.lm_logprob)
                     for g in goals]
        if opts.rule("clear_off") and goals and an is not None:  # (round 18) "clear the clamps off my bench": off it
            cleared = self._cleared(instruction, an, goals[0].atoms, view, lex, {c.atom for c in cands},
                                    tidy=opts.rule("tidy_kept"))
            if cleared is not None:
                goals.insert(0, GoalCandidate(cleared, goals[0].score, goals[0].source, goals[0].lm_logprob))
        if opts.rule("moved_contents") and goals and an is not None:  # (round 23) "clear the table into the sink, but ..."
            moved = self._moved_contents(instruction, an, view, lex, {c.atom for c in cands}, opts.rule("moved_unkept"))
            if moved is not None:
                goals.insert(0, GoalCandidate(moved, goals[0].score, "all", goals[0].lm_logprob))
        if opts.rule("taken_out_first") and goals and view.humans:  # (round 23) "..., but take the banana out first"
            emptied = self._taken_out_first(instruction, view, lex)
            if emptied is not None:
                goals.insert(0, GoalCandidate(emptied, goals[0].score, goals[0].source, goals[0].lm_logprob))
        if opts.rule("loaded_set_down") and goals:  # (round 22) a plate with the salad on it is set down by the person
            goals = [self._loaded_set_down(g, view) for g in goals]
        seen, ranked = set(), []
        for g in goals:
            if g.text not in seen:
                seen.add(g.text)
                ranked.append(g)
        timings["total"] = time.perf_counter() - t0
        return SearchResult(ranked[:self.options.max_goals], structure, clauses,
                            tuple((e.instruction, round(s, 3)) for e, s in near[:self.options.k_shots]), timings)

    # ------------------------------------------------------------------ structures

    def _group_conjuncts(self, text: str, an: Analysis, multi: GoalCandidate, cands, scores,
                         lex: Lexicon) -> GoalCandidate:
        """(round 24, ``group_conjuncts``) "bring me two roses and the ribbon", "put both mugs and
        the teapot on the tray": a thing joined to the group's noun phrase by "and" (nothing
        between but a comma, "and" and determiners) gets the group's atom too."""
        atoms = list(multi.atoms)
        chosen = set(atoms)
        pats = {self._pattern(c) for c in cands if c.atom in chosen}
        if len(pats) != 1:
            return multi
        pat = next(iter(pats))
        have = {c.focus for c in cands if c.atom in chosen}
        ms = [m for m in lex.mentions(text) if not m.category]
        gms = [m for m in ms if m.objects & an.group]
        for m in ms:
            if m.objects & (an.group | an.excluded | an.kept) or not m.objects.isdisjoint(set(pat)):
                continue
            if not any((g.end <= m.start and _CONJUNCT_GAP.fullmatch(text[g.end:m.start]))
                       or (m.end <= g.start and _CONJUNCT_GAP.fullmatch(text[m.end:g.start])) for g in gms):
                continue
            fit = [i for i, c in enumerate(cands) if c.focus in m.objects and self._pattern(c) == pat]
            if fit and not m.objects & have:
                i = max(fit, key=lambda j: scores[j])
                atoms.append(cands[i].atom)
                have.add(cands[i].focus)
        return multi if len(atoms) == len(multi.atoms) else replace(multi, atoms=tuple(atoms))

    @staticmethod
    def _pattern(c: CandidateAtom) -> tuple:
        """An atom with its focus argument blanked: atoms sharing it differ only in the object."""
        return (c.atom.predicate,) + tuple("_" if a == c.focus else a for a in c.atom.args)

    def _count_group(self, k: int, cands, scores, order) -> Optional[GoalCandidate]:
        best = cands[order[0]]
        pat = self._pattern(best)
        picked, focus = [], set()
        for i in order:
            c = cands[i]
            if self._pattern(c) == pat and c.focus not in focus:
                picked.append(i)
                focus.add(c.focus)
            if len(picked) == k:
                break
        if len(picked) < 2:
            return None
        return GoalCandidate(tuple(cands[i].atom for i in picked), float(np.mean([scores[i] for i in picked])), "count")

    def _all_group(self, instruction: str, words, cands, scores, order, view: SceneView, *,
                   require_place: bool = False, lex: Optional[Lexicon] = None) -> Optional[GoalCandidate]:
        text = " " + " ".join(words) + " "
        # a place the instruction names ("on the table", "from the second counter")
        places = {p for p in view.place.values()}
        named = [p for p in places if " " + view.words.get(p, p).replace("the ", "", 1) + " " in text]
        if cands[order[0]].atom.predicate in ("visited", "at"):
            named = []  # "visit all the locations": the best atom is about places, not things on one
        if not named and lex is not None:  # "everything in the fridge" for a refrigerator (synonyms)
            low = instruction.lower()
            named = [o for m in lex.mentions_simple(instruction) for o in sorted(m.objects) if o in places
                     and re.search(r"\b(?:in|on|from|off|out\s+of)\s+(?:the\s+|my\s+)?$", low[max(0, m.start - 15):m.start])]
        if named and lex is not None:  # (round 16) "all the fruit in the basket on the worktop": not the worktop's
            locators = self._dest_locators(instruction, cands, lex)
            named = [p for p in named if p not in locators] or named
        if named:
            # the longest name wins ("second counter" over "counter")
            named.sort(key=lambda p: -len(view.words.get(p, p)))
            here = held_by(view, named[0], self.options.rule("every_place"))
            pool = [i for i in order if cands[i].focus in here]
        elif require_place and cands[order[0]].atom.predicate not in ("visited", "at"):
            return None  # "every one of the cups" with no class named so: not every object
        else:
            pool = list(order)
        if self.options.rule("multistep_refs"):
            pool = [i for i in pool if scores[i] > -1.0]  # excluded objects ("all but the remote") stay
        if not pool:
            return None
        best = cands[pool[0]]
        pat = self._pattern(best)
        picked = [i for i in pool if self._pattern(cands[i]) == pat]
        if named:
            # the destination must not be where the things already are
            picked = [i for i in picked if named[0] not in cands[i].atom.args]
        if len(picked) < 2:
            return None
        return GoalCandidate(tuple(cands[i].atom for i in picked), float(np.mean([scores[i] for i in picked])), "all")

    def _mention_bonus(self, an: Analysis, cands: Sequence[CandidateAtom], view: SceneView) -> np.ndarray:
        """Excluded objects out; atoms about the objects the instruction names up (an ordinal
        names one object of its class: the others of that class go down)."""
        out = np.zeros(len(cands))
        w = self.options.weights.mention
        named, kinds, person = an.named, an.kinds, an.to_person
        contents = self.options.rule("contents_descriptor")
        if self.options.rule("liquid_vessels") and not _POUR.search(an.text):
            # (round 8) "put the milk back in the fridge": the carton the milk is in
            named = named | {a.args[1] for a in view.init if a.predicate == "liquid_in" and len(a.args) == 2
                             and a.args[0] in named and a.args[1] not in view.humans}
        picked = {m.cls: m.objects for m in an.mentions if m.ordinal is not None and not m.category}
        # (round 20) "some cutlery, anything but a knife": the rest of a kind some of which is left out
        rest = {o for m in an.mentions if m.category and m.objects & an.excluded for o in m.objects - an.excluded} \
            if self.options.rule("kind_rest") else set()
        if self.options.rule("liquid_sources"):
            picked = {**self._liquid_sources(an, view), **picked}
        for i, c in enumerate(cands):
            args = c.atom.args
            if an.excluded and any(a in an.excluded for a in args):
                out[i] -= 5.0
                continue
            if not w:
                continue
            if c.focus in named:
                out[i] += w
            elif c.focus in rest:
                out[i] += w
            elif c.focus in kinds:
                out[i] += 0.5 * w
            elif contents and c.focus in an.descriptors and view.place.get(c.focus) in named:
                out[i] -= 2 * w + self.options.weights.context  # (round 14) "the bowl of peanuts": not the peanuts
            if person and c.frame.startswith("inhand/"):
                out[i] += 0.5 * w if c.frame == "inhand/?/human" else -0.5 * w
            for a in args[1:]:
                if a in named:
                    out[i] += 0.5 * w
                elif a in an.descriptors:
                    out[i] -= w  # "the orange on the table": not a destination
            for a in args:
                objs = picked.get(view.cls(a))
                if objs is not None and a not in objs:
                    out[i] -= w
        return out

    @staticmethod
    def _nested(text: str, lex: Lexicon, view: SceneView, atoms: set) -> dict[str, list[Atom]]:
        """"On a plate at the table", "in the bowl on the counter": a carried destination said with
        a place of its own. Destination -> the candidate atoms that put it at that place (round 14,
        ``nested_destinations``)."""
        low = text.lower()
        ms = [m for m in lex.mentions(text) if not m.category]
        out: dict[str, list[Atom]] = {}
        for a, b in zip(ms, ms[1:]):
            if len(b.objects) != 1 or not _NESTED_GAP.fullmatch(low[a.end:b.start]) \
                    or not _NESTED_BEFORE.search(low[max(0, a.start - 12):a.start]):
                continue
            place = next(iter(b.objects))
            for x in a.objects:
                if x == place or view.place.get(x) == place:
                    continue
                there = Atom("on", (x, place)) if Atom("on", (x, place)) in atoms else Atom("in", (x, place))
                if there in atoms:
                    out.setdefault(x, []).append(there)
        return out

    @staticmethod
    def _open_ones(instruction: str, an: Analysis, cands, view: SceneView, lex: Lexicon) -> Optional[GoalCandidate]:
        """Round 15 (``open_ones``): "close everything that's open", "shut whatever's been left
        open", "close every cupboard and drawer that's hanging open", "shut all the open ones":
        the closing atom of each thing open now, of the kinds said if the words between name any."""
        said = instruction.replace("’", "'")
        m = _CLOSE_OPEN.search(said)
        if m is None:
            return None
        is_open = {a.args[0] for a in view.init if a.predicate == "opened" and a.args}
        closing = {c.focus: c.atom for c in cands if c.atom.predicate == "closed" and not c.holds
                   and c.focus in is_open and c.focus not in an.excluded}
        kinds = {o for mm in lex.mentions(m.group("span") or m.group("after") or "") for o in mm.objects} & set(closing)
        if m.group("at") is not None:  # "close everything on the counter": what is open there
            rest = re.split(r"[,.;!?]|\b(?:and|then|but)\b", said[m.end():], maxsplit=1)[0]
            places = set(view.place.values())
            at = next((o for mm in lex.mentions(rest) for o in sorted(mm.objects) if o in places), None)
            named = {o for mm in lex.mentions(m.group(0)) for o in mm.objects}  # "all the bottles on ..."
            kinds = {o for o in closing if at is not None and view.place.get(o) == at and (not named or o in named)}
            if not kinds:
                return None
        targets = sorted(o for o in closing if not kinds or o in kinds)
        if not targets:
            return None
        return GoalCandidate(tuple(closing[o] for o in targets), 1.0, "all")

    @staticmethod
    def _liquid_sources(an: Analysis, view: SceneView) -> dict[str, frozenset[str]]:
        """class -> the named portions of that liquid whose vessel, or the vessel's place, the
        instruction names too, where that is some but not all of them (round 11)."""
        vessel = {a.args[0]: a.args[1] for a in view.init if a.predicate == "liquid_in" and len(a.args) == 2}
        where = {a.args[0]: a.args[1] for a in view.init if a.predicate in ("on", "in") and len(a.args) == 2}
        said = an.named | an.descriptors | ({an.source} if an.source else frozenset())
        by_cls: dict[str, set[str]] = {}
        for o in an.named:
            if o in vessel:
                by_cls.setdefault(view.cls(o), set()).add(o)
        out = {}
        for cls, objs in by_cls.items():
            keep = frozenset(o for o in objs if vessel[o] in said or where.get(vessel[o]) in said)
            if keep and len(keep) < len(objs):
                out[cls] = keep
        return out

    def _group_goal(self, an: Analysis, cands, scores, order) -> Optional[GoalCandidate]:
        """One atom pattern over the group ("all the forks on the second table", "two plastic
        cups"): the best atom about a member fixes the pattern, every member (or the best k) gets it."""
        # things taken from a place go somewhere: a relation, not a state ("clear the table")
        moved = an.source is not None or (self.options.rule("plural_refs") and bool(_TAKEN_OFF.search(an.text)))
        idx = [i for i in order if cands[i].focus in an.group and scores[i] > -1.0
               and (not moved or (an.source not in cands[i].atom.args
                                  and cands[i].atom.predicate in ("on", "in", "inhand")))]
        if not idx:
            return None
        pat = self._pattern(cands[idx[0]])
        picked, seen = [], set()
        for i in idx:
            if self._pattern(cands[i]) == pat and cands[i].focus not in seen:
                picked.append(i)
                seen.add(cands[i].focus)
        if an.count:
            picked = picked[:an.count]
        if len(picked) < 2:
            return None
        return GoalCandidate(tuple(cands[i].atom for i in picked), float(np.mean([scores[i] for i in picked])),
                             "count" if an.count else "all")

    _DETS = ("the", "a", "an", "my", "some", "your", "that", "this", "these", "those", "both")

    def _rewrite_clauses(self, clauses: Sequence[str], lex: Lexicon) -> tuple[str, ...]:
        """Verbless conjuncts share the previous clause's verb ("take the screw and the nail
        to the table": "take the nail to the table", and the screw goes there too); clauses
        that name no object (an implicit need before an explicit request) are dropped when
        another clause names one."""
        if self.options.rule("multistep_refs"):
            clauses = self._shared_predicates(clauses, lex)
        if self.options.rule("empty_clauses"):  # "..., but." once the kept part is cut out; "..., thanks"
            clauses = [c for c in clauses if not _asks_nothing(c, self.options.rule("courtesy_tags"))]
        out: list[str] = []
        lists = self.options.rule("noun_lists")
        for cl in clauses:
            words = _WORD.findall(cl.lower())
            # (round 16) "put the hydrometer, thermometer and airlock back on the shelf": a bare noun
            # that opens a clause with at most a destination after it is listed with the one before,
            # when that one ends in a thing
            listed = False
            if lists and out and words and (cm := lex.mentions_simple(cl)) and cm[0].start == 0 and re.fullmatch(
                    r"\s*(?:(?:back\s+)?(?:to|on|onto|in|into|inside)\b.*)?", cl[cm[0].end:], re.DOTALL):
                pm = lex.mentions_simple(out[-1])
                listed = bool(pm) and not out[-1][pm[-1].end:].strip()
            if self.options.rule("verbless_clauses") and out and words and (words[0] in self._DETS or listed):
                prev = out[-1]
                pm = lex.mentions_simple(prev)
                cm = lex.mentions_simple(cl)
                if pm and cm:
                    verb = prev[:pm[0].start].strip()
                    vwords = verb.split()
                    while vwords and vwords[-1].lower() in self._DETS:
                        vwords.pop()
                    tail = cl[cm[0].end:]
                    back = (r"(?:(?:back|up|down|over)\s+)?" if self.options.rule("wish_pairs") else r"(?:back\s+)?") \
                        if lists else ""
                    if re.match(r"\s*" + back + r"(to|on|onto|in|into|inside)\b", tail) and \
                            not prev[pm[0].end:].strip():
                        out[-1] = prev + tail
                    cl = " ".join(vwords + [cl])
            out.append(cl)
        if self.options.rule("drop_context_clauses") and len(out) >= 2:
            named = [bool(lex.mentions_simple(c)) or bool(_PRONOUN.search(c))
                     or bool(self.options.rule("multistep_refs") and _CLOSE.search(c)) for c in out]
            if not any(named):
                return ()  # "I like fruits, can you bring me something I'd like?": one request
            if sum(named) >= 2:
                out = [c for c, n in zip(out, named) if n]
        return tuple(out)

    def _group_and_clauses(self, text: str, an: Optional[Analysis], multi: Optional[GoalCandidate], cands, scores, emb,
                           owner, bonus, lex: Lexicon) -> Optional[GoalCandidate]:
        """"Put both knives in the box, then close the fridge": the group's clause alone decides
        the group's atoms (the box, not the fridge; a group of the mention analysis is chosen
        again from that clause), and each other clause adds its own atom."""
        clauses = _np_conjoined(text, lex) if self.options.rule("np_conjuncts") else \
            tuple(c for c in _CLAUSE_SPLIT.split(text) if c and _WORD.search(c))
        members = an.group if an is not None else frozenset()
        if len(clauses) < 2 or (multi is None and not members):
            return multi
        at = [k for k, cl in enumerate(clauses) if any(m.objects & members for m in lex.mentions(cl))
              or any(w in ALL_WORDS or w in NUMBER_WORDS for w in _WORD.findall(
                  quantifier_text(cl, self.options.rule("cue_words"), self.options.rule("adverb_all")).lower()))]
        if not at and self.options.rule("source_clause") and an is not None and an.source is not None:
            # (round 15) "empty the basket onto the counter and then pass me the basket": the group's
            # clause is the first that names where it is taken from
            at = [k for k, cl in enumerate(clauses) if any(an.source in m.objects for m in lex.mentions(cl))]
        if not at:
            return multi
        g = at[0]
        pronoun = any(_PRONOUN.search(cl) and not _CLOSE.search(cl) for k, cl in enumerate(clauses) if k != g)
        if pronoun and not (self.options.rule("plural_refs") and multi is not None):
            # "gather all the fruit and put it on the plate": one group, the whole sentence ("... and
            # close it" is a clause of its own: it closes where the group went)
            return multi
        group = multi
        if pronoun:  # (plural_refs) the group as the whole sentence chose it; only closing clauses add
            # (round 13, ``group_other_clauses``: and a clause about something else, with no pronoun:
            # "... put them in the sink, then put the rack on the shelf")
            clauses = tuple(cl for k, cl in enumerate(clauses) if k == g or _CLOSE.search(cl) or (
                self.options.rule("group_other_clauses") and not _PRONOUN.search(cl) and lex.mentions_simple(cl)
                and not all(o in members for m in lex.mentions(cl) for o in m.objects)
                and not (self.options.rule("statement_context") and _statement(cl))))
            members = frozenset()
        if members:
            s, _, _, _ = self._scores(clauses[g], cands, emb, owner)
            s = s + bonus + self.options.weights.clause_context * scores + self._clause_refs(clauses[g], [], cands, lex)
            if self.options.rule("group_states") and self.options.rule("state_verbs"):
                # (round 17) "wipe down the two cups on the tray ...": each cup cleaned
                s = s + self._state_bonus(clauses[g], cands, lex)
            if self.options.rule("destinations"):
                s = s + self._dest_bonus(clauses[g], cands, lex)
            s = s + self._hand_me(text, cands)
            group = self._group_goal(an, cands, s, list(np.argsort(-s, kind="stable")))
            if group is None:
                return multi
        chosen = [next(j for j, c in enumerate(cands) if c.atom == a) for a in group.atoms]
        atoms = list(group.atoms)
        rest = tuple(cl for k, cl in enumerate(clauses) if k != g)
        rest = rest if pronoun else self._rewrite_clauses(rest, lex)
        for cl in rest:
            if not (lex.mentions_simple(cl) or _CLOSE.search(cl)):
                continue
            if all(o in members for m in lex.mentions(cl) for o in m.objects) and not _CLOSE.search(cl):
                continue  # another clause about the group ("... and put them all away")
            i = self._lid(cl, chosen, cands, lex)
            if i is None:
                sc, _, _, _ = self._scores(cl, cands, emb, owner)
                sb = self._state_bonus(cl, cands, lex)
                sc = sc + self.options.weights.clause_context * scores + np.minimum(bonus, 0.0) + \
                    sb + self._clause_refs(cl, chosen, cands, lex)
                i = int(np.argmax(sc))
                if self.options.rule("state_clauses") and sb.max() > 0:  # (round 17) "boil the kettle, ..."
                    i = max(np.nonzero(sb > 0)[0], key=lambda j: sc[j])
            if all(cands[i].focus != cands[j].focus for j in chosen):
                atoms.append(cands[i].atom)
                chosen.append(i)
        return GoalCandidate(tuple(atoms), group.score, group.source)

    def _shared_predicates(self, clauses: Sequence[str], lex: Lexicon) -> tuple[str, ...]:
        """"The cucumber and the salad belong in the fridge": a clause that is only a noun phrase
        shares the predicate of the next clause, when that clause opens with a noun phrase too."""
        out = list(clauses)
        for k in range(len(out) - 2, -1, -1):
            cl, nxt = out[k], out[k + 1]
            ms, mn = lex.mentions_simple(cl), lex.mentions_simple(nxt)
            if not ms or not mn:
                continue
            rest = _WORD.findall(cl[:ms[0].start].lower()) + _WORD.findall(cl[ms[-1].end:].lower())
            lead = _WORD.findall(nxt[:mn[0].start].lower())
            if all(w in self._DETS for w in rest) and all(w in self._DETS for w in lead) and \
                    _WORD.search(nxt[mn[0].end:]):
                out[k] = cl.rstrip(" ,;") + nxt[mn[0].end:]
        return tuple(out)

    def _clause_goal(self, instruction: str, clauses, cands, full_scores, emb, owner,
                     bonus=None, lex: Optional[Lexicon] = None, view: Optional[SceneView] = None) -> Optional[GoalCandidate]:
        chosen: list[int] = []
        fetched: set[int] = set()  # atoms of "get the milk" steps (round 15, ``fetch_steps``)
        agents = {c.atom.args[-1] for c in cands if c.frame.endswith(("human", "robot"))}
        states = self.options.rule("state_verbs") and lex is not None
        for k, cl in enumerate(clauses):
            sb = np.zeros(len(cands))
            if len(clauses) == 1:
                s = full_scores
            else:
                s, _, _, _ = self._scores(cl, cands, emb, owner)
                s = s + self.options.weights.clause_context * full_scores
                if bonus is not None:
                    s = s + np.minimum(bonus, 0.0)  # excluded objects stay out of every clause
                sb = self._state_bonus(cl, cands, lex, pronoun_refs=self._refs(chosen, cands, cl, agents,
                                                                     self.options.rule("heat_contents"))) \
                    if states else np.zeros(len(cands))
                s = s + sb
                if self.options.rule("multistep_refs") and lex is not None:
                    s = s + self._clause_refs(cl, chosen, cands, lex)
                if self.options.rule("clause_objects") and lex is not None:
                    s = s + self._clause_focus(cl, cands, lex)
                if self.options.rule("water_plant") and lex is not None and view is not None:  # (round 20) "give the plant a water"
                    w = self._watered(cl, cands, view, lex)
                    s = s + w
                    sb = sb + w
                if self.options.rule("destinations") and lex is not None and not sb.any():
                    # ("chop it on the board": the state; its placement comes as its companion)
                    s = s + self._dest_bonus(cl, cands, lex)
                if self.options.rule("clause_fetch") and not sb.any():
                    # (round 22) "take my glass to the sink and fetch the milk": the milk is brought to
                    # the person, not taken to the sink the clause before named
                    s = s + self._hand_me(_COURTESY_TAIL.sub("", cl), cands)
            i = int(np.argmax(s))
            if self.options.rule("state_clauses") and len(clauses) > 1 and sb.max() > 0:
                # (round 17) "boil the kettle": the kettle's water warmed, not the kettle moved
                i = max(np.nonzero(sb > 0)[0], key=lambda j: s[j])
            lid = self._lid(cl, chosen, cands, lex) if states and self.options.rule("multistep_refs") else None
            added = self._added(cl, chosen, cands, lex, s) if self.options.rule("add_to") and chosen else None
            if lid is not None:
                i = lid
            elif added is not None:  # (round 15) "pour milk into the bowl, add the cereal": into the bowl
                i = added
            elif self.options.rule("multistep_refs") and _SOURCE_PRONOUN.search(cl) and not _PRONOUN.search(
                    _SOURCE_PRONOUN.sub(" ", cl)):
                pass  # "fill a cup from it": the pronoun is where the thing comes from, not the thing
            elif self.options.rule("instruments") and _WITH_PRONOUN.search(cl) and not _PRONOUN.search(
                    _WITH_PRONOUN.sub(" ", cl)):
                pass  # "give the remote a wipe with it": the pronoun is the tool
            elif self.options.rule("plural_refs") and _PLURAL_PRONOUN.search(cl) and not _CLOSE.search(cl) and \
                    len(taken := self._taken(clauses[:k], chosen, cands, lex, agents)) >= 2:
                # "take the bucket and the hose out of the cabinet and put them both on the shelf"
                same = [j for j in range(len(cands)) if cands[j].focus in taken]
                i = max(same, key=lambda j: s[j])
                pat = self._pattern(cands[i])
                for o in sorted(taken - {cands[i].focus}):
                    j = next((j for j in same if cands[j].focus == o and self._pattern(cands[j]) == pat), None)
                    if j is not None:
                        chosen.append(j)
            elif _PRONOUN.search(cl) and chosen and not (self.options.rule("closing_steps") and self._closes_named(cl, cands, lex)):
                # "... and move it to the trash": the pronoun's object is the previous clause's;
                # "put it in the fridge and close it": the place, when the clause opens / closes
                prev = cands[chosen[-1]].atom
                refs = {prev.args[0] if prev.predicate != "at" else prev.args[-1]}
                opens = re.search(r"\b(close|shut|open)\b", cl, re.IGNORECASE)
                if opens and prev.predicate in ("in", "on"):
                    refs = {prev.args[1]}
                elif self.options.rule("carried_vessel") and prev.predicate in ("in", "on") and _HAND_OVER.search(cl) and any(
                        c.frame == "inhand/?/human" and c.focus == prev.args[1] for c in cands):
                    # (round 15) "tip the cereal into the bowl and bring it to me": the bowl, cereal and all
                    refs = {prev.args[1]}
                elif prev.predicate == "liquid_in":
                    # "pour water in the cup and hand it to me": the cup; "... and warm it up": either
                    refs = {prev.args[1], prev.args[0]} if self.options.rule("multistep_refs") and \
                        _HEAT.search(cl) else {prev.args[1]}
                elif self.options.rule("vessel_contents") and prev.predicate in _LIQUID_STATES:
                    # "pour milk into a mug, heat it up and bring it to me": the milk's vessel too
                    refs |= {cands[j].atom.args[1] for j in chosen if cands[j].atom.predicate == "liquid_in"
                             and cands[j].atom.args[0] == prev.args[0]}
                if self.options.rule("heat_contents") and _HEAT.search(cl):
                    # (round 17) "... set the pot on the stove and get it heating": the water in the pot
                    refs |= self._poured_into(refs, chosen, cands)
                if states and opens and k > 0:
                    # "get the X out of the fridge and close it": the last thing the previous
                    # clause names that opens and closes
                    shut = {c.atom.args[0] for c in cands if c.atom.predicate in ("opened", "closed")}
                    named = [o for m in lex.mentions(clauses[k - 1]) if not m.category for o in sorted(m.objects)
                             if o in shut]
                    if named:
                        refs = {named[-1]}
                    if self.options.rule("open_taken") and opens.group(1).lower() == "open" and len(named) > 1 and \
                            _TAKE_OUT.search(clauses[k - 1]):
                        # (round 16) "get the packet out of the fridge, open it": the packet
                        refs = {prev.args[0]} if prev.args and prev.args[0] in named[:-1] else {named[0]}
                refs -= agents
                over = r"|over" if self.options.rule("multistep_refs") else ""
                into = states and re.search(r"\b(?:in|into|inside|on|onto" + over + r")\s+(?:it|them)\b", cl,
                                            re.IGNORECASE)
                if into:
                    # "open the fridge and put the juice in it": the pronoun is the destination;
                    # "tip the cereal into the bowl and pour milk over it": where the cereal is
                    preds = ("in", "on", "liquid_in") if self.options.rule("multistep_refs") else ("in", "on")
                    same = []
                    for dest in ({prev.args[0]}, {prev.args[-1]} if len(prev.args) == 2 else set()):
                        dest = dest - agents
                        same = [j for j in range(len(cands)) if cands[j].atom.predicate in preds
                                and cands[j].atom.args[1] in dest and not cands[j].holds]
                        if same or not self.options.rule("multistep_refs"):
                            break
                else:
                    same = [j for j in range(len(cands)) if cands[j].focus in refs]
                    if self.options.rule("multistep_refs") and _FILL.search(cl):
                        # "fill it from the jug": the pronoun is the container the liquid goes into
                        same += [j for j in range(len(cands)) if cands[j].atom.predicate == "liquid_in"
                                 and cands[j].atom.args[1] in refs and not cands[j].holds]
                if same and self.options.rule("pronoun_states") and any(sb[j] > 0 for j in same):
                    same = [j for j in same if sb[j] > 0]  # (round 15) "cut it up on the board": the cutting
                if same:
                    i = max(same, key=lambda j: s[j])
            if self.options.rule("liquid_carried") and cands[i].atom.predicate not in ("on", "in", "inhand") and \
                    sb[i] <= 0 and (_CARRIED.match(cl) or (self.options.rule("clause_fetch") and k == len(clauses) - 1
                                                          and _FETCHES.match(cl))) \
                    and not _POURED.search(cl):
                # (round 17) "take the milk out", "put it on the tray": the carton the milk is in
                vessels = {c.atom.args[1] for c in cands if c.atom.predicate == "liquid_in" and c.holds
                           and c.atom.args[0] == cands[i].focus}
                alt = [j for j in range(len(cands)) if cands[j].focus in vessels
                       and cands[j].atom.predicate in ("on", "in", "inhand")]
                if alt:
                    i = max(alt, key=lambda j: s[j])
            chosen.append(i)
            if k < len(clauses) - 1 and _FETCH_STEP.match(cl):
                fetched.add(i)
            if states and cands[i].atom.predicate in _STATE_PREDICATES and not (
                    self.options.rule("instruments") and cands[i].atom.predicate in ("clean", "wet")):
                j = self._companion(cl, cands[i], cands, lex)
                if j is not None:
                    chosen.insert(len(chosen) - 1, j)  # the placement first: the state is the later word
        # one atom per object: a later clause overrides an earlier one about the same object (with
        # state verbs: per object and kind of fact, so "put it on the board and slice it" keeps both)
        by_focus: dict[Any, int] = {}
        for i in chosen:
            key = (cands[i].focus, _kind(cands[i].atom.predicate)) if states else cands[i].focus
            by_focus.pop(key, None)
            by_focus[key] = i
        picked = list(by_focus.values())
        if self.options.rule("fetch_steps") and len(picked) >= 2:
            # (round 15) "get the milk, pour some into the bowl ...": fetching is a step on the way; a
            # state its clause chose for a thing a later atom also names is dropped
            picked = [i for i in picked if not (i in fetched and len(cands[i].atom.args) == 1 and any(
                cands[i].focus in cands[j].atom.args for j in picked if j != i))]
        if len(picked) == 1 and len(clauses) >= 2 and self.options.rule("one_atom_clauses"):
            return GoalCandidate((cands[picked[0]].atom,), float(full_scores[picked[0]]), "clauses-one")
        if len(picked) < 2:
            return None
        return GoalCandidate(tuple(cands[i].atom for i in picked), float(np.mean([full_scores[i] for i in picked])),
                             "clauses")

    def _but_one(self, multi: GoalCandidate, cands) -> GoalCandidate:
        """Round 17 (``all_but_one``): "put them on the table, all but one": the group's last
        member (the least likely) stays where it is."""
        pats = {c.atom: self._pattern(c) for c in cands if c.atom in multi.atoms}
        pat = pats.get(multi.atoms[0])
        members = [a for a in multi.atoms if pats.get(a) == pat]
        if len(members) < 2:
            return multi
        return GoalCandidate(tuple(a for a in multi.atoms if a != members[-1]), multi.score, multi.source,
                             multi.lm_logprob)

    @staticmethod
    def _closes_named(cl: str, cands, lex: Optional[Lexicon]) -> bool:
        """Round 17: "close the fridge door again so it stops beeping" closes what it names; its
        "it" is no earlier thing."""
        if lex is None or not _CLOSE_STEP.search(cl.lower()):
            return False
        closing = {c.atom.args[0] for c in cands if c.atom.predicate == "closed"}
        return any(m.objects and m.objects <= closing for m in lex.mentions(cl) if not m.category)

    @staticmethod
    def _closing_steps(text: str, atoms: Sequence[Atom], cands, lex: Lexicon) -> Optional[tuple[Atom, ...]]:
        """Round 17 (``closing_steps``): a later step that closes a thing ("then shut the fridge",
        "then shut it again", "and put the lid back on") leaves it closed: its closing is in the
        goal and an opening of it is not. The thing is the one the step names, or (for "it", "the
        lid", "again") the last thing that opens and closes named before. None when nothing changes."""
        clauses = [c for c in _CLAUSE_SPLIT.split(text) if c and _WORD.search(c)]
        closing = {c.atom.args[0]: c.atom for c in cands if c.atom.predicate == "closed"}
        out = list(atoms)
        for k, cl in enumerate(clauses):
            low = cl.lower().replace("’", "'")
            if k == 0 or not _CLOSE_STEP.search(low) or _NOT_STEP.search(low):
                continue
            ms = _whole_things(cl, lex)
            said = [m.objects & closing.keys() for m in ms]
            things = [next(iter(o)) for o in said if len(o) == 1]
            if not things and not any(said):
                earlier = [o for c in clauses[:k] for m in lex.mentions(c) if not m.category and len(m.objects) == 1
                           for o in m.objects if o in closing]
                if not earlier or not _STEP_BACK_REF.search(low) or any(a.predicate == "closed" for a in out):
                    continue
                things = [earlier[-1]]
            out = _ends_closed(out, things, closing)
        return tuple(out) if out != list(atoms) else None

    @staticmethod
    def _cleared(instruction: str, an: Analysis, atoms: Sequence[Atom], view: SceneView,
                 lex: Lexicon, possible: frozenset | set = frozenset(), tidy: bool = False) -> Optional[tuple]:
        """Round 18 (``clear_off``): "clear the clamps off my bench", "clear the bench off", with no
        destination said: each thing there is off it and in nobody's hand (it is put away somewhere,
        wherever the planner finds), as negative literals in place of the goal's atoms about it;
        kept and excluded things stay (on it). Nor does a thing go onto or into what stays there (a
        candidate atom of ``possible``): "clear the table except the plate" is not done by
        stacking everything on the plate. None when the instruction says no such thing."""
        low = instruction.lower().replace("’", "'")
        m = next((m for rx in (*_CLEAR_OFF, *((_TIDY_KEPT,) if tidy else ())) for m in rx.finditer(low)
                  if not _NOT_A_PLACE.search(m.group("place"))), None)
        if m is None:
            return None
        tidied = m.re is _TIDY_KEPT  # (round 23, ``tidy_kept``) only with a thing kept back
        places = [mm for mm in lex.mentions(instruction[m.start("place"):m.end("place")]) if not mm.category]
        if not places:
            return None
        np_text = m.groupdict().get("np") or ""
        named = {o for mm in lex.mentions(instruction[m.start("np"):m.end("np")]) for o in mm.objects} \
            if np_text.strip() else set()
        holding = [p for p in places[-1].objects if named & held_by(view, p)]
        if len(places[-1].objects) == 1:
            place = next(iter(places[-1].objects))
        elif len(holding) == 1:  # "the plates off the table": the table the plates are on
            place = holding[0]
        else:
            return None
        # what the rest says of the things, leaving aside what is kept ("leave the violin where it is")
        kept_spans = [k.span() for k in _CLEAR_KEPT.finditer(low, m.end())]
        kept = {o for k0, k1 in kept_spans for mm in lex.mentions(instruction[k0:k1]) for o in mm.objects}
        rest = _CLEAR_KEPT.sub(" ", low[m.end():])
        sentence = re.split(r"[.;!?]", rest, maxsplit=1)[0]
        if _CLEAR_THEN.search(sentence) or _DEST_AFTER.search(rest):
            return None  # "... off the chair and place it on the coffee table", "... for me": elsewhere
        # (sorted: the initial state is a set, and the goal's text must not depend on its order)
        there = _things_at(view, place)
        if np_text.strip() and not re.fullmatch(r"\s*(?:everything|it\s+all|all\s+of\s+it|all|the\s+lot|stuff)\s*",
                                                np_text):
            things = [o for o in there if o in named]
        else:
            things = list(there)
        if tidied and not (kept | an.kept | an.excluded) & set(there):
            return None  # "tidy the desk": no clearing said
        kept |= {o for o in there if held_by(view, o) & (kept | an.kept | an.excluded)}  # "the one with the salmon on it"
        things = [o for o in things if o not in an.kept and o not in an.excluded and o not in kept]
        if not things:
            return None
        gone = set(things)
        # (and no state of the place: "clear the table" asks for nothing to be cleaned)
        # (and the goal's other moves of the things said, kept or not, go unless they hold now)
        said = gone | kept | named | set(an.group)
        init = set(view.init)
        out: list = [a for a in atoms if not (a.args and a.args[0] in said and _kind(a.predicate) == "place"
                                              and a not in init)
                     and not (a.args == (place,) and a.predicate != "visited")]
        staying = sorted(o for o in there if o not in gone)
        held_back = kept | an.kept | an.excluded
        # what is kept back stays there ("everything off the table except the plate": the plate too)
        out.extend(Atom(there[k], (k, place)) for k in staying if k in held_back
                   and Atom(there[k], (k, place)) not in out)
        for o in things:
            out.append(Not(Atom(there[o], (o, place))))
            out.extend(Not(Atom("inhand", (o, agent))) for agent in (*view.robots, *view.humans))
            out.extend(Not(a) for k in staying for a in (Atom("on", (o, k)), Atom("in", (o, k))) if a in possible)
        return tuple(out)

    @staticmethod
    def _moved_contents(instruction: str, an: Analysis, view: SceneView, lex: Lexicon,
                        possible: frozenset | set, opts_unkept: bool = False) -> Optional[tuple[Atom, ...]]:
        """Round 23 (``moved_contents``): a place's things moved to a destination, with some kept
        back: "clear the coffee table into the basket, all but the remote", "tidy the bench onto the
        shelf but leave the tyre levers", "put all the fish from the display into the ice chest
        except the salmon". Each thing on or in the place (of the kind the words say, when the scene
        has that kind there) goes to the destination, in or on it as the skill set allows; what is
        kept back (or holds a thing kept back: "except the peanuts", the bowl they are in) stays
        where it is. None without a thing kept back, or when the words say no such move."""
        low = instruction.lower().replace("’", "'")
        m = _MOVED_CONTENTS.search(low)
        if m is None:
            return None
        np_text = m.group("np") or ""
        if np_text and m.group("src") in ("on", "in") and not _ANY_THING.fullmatch(np_text) \
                and not _DIRECTIONAL.fullmatch(m.group("prep")):
            return None  # "put the books in the box on the counter": the box is where they go
        ps = "place0" if m.group("place0") else "place"
        place_text = instruction[m.start(ps):m.end(ps)]
        place_ms = [mm for mm in lex.mentions(place_text) if not mm.category]
        dest_ms = [mm for mm in lex.mentions(instruction[m.start("dest"):m.end("dest")]) if not mm.category]
        if not dest_ms or len(dest_ms[0].objects) != 1:
            return None
        dest = next(iter(dest_ms[0].objects))
        if place_ms:
            places = set(place_ms[0].objects)
        else:  # "the display": the one thing whose name has the word ("display_counter")
            head = _WORD.findall(place_text.lower().split(" on ")[0].split(" in ")[0])[-1]
            places = {o for o in view.objects if head in view.cls(o).split("_")}
        spans = [k.span() for k in _CLEAR_KEPT.finditer(low, m.end())]
        kept = {o for k0, k1 in spans for mm in lex.mentions(instruction[k0:k1]) for o in mm.objects}
        kept |= set(an.kept) | set(an.excluded)
        whole = bool(m.group("place0")) or _ANY_THING.fullmatch(np_text) is not None
        more = re.search(r"\b(?:then|and|after|before)\b", re.split(r"[.;!?]", low[m.end():], maxsplit=1)[0])
        if not places or not (kept or (whole and opts_unkept and not more)):
            # (without a thing kept back, only "empty the box onto the table", "everything from ...",
            # and nothing more asked: "..., then close the fridge" is the clauses')
            return None
        named: set = set()
        if np_text and not _ANY_THING.fullmatch(np_text):
            named = {o for mm in lex.mentions(instruction[m.start("np"):m.end("np")]) for o in mm.objects}
        if len(places) > 1:  # which table: the one with the things said ("..., apart from the bowl of apples")
            for said in (kept, named, {o for mm in place_ms[1:] for o in mm.objects}):
                narrowed = {p for p in places if (held_by(view, p) | {view.place.get(p)}) & said}
                places = narrowed if narrowed else places
        if len(places) != 1:
            return None
        place = next(iter(places))
        if place == dest:
            return None
        there = _things_at(view, place)
        # a thing kept back inside one of them keeps its holder there ("except the peanuts")
        kept |= {o for o in there if held_by(view, o) & kept}
        things = [o for o in there if o not in kept and o != dest]
        if named:
            things = [o for o in things if o in named] or things
        elif np_text and not _ANY_THING.fullmatch(np_text):  # "all the fish": a kind the scene has no word for
            things = _of_kind(_WORD.findall(np_text)[-1], things, view) or things
        out: list = []
        for o in things:
            rel = next((Atom(r, (o, dest)) for r in ("in", "on") if Atom(r, (o, dest)) in possible), None)
            if rel is not None:
                out.append(rel)
        if not out:
            return None
        out.extend(Atom(there[k], (k, place)) for k in sorted(kept) if k in there)
        return tuple(out)

    @staticmethod
    def _taken_out_first(instruction: str, view: SceneView, lex: Lexicon) -> Optional[tuple]:
        """Round 23 (``taken_out_first``): "bring me the fruit bowl but take the banana out of it
        first": (inhand bowl person), and the banana neither in the bowl nor handed over. None
        unless the words name one container and things in it now."""
        m = _TAKE_OUT_FIRST.search(instruction.lower().replace("’", "'"))
        if m is None:
            return None
        cs = [mm for mm in lex.mentions(instruction[m.start("c"):m.end("c")]) if not mm.category]
        if not cs or len(cs[0].objects) != 1:
            return None
        c = next(iter(cs[0].objects))
        inside = held_by(view, c, True)
        xs = sorted({o for mm in lex.mentions(instruction[m.start("x"):m.end("x")]) for o in mm.objects} & inside)
        if not xs:
            return None
        person = view.humans[0]
        out: list = [Atom("inhand", (c, person))]
        for x in xs:
            rel = "in" if Atom("in", (x, c)) in view.init else "on"
            out += [Not(Atom(rel, (x, c))), Not(Atom("inhand", (x, person)))]
        return tuple(out)

    @staticmethod
    def _left_shut(text: str, atoms: Sequence[Atom], cands, lex: Lexicon) -> Optional[tuple[Atom, ...]]:
        """Round 18 (``negated_leave``): "don't leave the fridge open", "make sure the tub isn't left
        open": the thing named between the verb and "open" ends closed, and an opening of it goes
        from the goal ("it" is the last thing that opens and closes named before). None when
        nothing changes."""
        low = text.lower().replace("’", "'")
        closing = {c.atom.args[0]: c.atom for c in cands if c.atom.predicate == "closed"}
        out = list(atoms)
        for m in _LEAVE_OPEN.finditer(low):
            g = "np" if m.group("np") is not None else "np2"
            span = text[m.start(g):m.end(g)]
            things = [o for mm in _whole_things(span, lex) if len(mm.objects & closing.keys()) == 1
                      for o in mm.objects & closing.keys()]
            if not things and _PRONOUN.fullmatch(span.strip()):
                earlier = [o for mm in lex.mentions(text[:m.start()]) if not mm.category and len(mm.objects) == 1
                           for o in mm.objects if o in closing]
                things = earlier[-1:]
            out = _ends_closed(out, things, closing)
        return tuple(out) if out != list(atoms) else None

    def _hand_me(self, text: str, cands) -> np.ndarray:
        """Round 15 (``w_hand_me``): a giving verb with "me" ("hand me two bowls"), a fetch "for
        us" or a bare "bring the X" without a destination, or a verbless "two X, please": the
        person's hand-overs gain ``w_hand_me``."""
        w = self.options.weights.hand_me
        if not w or not (_HAND_ME.search(text) or (_FOR_ME.search(text) and not _DEST_SAID.search(text))
                         or _VERBLESS.match(text.replace("’", "'"))):
            return np.zeros(len(cands))
        return w * np.array([c.frame == "inhand/?/human" for c in cands], dtype=float)

    @staticmethod
    def _added(cl: str, chosen, cands, lex: Lexicon, s) -> Optional[int]:
        """Round 15 (``add_to``): "add the cereal", "stir in the sugar", "throw in the carrots": the
        thing a clause adds goes into the vessel the clause before filled or put something in."""
        if not _ADD.match(cl):
            return None
        prev = cands[chosen[-1]].atom
        if prev.predicate not in ("in", "liquid_in") or len(prev.args) != 2:
            return None
        things = {o for m in lex.mentions(cl) if not m.category for o in m.objects} - {prev.args[1]}
        into = [j for j, c in enumerate(cands) if c.atom.predicate in ("in", "liquid_in") and len(c.atom.args) == 2
                and c.atom.args[1] == prev.args[1] and c.atom.args[0] in things and not c.holds]
        return max(into, key=lambda j: s[j]) if into else None

    def _clause_refs(self, cl: str, chosen, cands, lex: Lexicon, *, person: bool = True) -> np.ndarray:
        """Who and which, within one clause: "... to me" hands to the person, not the robot's hand;
        "the cup" after "fill a plastic cup" is that cup; "out of the fridge" / "from the shelf"
        is where the thing is now (no destination; things there are meant)."""
        out = np.zeros(len(cands))
        w = self.options.weights.mention
        low = cl.lower()
        if person and to_person(cl, self.options.rule("cue_words")):
            for i, c in enumerate(cands):
                if c.frame.startswith("inhand/"):
                    out[i] += w if c.frame == "inhand/?/human" else -w
        before = {a for i in chosen for a in cands[i].atom.args}
        if person:  # the destination this clause names ("... in the bin"), not one another clause names
            here = {o for m in lex.mentions_simple(cl) if not m.descriptor and not (
                self.options.rule("plural_refs") and not _PREP_BEFORE.search(low[max(0, m.start - 25):m.start]))
                for o in m.objects}  # (round 6: a place named after a preposition, not a verb's object)
            for i, c in enumerate(cands):
                a = c.atom.args
                if c.atom.predicate in ("on", "in", "liquid_in") and len(a) == 2 and a[1] in here:
                    out[i] += w
        kind = next((k for k in _PRONOUN_DEST.finditer(low) if _PLACING_BEFORE.search(low[:k.start()])),
                    None) if self.options.rule("pronoun_preps") else None
        if kind:  # (round 12) "load the pot into it": in, not on ("everything in it" says no place)
            want = _PREP_KIND[re.sub(r"\s+", " ", kind.group(1))]
            for i, c in enumerate(cands):
                if c.atom.predicate in ("on", "in") and len(c.atom.args) == 2:
                    out[i] += w if c.atom.predicate == want else -w
        inside = {cands[i].atom.args[0] for i in chosen if cands[i].atom.predicate == "opened"}
        for m in lex.mentions(cl):
            if m.category or not m.objects:
                continue
            if len(m.objects) > 1 and before & m.objects:
                other = m.objects - before
                for i, c in enumerate(cands):
                    if c.focus in other:
                        out[i] -= 2 * w
            if len(m.objects) > 1 and inside and _INSIDE_AFTER.match(low[m.end:]):
                # "open the box and take out the bar inside": the one in the box
                for i, c in enumerate(cands):
                    if c.focus in m.objects and lex.view.place.get(c.focus) not in inside:
                        out[i] -= 2 * w
            if _DEST_BEFORE.search(low[max(0, m.start - 25):m.start]):
                for i, c in enumerate(cands):  # "put one of the vegetables onto the plate": not the plate
                    if c.focus in m.objects and c.atom.predicate in ("on", "in"):
                        out[i] -= w
            if _SOURCE_BEFORE.search(low[max(0, m.start - 25):m.start]):
                for i, c in enumerate(cands):
                    a = c.atom.args
                    if len(a) == 2 and a[1] in m.objects and c.atom.predicate in ("on", "in"):
                        out[i] -= 3 * w  # taken out of it: not put into it
                    elif lex.view.place.get(c.focus) in m.objects:
                        out[i] += w
                    elif self.options.rule("plural_refs") and c.focus in m.objects:
                        out[i] -= w  # (round 6) nor moved itself
        return out

    @staticmethod
    def _refill(text: str, an: Analysis, cands, view: SceneView, score: float) -> Optional[GoalCandidate]:
        """Round 8 (``fill_for_need``): a need statement that says a vessel it names is empty or
        dry ("the dog's water bowl is bone dry", "all the cups are empty"): the vessel filled, with
        the liquid its name says ("water bowl": water) or else water."""
        m = _EMPTY_SAID.search(text)
        if m is None:
            return None
        for mention in an.mentions:
            if mention.category or not mention.objects or wanted(text, mention.start):
                continue
            for vessel in sorted(mention.objects):
                fills = [c.atom for c in cands if c.atom.predicate == "liquid_in" and c.atom.args[1] == vessel
                         and not c.holds]
                if not fills:
                    continue
                words = set(view.cls(vessel).split("_"))
                best = next((a for a in fills if view.cls(a.args[0]) in words), None) or \
                    next((a for a in fills if view.cls(a.args[0]) == "water"), None)
                if best is not None:
                    return GoalCandidate((best,), score, "single")
        return None

    @staticmethod
    def _filled(top: GoalCandidate, cands, view: SceneView) -> Optional[GoalCandidate]:
        """Round 8 (``fill_for_need``): handing over vessel V for a need, where a phrase of V's
        class uses says water ("to water the plants", "to boil water", "pour myself some water")
        and (liquid_in water V) is a candidate: V filled with water. (Only water: "to make tea"
        names what a kettle makes, not what it holds.)"""
        atom = top.atoms[0]
        if atom.predicate != "inhand" or len(atom.args) != 2 or atom.args[1] not in view.humans:
            return None
        vessel = atom.args[0]
        mine = next((c for c in cands if c.atom == atom), None)
        if mine is None or not mine.n_uses:
            return None
        uses = " ".join(mine.phrases[-mine.n_uses:]).lower()
        for c in cands:
            a = c.atom
            if a.predicate == "liquid_in" and a.args[1] == vessel and not c.holds and \
                    view.cls(a.args[0]) == "water" and re.search(r"\bwater", uses):
                return GoalCandidate((a, atom), top.score, "single")
        return None

    @staticmethod
    def _loaded_set_down(goal: GoalCandidate, view: SceneView) -> GoalCandidate:
        """Round 22 (``loaded_set_down``): (inhand S person) beside (on X S) asks for what no plan
        does (nothing is picked up with a thing on it): S is set down where the person is, (on S L)
        for the support L the person is at; without one the goal is kept."""
        loaded = {a.args[1] for a in goal.atoms if not isinstance(a, Not) and a.predicate == "on" and len(a.args) == 2}
        if not loaded:
            return goal
        at = {a.args[0]: a.args[1] for a in view.init if a.predicate == "at" and len(a.args) == 2}
        atoms = []
        for a in goal.atoms:
            if not isinstance(a, Not) and a.predicate == "inhand" and len(a.args) == 2 and a.args[0] in loaded \
                    and a.args[1] in view.humans:
                place = at.get(a.args[1])
                if place is None or place in view.humans or place in view.robots:
                    return goal
                a = Atom("on", (a.args[0], place))
            atoms.append(a)
        return goal if tuple(atoms) == goal.atoms else replace(goal, atoms=tuple(atoms))

    @staticmethod
    def _served_warm(top: GoalCandidate, cands, view: SceneView, lex: Lexicon) -> Optional[GoalCandidate]:
        """Round 22 (``served_warm``): a need met by warming liquid L that stands in a vessel V
        people drink from (a mug of tea gone cold) is met with the warm drink handed over: (and
        (liquid_warm L) (liquid_in L V) (inhand V person)): warmed in its own cup, not poured
        into a pan and the empty cup handed over. A kettle's or a pot's water stays where it is."""
        if len(top.atoms) != 1 or top.atoms[0].predicate != "liquid_warm" or not view.humans:
            return None
        warm = top.atoms[0]
        cups = _drinking_vessels(lex)
        held = next((a for a in view.init if a.predicate == "liquid_in" and len(a.args) == 2
                     and a.args[0] == warm.args[0] and a.args[1] in cups), None)
        if held is None:
            return None
        hand = next((c for c in cands if c.atom.predicate == "inhand" and c.atom.args == (held.args[1], view.humans[0])),
                    None)
        if hand is None or hand.holds:
            return None
        return GoalCandidate((warm, held, hand.atom), top.score, top.source, top.lm_logprob)

    def _clause_focus(self, cl: str, cands, lex: Lexicon) -> np.ndarray:
        """Round 8 (``clause_objects``): a clause without a pronoun that names a thing as its
        verb's object is about that thing: atoms about other things, and about a thing it names
        only as a source ("out of the tin", "from the shelf"), lose ``w_clause_object``."""
        out = np.zeros(len(cands))
        if _PRONOUN.search(cl):
            return out  # the pronoun's own rules decide ("hand it to me")
        low = cl.lower()
        objs: set[str] = set()
        sources: set[str] = set()
        for m in lex.mentions_simple(cl):
            if m.descriptor or m.category or not m.objects:
                continue
            pre = low[max(0, m.start - 25):m.start]
            if _SOURCE_BEFORE.search(pre):
                sources |= set(m.objects)
            elif not (_PREP_BEFORE.search(pre) or _DEST_BEFORE.search(pre)):
                objs |= set(m.objects)
        if not objs:
            return out
        if self.options.rule("vessel_focus"):  # (round 15) "boil the kettle": the water in it is about the kettle
            objs |= {c.atom.args[0] for c in cands if c.holds and c.atom.predicate == "liquid_in"
                     and len(c.atom.args) == 2 and c.atom.args[1] in objs}
        for i, c in enumerate(cands):
            if c.focus not in objs:
                out[i] -= self.options.weights.clause_object
        return out

    def _dest_bonus(self, text: str, cands, lex: Lexicon) -> np.ndarray:
        """Places ``text`` names after a destination preposition: their placing atoms get
        ``w_dest`` ("into" / "inside" ask for ``in``, "onto" / "on top of" for ``on``; "in" and
        "on" for theirs when the place has both; "to", "over to", "next to" for either)."""
        out = np.zeros(len(cands))
        low = text.lower()
        placing = ("on", "in", "liquid_in")
        places = {c.atom.args[1] for c in cands if c.atom.predicate in placing and len(c.atom.args) == 2}
        dests: dict[str, str] = {}
        last: set[str] = set()  # the destination said last
        back: set[str] = set()  # (round 16) "put it back in the fridge"
        locators: set[str] = set()
        for m in lex.mentions(text):
            if m.category or m.descriptor:
                continue
            hit = m.objects & places
            pm = _DEST_PREP.search(low[max(0, m.start - 30):m.start]) if hit else None
            if pm is None or _NOT_DEST.search(low[max(0, m.start - 60):pm.start(1)]):
                continue
            if self.options.rule("dest_locators") and _WHERE_IT_IS.search(low[max(0, m.start - 60):max(0, m.start - 30) +
                                                                         pm.start(1)]):
                continue  # (round 16) "the screw that's sitting on the board": where it is, no destination
            if self.options.rule("nested_places") and pm.group(1) in ("on", "in", "inside") and \
                    (sc := _SOURCE_CHAIN.search(low[max(0, m.start - 60):max(0, m.start - 30) + pm.start(1)])) and \
                    any(c.holds and c.atom.predicate in ("on", "in") and c.atom.args[1] in m.objects
                        and c.atom.args[0] in src.objects for src in lex.mentions(sc.group(1)) for c in cands):
                continue  # (round 15) "from the box on the shelf": where the box is, no destination
            if self.options.rule("dest_locators") and (there := self._locates_dest(low, max(0, m.start - 30) + pm.start(1),
                                                                           m, cands, lex)):
                # (round 16) "into the box on the counter": where the box is, no destination; of
                # several boxes, the one there
                for o in last - there:
                    dests.pop(o, None)
                locators |= m.objects
                continue
            kind = _PREP_KIND.get(re.sub(r"\s+", " ", pm.group(1)).removeprefix("back "), "")
            for o in hit:
                dests[o] = kind
            if self.options.rule("put_back") and pm.group(1).startswith("back"):
                back |= hit
            last = set(hit)
        if self.options.rule("fill_from"):
            out += self._fill_from(low, cands, lex)
        if not dests:
            return out
        has = {(c.atom.args[0], c.atom.args[1], c.atom.predicate) for c in cands
               if c.atom.predicate in ("on", "in") and len(c.atom.args) == 2}
        # (round 20) how things are placed at each destination now: "on" the desk, "in" the fridge
        now = Counter((c.atom.args[1], c.atom.predicate) for c in cands
                      if c.holds and c.atom.predicate in ("on", "in") and len(c.atom.args) == 2)
        usual = {p: ("on" if now[(p, "on")] > now[(p, "in")] else "in") for p in dests
                 if now[(p, "on")] != now[(p, "in")]}
        for i, c in enumerate(cands):
            a = c.atom.args
            if c.atom.predicate not in placing or len(a) != 2 or a[1] not in dests or (c.holds and a[1] not in back):
                continue
            kind = dests[a[1]]
            pred = "in" if c.atom.predicate == "liquid_in" else c.atom.predicate  # (milk into the bowl)
            if not kind or kind == pred or (a[0], a[1], kind) not in has:
                out[i] += self.options.weights.dest
            if not kind and self.options.rule("usual_placing") and pred in ("in", "on") and \
                    (a[0], a[1], "on" if pred == "in" else "in") in has and usual.get(a[1]) == pred:
                out[i] += 0.5 * self.options.weights.dest  # (round 20) "over to my desk": on it, as things are now
        for i, c in enumerate(cands):  # (round 16) not onto the place that only says where
            if locators and c.atom.predicate in placing and len(c.atom.args) == 2 and c.atom.args[1] in locators \
                    and not c.holds:
                out[i] -= self.options.weights.dest
        return out

    def _which_one(self, text: str, cands, lex: Lexicon) -> np.ndarray:
        """Round 17 (``which_one``): a thing of several said with where it is ("the book that's on
        the counter", "the spoon from the counter", "the box beside it") is the one there: atoms
        about the others lose ``w_dest``; "on top of the other one" is the other one of them."""
        out = np.zeros(len(cands))
        low = text.lower().replace("’", "'")
        ms = [m for m in lex.mentions(text) if not m.category]
        where: dict[str, set[str]] = {}
        for c in cands:
            if c.holds and c.atom.predicate in ("on", "in") and len(c.atom.args) == 2:
                where.setdefault(c.atom.args[0], set()).add(c.atom.args[1])
        excluded: set[str] = set()
        targets: set[str] = set()  # "the other one"
        locators: set[str] = set()  # places that say which one, no destinations
        picked: dict[int, frozenset[str]] = {}
        for k, m in enumerate(ms):
            if len(m.objects) < 2:
                continue
            rest = low[m.end:]
            place: set[str] = set()
            lm = _LOCATED_AFTER.match(rest)
            am = _APPOSITIVE_PLACE.match(rest) if lm is None and self.options.rule("which_appositive") else None
            nxt = next((j for j in range(k + 1, len(ms)) if ms[j].start >= m.end + am.end() - 1), None) \
                if am is not None else None  # (past "the one", which may be a mention itself)
            if lm and k + 1 < len(ms) and ms[k + 1].start <= m.end + lm.end() + 1:
                place = set(ms[k + 1].objects)
                locators |= place
            elif nxt is not None and ms[nxt].start <= m.end + am.end() + 1:
                place = set(ms[nxt].objects)
                locators |= place
            elif _NEAR_IT.match(rest) and (things := [j for j in range(k) if any(o in where for o in ms[j].objects)]):
                # "it": the last thing said before that lies somewhere (not the place it lies on)
                place = {p for o in picked.get(things[-1], ms[things[-1]].objects) for p in where.get(o, ())}
            there = frozenset(o for o in m.objects if where.get(o, set()) & place)
            if there and there < m.objects:
                picked[k] = there
                excluded |= m.objects - there
        for om in _OTHER_ONE.finditer(low):
            before = [k for k, m in enumerate(ms) if m.end <= om.start() and len(m.objects) >= 2]
            if not before:
                continue
            k = before[-1]
            others = ms[k].objects - picked.get(k, frozenset())
            if not others or others == ms[k].objects:
                continue
            kind = _PREP_KIND.get(re.sub(r"\s+", " ", om.group(1)), "")
            for i, c in enumerate(cands):
                a = c.atom.args
                if c.atom.predicate in ("on", "in") and len(a) == 2 and a[1] in others and a[0] in picked[k] \
                        and (not kind or kind == c.atom.predicate):
                    out[i] += self.options.weights.dest
            targets |= others
        if excluded:
            for i, c in enumerate(cands):
                if c.focus in excluded or (c.atom.predicate in ("on", "in") and len(c.atom.args) == 2
                                           and c.atom.args[1] in excluded - targets):
                    out[i] -= self.options.weights.dest
                elif c.atom.predicate in ("on", "in") and len(c.atom.args) == 2 and c.atom.args[1] in locators \
                        and not c.holds:
                    out[i] -= self.options.weights.dest  # "the box that's on the table": not onto the table
        return out

    def _fill_from(self, low: str, cands, lex: Lexicon) -> np.ndarray:
        """Round 16 (``fill_from``): "fill the teapot from the kettle", "top up the jug with water
        from the tap": pouring into the vessel filled gets ``w_dest`` (of what the source holds, if
        a source is said), pouring into the source loses it."""
        out = np.zeros(len(cands))
        fills = list(_FILL_FROM.finditer(low))
        ms = [m for m in lex.mentions(low) if not m.category] if fills else []
        for fm in fills:
            vessel = {o for m in ms if fm.start("x") <= m.start < fm.end("x") for o in m.objects}
            source = {o for m in ms if fm.start("y") <= m.start < fm.end("y") for o in m.objects}
            if not vessel:
                continue
            held = {c.atom.args[0] for c in cands if c.holds and c.atom.predicate == "liquid_in"
                    and len(c.atom.args) == 2 and c.atom.args[1] in source}
            for i, c in enumerate(cands):
                a = c.atom.args
                if c.atom.predicate != "liquid_in" or len(a) != 2 or c.holds:
                    continue
                if a[1] in vessel and (not source or a[0] in held or a[0] in source):
                    out[i] += self.options.weights.dest
                elif a[1] in source - vessel:
                    out[i] -= self.options.weights.dest
        return out

    def _dest_locators(self, text: str, cands, lex: Lexicon) -> set[str]:
        """The places ``text`` names only to say where a destination is ("in the basket on the
        worktop": the worktop), by ``_locates_dest`` (round 16, ``dest_locators``)."""
        if not self.options.rule("dest_locators"):
            return set()
        low = text.lower()
        out: set[str] = set()
        for m in lex.mentions(text):
            pm = None if m.category else _DEST_PREP.search(low[max(0, m.start - 30):m.start])
            if pm is not None and self._locates_dest(low, max(0, m.start - 30) + pm.start(1), m, cands, lex):
                out |= set(m.objects)
        return out

    @staticmethod
    def _locates_dest(low: str, at: int, m, cands, lex: Lexicon) -> frozenset[str]:
        """What is on / in the place ``m`` now, if ``m`` (its preposition at ``at``) only says
        where a destination said right before it is ("in the box (over) on the counter", with the
        box on the counter now); else nothing."""
        chain = _DEST_CHAIN.search(low[max(0, at - 60):at])
        if chain is None:
            return frozenset()
        held = frozenset(c.atom.args[0] for c in cands if c.holds and c.atom.predicate in ("on", "in")
                         and len(c.atom.args) == 2 and c.atom.args[1] in m.objects)
        return held if any(not d.category and d.objects & held for d in lex.mentions(chain.group(1))) else frozenset()

    def _empty_ones(self, instruction: str, an: Analysis, cands, view: SceneView) -> np.ndarray:
        """"the spare bowl", "an empty glass": of several, the ones holding nothing."""
        out = np.zeros(len(cands))
        low = instruction.lower()
        full = {a.args[1] for a in view.init if a.predicate in ("in", "on", "liquid_in") and len(a.args) == 2}
        for m in an.mentions:
            if m.category or len(m.objects) < 2 or not _EMPTY_ONE.search(low[max(0, m.start - 20):m.start]):
                continue
            taken = m.objects & full
            if taken == m.objects:
                continue
            for i, c in enumerate(cands):
                if any(a in taken for a in c.atom.args):
                    out[i] -= 2 * self.options.weights.mention
        return out

    def _lid(self, cl: str, chosen, cands, lex: Lexicon) -> Optional[int]:
        """"... and close the lid (again)", "shut it behind you": a clause that closes and names
        nothing that opens closes the last thing an earlier clause opened or put something in."""
        if not chosen or not _CLOSE.search(cl):
            return None
        shut = {c.atom.args[0] for c in cands if c.atom.predicate == "closed"}
        if any(o in shut for m in lex.mentions(cl) if not m.category for o in m.objects):
            return None  # the clause names what it closes
        for i in reversed(chosen):
            a = cands[i].atom
            target = a.args[0] if a.predicate == "opened" else a.args[1] if a.predicate in ("in", "on") and \
                len(a.args) == 2 else None
            if target in shut:
                return next((j for j, c in enumerate(cands) if c.atom.predicate == "closed" and c.atom.args[0] == target),
                            None)
        return None

    @staticmethod
    def _taken(earlier: Sequence[str], chosen, cands, lex: Lexicon, agents) -> set[str]:
        """What a plural pronoun refers to (round 6): the things the earlier clauses name (not
        the places they are taken from): a plural noun's members (there), one of a singular's
        (the one an earlier atom is about). When that makes more than two, places (things that
        hold other things now) are left out: with several things named, a place is where they go
        or come from. (A heuristic, kept as measured on held-out f and g; a destination
        preposition before the mention would be the better test.)"""
        about = {cands[i].focus for i in chosen}
        out: set[str] = set()
        for cl in earlier:
            low = cl.lower()
            ms = [m for m in lex.mentions(cl) if not m.category and not m.descriptor and m.objects]
            src = {o for m in ms if _SOURCE_BEFORE.search(low[max(0, m.start - 25):m.start]) for o in m.objects}
            for m in ms:
                objs = set(m.objects) - src
                if not objs:
                    continue
                if m.plural:
                    out |= {o for o in objs if lex.view.place.get(o) in src} or objs if src else objs
                else:
                    out.add(next(iter(sorted(objs & about)), None) or sorted(objs)[0])
        return out - agents - set(lex.view.place.values()) if len(out) > 2 else out - agents

    @staticmethod
    def _refs(chosen, cands, cl: str, agents, heat: bool = False) -> set[str]:
        """What a pronoun of the clause refers to: the previous clause's object."""
        if not chosen or not _PRONOUN.search(cl):
            return set()
        prev = cands[chosen[-1]].atom
        refs = {prev.args[0] if prev.predicate != "at" else prev.args[-1]} - agents
        if heat and _HEAT.search(cl):  # (round 17, ``heat_contents``) heating a vessel heats its liquid
            refs |= GoalSearcher._poured_into(refs, chosen, cands)
        return refs

    @staticmethod
    def _poured_into(vessels, chosen, cands) -> set[str]:
        """The liquids the chosen atoms pour into ``vessels``."""
        return {cands[j].atom.args[0] for j in chosen if cands[j].atom.predicate == "liquid_in"
                and cands[j].atom.args[1] in vessels}

    def _state_bonus(self, text: str, cands, lex: Lexicon, pronoun_refs: frozenset[str] | set[str] = frozenset(),
                     person_does: bool = False) -> np.ndarray:
        """Atoms of the predicate a state verb of ``text`` names, about an object ``text`` names
        (or a pronoun refers to), get ``w_state``. ``person_does``: a need statement, where a
        verb after "to" is what the person will do ("I want to slice the bread")."""
        out = np.zeros(len(cands))
        said = text.lower()
        if self.options.rule("state_descriptors"):  # "put the clean mugs away": an adjective, no state asked
            said = STATE_ADJ.sub(lambda m: m.group(1) + " " * (len(m.group(0)) - len(m.group(1))), said)
        if self.options.rule("instruments"):  # round 6: a verb in a class name is no verb ("the rinse jar")
            for m in reversed(lex.mentions_simple(text)):
                said = said[:m.start] + " " * (m.end - m.start) + said[m.end:]
        low = " " + " ".join(_WORD.findall(said)) + " "
        preds = {p for p, verbs in _state_verbs().items() if any(f" {v} " in low for v in verbs)}
        if person_does:
            preds = {p for p in preds if not any(re.search(INFINITIVE + re.escape(v) + r"\b", low)
                                                 for v in _state_verbs()[p])}
        if not preds:
            return out
        named = {o for m in lex.mentions(text) if not m.descriptor and not m.category for o in m.objects} | \
            set(pronoun_refs)
        if not named:
            return out
        if self.options.rule("vessel_contents") and "liquid_in/focus" in preds:
            # "put the milk in the fridge": a named place no liquid is poured into takes the vessel
            pourable = {c.atom.args[1] for c in cands if c.atom.predicate == "liquid_in" and len(c.atom.args) == 2}
            poured = {c.atom.args[0] for c in cands if c.atom.predicate == "liquid_in" and c.atom.args}
            places = self._places_of(cands)
            if any(o in places and o not in pourable and o not in poured for o in named):
                preds = preds - {"liquid_in/focus"}
                if not preds:
                    return out
        liquids: set[str] = set()
        if self.options.rule("vessel_contents") and preds & _LIQUID_STATES:  # "boil the kettle": the water in it
            liquids = {c.atom.args[0] for c in cands if c.holds and c.atom.predicate == "liquid_in"
                       and len(c.atom.args) == 2 and c.atom.args[1] in named}
        if self.options.rule("instruments") and preds & {"wet", "clean"} and not _PUT.search(said):
            # "dip the cloth in the jar", "wash the apple in the sink": not a placement of it
            for i, c in enumerate(cands):
                if c.atom.predicate in ("in", "on") and c.focus in named:
                    out[i] -= 0.5 * self.options.weights.state
        for i, c in enumerate(cands):
            if c.holds and not (self.options.rule("multistep_refs") and c.atom.predicate in ("opened", "closed")):
                continue  # a door or lid a clause closes may be opened on the way ("... and close the fridge")
            if (c.atom.predicate in preds and any(a in named for a in c.atom.args)) or \
                    (c.atom.predicate + "/focus" in preds and c.focus in named) or \
                    (c.atom.predicate in preds & _LIQUID_STATES and c.focus in liquids):
                out[i] = self.options.weights.state
        return out

    def _need_mode(self, text: str, an: Optional[Analysis], cands, view: SceneView,
                   lex: Optional[Lexicon] = None) -> np.ndarray:
        """A need statement: handing over, or a state change written for a need; an object the
        statement names is what it asks for only after "I'd like", "could use", ... ."""
        out = np.zeros(len(cands))
        lacked = {o for m in an.mentions if not m.category and missing(text, m.start, m.end) for o in m.objects} \
            if an is not None and self.options.rule("missing_asked") else set()
        context = {o for m in an.mentions if not m.category and not wanted(text, m.start, self.options.rule("have_any"), self.options.rule("want_modifiers"))
                   for o in m.objects} - lacked \
            if an is not None else set()
        if an is not None and self.options.rule("cause_context"):  # (round 14) "sticky after that fruit": the cause
            context |= _caused(text, an)
        # (round 8) what a verbless request opens with is what it asks for ("a couple of energy
        # bars for the kids", "one cup in the fridge please"), unlike a subject ("the trowel left
        # my hands muddy"): no context
        asked = {o for m in an.mentions[:1] if not m.category and all(  # (a modifier may come last)
            w in _REQUEST_LEAD for w in _WORD.findall(text[:m.start].lower())[:-1])
            and _REQUEST_NEXT.match(text[m.end:]) for o in m.objects} if an is not None else set()
        if an is not None and _INTENT.search(text):  # "I want to watch a film on my laptop": the means
            asked |= {o for m in an.mentions if not m.category
                      and _MEANS_BEFORE.search(text[max(0, m.start - 12):m.start]) for o in m.objects}
        if an is not None and self.options.rule("hungry_named") and lex is not None and lex.is_a is not None:
            # (round 23) "I'm starving and my salad's still in the fridge": the salad is asked for
            low = text.lower().replace("’", "'")  # (in the sentence that says the hunger)
            said = [sent.span() for sent in _SENTENCE.finditer(low) if _HUNGRY.search(sent.group(0))]
            hungry = {o for m in an.mentions if not m.category and any(a <= m.start < b for a, b in said)
                      and not _REFUSED.search(low[max(0, m.start - 40):m.start])  # ("can't face the sandwich")
                      for o in m.objects if lex.is_a(o, "consumable")}
            asked |= hungry
        else:
            hungry = set()
        if an is not None and self.options.rule("counted_asked"):  # (round 9) "only one knife please", "one rod'll do"
            asked |= {o for m in an.mentions if not m.category
                      and _COUNTED_BEFORE.search(text[max(0, m.start - 30):m.start].lower()) for o in m.objects}
        w_context = self.options.weights.context
        smelled = {o for m in an.mentions if _SMELL_OF.search(text[max(0, m.start - 30):m.start].lower())
                   for o in m.objects} if an is not None and self.options.rule("smell_cause") else set()
        if smelled and self.options.rule("smell_kin"):  # (round 20) "the fumes off the wax": the wax blocks too
            words = {w for o in smelled for w in view.cls(o).split("_")}
            smelled |= {o for o, cls in view.objects.items() if cls.split("_")[0] in words}
        smelt = with_vessels(smelled, view) - asked
        for i, c in enumerate(cands):
            if c.focus in smelt:  # (round 18) "it reeks of varnish": the varnish is the cause, nothing asked of it
                out[i] -= 2 * self.options.weights.mention + w_context
                continue
            if c.focus in (lacked | hungry) and c.frame == "inhand/?/human":  # (round 20) what the person lacks
                out[i] += self.options.weights.need_mode + w_context
                continue
            strong = w_context if c.focus not in asked else 0.0
            if strong and c.focus in context and c.frame == "inhand/?/robot":
                out[i] -= self.options.weights.need_mode + strong  # (round 8) nor the robot's hand
            elif c.frame == "inhand/?/human":
                if c.focus in context:
                    # cancels the bonus for a named object; round 8: and the words' closeness to it
                    # ("hands caked in clay", "nothing to eat this salad with": not the clay, the salad)
                    out[i] -= 2 * self.options.weights.mention + strong
            elif not c.meets_need or c.holds:
                out[i] -= self.options.weights.need_mode  # (a need asks for a change: not what holds now)
        return out

    def _negated_kinds(self, instruction: str, an: Analysis, cands, view: SceneView) -> np.ndarray:
        """Round 23 (``negated_kinds``): an attribute word in a negated span ("anything except the
        fizzy one", "nothing with sugar in it", "that isn't alcoholic") rules out the things whose
        class name is nearest it (within 0.1 of the nearest, and at least 0.5 alike: fizzy -> soda,
        coke, cola), as a thing named there is ruled out: they are not handed over."""
        out = np.zeros(len(cands))
        words = {w for sp in an.negated_spans for w in _WORD.findall(sp.lower()) if _NEG_ATTRIBUTE.fullmatch(w)}
        words = sorted(words | {m.group(1) for m in _NOTHING_ATTRIBUTE.finditer(instruction.lower().replace("’", "'"))})
        if not words or self.encoder is None:
            return out
        things = sorted({c.focus for c in cands if c.frame == "inhand/?/human"})
        if not things:
            return out
        sims = self.encoder.encode(words) @ self.encoder.encode([view.cls(o).replace("_", " ") for o in things]).T
        ruled = {o for row in sims for o, v in zip(things, row) if v >= 0.5 and v >= row.max() - 0.1}
        for i, c in enumerate(cands):
            if c.frame == "inhand/?/human" and c.focus in ruled:
                out[i] -= 2 * self.options.weights.mention + self.options.weights.context
        return out

    @staticmethod
    def _wet_wipe(top: GoalCandidate, cands, view: SceneView) -> Optional[GoalCandidate]:
        """Round 23 (``wet_wipe``): a need met by handing over a thing that can be wetted (a cloth,
        a sponge; not a towel) for sticky or dirty hands: (and (wet S) (inhand S person))."""
        if len(top.atoms) != 1 or top.atoms[0].predicate != "inhand" or top.atoms[0].args[1] not in view.humans:
            return None
        thing = top.atoms[0].args[0]
        if "towel" in view.cls(thing) and "paper" not in view.cls(thing):
            return None
        wet = next((c for c in cands if c.atom.predicate == "wet" and c.atom.args == (thing,) and not c.holds), None)
        if wet is None:
            return None
        return GoalCandidate((wet.atom, top.atoms[0]), top.score, top.source, top.lm_logprob)

    @staticmethod
    def _still_whole(an: Analysis, cands, scores) -> Optional[GoalCandidate]:
        """Round 23 (``still_whole``): things named before "... (are) still whole / in one piece /
        not cut yet / too big to eat in one go", in their sentence, asked for chopped: (and (chopped
        X) ...) for each that can be; None when none can."""
        text = an.text.lower().replace("’", "'")
        whole: list[str] = []
        for sent in _SENTENCE.finditer(text):
            cue = _STILL_WHOLE.search(sent.group(0))
            if cue is None:
                continue
            whole += [o for m in an.mentions if not m.category and sent.start() <= m.start < sent.start() + cue.start()
                      for o in sorted(m.objects)]
        by_atom = {c.atom: i for i, c in enumerate(cands) if c.atom.predicate == "chopped" and not c.holds}
        atoms = tuple(dict.fromkeys(Atom("chopped", (o,)) for o in whole if Atom("chopped", (o,)) in by_atom))
        if not atoms:
            return None
        return GoalCandidate(atoms, max(float(scores[by_atom[a]]) for a in atoms), "single" if len(atoms) == 1 else "all")

    def _dirty_named(self, an: Analysis, cands) -> np.ndarray:
        """Round 17 (``dirty_named``): a sentence whose subject (its first named thing) is said to
        be dirty after it ("this bowl is dusty", "the cups ... and they're dusty", "the case of
        this watch is covered in greasy fingerprints") asks for that thing clean."""
        out = np.zeros(len(cands))
        text = an.text
        dirty: set[str] = set()
        for sent in _SENTENCE.finditer(text):
            ms = [m for m in an.mentions if sent.start() <= m.start < sent.end() and not m.category]
            if not ms:
                continue
            if _DIRTY.search(text[ms[0].end:sent.end()].lower().replace("’", "'")):
                dirty |= ms[0].objects
            elif self.options.rule("dirt_there"):  # (round 23) "there's a sticky ring in my glass"
                said = _DIRT_THERE.search(text[sent.start():sent.end()].lower().replace("’", "'"))
                after = [m for m in ms if said is not None and m.start >= sent.start() + said.end()]
                if after:
                    dirty |= after[0].objects
        for i, c in enumerate(cands):
            if c.atom.predicate == "clean" and c.focus in dirty and not c.holds:
                out[i] += self.options.weights.need_mode + self.options.weights.mention
        return out

    def _milk_added(self, instruction: str, an: Optional[Analysis], cands, view: SceneView, lex: Lexicon) -> np.ndarray:
        """Round 22 (``milk_added``): a drink said too strong or bitter (need_paraphrases_more.yaml),
        or milk asked for by the splash ("a splash of milk in my cup", "I take it white"): pouring
        the scene's milk into the cup that holds tea or coffee, else into a cup the words name, else
        into a coffee cup, gains twice ``w_need_mode`` and ``w_mention``."""
        out = np.zeros(len(cands))
        cups = _drinking_vessels(lex)
        liquids = {a.args[0]: a.args[1] for a in view.init if a.predicate == "liquid_in" and len(a.args) == 2}
        milks = {liq for liq in liquids if _class_words(view, liq) & {"milk", "cream"}}
        hot = {v for liq, v in liquids.items() if v in cups and _class_words(view, liq) & _HOT_KINDS}
        named = {o for m in an.mentions if not m.category for o in m.objects} & cups if an is not None else set()
        targets = (hot & named) or hot or named or {v for v in cups if _class_words(view, v) & _HOT_KINDS}
        if not milks or not targets:
            return out
        for i, c in enumerate(cands):
            a = c.atom.args
            if c.atom.predicate == "liquid_in" and len(a) == 2 and a[0] in milks and a[1] in targets and not c.holds:
                out[i] += 2 * self.options.weights.need_mode + self.options.weights.mention
        return out

    def _floor_tools(self, instruction: str, cands, view: SceneView) -> np.ndarray:
        """Round 22 (``floor_tools``): a need statement with a sentence about a mess on the floor
        ("glitter all over the floor", "the floor by the sink is soaking wet"): handing over a floor
        tool of the kind the mess needs (what is wet: a mop; else a broom, a vacuum, a dustpan) gains
        ``w_need_mode``."""
        out = np.zeros(len(cands))
        low = instruction.lower().replace("’", "'")
        messy = [m for m in _SENTENCE.finditer(low) if _FLOOR.search(m.group(0)) and _FLOOR_MESS.search(m.group(0))]
        if not messy:
            return out
        wet = any(_WET_MESS.search(m.group(0)) for m in messy)
        for i, c in enumerate(cands):
            if c.frame != "inhand/?/human":
                continue
            words = _class_words(view, c.focus)
            if words & (_MOPS if wet else _SWEEPERS):  # (a broom is no help with juice on the rug)
                out[i] += self.options.weights.need_mode
        return out

    def _foul_liquid(self, an: Analysis, cands, view: SceneView) -> np.ndarray:
        """Round 22 (``foul_liquid``): a sentence whose first named thing is a liquid, or a vessel
        holding one, said to be dirty or foul after it ("the water in that bucket has gone grey",
        "that bucket of old tank water is starting to pong") asks for the liquid poured away: into
        a sink or drain of the scene."""
        out = np.zeros(len(cands))
        drains = {o for o in view.objects if _class_words(view, o) & _DRAIN_WORDS}
        if not drains:
            return out
        holds = {}
        for a in view.init:
            if a.predicate == "liquid_in" and len(a.args) == 2:
                holds.setdefault(a.args[1], set()).add(a.args[0])
        liquids = {liq for ls in holds.values() for liq in ls}
        text = an.text
        foul: set[str] = set()
        for sent in _SENTENCE.finditer(text):
            ms = [m for m in an.mentions if sent.start() <= m.start < sent.end() and not m.category and not m.descriptor]
            if not ms or not _FOUL.search(text[ms[0].start:sent.end()].lower().replace("’", "'")):
                continue
            for m in ms[:2]:  # "the water in that bucket", "that bucket of old tank water"
                foul |= {o for o in m.objects if o in liquids} | {liq for o in m.objects for liq in holds.get(o, ())}
        for i, c in enumerate(cands):
            a = c.atom.args
            if c.atom.predicate == "liquid_in" and len(a) == 2 and a[0] in foul and a[1] in drains and not c.holds:
                out[i] += self.options.weights.need_mode + self.options.weights.mention
            elif c.atom.predicate == "liquid_warm" and a and a[0] in foul:  # (not a drink gone cold)
                out[i] -= self.options.weights.need_mode
        return out

    def _watered(self, text: str, cands, view: SceneView, lex: Lexicon) -> np.ndarray:
        """Round 20 (``water_plant``): a plant the text names, said to need water ("wilting", "give
        it a water", "hasn't had a drink"), standing in a vessel that can hold water: water in
        that vessel."""
        out = np.zeros(len(cands))
        low = text.lower().replace("’", "'")
        if not _WATERING.search(low):
            return out
        plants = {o for m in lex.mentions(text) if not m.category for o in m.objects
                  if set(view.cls(o).split("_")) & _PLANT_WORDS}
        vessels = plants | {a.args[1] for a in view.init if a.predicate in ("in", "on") and len(a.args) == 2
                            and a.args[0] in plants}
        for i, c in enumerate(cands):
            a = c.atom.args
            if c.atom.predicate == "liquid_in" and len(a) == 2 and a[1] in vessels and view.cls(a[0]) == "water" \
                    and not c.holds:  # (a need statement's handing over of the watering can is outweighed)
                out[i] += 2 * self.options.weights.need_mode + self.options.weights.mention
        return out

    def _cold_named(self, instruction: str, an: Analysis, cands, view: SceneView) -> np.ndarray:
        """Round 20 (``cold_named``): a thing said to be cold right after it is named ("the water
        in the kettle's stone cold", "my soup has gone cold"; a vessel: the liquid in it) asks
        for it warm, not for a thing to hand over."""
        out = np.zeros(len(cands))
        text = instruction.lower().replace("’", "'")  # (the mentions' offsets are the instruction's)
        cold = {o for m in an.mentions if not m.category and _COLD_AFTER.match(text[m.end:m.end + 40])
                for o in m.objects}
        cold |= {a.args[0] for a in view.init if a.predicate == "liquid_in" and len(a.args) == 2 and a.args[1] in cold}
        for i, c in enumerate(cands):
            if c.atom.predicate in ("liquid_warm", "warm") and c.atom.args and c.atom.args[0] in cold and not c.holds:
                out[i] += self.options.weights.need_mode + self.options.weights.mention
        return out

    def _disposal(self, instruction: str, an: Optional[Analysis], cands, view: SceneView) -> np.ndarray:
        """Placements into a disposal container lose ``w_disposal`` unless throwing away is asked
        for (round 12): a robot does not bin a helmet it was asked to put on the bench."""
        out = np.zeros(len(cands))
        bins = {o for o, cls in view.objects.items() if is_disposal_class(cls)}
        if not bins:
            return out
        if disposal_said(instruction):
            if self.options.rule("disposal_asked") and _THROW_AWAY.search(instruction.lower().replace("’", "'")):
                for i, c in enumerate(cands):  # (round 24) asked for in words, not by the bin's name
                    if c.atom.predicate == "in" and len(c.atom.args) == 2 and c.atom.args[1] in bins:
                        out[i] += self.options.weights.disposal
            return out
        # (named by its own name or a synonym: "the cans" is no trash can)
        if an is not None:
            bins -= {o for m in an.mentions if not m.cls.startswith("@") for o in m.objects}
        for i, c in enumerate(cands):
            a = c.atom.args
            if c.atom.predicate == "in" and len(a) == 2 and a[1] in bins:
                out[i] -= self.options.weights.disposal
        return out

    def _spill(self, an: Analysis, cands, view: SceneView, lex: Lexicon) -> np.ndarray:
        """A spill (round 12): the spilled things and their vessels are context, something to
        wipe with is what the need asks for."""
        out = np.zeros(len(cands))
        spilled = with_vessels({o for m in an.mentions if not m.category for o in m.objects}, view)
        wipers = lex.function_words.get("clean", (None, frozenset()))[1]
        for i, c in enumerate(cands):
            if c.focus in spilled and c.focus not in wipers:
                out[i] -= self.options.weights.spill
            elif c.frame == "inhand/?/human" and c.focus in wipers:
                out[i] += self.options.weights.spill
        return out

    @staticmethod
    def _places_of(cands) -> set[str]:
        """Objects things can be put in or on (the second argument of an in / on candidate)."""
        return {c.atom.args[1] for c in cands if c.atom.predicate in ("in", "on") and len(c.atom.args) == 2}

    def _need_states(self, plain: Sequence[str], cands, view: SceneView) -> np.ndarray:
        """A colloquial need met by a state (round 13, need_paraphrases.yaml ``states``: a stuffy
        room by an opened window): that state of an object of that class gains ``w_need_state``."""
        out = np.zeros(len(cands))
        states = need_states(plain)
        if not states:
            return out
        for i, c in enumerate(cands):
            if c.holds or not c.atom.args:
                continue
            cls = view.cls(c.atom.args[0])
            if any(c.atom.predicate == p and (cls == k or cls.endswith("_" + k)) for p, k in states):
                out[i] += self.options.weights.need_state
        return out

    def _left_out(self, an: Analysis, cands, view: SceneView) -> np.ndarray:
        """Food or drink left standing out (round 13): what the statement names (a liquid: its
        vessel) goes into a cold place (functions.yaml ``cold``), by ``w_left_out``."""
        out = np.zeros(len(cands))
        cold = _cold_places(view)
        named = with_vessels({o for m in an.mentions if not m.category for o in m.objects} - cold, view)
        if not cold or not named:
            return out
        for i, c in enumerate(cands):
            a = c.atom.args
            if c.atom.predicate == "in" and len(a) == 2 and a[0] in named and a[1] in cold and not c.holds:
                out[i] += self.options.weights.left_out
        return out

    @staticmethod
    def _served_drink(plain: Sequence[str], top: GoalCandidate, cands, view: SceneView,
                      lex: Lexicon) -> list[GoalCandidate]:
        """Round 22 (``served_drink``): a need for a drink ("I am thirsty ...", "I want a hot drink
        ...", need_paraphrases.yaml) whose best goal hands over something that is no drink ready to
        drink (an empty cup, a kettle, a cold cup of tea for a hot drink) is met by a drink served:
        a drinkable liquid L in vessel V handed over, (and (liquid_in L V) (inhand V person)), and
        (liquid_warm L) for a hot drink. L: for a hot drink tea, coffee or cocoa, else milk, else
        water; for thirst water, else juice or a soft drink, else milk. V: the cup L is in, else a
        bottle or carton holding it (thirst), else an empty cup it can be poured into; with no cup, a
        hot drink is the liquid warmed where it can be. One goal per liquid, best first (the next is
        planned when one cannot be: milk that cannot be warmed in its cup)."""
        hot = any(_HOT_DRINK_NEED.search(n) for n in plain)
        if not (hot or any(_THIRST_NEED.search(n) for n in plain)) or not view.humans or lex.is_a is None:
            return []
        person = view.humans[0]
        by_atom = {c.atom: c for c in cands}
        held: dict[str, list[str]] = {}
        for a in view.init:
            if a.predicate == "liquid_in" and len(a.args) == 2:
                held.setdefault(a.args[1], []).append(a.args[0])
        warm_now = {a.args[0] for a in view.init if a.predicate == "liquid_warm" and a.args}
        warm_now |= {a.args[0] for a in top.atoms if a.predicate == "liquid_warm" and a.args}

        def drinkable(o: str) -> bool:
            return bool(lex.is_a(o, "drinkable"))

        cups = _drinking_vessels(lex)
        hands = [a for a in top.atoms if a.predicate == "inhand" and a.args[1:] == (person,)]
        if not hands:
            return []  # (a state change, a placement, the water in the kettle warmed: no drink handed over)
        given = hands[0].args[0]
        poured = [a.args[0] for a in top.atoms if a.predicate == "liquid_in" and a.args[1:] == (given,)]
        ready = [liq for liq in [*held.get(given, ()), *poured] if drinkable(liq) and (not hot or liq in warm_now)]
        if (poured and given in cups) or ready or (drinkable(given) and not hot):
            return []  # already a drink ready to drink (a cup filled with water too)
        if not (drinkable(given) or lex.is_a(given, "liquid-contain")):
            return []  # (not a vessel: what the words say besides the drink, "chapped lips": a balm)
        liquids = [o for o in view.objects if any(o in ls for ls in held.values()) and drinkable(o)]
        if hot:
            liquids = [liq for liq in liquids if Atom("liquid_warm", (liq,)) in by_atom or liq in warm_now]
        if not liquids:
            return []

        def rank(liq: str) -> tuple:
            words = _class_words(view, liq)
            order = (_HOT_KINDS, {"milk"}, {"water"}) if hot else ({"water"}, _COLD_KINDS, {"milk"})
            return (next((k for k, kinds in enumerate(order) if words & kinds), len(order)), liq)

        out: list[GoalCandidate] = []
        for liq in sorted(liquids, key=rank):
            vessel = next((v for v, ls in held.items() if liq in ls), None)
            warm = () if not hot or liq in warm_now else (Atom("liquid_warm", (liq,)),)
            options = []
            if vessel in cups or (not hot and vessel is not None and
                                  _class_words(view, vessel) & _DRINK_PACKS):
                options.append((vessel, ()))  # (the cup it is in; for thirst, its bottle or carton too)
            options += [(v, (Atom("liquid_in", (liq, v)),)) for v in sorted(cups, key=lambda v: (_cup_rank(view, v, hot), v))
                        if not held.get(v) and Atom("liquid_in", (liq, v)) in by_atom]
            for v, pour in options:
                hand = Atom("inhand", (v, person))
                if hand in by_atom and not by_atom[hand].holds:
                    stay = pour or (Atom("liquid_in", (liq, v)),)
                    out.append(GoalCandidate(warm + stay + (hand,), top.score, "single", top.lm_logprob))
                    break
        if hot:  # (no cup to serve it in, or none that plans) the liquid warmed where it can be
            out += [GoalCandidate((Atom("liquid_warm", (liq,)),), top.score, "single", top.lm_logprob)
                    for liq in sorted(liquids, key=rank) if liq not in warm_now]
        return out[:4]

    @staticmethod
    def _chilled_group(an: Analysis, cands, view: SceneView, scores) -> Optional[GoalCandidate]:
        """Round 22 (``spoiling``): several things said to be left out or about to spoil ("those
        bananas", "this fruit": a plural or a kind, each of its things; a liquid: its vessel) all go
        into one cold place (the best scored one), when two or more of them can."""
        cold = _cold_places(view)
        things = with_vessels({o for m in an.mentions if not m.descriptor and (m.plural or m.category)
                               for o in m.objects} - cold - an.excluded, view)
        if not cold or len(things) < 2:
            return None
        best: dict[str, list[int]] = {}
        for i, c in enumerate(cands):
            a = c.atom.args
            if c.atom.predicate == "in" and len(a) == 2 and a[0] in things and a[1] in cold:
                best.setdefault(a[1], []).append(i)
        if not best:
            return None
        place, picked = max(best.items(), key=lambda kv: (len(kv[1]), max(scores[i] for i in kv[1])))
        if len(picked) < 2 or all(cands[i].holds for i in picked):
            return None
        return GoalCandidate(tuple(cands[i].atom for i in picked), float(np.mean([scores[i] for i in picked])), "all")

    def _need_bonus(self, text: str, cands, lex: Lexicon) -> np.ndarray:
        """Handing over what serves a function the text names ("needs snipping": things that cut)."""
        out = np.zeros(len(cands))
        low = text.lower()
        hits = [(m.start(), m.end(), objs) for pat, objs in lex.function_words.values() for m in pat.finditer(low)]
        members: set[str] = set()
        for a, b, objs in hits:  # "drink out of" over "drink": the longest word says the function
            if not any(a2 <= a and b <= b2 and (b2 - a2) > (b - a) for a2, b2, _ in hits):
                members |= objs
        if not members:
            return out
        for i, c in enumerate(cands):
            if c.frame == "inhand/?/human" and c.focus in members:
                out[i] = self.options.weights.need
        return out

    @staticmethod
    def _companion(cl: str, state: CandidateAtom, cands, lex: Lexicon) -> Optional[int]:
        """"slice the tomato on the cutting board": the place a state clause names after on / in
        is where its object goes, unless the object is there already."""
        low = cl.lower()
        obj = state.atom.args[0]
        for m in lex.mentions(cl):
            if m.descriptor or m.category or obj in m.objects or not re.search(r"\b(?:on|onto|in|into)\s+(?:the\s+|a\s+|my\s+)?(?:\w+\s+)?$",
                                                 low[max(0, m.start - 25):m.start]):
                continue
            hits = [j for j, c in enumerate(cands) if c.atom.predicate in ("on", "in") and c.atom.args[0] == obj
                    and c.atom.args[1] in m.objects]
            if len(hits) == 1 or (hits and len(m.objects) == 1):
                j = hits[0]
                return None if cands[j].holds else j
        return None

    def _keep_atoms(self, instruction: str, an: Analysis, view: SceneView, cands,
                    lex: Lexicon) -> tuple[Atom, ...]:
        """Kept objects ("leave the X on the Y") where they are now, as positive literals; with
        ``kept_places`` (round 12), where the instruction says to leave them when that is not
        where they are now ("bring the fruit bowl over but leave the orange on the shelf": the
        orange comes out of the bowl onto the shelf)."""
        said = self._kept_places(instruction, an, view, cands, lex) if self.options.rule("kept_places") else {}
        out = []
        for o in sorted(an.kept):
            if o in said:
                out.append(said[o])
                continue
            p = view.place.get(o)
            if p is None or p in view.humans or p in view.robots:
                continue
            fact = next((a for a in view.init if a.predicate in ("on", "in") and a.args == (o, p)), None)
            if fact is not None:
                out.append(fact)
        return tuple(out)

    @staticmethod
    def _kept_places(instruction: str, an: Analysis, view: SceneView, cands, lex: Lexicon) -> dict[str, Atom]:
        out: dict[str, Atom] = {}
        if not an.kept:
            return out
        low = instruction.lower()
        # (the analysis drops mentions inside a "leave the X on the Y" span: the kept X is one)
        ms = [m for m in lex.mentions(instruction) if not m.category]
        for k, m in enumerate(ms):
            objs = m.objects & an.kept
            if not objs:
                continue
            end = _KEEP_CLAUSE_END.search(low, m.end)
            nxt = next((x for x in ms[k + 1:] if x.start < (end.start() if end else len(low))), None)
            prep = _KEEP_PREP.search(low[max(0, nxt.start - 30):nxt.start]) if nxt is not None else None
            if prep is None or len(nxt.objects) != 1:
                continue
            place = next(iter(nxt.objects))
            kind = "in" if prep.group(1) in ("in", "inside") else "on"
            for o in objs:
                if view.place.get(o) == place:
                    continue  # where it is now: the current fact says it
                atoms = [c.atom for c in cands if c.atom.predicate in ("on", "in") and c.atom.args == (o, place)]
                atoms.sort(key=lambda a: a.predicate != kind)
                if atoms:
                    out[o] = atoms[0]
        return out

    # ------------------------------------------------------------------ language model

    def prompt(self, instruction: str, near: Sequence[tuple[Example, float]]) -> str:
        shots = [ex for ex, _ in near[:self.options.k_shots]] if self.options.retrieval else []
        # most similar last, next to the instruction
        body = "".join(self._shot.format(instruction=ex.instruction, goal=ex.goal) for ex in reversed(shots))
        return self._prompt.format(examples=body.rstrip("\n"), instruction=instruction).rstrip("\n")

    def _lm_rerank(self, instruction: str, singles: list[GoalCandidate], near, llm, usage, prefix_goals):
        top = singles[:self.options.lm_top]
        prompt = self.prompt(instruction, near)
        lps = score_goals(llm, prompt, [" " + g.text for g in top], usage=usage)
        rescored = [GoalCandidate(g.atoms, g.score + self.options.w_lm * lp, g.source, lp)
                    for g, lp in zip(top, lps)]
        rescored.sort(key=lambda g: -g.score)
        return rescored + singles[self.options.lm_top:]



_STATE_PREDICATES = frozenset({"chopped", "liquid_warm", "warm", "clean", "wet"})
#: round 4: "... to chop (some of) the": the person's own verb before a mention (a need statement)
_DONE_TO = re.compile(r"\bto\s+[a-z]+\s+(?:(?:up|down|some|the|my|a|an|all|of|these|those|them)\s+){0,3}$",
                      re.IGNORECASE)
#: before a mention: a destination ("onto the"), a source ("out of the"), "the spare" / "an empty"
#: words a verbless request may open with before what it asks for (round 8)
_REQUEST_LEAD = frozenset({"the", "a", "an", "my", "some", "your", "that", "this", "these", "those", "both", "one",
                           "two", "three", "four", "five", "couple", "few", "of", "please", "pls", "just", "and",
                           "also", "more", "another", "all", "any"})
#: a count before a mention ("only one knife", "the one set of tongs", "a couple of rods"): asked for (round 9)
_COUNTED_BEFORE = re.compile(r"(?:^|\b)(?:one|only\s+one|just\s+one|the\s+one|a\s+single|a\s+couple\s+of|a\s+pair\s+of|two|"
                             r"three|both)\s+(?:(?:set|pair|bunch|pack|packet|box|bag)\s+of\s+)?(?:\w+\s+)?$")
_INTENT = re.compile(r"\b(?:want|wanna|like|love|need|going|trying|have)\s+to\s+\w+", re.IGNORECASE)
_MEANS_BEFORE = re.compile(r"\b(?:with|using|on)\s+(?:my|the|a|your|our)\s+$", re.IGNORECASE)
_REQUEST_NEXT = re.compile(r"\s*(?:$|[,.!?;]|(?:please|pls|for|to|in|into|on|onto|and|now|thanks|over|here)\b)",
                           re.IGNORECASE)
#: a vessel said to be empty (round 8, ``fill_for_need``)
_EMPTY_SAID = re.compile(r"\b(?:empty|bone\s+dry|run\s+dry|(?:is|are|'s|'re|gone|looks?)\s+(?:\w+\s+)?dry|"
                         r"nothing\s+(?:left\s+)?in\s+(?:it|them))\b", re.IGNORECASE)
#: verbs that move a liquid itself, not its container (round 8)
_POUR = re.compile(r"\b(?:pour|fill|top\s+up|refill|warm|heat|boil|drink|spill|tip|splash|squeeze)", re.IGNORECASE)
_DEST_BEFORE = re.compile(r"\b(?:onto|into|inside|on\s+top\s+of)\s+(?:the\s+|a\s+|an\s+|my\s+|your\s+)?(?:\w+\s+)?$")
_SOURCE_BEFORE = re.compile(r"\b(?:out\s+of|from|off(?:\s+of)?)\s+(?:the\s+|my\s+|your\s+|its\s+)?(?:\w+\s+)?$")
_EMPTY_ONE = re.compile(r"\b(?:the|a|an|one|that|your|my)\s+(?:empty|spare|free|unused|vacant)\s+$")
#: after a mention: "the bar inside", "the one in there"
_INSIDE_AFTER = re.compile(r"\s+(?:inside|in\s+(?:it|there)|from\s+(?:it|there))\b")
#: words that alone make no request (a clause of only these is dropped; round 7)
_FILLER_WORDS = frozenset({"but", "and", "then", "so", "or", "though", "please", "thanks", "thank", "you", "ok",
                           "okay", "now", "too", "also", "cheers", "ta", "love", "mate", "yes", "right", "pls", "plz",
                           "thx", "x", "first", "after", "that", "mind"})
#: (round 21) a clause that only says the count again: "... Only one, mind.", "Just the one."
_COUNT_ECHO = re.compile(r"\s*(?:but\s+|and\s+)?(?:just|only)\s+(?:the\s+)?(?:one|two|three|four|a\s+single\s+one|"
                         r"a\s+couple|the\s+pair)\b(?:\s*,?\s*(?:mind(?:\s+you)?|please|though|thanks))?\s*[.!]*\s*$",
                         re.IGNORECASE)


#: "<verb> <object> <destination> together with / along with / as well as <another>"
_ALONG_WITH = re.compile(r"(?P<verb>\b(?:put|place|set|lay|leave|stand|pop|stick|move|take|bring|carry|stow|pack|tuck)"
                         r"(?:\s+(?:down|back|away))?\s+)(?P<obj>it|them|(?:the|my|your|a|an)\s+[a-z_]+(?:\s+[a-z_]+)?)"
                         r"(?P<dest>\s+(?:on|onto|in|into|inside|next\s+to|beside|by|under|to)\s+[^,.;!?]*?)"
                         r"\s*,?\s+(?:together\s+with|along\s+with|as\s+well\s+as)\s+"
                         r"(?P<other>(?:the|my|your|a|an)\s+[a-z_]+(?:\s+[a-z_]+)?)(?=\s*(?:[,.;!?]|$))",
                         re.IGNORECASE)


#: (round 15) "<give> me <one> along with / together with / as well as <another>"
_ALONG_WITH_ME = re.compile(r"(?P<verb>\b(?:give|hand|pass|bring|fetch|get|grab|toss|chuck)\s+(?:me|us)\s+)"
                            r"(?P<obj>(?:the|my|your|a|an|some)\s+[a-z_]+(?:\s+[a-z_]+)?)\s*,?\s+"
                            r"(?:together\s+with|along\s+with|as\s+well\s+as)\s+"
                            r"(?P<other>(?:the|my|your|a|an|some)\s+[a-z_]+(?:\s+[a-z_]+)?)(?=\s*(?:[,.;!?]|$|\s+(?:too|please)\b))",
                            re.IGNORECASE)


def _ends_closed(atoms: list, things, closing: dict[str, Atom]) -> list:
    """``atoms`` with each of ``things`` closed at the end: its opening goes, its closing is added
    (``closing_steps``, ``negated_leave``)."""
    for o in things:
        atoms = [a for a in atoms if not (a.predicate == "opened" and a.args and a.args[0] == o)]
        if closing[o] not in atoms:
            atoms.append(closing[o])
    return atoms


def _whole_things(cl: str, lex: Lexicon) -> list:
    """The mentions of things (no categories) in ``cl``; "the fridge door" names the fridge (its
    door), not a door of the room."""
    ms = [m for m in lex.mentions(cl) if not m.category]
    return [m for k, m in enumerate(ms) if not (k and not cl[ms[k - 1].end:m.start].strip()
                                                and _PART_WORD.fullmatch(cl[m.start:m.end].lower()))]


def _along_with(text: str) -> str:
    """"Put it on the mat together with the ruler": "put it on the mat, and put the ruler on the
    mat" (the other thing goes where the first goes)."""
    return _ALONG_WITH.sub(lambda m: f"{m.group('verb')}{m.group('obj')}{m.group('dest')}, and "
                                     f"{m.group('verb')}{m.group('other')}{m.group('dest')}", text)


#: between a carried destination and its place: "a plate at the table", "the bowl on the counter"
_NESTED_GAP = re.compile(r"\s+(?:at|on|onto|over\s+on|on\s+top\s+of)\s+(?:the|my|our|your)\s+(?:[a-z]+\s+)?")
#: before that destination: "on a", "into the"
_NESTED_BEFORE = re.compile(r"\b(?:on|onto|in|into)\s+(?:a|an|the|my|one\s+of\s+the)\s+$")


def _np_conjoined(text: str, lex: Lexicon) -> tuple[str, ...]:
    """``text``'s clauses, where a bare "and" followed (after determiners) by a thing the scene
    names joins two noun phrases, not two clauses ("all the fruit and veg into the fridge"), and
    one followed by "onto" / "into" adds a destination ("everything off the table and onto the shelf")."""
    out: list[str] = []
    pos, joined = 0, False
    for m in list(_CLAUSE_SPLIT.finditer(text)) + [None]:
        part = text[pos:m.start()] if m is not None else text[pos:]
        if part and _WORD.search(part):
            lead = re.match(r"\s*(?:(?:the|some|all|a|an|my|those|these|of)\s+)*", part, re.IGNORECASE).end()
            said = lex.mentions(part)
            dest = re.match(r"\s*(?:onto|into|on\s+to|in\s+to)\s", part, re.IGNORECASE)
            if joined and out and (said and said[0].start == lead or dest) and lex.mentions(out[-1]):
                out[-1] = out[-1] + " and " + part
            else:
                out.append(part)
        if m is None:
            break
        joined = m.group(0).strip().lower() == "and"
        pos = m.end()
    return tuple(out)


#: before a mention: what caused a need ("after that fruit", "because of all the dust")
_CAUSE = re.compile(r"\b(?:after|because\s+of|thanks\s+to)\s+(?:(?:eating|having|drinking|peeling|cracking|"
                    r"shelling|handling|cutting|all|that|those|these|the|my|some|this|of|so\s+many|so\s+much)\s+){0,3}"
                    r"(?:[a-z]+\s+)?$", re.IGNORECASE)


#: (round 18) "it reeks of varnish", "the smell of fish", "fumes from the glue pot"
_SMELL_OF = re.compile(r"\b(?:(?:reek|reeks|reeking|stink|stinks|stinking|smell|smells|smelling|stench|whiff|pong|"
                       r"pongs|niff|odour|odor|fumes|fug)\s+(?:of|from|off|coming\s+(?:off|from))|smells\s+like|stinks\s+like)\s+"
                       r"(?:(?:the|that|this|those|these|some|old|stale|all|my|your|his|her|their|its|wet|burnt|"
                       r"rotten|rotting|mouldy|moldy)\s+){0,3}$")

#: (round 24, ``disposal_asked``) throwing away asked for in so many words
_THROW_AWAY = re.compile(r"\b(?:(?:throw|throws|chuck|toss)\s+(?:\w+\s+){0,4}?(?:away|out)\b|discard|dispose\s+of|"
                         r"get\s+rid\s+of|bin\s+(?:it|them|this|that|these|those|the)\b)")


#: (round 24) the verbs of placing a thing, for ``_CORRECTION`` and ``_TAKEN_THEN_PUT``
_PLACE_VERBS = r"(?:put|place|set|stand|store|keep|move|pop|stick|leave|hang|lay|stack|chuck|throw|drop)"
#: (round 24, ``corrections``) a placing said not to be done, then the one to do with a pronoun
_CORRECTION = re.compile(
    r"^\s*(?:(?:please|no|oh)\s*,?\s+)?(?:(?:don't|do\s+not|dont|never)\s+" + _PLACE_VERBS + r"\s+(?P<np1>.+?)"
    r"|(?P<np2>(?:the|my|your|those|these|that|this)\s+.+?)\s+(?:shouldn't|should\s+not|mustn't|must\s+not|can't|"
    r"cannot|don't|do\s+not|doesn't|does\s+not|won't)\s+(?:go|be\s+(?:put|kept|stored|left))"
    r")\s+(?:in|into|on|onto|inside|under|by|next\s+to)\s+(?:the|a|an|my|your|that|this)\s+[^,;.!?-]+?"
    r"\s*(?:[,;.!]|\s-|\s\u2013|\s\u2014)\s*(?:(?:but|instead|rather|please|just)\s*,?\s+)*"
    r"(?P<verb>" + _PLACE_VERBS + r")\s+(?:them|it|those|these|they)\b(?P<rest>.*)$", re.IGNORECASE | re.DOTALL)


def _corrected(instruction: str) -> str:
    """"Don't put the roses in the fridge, put them in the vase" -> "put the roses in the vase"
    (round 24, ``corrections``)."""
    m = _CORRECTION.match(instruction.replace("’", "'"))
    if m is None:
        return instruction
    rest = re.sub(r"\s*\binstead\b", "", m.group("rest"))
    np_ = m.group("np1") or m.group("np2")
    return f"{m.group('verb')} {np_[:1].lower()}{np_[1:]}{rest}"


#: (round 24, ``taken_then_put``) things taken off a place, with some kept back, then put
#: somewhere with a pronoun
_TAKEN_THEN_PUT = re.compile(
    r"^\s*(?:(?:please|can\s+you|could\s+you|would\s+you)\s+)?(?:take|clear|get|move|grab|remove|lift)\s+"
    r"(?P<np>everything|all\s+the\s+[a-z]+|all\s+of\s+the\s+[a-z]+|all)\s+(?P<src>off|from|out\s+of|off\s+of)\s+"
    r"(?P<place>(?:the|my|your|that|this)\s+[^,]+?)(?P<kept>\s*,?\s*(?:except(?:\s+for)?|apart\s+from|but\s+not|"
    r"other\s+than|bar|besides|but)\s+[^,]+?)?\s*,?\s*(?:and\s+then|and|then)\s+" + _PLACE_VERBS + r"\s+(?:it|them)(?:\s+all)?\s+(?P<prep>on|onto|in|into|on\s+to|in\s+to)\s+(?P<dest>(?:the|my|your|that|this)\s+"
    r"[^,.;!?]+?)\s*(?P<end>[.!]?)\s*$", re.IGNORECASE)


def _taken_then_put(instruction: str) -> str:
    """"Take everything off the desk except the laptop and put it on the bed" -> "put everything
    from the desk on the bed except the laptop" (round 24, ``taken_then_put``)."""
    m = _TAKEN_THEN_PUT.match(instruction.replace("’", "'"))
    if m is None or not m.group("kept"):
        return instruction
    kept = m.group("kept").strip().lstrip(",").strip()
    return f"put {m.group('np')} from {m.group('place')} {m.group('prep')} {m.group('dest')}, {kept}{m.group('end')}"


def _caused(text: str, an: Analysis) -> set[str]:
    """What ``text``'s mentions name as the cause of a need, unless asked for."""
    return {o for m in an.mentions if _CAUSE.search(text[max(0, m.start - 45):m.start])
            and not wanted(text, m.start) for o in m.objects}


def _unplaced(view: SceneView, objects, is_a) -> frozenset[str]:
    """The carried things the scene puts nowhere: not on or in anything, not held, not a place."""
    places = set(view.place.values())
    agents = set(view.humans) | set(view.robots)
    return frozenset(o for o in objects if o not in agents and o not in view.place and o not in places
                     and is_a(o, "carry") and not is_a(o, "location"))


#: states of a liquid: a state verb about its vessel is about it ("boil the kettle", round 13)
_LIQUID_STATES = frozenset({"liquid_warm"})
#: "something to bang the pegs in with", "a thing I can open this jar with": the tool's purpose,
#: whose objects are acted on, not handed over (round 13, ``tool_purpose``)
_PURPOSE_TOOL = re.compile(r"\b(?:something|anything|a\s+thing|a\s+tool|things|stuff)\s+(?:(?:that\s+)?(?:i|we|you)\s+can\s+|"
                           r"to\s+)([a-z]+\b.*?)\s+with\b", re.IGNORECASE)


def _purpose_spans(text: str) -> list[tuple[int, int]]:
    return [(m.start(1), m.end(1)) for m in _PURPOSE_TOOL.finditer(text)]


#: food or drink left standing out ("the milk has been sitting out", "left their lunch out")
_LEFT_OUT = re.compile(r"\b(?:sitting|left|standing|lying|stood|sat)\s+(?:[\w']+\s+){0,3}?out\b(?!\s+of\s+(?:reach|sight))",
                       re.IGNORECASE)
#: (round 22, ``spoiling``) food or drink said to be about to spoil or warm up where it is: "those
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
#: "into" / "onto", which say a placement, except where a spill went (round 13, ``spill_needs``)
_INTO = re.compile(r"\b(?:into|onto)\b", re.IGNORECASE)


#: a clause that states how things are ("I'm parched", "it's so stuffy in here", "the table's
#: filthy", "there's no milk"), after an interjection (round 13, ``statement_clauses``)
_STATEMENT_OPEN = re.compile(r"^\W*(?:(?:oh|ugh|phew|wow|hmm|gosh|blimey|well|so|god|man|honestly|ah)\W+)*"
                             r"(?:i'm|i\s+am|i've\s+got|i\s+feel|it's|it\s+is|its|there's|there\s+is|there\s+are|"
                             r"we're|we\s+are|(?:the|my|this|that|these|those|our)\s+(?:[a-z]+\s+){0,2}?"
                             r"(?:is|are|was|were|'s|'re|has|have|looks?|feels?|smells?))\b", re.IGNORECASE)


def _statement(clause: str) -> bool:
    """A clause that says how things are and asks for nothing itself."""
    return bool(_STATEMENT_OPEN.match(clause.replace("’", "'"))) and is_need_statement(clause)


def _asks_nothing(clause: str, courtesy: bool = False) -> bool:
    """A clause of only conjunctions and courtesy words ("but.", "thanks"); with ``courtesy``
    (round 15) also a courtesy tag ("would you?", "if you don't mind", "when you get a chance");
    (round 21) a clause that only says the count again ("only one, mind")."""
    return set(_WORD.findall(clause.lower())) <= _FILLER_WORDS or bool(
        courtesy and _COURTESY_TAG.match(clause.replace("’", "'"))) or bool(_COUNT_ECHO.match(clause))


#: (round 15) "close everything that's open", "shut whatever's been left open", "close all
#: the open ones", "shut every window and door that's still open"
_CLOSE_OPEN = re.compile(
    r"\b(?:close|shut)\s+(?:up\s+)?(?:all|every|each|any)(?:\s+of)?\s+(?:the\s+)?(?:open|opened)\b(?P<after>[^.;!?,]*)|"
    r"\b(?:close|shut)\s+(?:up\s+)?(?:(?:all|every|each|any)(?:thing)?|whatever|everything|anything)(?:\s+of)?"
    r"(?:\s+(?:the|those|these))?(?P<span>[^.;!?]*?)(?:\s+(?:that|which|what|who))?(?:'s|'re|\s+is|\s+are|\s+was|"
    r"\s+were|\s+has\s+been|\s+have\s+been|'s\s+been|'ve\s+been|\s+got)?(?:\s+(?:been|still|left|hanging|"
    r"standing|lying|sitting|wide|all))*\s+(?:open|opened|ajar)\b|"
    r"\b(?:close|shut)\s+(?:up\s+)?(?:everything|all\s+(?:of\s+)?(?:the\s+)?\w+|every\s+\w+|each\s+\w+)"
    r"(?=\s+(?:on|in|inside|at)\s)(?P<at>)", re.IGNORECASE)


#: (round 15) "whatever's on", "whatever is left in", "whatever's lying about on"
_WHATEVER = re.compile(r"\bwhatever(?:'s|\s+is|\s+are|'s\s+been|\s+has\s+been|\s+was)?(?:\s+(?:left|lying|sitting|"
                       r"still|been|about|around|kept|stored))*\s+(on|in|inside|out\s+of|off|from)\b"
                       r"(?![^,.;!?]*\b(?:is|are|will|would|'ll|should|does|do)\s+(?:be\s+)?(?:fine|ok|okay|good|great|"
                       r"alright|all\s+right|do|work)\b)", re.IGNORECASE)
#: (round 15) a source right before "on / in the X": "from the box on the shelf"
_SOURCE_CHAIN = re.compile(r"\b(?:from|out\s+of|off)\s+(?:the|my|your|a|an|that|this|our)\s+((?:\w+\s+){1,2})$")
#: (round 16) "fill the teapot (up) from the kettle", "top the jug up with water from the tap"
_FILL_FROM = re.compile(r"\b(?:fill|refill|top)\s+(?:up\s+)?(?P<x>(?:the|my|a|an|your|that|this|our)\s+(?:\w+\s+){0,2}?"
                        r"\w+)\s+(?:up\s+)?(?:from|with|out\s+of|using)\s+(?P<y>(?:(?:the|my|a|an|your|that|this|our|"
                        r"some)\s+)?\w+(?:\s+\w+){0,4})")
#: (round 16) why a thing is kept: "I need it next", "I'm still using them", "we'll want it later"
_KEEP_REASON = re.compile(r"^\W*(?:(?:as|because|since|cos|'cause|coz)\s+)?(?:i|we)(?:'ll|\s+will|'m|\s+am|'re|\s+are|"
                          r"'d|\s+would|'ve|\s+have)?(?:\s+(?:still|just|only|probably|definitely|be))*\s+"
                          r"(?:need|needs|needing|want|wanting|use|using|going\s+to\s+use|got\s+plans\s+for)\s+"
                          r"(?:it|them|that|those|this)\b", re.IGNORECASE)
#: (round 16, ``empty_state``) empty vessels asked for, not said to be empty: "I want every empty vase"
_EMPTY_WANTED = re.compile(r"\b(?:every|each|all(?:\s+the)?|the|an|any|some|two|three|a\s+couple\s+of)\s+empty\s+\w+",
                           re.IGNORECASE)
#: (round 16) a clause that takes a thing out of a place: "get the packet out of the fridge"
_TAKE_OUT = re.compile(r"\b(?:out\s+of|from|off)\s+(?:the|my|your|a|an|that|this|our|its|their)\b", re.IGNORECASE)
#: (round 16) a destination right before "on / in the X": "into the box (over) on the counter"
_DEST_CHAIN = re.compile(r"\b(?:in|into|inside|onto|on\s+top\s+of|on)\s+(?:the|my|your|a|an|that|this|our)\s+"
                         r"((?:\w+\s+){1,3}?)(?:(?:over|up|down|there|sitting|standing|that's|that\s+is|which\s+is|"
                         r"which's|just)\s+)*$")
#: (round 15) a clause that only fetches something: "get the milk", "grab the jar from the shelf"
_FETCH_STEP = re.compile(r"^\W*(?:(?:first|and|then|now)\s+)*(?:get|grab|take|fetch|find|pick\s+up|take\s+out|get\s+out)"
                         r"(?!\s+(?:me|us)\b)(?![^,.;]*\b(?:to|for)\s+me\b)\b", re.IGNORECASE)
#: (round 15) a clause that adds something: "add the cereal", "then stir in the sugar"
_ADD = re.compile(r"^\W*(?:(?:and|then|now|also)\s+)*(?:add|stir\s+in|mix\s+in|throw\s+in|tip\s+in|pop\s+in|"
                  r"drop\s+in|put\s+in|sprinkle\s+in|toss\s+in)\b|^\W*(?:(?:and|then|now|also)\s+)*(?:tip|put|pop|throw|"
                  r"drop|chuck|pour|stir|toss|sprinkle)\s+(?:the\s+|some\s+|a\s+bit\s+of\s+)?\w+(?:\s+\w+)?\s+in"
                  r"(?:\s+too|\s+as\s+well)?\W*$", re.IGNORECASE)
#: (round 15) a clause that hands or carries something
_HAND_OVER = re.compile(r"\b(?:bring|give|hand|pass|fetch|carry|take)\b[^,.;]*\b(?:me|over|here|through)\b|"
                        r"\b(?:bring|give|hand|pass)\s+(?:it|them)\b", re.IGNORECASE)
#: (round 15) a giving verb whose first object is the person
_HAND_ME = re.compile(r"\b(?:give|hand|bring|pass|fetch|grab|toss|chuck|get|find|fish)\s+(?:me|us)\b"
                      r"(?!\s+(?:to|a\s+hand|know))", re.IGNORECASE)
#: (round 22, ``clause_fetch``) a clause that fetches ("and fetch the milk"): a liquid is fetched in its vessel
_FETCHES = re.compile(r"^\W*(?:(?:and|then|now|also|please|just)\s+)*(?:fetch|bring|get|grab)\b(?!\s+rid\b)",
                      re.IGNORECASE)
#: (round 22, ``clause_fetch``) a courtesy tag ending a clause: ", would you?", ", please"
_COURTESY_TAIL = re.compile(r"[,\s]*(?:would|could|can|will)\s+you\b[^,.;!?]*[.!?]*\s*$|[,\s]+please[.!?]*\s*$",
                            re.IGNORECASE)
_FOR_ME = re.compile(r"\b(?:grab|get|fetch|bring|find|fish\s+out|dig\s+out)\b[^,.;!?]*\bfor\s+(?:me|us)\b|"
                     r"^\W*(?:(?:please|could\s+you|can\s+you|would\s+you|will\s+you)\s+)?(?:bring|fetch)\b", re.IGNORECASE)
#: (round 15) a request without a verb: "two new brake pads from the box on the shelf, please"
_VERBLESS = re.compile(r"^\W*(?:a|an|some|two|three|four|a\s+couple\s+of|a\s+few|one\s+of\s+the|another)\s+"
                       r"[a-z\s'-]+?(?:\s+(?:from|out\s+of|off)\s+[a-z\s'-]+)?,?\s+please\W*$", re.IGNORECASE)
_DEST_SAID = re.compile(r"\b(?:on|onto|in|into|inside|to|under|next\s+to|beside)\s+(?:the|a|an|my|your|our|this|that)\b",
                        re.IGNORECASE)


def _without_courtesy(text: str) -> str:
    """``text`` without a leading or trailing courtesy tag ("boil the kettle, would you?")."""
    head = _COURTESY_HEAD.match(text)
    if head and _WORD.search(text[head.end():].lower()):
        text = text[head.end():]
    tail = _COURTESY_TAIL.search(text)
    if tail and _COURTESY_TAG.match(tail.group(1).replace("’", "'")) and _WORD.search(text[:tail.start()].lower()):
        text = text[:tail.start()] + "."
    return text


#: a trailing clause after a comma, dash or semicolon; a leading "if you would / when you can,"
_COURTESY_TAIL = re.compile(r"\s*[,;\u2013\u2014-]\s*([^,;.!?\u2013\u2014]*[.!?]*)\s*$")
_COURTESY_HEAD = re.compile(r"^\s*(?:if\s+you\s+(?:would|could|can|don't\s+mind|do\s+not\s+mind|get\s+a\s+chance)|"
                            r"when\s+you\s+(?:can|get\s+a\s+(?:chance|sec|second|moment|minute)))\s*,\s*", re.IGNORECASE)
#: (round 15) a clause that only softens a request
_COURTESY_TAG = re.compile(
    r"^\W*(?:please\s+)?(?:(?:would|could|can|will|won't)\s+you(?:\s+please)?(?:\s+(?:do\s+that|mind))?|"
    r"if\s+you\s+(?:would|could|can|like|please|don't\s+mind|do\s+not\s+mind|wouldn't\s+mind|get\s+(?:a|the)\s+chance)|"
    r"when\s+you\s+(?:can|get\s+a\s+(?:chance|sec|second|moment|minute)|have\s+a\s+(?:sec|second|moment|minute))|"
    r"if\s+(?:that's|it's|that\s+is|it\s+is)\s+(?:ok|okay|alright|all\s+right|fine)|if\s+possible|"
    r"(?:there's|that's)\s+a\s+(?:love|dear|good\s+\w+)|no\s+rush|no\s+hurry|when\s+you're\s+free)"
    r"(?:\s+(?:please|thanks|mate|love))?\W*$", re.IGNORECASE)


#: a destination preposition right before a place's name ("into the", "over to my", "back on the")
_DEST_PREP = re.compile(r"\b((?:back\s+)?(?:into|inside|in|onto|on\s+top\s+of|on|to|over\s+to))\s+"
                        r"(?:the\s+|my\s+|your\s+|our\s+|a\s+|an\s+|that\s+|this\s+)?(?:\w+\s+)?$")
#: before a destination preposition: a phrasal verb ("hold onto the can") or a relative clause
#: that says where something is ("the place that has a banana in a bowl")
_NOT_DEST = re.compile(r"\b(?:hold|hang|holding|hanging)\s*$|\b(?:that|which|where)\s+(?:has|have|had|is|are)\b"
                       r"[^,.;]*$|\bwith\s+(?:a|an|the|some)?\s*\w+\s*$")
#: (round 16) a thing said by where it is, right before the preposition: "the screw that's sitting
#: on the board", "the cup lying in the sink", "the one that's in the box"
_WHERE_IT_IS = re.compile(r"\b(?:(?:that|which|who)(?:'s|\s+is|\s+are|'re|\s+was|\s+were)(?:\s+(?:still|just|now))?"
                          r"(?:\s+(?:sitting|lying|standing|resting|perched|kept|stored|left|stuck|hanging))?|"
                          r"(?:sitting|lying|standing|resting|perched|kept|stored))\s*$")
#: (round 12) where a kept object is to be left: "leave the orange (behind / here) on the shelf"
_KEEP_PREP = re.compile(r"\b(on|in|inside|at)\s+(?:the\s+|my\s+|your\s+|its\s+|their\s+)?(?:\w+\s+)?$")
#: a placing verb, then its object, right before "into it" ("load the pot into it"; not "everything in it")
_PLACING_BEFORE = re.compile(r"\b(?:put|place|set|drop|pop|stick|store|lay|load|pack|tip|pour|chuck|throw|toss|slide|"
                             r"stack|shove|return|move|transfer|plonk|stuff)\s+(?:\w+\s+){0,7}$")
_KEEP_CLAUSE_END = re.compile(r"[,.;!?]|\b(?:and|then|but|please)\b")
#: a destination preposition before a pronoun ("into it", "on top of them", "in there"; round 12)
_PRONOUN_DEST = re.compile(r"\b(into|inside|onto|on\s+top\s+of|in|on)\s+(?:it|them|that|this|there)\b")
_PREP_KIND = {"into": "in", "inside": "in", "in": "in", "onto": "on", "on top of": "on", "on": "on"}
#: "close the lid", "shut it again"; "from it" / "out of it" (a source); "fill" / "top up"
_CLOSE = re.compile(r"\b(?:close|shut)\b", re.IGNORECASE)
#: (round 18) "empty the bottle into the can", "tip the jug out into the sink"
_EMPTY_INTO = re.compile(r"\b(empty|tip|drain|dump)\s+(?:out\s+)?(?P<np>[^,.;!?]{1,40}?)\s+(?:out\s+)?(?:into|in)\b",
                         re.IGNORECASE)
#: (round 18) "the two things on the coffee table", "both items in the box": everything there
_COUNTED_THINGS = re.compile(r"\b(?:(?:the|those|these)\s+(?:two|three|four|five|2|3|4|5)|both|both\s+the)\s+"
                             r"(?:things|items|objects|bits)\s+(?=(?:that\s+are\s+|lying\s+|sitting\s+|left\s+)?"
                             r"(?:on|in|inside|from|off)\b)", re.IGNORECASE)
#: (round 18) "clear the clamps off my bench"; "clear the bench off", "clear off the shelf", "clear the
#: table for the next round"
_CLEAR_END = r"(?=\s*(?:[,.;!?]|$|\bbut\b|\bexcept\b|\bapart\b|\bleav|\bplease\b|\bthanks\b|\bcheers\b))"
_CLEAR_OFF = (re.compile(r"\b(?:clear|take|get|lift)\s+(?P<np>[^,.;!?]{1,50}?)\s+off(?:\s+of)?\s+"
                         r"(?P<place>(?:the\s+|my\s+|your\s+|our\s+|that\s+|this\s+)?[a-z' ]{1,30}?)" + _CLEAR_END),
              re.compile(r"\bclear\s+(?:off\s+)?(?P<place>(?:the\s+|my\s+|your\s+|our\s+|that\s+|this\s+)[a-z' ]{1,30}?)"
                         r"(?:\s+off)?(?:\s+for\s+[a-z' ]{1,30}?)?" + _CLEAR_END))
#: (round 23) "tidy (up) my desk, but leave ...", "empty the fridge except for the milk": a place
#: tidied or emptied (``tidy_kept``)
_TIDY_KEPT = re.compile(r"\b(?:tidy|empty)\s+(?:up\s+|out\s+)?(?P<place>(?:the\s+|my\s+|your\s+|our\s+|that\s+|this\s+)[a-z' ]{1,30}?)"
                        r"(?:\s+up)?" + _CLEAR_END)
#: (round 18) words that make the text after "off" more than a place ("off the shelf for me", "... and bring them")
_NOT_A_PLACE = re.compile(r"\b(?:onto|into|on|in|to|for|off|except|from|with|me|us|and|then|or|it|them|over|please)\b")
#: (round 18) what a clearing keeps: "..., but leave the violin where it is", "apart from my towel"
_CLEAR_KEPT = re.compile(r"\b(?:(?:leave|leaving)(?!\s+(?:it|them)\b)|not|don't|do\s+not|except|apart|but\s+the|bar|besides|other\s+than)\b"
                         r"[^,.;!?]*")
#: (round 18) after the place cleared, in its sentence: something else done with the things
_CLEAR_THEN = re.compile(r"\b(?:me|us|hand|give|pass|bring|put|place|set|lay|pop|stick|drop|move|carry|throw|bin|chuck|"
                         r"dump|wash|rinse|wipe|stack|pile|store|hang|goes|go)\b")
#: (round 18) a destination said after the place cleared: "... and onto the counter", "into the box"
_DEST_AFTER = re.compile(r"\b(?:onto|into|inside|on\s+to|in\s+to|over\s+to|on|in|to|away\s+in|back\s+(?:in|on))\s+"
                         r"(?:the|my|your|our|a|an|that|this)\b")
#: (round 23) a place's things moved to a destination: "clear the coffee table into the basket",
#: "tidy the bench onto the shelf", "put everything from the fruit bowl in the fridge", "move the veg
#: in the basket on the bench over to the worktop", "empty the fruit bowl out onto the counter"
_DET = r"(?:the|my|your|our|that|this|his|her|their)"
_NOUNS = r"(?:\s+(?!(?:on|in|into|onto|to|over|from|off|out|up|and|but|except|apart|for|with|please|then)\b)[a-z'-]+){1,4}"
_MOVED_CONTENTS = re.compile(
    r"\b(?:(?:clear|tidy|empty)(?:\s+(?:up|out|off))?\s+(?P<place0>" + _DET + _NOUNS + r")"
    r"|(?:put|move|take|bring|gather|transfer|shift|get|carry|stash|pack|tip|load|clear)\s+"
    r"(?P<np>[^,.;!?]{1,40}?)\s+(?P<src>from|off\s+of|off|out\s+of|on|in|that's\s+on|that's\s+in)\s+"
    r"(?P<place>" + _DET + _NOUNS + r"(?:\s+(?:on|in)\s+" + _DET + _NOUNS + r")?))"
    r"(?:\s+(?:out|up|away|over|across|back))?\s+(?:and\s+)?(?P<prep>into|onto|in\s+to|on\s+to|over\s+to|across\s+to|"
    r"up\s+onto|up\s+on|up\s+to|to|in|on)\s+(?P<dest>" + _DET + _NOUNS + r")"
    r"(?=\s*(?:[,.;!?:(\u2013-]|$)|\s+(?:but|except|apart|all\s+but|bar|other\s+than|save|only|leaving|and\s+leave|"
    r"though|please|for\s+me)\b)")
#: (round 23) attribute words that rule out a kind of thing when negated ("nothing fizzy")
_NEG_ATTRIBUTE = re.compile(r"fizzy|fizz|carbonated|sparkling|bubbly|sugary|sugar|sweet|alcoholic|alcohol|booze|boozy|"
                            r"caffeinated|caffeine|dairy|spicy|salty|greasy|fatty|sharp|pointy|fragile|breakable")
#: (round 23) "nothing fizzy", "no sugary drinks", "nothing with sugar in it", "something non-alcoholic"
_NOTHING_ATTRIBUTE = re.compile(r"\b(?:nothing|no|non|not|without)\b[^,.;!?]{0,20}?\b(" + _NEG_ATTRIBUTE.pattern + r")\b")
#: (round 23) "open (up) the kiln, ...": what is opened, at a clause's start
_OPENED = re.compile(r"(?:^|[,;]\s*|\b(?:and|then|first)\s+)open(?:\s+up)?\s+(?P<x>" + _DET + _NOUNS + r")"
                     r"(?=\s*(?:[,;]|\s+(?:and|then)\b))")
#: (round 23) "pop the bowl inside", "drop the mainspring in to soak": put in, with no place said
_PUT_IN_BARE = re.compile(r"\b(?:put|pop|drop|place|stick|set|slip|tuck|pack|load|slide|lay|stand)\s+"
                          r"(?:[^,.;!?]{1,40}?)\s+(?P<in>inside|in)(?=\s*(?:[,.;!?]|$|\s+(?:and|then|to|for|please)\b))")
#: (round 23) a statement of hunger ("I'm starving", "would go down well", "is calling my name")
_HUNGRY = re.compile(r"\b(?:starving|starved|hungry|peckish|famished|ravenous|could\s+eat|would\s+go\s+down|"
                     r"calling\s+(?:my|to\s+me)|my\s+stomach|tummy|craving|dying\s+for)\b")
#: (round 23) "bring me the fruit bowl but take the banana out of it first"
_TAKE_OUT_FIRST = re.compile(r"\b(?:bring|hand|pass|give|fetch|get|carry)\s+(?:me\s+|us\s+)?(?P<c>" + _DET + _NOUNS + r")"
                             r"(?:\s+(?:over|here|across|through))?(?:\s+(?:to|for)\s+(?:me|us))?\s*,?\s+(?:but|and)\s+"
                             r"(?:first\s+)?(?:take|get|pull|lift|fish)\s+(?P<x>" + _DET + _NOUNS + r")\s+out\b")
#: (round 23) the person's own ("my coffee", "for me", "bring me")
_MINE = re.compile(r"\b(?:my|me|mine)\b")
#: (round 23, ``dirt_there``) "there's a sticky ring in ...", "there are crumbs all over ...": dirt said
#: to be in or on a thing named next
_DIRT_THERE = re.compile(r"\bthere(?:'s|\s+is|\s+are|'re|\s+was)\s+(?:a\s+|an\s+|some\s+|loads\s+of\s+|bits\s+of\s+)?"
                         r"(?:[a-z]+\s+){0,2}?(?:rings?|stains?|smears?|marks?|grime|gunk|crud|residue|film|crumbs|grease|"
                         r"fingerprints|dust|mould|mold|scum|muck|dirt|goo|gloop|splodges?|tidemarks?|streaks?)\b"
                         r"[^.!?]{0,25}?\b(?:in|on|inside|all\s+over|over|round|around)\b")
#: (round 23, ``still_whole``) food said to be uncut: "still whole", "in one piece", "not sliced yet",
#: "too big to manage in one go"
_STILL_WHOLE = re.compile(r"\b(?:(?:still|all)\s+(?:whole|in\s+one\s+piece|uncut|in\s+one\s+lump)|"
                          r"(?:is|are|'s|'re)\s+whole\b|in\s+one\s+piece|uncut|(?:not|n't|never)\s+(?:been\s+)?"
                          r"(?:cut|sliced|chopped|diced)(?:\s+up)?\s+yet|too\s+big\s+to\s+(?:eat|manage|bite|fit|get))\b")
#: (round 23, ``wet_wipe``) hands or fingers said to be sticky or dirty; and said to be wet
_STICKY_HANDS = re.compile(r"\b(?:hands?|fingers|paws|face)\b[^.!?]{0,30}?\b(?:sticky|greasy|gunky|gunk|tacky|caked|covered|"
                           r"mucky|grubby|dirty|filthy|black|jam|honey|paint|ketchup|glue|grease|clay|mud|muddy|smeared)\b|"
                           r"\b(?:sticky|greasy|gunky|tacky|mucky|grubby|dirty|filthy|muddy)\s+(?:hands|fingers|paws|face)\b|"
                           r"\b(?:gunk|grease|paint|ketchup|jam|honey|glue|clay|mud)\s+(?:all\s+)?(?:over|on)\s+my\s+"
                           r"(?:hands|fingers|face)\b")
_WET_HANDS = re.compile(r"\b(?:wet|dripping|soaking|soaked|damp|drenched|washed|sweaty)\b")
#: (round 23, ``hungry_named``) a food the person turns down: "I can't face the rest of that sandwich"
_REFUSED = re.compile(r"\b(?:can't|cannot|can\s+not|couldn't)\s+(?:\w+\s+)?(?:face|stomach|look\s+at|eat)\b|\bsick\s+of\b|"
                      r"\bfed\s+up\s+with\b|\bhad\s+enough\s+of\b|\b(?:don't|do\s+not|won't)\s+(?:\w+\s+)?(?:want|fancy|like)\b|"
                      r"\bno\s+more\b|\bnot\b|\bexcept\b|\bapart\s+from\b|\bbar\b")
#: (round 23) the words for "whatever is there": no kind said
_ANY_THING = re.compile(r"\s*(?:everything|all|it\s+all|all\s+of\s+it|the\s+lot|(?:all\s+)?(?:the\s+)?(?:stuff|things|bits|"
                        r"odds\s+and\s+ends|bits\s+and\s+pieces))\s*")
#: (round 23) a destination preposition that cannot say where a thing is now
_DIRECTIONAL = re.compile(r"into|onto|in\s+to|on\s+to|over\s+to|across\s+to|up\s+onto|up\s+to")
#: (round 18) "don't leave the fridge open", "never leave it open", "make sure the tub isn't left open"
_LEAVE_OPEN = re.compile(r"\b(?:(?:don't|do\s+not|dont|never|not\s+to|try\s+not\s+to)\s+(?:go\s+and\s+)?leave\s+"
                         r"(?P<np>[^,.;!?]{1,40}?)\s+(?:wide\s+|hanging\s+|standing\s+|lying\s+)?(?:open|opened|ajar)|"
                         r"(?:make\s+sure|check|see\s+that)\s+(?P<np2>[^,.;!?]{1,40}?)\s+(?:isn't|is\s+not|aren't|"
                         r"are\s+not|doesn't\s+get|does\s+not\s+get|don't\s+get|isn't\s+being)\s+(?:left\s+)?"
                         r"(?:wide\s+)?(?:open|opened|ajar))\b")
#: (round 17) a step that closes something ("shut it again", "put the lid back on"; not "close to")
_CLOSE_STEP = re.compile(r"\b(?:close|shut)\b(?!\s+(?:to|by|up\s+shop)\b)|\blid\s+(?:back\s+)?on\b")
_NOT_STEP = re.compile(r"\b(?:don't|do\s+not|dont|never|not|no\s+need|without)\b")
_ALL_BUT_ONE = re.compile(r"\b(?:all|every\s+one|each\s+one|all\s+of\s+them|the\s+lot)\s*,?\s+(?:but|bar|except|"
                         r"save|apart\s+from|other\s+than|minus)\s+(?:for\s+)?(?:just\s+)?(?:one|a\s+single\s+one)\b|"
                         r"\bleave\s+(?:just\s+)?one\s+(?:of\s+them\s+)?(?:behind|there|where\s+it\s+is|hanging|"
                         r"in\s+place)\b|\bexcept\s+(?:for\s+)?one\b")
_HEAT = re.compile(r"\b(?:warm|heat|boil)", re.IGNORECASE)
#: (round 17) a clause that carries something or sets it on a surface, not one that pours it
_CARRIED = re.compile(r"\W*(?:(?:please|then|now|and|also|next)\s+)*(?:(?:take|get|carry|fetch|grab|lift|move)\b.*\b"
                      r"(?:out|off|over|through|across|up)\b|(?:put|place|set|stand|pop|leave)\b.*\b(?:on|onto)\b)",
                      re.IGNORECASE)
_POURED = re.compile(r"\b(?:pour|pouring|poured|fill|filled|tip|top\s+up|splash|drizzle|into|in\s+(?:the|a|my|your)\s+"
                     r"(?:cup|mug|glass|bowl|pot|jug|kettle))\b", re.IGNORECASE)
#: (round 17) where the thing said before is: "that's on the counter", "from the shelf"
_LOCATED_AFTER = re.compile(r"\s*(?:(?:that|which)(?:'s|\s+is|\s+are|'re)\s+(?:still\s+|just\s+|now\s+)?(?:(?:sitting|lying|"
                            r"standing|left|resting|kept)\s+)?(?:on|in|inside|by|beside|next\s+to|near|under)|(?:sitting|lying|"
                            r"standing|resting)\s+(?:on|in|inside)|from|off|out\s+of)\s+(?:the|my|your|that|this|our)\s+")
#: (round 24, ``which_appositive``) ", the one in the fridge", " - the ones that are on the shelf"
_APPOSITIVE_PLACE = re.compile(r"\s*(?:,|;|-|\u2013|\u2014|\()\s*(?:the|that)\s+ones?\s+(?:(?:that|which)(?:'s|\s+is|\s+are|'re)\s+)?"
                               r"(?:(?:still\s+|just\s+)?(?:sitting|lying|standing|left|resting|kept)\s+)?"
                               r"(?:on|in|inside|by|beside|next\s+to|near|under|from|off|out\s+of)\s+(?:the|my|your|that|this|our)\s+")
#: (round 24, ``group_conjuncts``) between two noun phrases joined by "and": "s and the ", ", "
_CONJUNCT_GAP = re.compile(r"\s*(?:,\s*)?(?:(?:and|plus|as\s+well\s+as|along\s+with)\s+)?(?:(?:the|a|an|my|your|some|that|this|"
                           r"those|these|both|all|of|two|three)\s+)*", re.IGNORECASE)
_NEAR_IT = re.compile(r"\s*(?:(?:that's|which\s+is|sitting|standing|just)\s+)?(?:beside|next\s+to|by|near)\s+(?:it|them)\b")
_OTHER_ONE = re.compile(r"\b(on\s+top\s+of|onto|on|into|inside|in|next\s+to|beside)\s+the\s+other\s+(?:one|\w+)\b")
_SENTENCE = re.compile(r"[^.!?]+")
#: (round 17) words saying a thing is dirty
_DIRTY = re.compile(r"\b(?:dirty|dusty|filthy|grimy|greasy|grubby|mucky|sticky|stained|smeared|smudged|smeary|"
                    r"grotty|manky|gunky|crusty|caked|muddy|covered\s+in|coated\s+in|fingerprints|cobwebs|"
                    r"(?:needs?|could\s+do\s+with)\s+(?:a\s+)?(?:clean|wash|wipe|rinse|scrub|polish))\b")
#: (round 22, ``milk_added``) milk asked for by the splash, and the plain need of a drink too strong
_MILK_ADDED = re.compile(r"\b(?:(?:splash|drop|dash|drizzle|touch|spot|glug|dribble|bit)\s+of\s+(?:milk|cream)|"
                         r"take\s+(?:it|mine|my\s+(?:tea|coffee))\s+white|white\s+(?:coffee|tea)|"
                         r"(?:tea|coffee)\s+with\s+(?:a\s+(?:bit|drop|splash)\s+of\s+)?milk)\b")
_STRONG_DRINK_NEED = re.compile(r"\btoo bitter or strong\b")
#: (round 22, ``floor_tools``) the floor, a mess on it, a wet one, and the tools for each
_FLOOR = re.compile(r"\b(?:floors?|floorboards|carpets?|rugs?|tiles|lino|deck|doormat|hallway|porch|patio)\b")
_FLOOR_MESS = re.compile(r"\b(?:crumbs?|dust|dusty|sand|sandy|grit|gritty|glitter|hair|fur|mud|muddy|dirt|dirty|mess|"
                         r"messy|filthy|tracked|trodden|walked|litter|bits|soil|sawdust|shavings|feathers|wet|soaking|"
                         r"soaked|puddle|puddles|spilt|spilled|spill|sticky|slippery|flooded|drips?|dripping|swimming)\b")
_WET_MESS = re.compile(r"\b(?:wet|soaking|soaked|puddles?|spilt|spilled|spill|sticky|slippery|flooded|drips?|"
                       r"dripping|swimming|water|juice|milk|coffee|tea|wine|soda|drink)\b")
_MOPS = frozenset({"mop", "squeegee"})
_SWEEPERS = frozenset({"broom", "vacuum", "hoover", "dustpan", "sweeper"})
#: (round 22, ``served_drink``) the plain needs that ask for a drink, and the kinds of drink preferred
_HOT_DRINK_NEED = re.compile(r"\bhot drink\b")
_THIRST_NEED = re.compile(r"\bthirsty\b")
_HOT_KINDS = frozenset({"tea", "coffee", "cocoa", "chocolate", "espresso", "latte", "cappuccino"})
_COLD_KINDS = frozenset({"juice", "lemonade", "soda", "coke", "cola", "pop", "squash", "smoothie"})
#: vessels a cold drink is drunk from as they are (not a watering can, a kettle or a bucket)
_DRINK_PACKS = frozenset({"bottle", "carton", "cartoon", "flask", "thermos", "canteen", "tetrapak", "pouch"})
#: (round 22, ``foul_liquid``) a liquid said to be dirty or foul, and the classes it is poured away into
_FOUL = re.compile(r"\b(?:dirty|filthy|grey|gray|murky|mucky|muddy|cloudy|scummy|slimy|stagnant|brackish|"
                   r"grim|horrible|disgusting|gross|rank|foul|minging|manky|skanky|yucky|revolting|"
                   r"smell(?:s|y|ing)?|stink(?:s|y|ing)?|pong(?:s|y|ing)?|reek(?:s|ing)?|whiff(?:y)?|"
                   r"(?:gone|turned|going|turning)\s+(?:green|brown|black|off)|dirtied)\b")
_DRAIN_WORDS = frozenset({"sink", "drain", "basin", "washbasin", "toilet", "gully", "plughole"})


def _things_at(view: SceneView, place: str) -> dict[str, str]:
    """The things on or in ``place`` now, each with its relation ("on" / "in"), people and robots
    left out (sorted: the initial state is a set, and a goal's text must not depend on its order)."""
    return {a.args[0]: a.predicate for a in sorted(view.init, key=lambda a: a.args)
            if a.predicate in ("on", "in") and len(a.args) == 2 and a.args[1] == place
            and a.args[0] not in view.humans and a.args[0] not in view.robots}


def _of_kind(noun: str, things: Sequence[str], view: SceneView) -> list[str]:
    """(round 23) Those of ``things`` whose class is a ``noun`` ("fish": the mackerel and the cod)
    by its own name's words or its WordNet hypernyms' (none without WordNet)."""
    wordnet = WordNet.load()
    forms = {noun, *((noun[:-1],) if noun.endswith("s") else ()), *((noun[:-2],) if noun.endswith("es") else ()),
             *((noun[:-3] + "y",) if noun.endswith("ies") else ())}
    out = []
    for o in things:
        cls = view.cls(o)
        words = set(cls.split("_")) | {w for b in (wordnet.broader(cls, 8) if wordnet else ()) for w in b.split("_")}
        if words & forms:
            out.append(o)
    return out


def _into_opened(text: str) -> str:
    """(round 23, ``into_opened``) "Open the kiln, pop the bowl from the wheel inside and close it
    up" -> "... pop the bowl from the wheel into the kiln ...": a thing put "in" or "inside" with no
    place said goes into the thing opened in an earlier clause."""
    low = text.lower().replace("’", "'")
    opened = _OPENED.search(low)
    if opened is None:
        return text
    put = _PUT_IN_BARE.search(low, opened.end())
    if put is None:
        return text
    return text[:put.start("in")] + "into " + opened.group("x") + text[put.end("in"):]


def _class_words(view: SceneView, obj: str) -> frozenset[str]:
    """(round 22) the words of an object's class name ("coffee_cup": coffee, cup)."""
    return frozenset(view.cls(obj).lower().split("_"))


def _drinking_vessels(lex: Lexicon) -> frozenset[str]:
    """(round 22) the scene's things people drink from (functions.yaml ``drink from``)."""
    return lex.function_words.get("drink from", (None, frozenset()))[1]


def _cold_places(view: SceneView) -> set[str]:
    """The scene's cold places (functions.yaml ``cold``: the fridge, the freezer)."""
    classes = set((functions_data().get("functions", {}).get("cold") or {}).get("places") or ())
    return {o for o, c in view.objects.items() if c in classes}


def _cup_rank(view: SceneView, cup: str, hot: bool) -> int:
    """(round 22, ``served_drink``) which cup a drink is served in first: a mug or cup for a hot
    drink, a glass or cup for a cold one, then any other."""
    words = _class_words(view, cup)
    prefer = ({"mug"}, {"cup", "teacup"}) if hot else ({"glass"}, {"cup", "tumbler"})
    return next((k for k, ws in enumerate(prefer) if words & ws), len(prefer))


#: (round 20) a plant said to need water, and the words for plants
_WATERING = re.compile(r"\b(?:water(?:s|ed|ing)?|drink|thirst|thirsty|dry|parched|droop(?:s|y|ing)?|wilt(?:s|ed|ing)?|"
                       r"flagging|dying)\b")
_PLANT_WORDS = frozenset({"plant", "houseplant", "flower", "flowers", "herb", "herbs", "seedling", "fern", "cactus",
                          "orchid", "bonsai", "succulent", "geranium", "basil", "tulips", "roses", "bouquet"})
#: (round 20) said to be cold right after it is named: "'s stone cold", " has gone cold", " is lukewarm"
_COLD_AFTER = re.compile(r"^(?:'s|'re|\s+(?:is|are|was|were|has|have|had|got|gets|went|seems|looks))?\s+"
                         r"(?:gone\s+|got\s+|been\s+|all\s+|a\s+bit\s+|really\s+|too\s+|so\s+|completely\s+|"
                         r"totally\s+|still\s+){0,2}(?:stone[\s-]+cold|cold|lukewarm|luke\s+warm|tepid|freezing|icy|"
                         r"not\s+(?:hot|warm)\s+enough)\b")
_PART_WORD = re.compile(r"(?:the\s+)?(?:door|lid|doors|lids)")
#: a closing step about the thing before: "shut it again", "put the lid back on", "close the door"
_STEP_BACK_REF = re.compile(r"\b(?:it|them|lid|again|door|back)\b")
_SOURCE_PRONOUN = re.compile(r"\b(?:from|out\s+of|off)\s+(?:it|them)\b", re.IGNORECASE)
_WITH_PRONOUN = re.compile(r"\bwith\s+(?:it|them|that|this)\b", re.IGNORECASE)
_PREP_BEFORE = re.compile(r"\b(?:in|into|on|onto|to|inside|at|under|beside|near|by|over|across|towards?|next\s+to|"
                          r"on\s+top\s+of|back\s+in|back\s+on)\s+(?:the\s+|a\s+|an\s+|my\s+|your\s+|our\s+|its\s+|"
                          r"their\s+|this\s+|that\s+)?(?:\w+\s+)?$")
#: "clear the plates off the table" (of two tables): taken from somewhere, a relation (round 6)
_TAKEN_OFF = re.compile(r"\b(?:clear|take|get|move|remove|empty)\b[^,.;]*\b(?:off|from|out\s+of)\s+(?:the|my|your|this|that)\b",
                        re.IGNORECASE)
_PUT = re.compile(r"\b(?:put|place|set|leave|drop|move|pop|stick|store|lay|hang)\b")
#: a plural pronoun as a verb's object ("put them both on the shelf"), not after a preposition
#: ("pour milk over them": a place) nor "one of them"
_PLURAL_PRONOUN = re.compile(r"(?<!\bin )(?<!\bon )(?<!\bof )(?<!\bto )(?<!\binto )(?<!\bonto )(?<!\bover )"
                             r"(?<!\bfrom )(?<!\bwith )(?<!\bunder )\b(?:them|those|these|both)\b", re.IGNORECASE)
_FILL = re.compile(r"\b(?:fill|refill|top\s+up|pour)\b", re.IGNORECASE)


def _kind(predicate: str) -> str:
    """Facts of one kind about one object replace each other (placements; open / closed)."""
    if predicate in ("on", "in", "inhand", "at"):
        return "place"
    if predicate in ("opened", "closed"):
        return "open"
    return predicate


def _state_verbs() -> dict[str, tuple[str, ...]]:
    return {p: tuple(v) for p, v in (functions().get("states") or {}).items()}


#: seconds the planner's optimal search (A*) gets on a candidate goal before its greedy search
#: takes over: A* that has not finished by then on a household goal rarely finishes at all
#: (clearing seven things into a sink: A* out of its 30 s, greedy 0.1 s)
OPTIMAL_SEARCH_S = 5.0


def plan_instruction(instruction: str, planning_task, planner, *, llm=None, options: SearchOptions = SearchOptions(),
                     encoder=None, usage=None, timeout: Optional[float] = None,
                     optimal_search_s: Optional[float] = OPTIMAL_SEARCH_S):
    """One instruction to a checked, solvable goal (the CLI's ``goal --strategy goalsearch``):
    returns ``(goal_text, plan_outcome, search_result)``; ``goal_text`` is None when no
    candidate plans. Goals are tried in rank order (semantic check, then the planner, whose
    optimal search gets ``optimal_search_s`` at most)."""
    planner = with_primary_bound(planner, optimal_search_s)
    if encoder is None and (options.embeddings or options.retrieval):
        encoder = shared_minilm()
    searcher = GoalSearcher(encoder, options=options)
    pt = planning_task
    res = searcher.search(instruction, pt.domain, pt.problem, llm=llm if options.lm_scoring else None, usage=usage)
    for g in res.goals:
        try:
            f = parse_goal(g.text)
            check_goal(f, pt.domain, pt.problem, typecheck=False)
            check_semantics(f, pt.domain, pt.problem, pt.skillset.semantic_conditions)
        except GoalError:
            continue
        out = plan_and_check(pt, g.text, planner, typecheck=False, timeout=timeout)
        if out.status == "solved":
            return g.text, out, res
    return None, None, res


__all__ = ["GoalCandidate", "GoalSearcher", "SearchOptions", "SearchResult", "plan_instruction"]
