"""The construction table (src/groundplan/knowledge/data/goalsearch/constructions.yaml): every
language construction, cue and completion goalsearch knows is one entry naming its rules
(methods/small_model/rules.py), its stage and the sentences it must handle. These tests check the
table's form, that it covers every rule, that each example sentence gives its goal as the first
goal, and that each entry's examples need it: with the entry's rules switched off, the first goal
of at least one example changes (entries marked ``needed_by_examples: false`` say why not)."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from importlib import resources
from pathlib import Path

import pytest
import yaml

from groundplan.methods.small_model.options import SearchOptions
from groundplan.methods.small_model.rules import RULES

ROOT = Path(__file__).resolve().parent.parent
STAGES = ("normalise", "parse", "score", "structure", "complete")
ENTRY_KEYS = {"name", "stage", "rules", "description", "examples", "needed_by_examples", "note"}
EXAMPLE_KEYS = {"scene", "oam", "strict", "said", "goal"}


def load_table() -> list[dict]:
    text = resources.files("groundplan.knowledge").joinpath("data/goalsearch/constructions.yaml").read_text()
    return yaml.safe_load(text)["constructions"]


TABLE = load_table()


def entry_problems(entry, index: int) -> list[str]:
    """What is wrong with one entry, each as one line naming the entry and the field at fault."""
    if not isinstance(entry, dict):
        return [f"entry #{index}: not a mapping"]
    who = f"entry {entry.get('name', '#' + str(index))!r}"
    bad = []
    for key in sorted(set(entry) - ENTRY_KEYS):
        bad.append(f"{who}: unknown field {key!r}")
    if not isinstance(entry.get("name"), str) or not entry.get("name"):
        bad.append(f"{who}: field 'name' must be a non-empty string")
    if entry.get("stage") not in STAGES:
        bad.append(f"{who}: field 'stage' must be one of {', '.join(STAGES)} (got {entry.get('stage')!r})")
    rules = entry.get("rules")
    if not isinstance(rules, list) or not rules or not all(isinstance(r, str) for r in rules):
        bad.append(f"{who}: field 'rules' must be a non-empty list of rule names")
    desc = entry.get("description")
    if not isinstance(desc, str) or not desc.strip() or "\n" in desc.strip():
        bad.append(f"{who}: field 'description' must be one line of text")
    needed = entry.get("needed_by_examples", True)
    if not isinstance(needed, bool):
        bad.append(f"{who}: field 'needed_by_examples' must be true or false")
    elif not needed and not (isinstance(entry.get("note"), str) and entry["note"].strip()):
        bad.append(f"{who}: field 'note' must say why the examples do not need the entry")
    examples = entry.get("examples")
    if not isinstance(examples, list) or not examples:
        bad.append(f"{who}: field 'examples' must be a non-empty list")
        return bad
    for k, ex in enumerate(examples):
        at = f"{who}: examples[{k}]"
        if not isinstance(ex, dict):
            bad.append(f"{at}: not a mapping")
            continue
        for key in sorted(set(ex) - EXAMPLE_KEYS):
            bad.append(f"{at}: unknown field {key!r}")
        for key in ("scene", "said", "goal"):
            if not isinstance(ex.get(key), str) or not ex[key].strip():
                bad.append(f"{at}: field {key!r} must be a non-empty string")
        for key in ("scene", "oam"):
            if isinstance(ex.get(key), str) and not (ROOT / ex[key]).is_file():
                bad.append(f"{at}: field {key!r}: no file {ex[key]}")
        if "strict" in ex and not isinstance(ex["strict"], bool):
            bad.append(f"{at}: field 'strict' must be true or false")
        goal = ex.get("goal")
        if isinstance(goal, str) and not (goal.startswith("(and ") and goal.endswith(")")):
            bad.append(f"{at}: field 'goal' must be goalsearch's first goal as PDDL text, '(and ...)'")
    return bad


def test_the_table_has_the_schema():
    bad = [line for i, entry in enumerate(TABLE) for line in entry_problems(entry, i)]
    names = [e.get("name") for e in TABLE if isinstance(e, dict)]
    bad += [f"entry {n!r}: field 'name' is not unique" for n in sorted({n for n in names if names.count(n) > 1})]
    assert not bad, "\n".join(bad)


def test_the_schema_check_names_the_entry_and_field():
    entry = {"name": "x", "stage": "parse", "rules": ["spills"], "description": "d",
             "examples": [{"scene": "examples/scenes/kitchen.yaml", "said": "s", "goal": "(on a b)"}]}
    assert entry_problems(entry, 0) == ["entry 'x': examples[0]: field 'goal' must be goalsearch's first goal as "
                                        "PDDL text, '(and ...)'"]
    assert entry_problems({**entry, "stage": "parsing"}, 0)[0].startswith("entry 'x': field 'stage'")
    assert entry_problems({**entry, "needed_by_examples": False}, 0)[0] == \
        "entry 'x': field 'note' must say why the examples do not need the entry"


def test_every_rule_is_in_the_table_and_every_named_rule_exists():
    named = [r for e in TABLE for r in e["rules"]]
    unknown = sorted(set(named) - set(RULES))
    missing = sorted(set(RULES) - set(named))
    assert not unknown, f"rules the table names that rules.py lacks: {unknown}"
    assert not missing, f"rules of rules.py no entry names: {missing}"


class _Runner:
    """One GoalSearcher for every example (its options swapped per run) and each scene built once."""

    def __init__(self, encoder):
        from groundplan.methods.small_model.search import GoalSearcher

        self.searcher = GoalSearcher(encoder)
        self.default = SearchOptions()

    @staticmethod
    @lru_cache(maxsize=None)
    def scene(path: str, oam: str | None, strict: bool):
        from groundplan.sim.pipeline import build

        return build(str(ROOT / path), oam_file=str(ROOT / oam) if oam else None, strict=strict)

    def first(self, example: dict, off: frozenset[str] = frozenset()) -> str | None:
        task = self.scene(example["scene"], example.get("oam"), example.get("strict", True))
        self.searcher.options = replace(self.default, rules=self.default.rules - off) if off else self.default
        res = self.searcher.search(example["said"], task.domain, task.problem)
        return res.goals[0].text if res.goals else None


@pytest.fixture(scope="module")
def runner(encoder):
    return _Runner(encoder)


@pytest.mark.parametrize("entry", TABLE, ids=[str(e.get("name", i)) for i, e in enumerate(TABLE)])
def test_the_entry_sentences_give_their_goals_and_need_the_entry(runner, entry):
    wrong = [f"{ex['said']!r} in {ex['scene']}: first goal {got} (the table says {ex['goal']})"
             for ex in entry["examples"] if (got := runner.first(ex)) != ex["goal"]]
    assert not wrong, "\n".join(wrong)
    if entry.get("needed_by_examples", True):
        off = frozenset(entry["rules"])
        assert any(runner.first(ex, off) != ex["goal"] for ex in entry["examples"]), \
            f"entry {entry['name']!r}: with {sorted(off)} off, no example's first goal changes"
