"""The robot's skill layer for plans written in words (LMZSP, ProgPrompt, Inner Monologue):
one step - "grab the mug", ``grab('mug')`` - becomes one action of the task's domain, or
nothing.

A step names a skill by its verb (``verbs`` in prompts/cowp/actions.yaml: grab, hold, take
out -> the ``grab`` family: hold_cup, grasp_plate, takeout_plate, ...) and objects by their
words (exact, else the head noun: "glass" -> "drinking glass"). Candidate actions are the
task's actions of that family whose parameters can take the named objects - typed as in
the true world, so an object people would not accept in a role (a frying pan as a cup)
cannot be used in that role's actions. The other parameters are filled from the state;
a binding whose precondition holds now is preferred, else the first one that fits the
types (the step then fails in the executor, with the reason). "walk to the table" walks to
the table's room when no walk action takes the table."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Optional, Sequence

from groundplan.prompts.cowp import actions_data

from .world import SituationWorld, Trial


@dataclass(frozen=True)
class Grounding:
    step: Optional[str]
    reason: str = ""


_ARTICLES = {"the", "a", "an", "some", "to", "into", "in", "on", "up", "out", "of", "with", "from", "at", "back",
             "floor", "area", "ground", "water", "room", "it", "them"}


def _norm(text: str) -> str:
    t = text.lower().replace("_", " ")
    t = re.sub(r"^\s*(step\s*\d+\s*[:.)-]?|\d+\s*[:.)-])\s*", "", t)
    return " " + re.sub(r"[^a-z0-9 ]+", " ", t).strip() + " "


class Grounder:
    def __init__(self, trial: Trial):
        self.trial = trial
        data = actions_data()
        fams = data.get("families") or {}
        self.family = {a.name: fams.get(a.name, a.name.split("_")[0]) for a in trial.domain.actions}
        self.verbs = sorted(((phrase, fam) for fam, phrases in data["verbs"].items() for phrase in phrases),
                            key=lambda x: -len(x[0]))
        skip = {trial.robot}
        self.objects = [o for o in trial.true_problem.objects if o not in skip]
        self.words = {o: trial.word(o) for o in self.objects}
        for loc in trial.locations:
            self.words[loc] = loc

    # ------------------------------------------------------------------ parsing
    def verb(self, text: str) -> Optional[tuple[str, str]]:
        t = _norm(text)
        for phrase, fam in self.verbs:  # at the start first
            if t.startswith(f" {phrase} "):
                return phrase, fam
        best = None
        for phrase, fam in self.verbs:
            i = t.find(f" {phrase} ")
            if i >= 0 and (best is None or i < best[0]):
                best = (i, phrase, fam)
        return (best[1], best[2]) if best else None

    def mentions(self, text: str) -> list[str]:
        """Objects named in ``text``, in order of mention (longest words first per position)."""
        return [o for _, o in self.mention_spans(text)]

    def mention_spans(self, text: str) -> list[tuple[int, str]]:
        t = _norm(text)
        found: list[tuple[int, str]] = []
        taken: list[tuple[int, int]] = []
        by_len = sorted(self.objects, key=lambda o: -len(self.words[o]))
        for o in by_len:
            w = self.words[o]
            for m in re.finditer(rf" {re.escape(w)} ", t):
                span = (m.start() + 1, m.end() - 1)  # the words, not the spaces around them
                if any(a < span[1] and span[0] < b for a, b in taken):
                    continue
                found.append((m.start(), o))
                taken.append(span)
                break
        if not found:  # head nouns: "glass" for "drinking glass"
            for o in by_len:
                head = self.words[o].split()[-1]
                m = re.search(rf" {re.escape(head)} ", t)
                if m and not any(a < m.end() - 1 and m.start() + 1 < b for a, b in taken):
                    found.append((m.start(), o))
        found.sort()
        out: list[tuple[int, str]] = []
        for pos, o in found:
            if o not in [x for _, x in out]:
                out.append((pos, o))
        return out

    # ------------------------------------------------------------------ grounding
    def ground(self, text: str, world: SituationWorld) -> Grounding:
        v = self.verb(text)
        if v is None:
            return Grounding(None, f"no skill for '{text.strip()}'")
        phrase, fam = v
        spans = self.mention_spans(text)
        objs = [o for _, o in spans]
        t = _norm(text)
        rest = t[t.find(f" {phrase} ") + len(phrase) + 1:]
        rest_words = [w for w in rest.split() if w not in _ARTICLES]
        if rest_words:
            start = t.find(f" {rest_words[0]} ", t.find(f" {phrase} ") + len(phrase))
            if not spans or all(p_ != start for p_, _ in spans):
                return Grounding(None, f"there is no {rest_words[0]} the robot knows of")
        named = [o for o in objs if o not in self.trial.locations]
        locs = [o for o in objs if o in self.trial.locations]
        cands = [a for a in self.trial.true_domain.actions if self.family.get(a.name) == fam]
        if not cands:
            return Grounding(None, f"the robot cannot {v[0]} in this task")
        if fam == "walk" and not locs and named:
            room = self._room_of(named[0], world)
            if room is not None and not any(self._fits(a, named[:1]) for a in cands):
                locs, named = [room], []
        found = self._bind(cands, named, locs, world)
        if found is None and fam == "walk" and locs and named:  # "walk to the dining table": the room
            found = self._bind(cands, [], locs, world)
        if found is None:
            what = " and ".join(self.trial.word(o) for o in named) or "that"
            return Grounding(None, f"the robot cannot {v[0]} {what}")
        return Grounding(found)

    def _room_of(self, obj: str, world: SituationWorld) -> Optional[str]:
        for f in world.ex.facts:
            if f.predicate.endswith("_at") and len(f.args) == 2 and f.args[0] == obj and f.args[1] in self.trial.locations:
                return f.args[1]
        return None

    def _fits(self, action, objs: Sequence[str]) -> bool:
        d, p = self.trial.true_domain, self.trial.true_problem
        params = [q for q in action.parameters if q.name != "?actor"]
        for o in objs:
            t = p.type_of(d, o)
            if t is None or not any(d.types.is_subtype(t, q.type) for q in params):
                return False
        return True

    def _bind(self, cands, named: list[str], locs: list[str], world: SituationWorld) -> Optional[str]:
        d, p = self.trial.true_domain, self.trial.true_problem
        first_fit: Optional[str] = None
        for a in cands:
            params = [q for q in a.parameters if q.name != "?actor"]
            pools = []
            for q in params:
                pool = p.objects_of_type(d, q.type)
                pools.append([o for o in pool if o != self.trial.robot])
            for combo in itertools.islice(itertools.product(*pools), 5000):
                if any(o not in combo for o in named):
                    continue
                if locs and not all(loc in combo for loc in locs):
                    continue
                if fam_walk_to(a.name, params, combo, locs):
                    continue
                step = " ".join((a.name, *combo, self.trial.robot))
                if world.ex.check(step).ok:
                    return step
                if first_fit is None:
                    first_fit = step
        return first_fit


def fam_walk_to(name: str, params, combo, locs) -> bool:
    """For ``walk l1 l2`` a named room is where to go (l2), not where to come from."""
    return name == "walk" and bool(locs) and combo[1] != locs[-1]


__all__ = ["Grounder", "Grounding"]
