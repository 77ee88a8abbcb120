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

import time
from importlib import resources
from typing import Any, Optional, Sequence

import numpy as np

from groundplan.errors import GoalError
from groundplan.knowledge.embedding import vocabulary_words
from groundplan.knowledge.uses import ClassUses
from groundplan.knowledge.wordnet import WordNet
from groundplan.llm.goal_search import score_goals
from groundplan.llm.minilm import shared_minilm
from groundplan.methods.small_model import completions, scoring, structures
from groundplan.methods.small_model.candidates import (
    CandidateAtom,
    CandidateOptions,
    SceneView,
    enumerate_atoms,
    scene_view,
)
from groundplan.methods.small_model.normalise import normalise
from groundplan.methods.small_model.options import SearchOptions
from groundplan.methods.small_model.pool import Example, Retriever
from groundplan.methods.small_model.records import GoalCandidate, SearchResult
from groundplan.methods.small_model.request import parse_request
from groundplan.methods.small_model.scene_lexicon import Lexicon
from groundplan.pddl.goal import check_goal, parse_goal
from groundplan.pddl.model import Domain, Problem
from groundplan.pddl.semantics import check_semantics
from groundplan.planners import with_primary_bound
from groundplan.sim.pipeline import plan_and_check


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
        #  with the affordances of the scene's classes: the same scene under another
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

    # ------------------------------------------------------------------ search

    def search(self, instruction: str, domain: Domain, problem: Problem, *, llm=None, usage=None) -> SearchResult:
        """The ranked candidate goals for ``instruction`` in the scene, stage by stage."""
        t0 = time.perf_counter()
        view, cands, emb, owner, lex = self.scene(domain, problem)
        timings = {"scene": time.perf_counter() - t0}
        if not cands:
            return SearchResult([], "none", timings=timings)
        t1 = time.perf_counter()
        said = normalise(instruction, view, lex, self.options)
        req = parse_request(said, view, lex, self.options)
        sc = scoring.score(self, req, cands, emb, owner, view, lex)
        timings["score"] = time.perf_counter() - t1
        goals, structure, clauses = structures.compose(self, req, sc, cands, emb, owner, view, lex) \
            if self.options.decomposition else ([], "single", ())
        scores, order, near = sc.scores, sc.order, sc.near
        instruction = req.instruction
        singles = [GoalCandidate((cands[i].atom,), float(scores[i]), "single") for i in order[:max(self.options.max_goals,
                                                                                                   self.options.lm_top)]]
        close = len(singles) < 2 or self.options.lm_margin <= 0 or \
            singles[0].score - singles[1].score < self.options.lm_margin
        if structure == "single" and llm is not None and self.options.lm_scoring and close:
            t2 = time.perf_counter()
            singles = self._lm_rerank(instruction, singles, near, llm, usage, goals)
            timings["lm"] = time.perf_counter() - t2
        ranked = completions.complete(self, req, sc, goals, singles, structure, cands, view, lex)
        timings["total"] = time.perf_counter() - t0
        return SearchResult(ranked[:self.options.max_goals], structure, clauses,
                            tuple((e.instruction, round(s, 3)) for e, s in near[:self.options.k_shots]), timings,
                            request=req)

    # ------------------------------------------------------------------ structures

    _DETS = ("the", "a", "an", "my", "some", "your", "that", "this", "these", "those", "both")

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


def _unplaced(view: SceneView, objects, is_a) -> frozenset[str]:
    """The carried things the scene puts nowhere: not on or in anything, not held, not a place."""
    places = set(view.place.values())
    agents = set(view.humans) | set(view.robots)
    return frozenset(o for o in objects if o not in agents and o not in view.place and o not in places
                     and is_a(o, "carry") and not is_a(o, "location"))


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
