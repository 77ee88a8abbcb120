"""The held-out goal set (benchmarks/data/heldout_goals/, issue 21) is disjoint from every
example pool, prompt example and training file goalsearch uses, and so is the unseen-class
suite (benchmarks/data/unseen_classes/). An instruction counts as shared when it is equal
after normalisation (case, punctuation, spacing) or nearly so (word-set overlap >= 0.9 for
instructions of four or more words)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
HELDOUT_DIR = ROOT / "benchmarks" / "data" / "heldout_goals"
UNSEEN_DIR = ROOT / "benchmarks" / "data" / "unseen_classes"
PACKAGE = ROOT / "src" / "groundplan"
#: every file goalsearch learns or retrieves from: the example pools and generated training
#: data (package data), the small-model prompts, every other prompt template, and goal search's word
#: lists and construction table (knowledge/data/goalsearch)
TRAINING_DIRS = (PACKAGE / "data" / "examples", PACKAGE / "prompts", PACKAGE / "knowledge" / "data" / "goalsearch",
                 ROOT / "benchmarks" / "data" / "small_model_train")
#: libyaml where it is installed (the same data, parsed faster)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
TEXT_SUFFIXES = {".yaml", ".yml", ".txt", ".json", ".jsonl", ".csv", ".md", ".tsv"}


@lru_cache(maxsize=None)
def _norm(s: str) -> str:
    """Lower case, words only (cached: every test normalises the same training texts)."""
    return " ".join(re.findall(r"[a-z0-9']+", s.lower().replace("’", "'")))


@lru_cache(maxsize=None)
def _heldout(name: str) -> dict:
    """A held-out set file, parsed once per run; read only."""
    text = (HELDOUT_DIR / name).read_text()
    return yaml.load(text, Loader=_LOADER)


def _heldout_instructions() -> list[str]:
    files = sorted(HELDOUT_DIR.glob("heldout_*.yaml"))
    assert files, "no held-out set under benchmarks/data/heldout_goals/"
    out = []
    for f in files:
        out += [t["instruction"] for t in _heldout(f.name)["tasks"]]
    return out


def _strings(obj) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in _strings(v)]
    if isinstance(obj, (list, tuple)):
        return [s for v in obj for s in _strings(v)]
    return []


def _unseen_instructions() -> list[str]:
    """Instructions of helper H4's unseen-class suite (any YAML/JSON/CSV there; an
    ``instruction`` field or column)."""
    if not UNSEEN_DIR.exists():
        return []
    import csv
    import json

    out = []
    for f in sorted(UNSEEN_DIR.rglob("*")):
        if f.suffix in (".yaml", ".yml", ".json"):
            data = yaml.safe_load(f.read_text()) if f.suffix != ".json" else json.loads(f.read_text())
            out += _instruction_fields(data)
        elif f.suffix == ".jsonl":
            for line in f.read_text().splitlines():
                if line.strip():
                    out += _instruction_fields(json.loads(line))
        elif f.suffix == ".csv":
            with f.open(newline="") as fh:
                for row in csv.DictReader(fh):
                    out += [v for k, v in row.items() if k and k.lower() in ("instruction", "task") and v]
    return out


def _instruction_fields(obj) -> list[str]:
    if isinstance(obj, dict):
        return [v for k, v in obj.items() if k in ("instruction", "task") and isinstance(v, str)] + \
            [s for k, v in obj.items() if isinstance(v, (dict, list)) for s in _instruction_fields(v)]
    if isinstance(obj, list):
        return [s for v in obj for s in _instruction_fields(v)]
    return []


@lru_cache(maxsize=1)
def _training_texts() -> tuple[tuple[str, str], ...]:
    """(file, text) for every string of every training / pool / prompt file (read once per run)."""
    out = []
    for d in TRAINING_DIRS:
        if not d.exists():
            continue
        for f in sorted(d.rglob("*")):
            if f.suffix not in TEXT_SUFFIXES or not f.is_file():
                continue
            text = f.read_text(errors="replace")
            rel = str(f.relative_to(ROOT))
            if f.suffix in (".yaml", ".yml"):
                try:
                    out += [(rel, s) for s in _strings(yaml.load(text, Loader=_LOADER))]
                except yaml.YAMLError:
                    pass
            elif f.suffix == ".jsonl":
                import json

                out += [(rel, s) for line in text.splitlines() if line.strip() for s in _strings(json.loads(line))]
            out.append((rel, text))  # the whole file too (templates, few-shot blocks)
    return tuple(out)


def _overlap(a: str, b: str) -> float:
    wa, wb = set(a.split()), set(b.split())
    return len(wa & wb) / len(wa | wb) if wa and wb else 0.0


#: the word-set overlap at or above which two instructions count as nearly the same
NEAR = 0.9


class _NearIndex:
    """The evaluation instructions of four or more words, found by word-set overlap >= ``NEAR``
    without comparing every pair: two word sets whose overlap (Jaccard) is at least t share a word
    among the first ``|x| - ceil(t |x|) + 1`` words of each, in one fixed word order (prefix
    filtering), so only the instructions that share such a word with a text are compared, with
    ``_overlap`` itself. The result is the same as comparing every pair (tested below)."""

    def __init__(self, ev: dict[str, str]):
        self.sets = [(key, orig, frozenset(key.split())) for key, orig in ev.items() if len(key.split()) >= 4]
        freq: dict[str, int] = {}
        for _, _, ws in self.sets:
            for w in ws:
                freq[w] = freq.get(w, 0) + 1
        self.freq = freq  # rare words first: short candidate lists
        self.index: dict[str, list[int]] = {}
        for i, (_, _, ws) in enumerate(self.sets):
            for w in self._prefix(ws):
                self.index.setdefault(w, []).append(i)

    def _prefix(self, ws) -> list[str]:
        # one word fewer overlap than t |x| allows for floating-point slack: a longer prefix only
        # adds candidates, never loses a pair
        keep = len(ws) - max(int(NEAR * len(ws) - 1e-9), 0) + 1
        return sorted(ws, key=lambda w: (self.freq.get(w, 0), w))[:keep]

    def similar(self, n: str) -> list[tuple[str, str]]:
        ws = set(n.split())
        if not ws:
            return []
        cands = {i for w in self._prefix(ws) for i in self.index.get(w, ())}
        return [(self.sets[i][0], self.sets[i][1]) for i in sorted(cands) if _overlap(self.sets[i][0], n) >= NEAR]


def _shared(evaluation: list[str], training: list[tuple[str, str]]) -> list[str]:
    ev = {_norm(s): s for s in evaluation}
    near = _NearIndex(ev)
    phrases = [(key, orig) for key, orig in ev.items() if len(key.split()) >= 3]
    hits = []
    for rel, text in training:
        n = _norm(text)
        if n in ev:
            hits.append(f"{rel}: {ev[n]!r}")
            continue
        if len(n) > 400:  # a whole file: the evaluation sentence must not appear in it
            padded = f" {n} "
            hits += [f"{rel}: contains {orig!r}" for key, orig in phrases if f" {key} " in padded]
        else:
            hits += [f"{rel}: {text!r} ~ {orig!r}" for key, orig in near.similar(n)]
    return sorted(set(hits))


def _shared_every_pair(evaluation: list[str], training: list[tuple[str, str]]) -> list[str]:
    """``_shared`` comparing every pair (the reference the index is checked against)."""
    ev = {_norm(s): s for s in evaluation}
    hits = []
    for rel, text in training:
        n = _norm(text)
        if n in ev:
            hits.append(f"{rel}: {ev[n]!r}")
            continue
        if len(n) > 400:
            padded = f" {n} "
            hits += [f"{rel}: contains {orig!r}" for key, orig in ev.items() if len(key.split()) >= 3
                     and f" {key} " in padded]
        else:
            hits += [f"{rel}: {text!r} ~ {orig!r}" for key, orig in ev.items()
                     if len(key.split()) >= 4 and _overlap(key, n) >= NEAR]
    return sorted(set(hits))


#: the held-out sets in the order they were written: the first two have been seen since their
#: measurement, c and d were written before the goalsearch changes they measured, and e onward
#: were each written independently, before goalsearch ran on them (j to p reuse some AutoGPT+P
#: scenes, all 20 having been used by a to i); who wrote each set when, and what it measured:
#: benchmarks/results/small_model/heldout.md and docs/goalsearch-history.md
HELDOUT_FILES = ("heldout_2026-11-24.yaml", "heldout_2026-11-24b.yaml", "heldout_2026-11-24c.yaml",
                 "heldout_2026-11-24d.yaml", "heldout_2026-11-24e.yaml", "heldout_2026-11-24f.yaml",
                 "heldout_2026-11-24g.yaml", "heldout_2026-11-25h.yaml", "heldout_2026-11-25i.yaml",
                 "heldout_2026-11-25j.yaml", "heldout_2026-11-25k.yaml", "heldout_2026-11-25l.yaml",
                 "heldout_2026-11-27m.yaml", "heldout_2026-11-27n.yaml",
                 "heldout_2026-11-27o.yaml", "heldout_2026-11-27p.yaml",
                 "heldout_2026-11-27q.yaml", "heldout_2026-11-27r.yaml",
                 "heldout_2026-11-27s.yaml", "heldout_2026-11-28t.yaml",
                 "heldout_2026-11-28u.yaml", "heldout_2026-11-28v.yaml",
                 "heldout_2026-11-28w.yaml", "heldout_2026-11-28x.yaml", "heldout_2026-11-28y.yaml", "heldout_2026-11-28z.yaml", "heldout_2026-11-28aa.yaml")


@pytest.mark.parametrize("name", HELDOUT_FILES)
def test_heldout_set_is_large_and_dated(name):
    data = _heldout(name)
    assert str(data["date"]) == name[len("heldout_"):len("heldout_") + 10]  # the date in the file name
    tasks = data["tasks"]
    assert len(tasks) >= 80
    assert len({t["scene"] for t in tasks}) >= 6
    assert {t["family"] for t in tasks} >= {"imperative", "implicit", "multistep", "negation", "quantity", "all"}
    assert len({t["id"] for t in tasks}) == len(tasks)


@pytest.mark.parametrize("name", HELDOUT_FILES)
def test_heldout_goals_parse(name):
    from groundplan.pddl.goal import parse_goal

    for t in _heldout(name)["tasks"]:
        parse_goal(t["goal"])


def test_second_heldout_set_is_fresh():
    """Held-out b shares no instruction with the first set (which had been seen), has an
    unseen-class scene with an oracle map, and about a quarter implicit needs."""
    first, second = (_heldout(n) for n in HELDOUT_FILES[:2])
    shared = _shared([t["instruction"] for t in second["tasks"]],
                     [("heldout_2026-11-24.yaml", t["instruction"]) for t in first["tasks"]])
    assert shared == []
    assert any(sc["group"] == "unseen" and sc.get("oracle_oam") for sc in second["scenes"].values())
    implicit = sum(t["family"] == "implicit" for t in second["tasks"])
    assert 0.2 <= implicit / len(second["tasks"]) <= 0.35


def _assert_fresh(index: int, label: str, min_tasks: int, *, new_own_scenes: bool,
                  new_autogptp_scenes: bool = True, min_implicit: float = 0.2,
                  max_implicit: float = 0.35) -> None:
    """The set ``HELDOUT_FILES[index]`` repeats no instruction of the sets before it, uses
    AutoGPT+P scenes none of them used (unless ``new_autogptp_scenes`` is false: once all 20 were
    used, a set may reuse some with new instructions; and, with ``new_own_scenes``, none of their
    own scenes), has two unseen-class scenes each with an oracle map and two own default-map scenes,
    and about a quarter to a third implicit needs."""
    *earlier_sets, new = [_heldout(n) for n in HELDOUT_FILES[:index + 1]]
    earlier = [(n, t["instruction"]) for n, d in zip(HELDOUT_FILES, earlier_sets) for t in d["tasks"]]
    shared = _shared([t["instruction"] for t in new["tasks"]], earlier)
    assert shared == [], f"held-out {label} repeats earlier held-out instructions:\n" + "\n".join(shared)
    used_before = {sc["file"] for d in earlier_sets for sc in d["scenes"].values()}
    scenes = new["scenes"].values()
    autogptp = [sc for sc in scenes if sc["group"] == "autogptp"]
    assert len(autogptp) >= 3
    if new_autogptp_scenes:
        assert not {sc["file"] for sc in autogptp} & used_before
    if new_own_scenes:
        assert not {sc["file"] for sc in scenes if sc["group"] != "autogptp"} & used_before
    assert sum(sc["group"] == "unseen" and bool(sc.get("oracle_oam")) for sc in scenes) >= 2
    assert sum(sc["group"] == "own" for sc in scenes) >= 2
    assert len(new["tasks"]) >= min_tasks and len({t["scene"] for t in new["tasks"]}) >= 7
    implicit = sum(t["family"] == "implicit" for t in new["tasks"])
    assert min_implicit <= implicit / len(new["tasks"]) <= max_implicit


def _assert_disjoint(index: int, label: str) -> None:
    """Held-out set ``label`` (``HELDOUT_FILES[index]``) on its own against every pool, prompt and
    generated training file."""
    training = _training_texts()
    assert any("small_model_train" in rel for rel, _ in training), "the generated tuning data was not scanned"
    texts = [t["instruction"] for t in _heldout(HELDOUT_FILES[index])["tasks"]]
    shared = _shared(texts, training)
    assert shared == [], f"held-out {label} instructions found in pools / prompts / training data:\n" + "\n".join(shared)


#: sets c to k, each written before goalsearch ran on it (c: 90 tasks and the own scenes of a and b
#: allowed again; from d on: 110 tasks and own scenes no earlier set used)
_LATER_SETS = [(2, "c", 90, False), (3, "d", 110, True), (4, "e", 110, True), (5, "f", 110, True),
               (6, "g", 110, True), (7, "h", 110, True), (8, "i", 110, True), (9, "j", 110, True),
               (10, "k", 110, True), (11, "l", 110, True), (12, "m", 110, True),
               (13, "n", 105, True),  # n: 112 written, 3 copies removed before any run
               (14, "o", 105, True),
               (15, "p", 105, True),
               (16, "q", 105, True),
               (17, "r", 110, True),
               (18, "s", 110, True),
               (19, "t", 105, True),
               (20, "u", 105, True),
               (21, "v", 105, True),
               (22, "w", 100, True),
               (23, "x", 100, True),
               (24, "y", 100, True),
               (25, "z", 100, True),
               (26, "aa", 100, True)]
#: sets that reuse AutoGPT+P scenes of earlier sets (with new instructions): all 20 were used by a to i
_REUSES_AUTOGPTP_SCENES = {"j", "k", "l", "m", "n", "o", "p", "w"}  # (p: complex_kitchen_TV_snack, used by an earlier set;
# w: salad, used by s, chosen by the session that briefed w's helper, which missed it)
#: p's helper wrote the six families about evenly (19 of 110 implicit needs, 0.17), under the
#: quarter the earlier sets had; its per-family table says so
_MIN_IMPLICIT = {"p": 0.15}
#: w's helper was asked for about a third and wrote 42 of 115 (0.37), the hardest family a little
#: over-represented; its per-family table says so
_MAX_IMPLICIT = {"w": 0.37}


@pytest.mark.parametrize("index,label,min_tasks,new_own_scenes", _LATER_SETS, ids=[s[1] for s in _LATER_SETS])
def test_later_heldout_set_is_fresh(index, label, min_tasks, new_own_scenes):
    """Each later held-out set shares no instruction with the sets before it, uses AutoGPT+P scenes
    none of them used, has two unseen-class scenes each with an oracle map and two own default-map
    scenes, and about a quarter to a third implicit needs."""
    _assert_fresh(index, label, min_tasks, new_own_scenes=new_own_scenes,
                  new_autogptp_scenes=label not in _REUSES_AUTOGPTP_SCENES,
                  min_implicit=_MIN_IMPLICIT.get(label, 0.2), max_implicit=_MAX_IMPLICIT.get(label, 0.35))


@pytest.mark.parametrize("index,label", [s[:2] for s in _LATER_SETS], ids=[s[1] for s in _LATER_SETS])
def test_later_heldout_set_disjoint_from_pools_prompts_and_training_data(index, label):
    """Each later held-out set on its own against every pool, prompt and generated training file."""
    _assert_disjoint(index, label)


def test_heldout_disjoint_from_pools_prompts_and_training_data():
    training = _training_texts()
    assert any("goalsearch_pool" in rel for rel, _ in training), "the goalsearch pool was not scanned"
    shared = _shared(_heldout_instructions(), training)
    assert shared == [], "held-out instructions found in pools / prompts / training data:\n" + "\n".join(shared)


@pytest.mark.skipif(not UNSEEN_DIR.exists(), reason="no unseen-class suite yet (benchmarks/data/unseen_classes/)")
def test_unseen_class_suite_disjoint_from_pools_prompts_and_training_data():
    unseen = _unseen_instructions()
    assert unseen, f"no instructions found under {UNSEEN_DIR}"
    shared = _shared(unseen, _training_texts())
    assert shared == [], "unseen-class instructions found in pools / prompts / training data:\n" + "\n".join(shared)


def test_abstain_set_disjoint_from_pools_prompts_and_training_data():
    """The absent-object request set (benchmarks/data/abstain/, issue 48) is evaluation data too."""
    sets = sorted((ROOT / "benchmarks" / "data" / "abstain").glob("abstain_*.yaml"))
    assert sets, "no absent-object request set under benchmarks/data/abstain/"
    requests = [s for f in sets for s in _instruction_fields(yaml.safe_load(f.read_text()))]
    assert len(requests) >= 80
    shared = _shared(requests, _training_texts())
    assert shared == [], "absent-object requests found in pools / prompts / training data:\n" + "\n".join(shared)

def test_overlap_detector_catches_a_copy():
    """The check can fail: a pool line that is a held-out instruction with other punctuation."""
    ev = _heldout_instructions()[:3]
    fake = [("pool.yaml", ev[1].upper().rstrip(".") + "!")]
    assert _shared(ev, fake)


def test_near_index_finds_what_comparing_every_pair_finds():
    """The prefix-filtered search gives the same hits as comparing every pair: on near copies
    of held-out instructions (one word added, dropped or changed, words reordered) and on a
    sample of the real training texts."""
    import random

    ev = _heldout_instructions()
    rng = random.Random(7)
    picked = rng.sample(ev, 150)
    fakes = []
    for k, s in enumerate(picked):
        words = s.split()
        variants = [" ".join(words + ["please"]), " ".join(words[1:]), " ".join(reversed(words)),
                    " ".join(words[:-1] + ["thing"]), " ".join(words[:len(words) // 2])]
        fakes += [(f"fake{k}.yaml", v) for v in variants]
    training = fakes + list(rng.sample(_training_texts(), 800))
    fast, slow = _shared(ev[:300] + picked, training), _shared_every_pair(ev[:300] + picked, training)
    assert fast == slow
    assert len(fast) > 150  # the near copies are found (the check can fail)
