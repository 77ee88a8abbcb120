"""The episode record (docs/formats.md "Episode record"): ``status``, ``success``, ``error``
and ``reason`` follow the verdict, in ``groundplan run --json`` / ``--record``, in
``groundplan.run`` and in ``Episode.to_json``: an unverified run is not a failure, ``success``
means a check goal held after execution, ``error`` is null unless the run broke. Real runs of
the CLI on the demo kitchen: unverified, success, failed, refused and errored."""

import json
import os
import socket
import subprocess
import sys

import jsonschema
import pytest
from conftest import KITCHEN, ROOT

from groundplan.core.episode import Episode, settle_episode
from groundplan.core.verdict import Verdict, exit_code, record_fields, verdict_kind
from groundplan.schemas import load_schema

GP = [sys.executable, "-m", "groundplan.cli.main"]
COKE = "and (inhand coke0 human0)"


def gp(*args):
    return subprocess.run([*GP, *map(str, args)], capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env={**os.environ, "GROUNDPLAN_CACHE": os.devnull})


def run_json(*args):
    r = gp("run", "--scene", KITCHEN, "bring me a coke", "--json", *args)
    assert "Traceback" not in r.stderr, r.stderr
    return r, json.loads(r.stdout)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def assert_consistent(doc, returncode):
    """What every record must satisfy, whatever its verdict."""
    jsonschema.validate(doc, load_schema("episode"))
    kind = Verdict(doc["verdict_kind"])
    assert verdict_kind(doc["status"], doc["success"], doc["metrics"]) is kind
    assert doc["verdict"].split(":", 1)[0] == kind.value
    assert doc["success"] is (kind is Verdict.SUCCESS)
    assert (doc["error"] is not None) is (kind is Verdict.ERROR)
    assert (doc["reason"] is None) is (kind in (Verdict.SUCCESS, Verdict.UNVERIFIED))
    again = record_fields(doc["status"], doc["success"], doc["metrics"], doc["error"], doc["reason"])
    assert {k: doc[k] for k in again} == again  # derived fields are a fixed point
    assert returncode == exit_code(doc["status"], doc["success"], doc["metrics"])
    assert Episode.from_json(doc).to_json()["status"] == doc["status"]


def test_unverified_run_is_not_a_failure(tmp_path):
    rec = tmp_path / "ep.json"
    r, doc = run_json("--llm", "none", "--record", rec)
    assert r.returncode == 0, r.stderr
    assert_consistent(doc, r.returncode)
    assert doc["verdict"] == "goal holds (unverified)" and doc["status"] == "unverified"
    assert doc["success"] is False and doc["error"] is None and doc["reason"] is None
    assert doc["metrics"]["checked"] is False and doc["metrics"]["own_goal_held"] is True
    assert "failure" not in r.stdout[:120]  # the README's `--json | head -c 120`
    saved = json.loads(rec.read_text())
    assert {k: saved[k] for k in ("status", "success", "error", "verdict")} == \
        {k: doc[k] for k in ("status", "success", "error", "verdict")}
    assert saved["instruction"] == "bring me a coke" and saved["check"] is None


def test_checked_success():
    r, doc = run_json("--method", "oracle", "--llm", "none", "--check", COKE)
    assert r.returncode == 0, r.stderr
    assert_consistent(doc, r.returncode)
    assert (doc["status"], doc["success"], doc["error"], doc["reason"]) == ("success", True, None, None)


def test_failed_run_has_a_reason_not_an_error():
    r, doc = run_json("--llm", "none", "--check", "and (in banana0 trash_can0)")
    assert r.returncode == 1, r.stderr
    assert_consistent(doc, r.returncode)
    assert (doc["status"], doc["success"], doc["error"]) == ("failure", False, None)
    assert doc["reason"] == "goal not reached" and doc["verdict"] == "failure"
    assert doc["metrics"]["checked"] is True


def test_refused_run_is_a_record_and_one_line(tmp_path):
    rec = tmp_path / "refused.json"
    r, doc = run_json("--method", "oracle", "--llm", "none", "--record", rec)
    assert r.returncode == 2
    assert r.stderr.startswith("error: refused: method 'oracle' needs a check goal") and r.stderr.count("\n") == 1
    assert_consistent(doc, r.returncode)
    assert doc["status"] == "unsupported" and doc["success"] is False and doc["plan"] == []
    assert doc["error"].startswith("refused: method 'oracle'") and doc["verdict"] == f"error: {doc['error']}"
    assert json.loads(rec.read_text())["status"] == "unsupported"
    plain = gp("run", "--scene", KITCHEN, "bring me a coke", "--method", "oracle", "--llm", "none")
    assert plain.returncode == 2 and plain.stdout == "" and plain.stderr.startswith("error: refused: ")


def test_errored_run_unreachable_endpoint():
    url = f"http://127.0.0.1:{closed_port()}/v1"
    r, doc = run_json("--method", "autogpt_p", "--llm", "openai", "--model", "m", "--base-url", url,
                      "--retries", "0", "--timeout", "5", "--no-cache")
    assert r.returncode == 3, r.stderr
    assert_consistent(doc, r.returncode)
    assert doc["status"] == "error" and doc["success"] is False
    assert "cannot reach" in doc["error"] and doc["verdict"].startswith("error: cannot reach")
    assert doc["reason"] == doc["error"]


def test_bad_input_is_no_record():
    r = gp("run", "--scene", KITCHEN, "bring me a coke", "--json", "--check", "and (inhand cokee0 human0)")
    assert r.returncode == 2 and r.stdout == "" and "did you mean coke0?" in r.stderr


def test_old_record_reads_with_the_same_verdict():
    """A record written before the fields were derived: status failure, error 'goal not
    reached', beside an own goal that held with no check goal."""
    old = {"task_id": "run", "method": "goalsearch", "status": "failure", "success": False,
           "goal": "(and (inhand coke0 human0))", "plan": ["handover human0 coke0 robot0"],
           "metrics": {"checked": False, "own_goal_held": True}, "error": "goal not reached", "seed": 0,
           "verdict": "goal holds (unverified)"}
    ep = Episode.from_json(old)
    doc = ep.to_json()
    assert (doc["status"], doc["success"], doc["error"], doc["reason"]) == ("unverified", False, None, None)
    assert doc["verdict"] == old["verdict"]
    settled = settle_episode(ep)
    assert (settled.status, settled.error) == ("unverified", None) and settle_episode(settled) == settled


def test_python_run_returns_a_settled_episode():
    from groundplan import run, verdict

    ep = run("goalsearch", "bring me a coke", KITCHEN)
    assert verdict(ep) == "goal holds (unverified)"
    assert (ep.status, ep.success, ep.error, ep.reason) == ("unverified", False, None, None)
    ep = run("goalsearch", "bring me a coke", KITCHEN, check="and (in banana0 trash_can0)")
    assert (ep.status, ep.error, ep.reason) == ("failure", None, "goal not reached")


def _doc_table() -> list[list[str]]:
    text = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    section = text[text.index("## Episode record"):]
    head = section.index("| verdict | `verdict_kind` |")
    rows = []
    for line in section[head:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


@pytest.mark.parametrize("status,success,metrics,error", [
    ("success", True, {"checked": True}, None),
    ("failure", False, {"checked": False, "own_goal_held": True}, "goal not reached"),
    ("failure", False, {"checked": True}, "goal not reached"),
    ("unsolvable", False, {"checked": True}, "the planner proved the goal unreachable"),
    ("error", False, {}, "HTTP 500"),
    ("unsupported", False, {}, "refused: no check goal"),
    ("abstained", False, {"checked": False}, "no wrench in the scene; nearest: screwdriver0"),
    ("unsafe", False, {"checked": False}, "ethanol0 is flammable and toxic; not a drink"),
])
def test_formats_md_table_says_what_the_code_does(status, success, metrics, error):
    rec = record_fields(status, success, metrics, error)
    rows = {r[0]: r for r in _doc_table()}
    assert len(rows) == len(Verdict) + 1  # an error row and a refusal row
    key = {k: f"`{k}: <reason>`" for k in ("error", "abstained", "unsafe")}.get(rec["verdict_kind"],
                                                                                   f"`{rec['verdict_kind']}`")
    if status == "unsupported":
        key = "`error: refused: <why>`"
    _, kind_cell, status_cell, success_cell, error_cell, reason_cell, exit_cell = rows[key]
    assert kind_cell == f"`{rec['verdict_kind']}`"
    assert f"`{rec['status']}`" in status_cell
    assert success_cell == f"`{json.dumps(rec['success'])}`"
    assert (error_cell == "`null`") is (rec["error"] is None)
    assert (reason_cell == "`null`") is (rec["reason"] is None)
    assert int(exit_cell) == exit_code(status, success, metrics)
