"""goalsearch's frozen behaviour (benchmarks/goalsearch_golden.py, issue 48): the golden file
parses, names the code it came from, covers every set it claims with the sets' own counts;
``compare`` lists the first goals that changed; the absent-object request set is sound."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml
from conftest import needs_data

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import goalsearch_golden as G  # noqa: E402

ROW_KEYS = {"set", "task", "instruction", "goal", "success", "verdict", "status", "seconds"}


def _meta() -> dict:
    return json.loads(G.META.read_text())


def test_golden_file_parses_and_names_its_code():
    meta = _meta()
    assert re.fullmatch(r"[0-9a-f]{40}", meta["commit"])
    assert re.fullmatch(r"[0-9a-f]{40}", meta["code_commit"])
    assert meta["code_dirty"] is False
    # every module of methods/small_model is identified by its hash
    assert set(meta["sha256"]) >= {"search.py", "mentions.py", "method.py", "needs.py", "candidates.py"}
    assert all(re.fullmatch(r"[0-9a-f]{64}", h) for h in meta["sha256"].values())
    rows = G.read_rows()
    assert rows, "empty golden file"
    for r in rows:
        assert ROW_KEYS <= set(r), f"row {r.get('set')}:{r.get('task')} lacks {ROW_KEYS - set(r)}"
        assert isinstance(r["success"], bool)
        assert r["success"] == (r["verdict"] == "success")
    keys = [(r["set"], r["task"]) for r in rows]
    assert len(keys) == len(set(keys)), "a task frozen twice"


def test_meta_hashes_are_those_of_its_commit():
    """The frozen code is identified: a clean export of the meta's commit has its hashes."""
    meta = _meta()
    sha, dest = G.export_commit(meta["commit"])
    assert sha == meta["commit"]
    assert G.code_hashes(dest / G.CODE_REL) == meta["sha256"]


def test_an_unknown_commit_is_bad_input(capsys):
    assert G.main(["compare", "--at", "no-such-commit"]) == 2
    assert "no commit 'no-such-commit'" in capsys.readouterr().err


@needs_data
def test_golden_file_covers_every_set_it_claims():
    meta, rows = _meta(), G.read_rows()
    per_set = Counter(r["set"] for r in rows)
    assert set(per_set) <= set(G.golden_sets())
    claimed = [s for s, info in meta["sets"].items() if info.get("complete")]
    assert {"unseen-classes", "saycan", "plan-tool"} <= set(claimed)
    for s in claimed:
        tasks = G.tasks_for(s)
        assert meta["sets"][s]["tasks"] == len(tasks) == per_set[s], s
        assert {r["task"] for r in rows if r["set"] == s} == {t.id for t in tasks}, s
        assert meta["sets"][s]["success"] == sum(r["success"] for r in rows if r["set"] == s), s


def test_unseen_suite_count_matches_its_file():
    data = yaml.safe_load((ROOT / "benchmarks" / "data" / "unseen_classes" / "instructions.yaml").read_text())
    assert len(G.tasks_for(G.UNSEEN)) == len(data["instructions"])


def test_every_heldout_file_is_a_golden_set_with_its_oracle_variant():
    files = sorted(p.name for p in (ROOT / "benchmarks" / "data" / "heldout_goals").glob("heldout_*.yaml"))
    named = {p.name for p in G.H.HELDOUT_FILES.values()}
    assert set(files) == named
    sets = G.golden_sets()
    for name in G.H.HELDOUT_FILES:
        assert name in sets and f"{name}-oracle" in sets


def test_unknown_set_is_named_with_a_suggestion():
    with pytest.raises(ValueError, match="did you mean heldout-aa"):
        G.parse_sets("heldout-aaa")
    assert G.main(["compare", "--sets", "nope-set"]) == 2


def test_a_line_cut_short_by_a_killed_run_is_ignored(tmp_path):
    p = tmp_path / "golden.jsonl"
    p.write_text(json.dumps({"set": "s", "task": "1"}) + "\n" + '{"set": "s", "ta')
    assert [r["task"] for r in G.read_rows(p)] == ["1"]
    p.write_text('{"set": "s", "ta\n' + json.dumps({"set": "s", "task": "1"}) + "\n")
    with pytest.raises(ValueError, match=":1: not a JSON line"):
        G.read_rows(p)


@pytest.mark.slow
def test_compare_lists_a_changed_first_goal(tmp_path, monkeypatch, capsys):
    """On three instructions of the unseen-class suite (the encoder runs): a golden row whose goal
    differs from today's is listed as changed, with the success before and after."""
    rows = [r for r in G.read_rows() if r["set"] == G.UNSEEN][:3]
    assert len(rows) == 3
    rows[1] = dict(rows[1], goal="(and (opened nothing0))", success=False, verdict="failure")
    golden, meta = tmp_path / "golden.jsonl", tmp_path / "meta.json"
    golden.write_text("".join(json.dumps(r) + "\n" for r in rows))
    meta.write_text(G.META.read_text())
    monkeypatch.setattr(G, "GOLDEN", golden)
    monkeypatch.setattr(G, "META", meta)
    out = tmp_path / "compare.md"
    assert G.main(["compare", "--sets", G.UNSEEN, "--limit", "3", "--out", str(out)]) == 0
    text = out.read_text()
    assert f"| {G.UNSEEN} | 3 | 3 | 1 | 2 | 3 |" in text, text
    assert f"- {rows[1]['task']} (gained)" in text
    assert rows[0]["task"] not in text.split("## ", 1)[1]


# --- the absent-object request set (issue 48, written before any abstain work)

def _abstain() -> list[dict]:
    return yaml.safe_load(G.ABSTAIN_FILE.read_text())["tasks"]


def test_abstain_set_is_large_enough_and_balanced():
    tasks = _abstain()
    refuse = [t for t in tasks if t["expect"] == "refuse"]
    control = [t for t in tasks if t["expect"] == "act"]
    assert len(refuse) >= 40 and len(control) >= 40
    assert len(refuse) + len(control) == len(tasks)
    assert len({t["scene"] for t in refuse}) >= 5
    assert {t["scene"] for t in control} == {t["scene"] for t in refuse}
    assert {t["family"] for t in refuse} == {"absent-class", "unmet-need"}
    assert all(t["goal"] is None and isinstance(t["nearest"], list) for t in refuse)
    assert len({t["id"] for t in tasks}) == len(tasks)


def test_abstain_controls_have_gold_goals_that_parse():
    from groundplan.pddl.goal import parse_goal

    for t in _abstain():
        if t["expect"] == "act":
            parse_goal(t["goal"])


def test_abstain_refusals_name_what_the_scene_lacks():
    """Every absent class is absent from its scene and every nearest alternative is in it (the
    check can fail: a class the scene has is reported)."""
    items = G.abstain_items()
    for t, e in items:
        objs = G._scene_objects(t.scene_file)
        if e["expect"] == "refuse":
            if e["family"] == "absent-class":
                assert not [o for o in objs if G._class_of(o) == e["absent"]], t.id
            assert set(e["nearest"]) <= objs, t.id
    kitchen = next(t for t, e in items if e["scene"] == "kitchen")
    assert any(G._class_of(o) == "coke" for o in G._scene_objects(kitchen.scene_file))


def test_refusal_is_read_from_status_or_verdict():
    assert G.is_refusal({"status": "abstained", "verdict": "no plan"})
    assert G.is_refusal({"status": "no_plan", "verdict": "refused: no wrench in the scene"})
    assert not G.is_refusal({"status": "success", "verdict": "goal holds (unverified)"})


@pytest.mark.slow
def test_abstain_control_goals_are_reachable(capsys):
    assert G.abstain_check() == 0
    assert "0 unsound entries" in capsys.readouterr().out
