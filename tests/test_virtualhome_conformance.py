"""Conformance with VirtualHome's evolving-graph executor (eai-eval), on a few EAI gold
programs chosen to cover walk / find / grab / open / putin / putback / switch / sit / pour /
putobjback. The full 342-program comparison is benchmarks/vh_conformance.py."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(importlib.util.find_spec("virtualhome_eval") is None,
                                reason="needs eai-eval (pip install --no-deps eai-eval==1.0.5)")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

PROGRAMS = ("1003_2", "549_2", "688_1")


@pytest.fixture(scope="module")
def compared():
    from vh_conformance import compare

    from groundplan.bench.datasets.eai import load_programs

    progs = {p.file_id: p for p in load_programs()}
    return {fid: compare(progs[fid]) for fid in PROGRAMS}


@pytest.mark.parametrize("fid", PROGRAMS)
def test_gold_program_agrees_with_the_evolving_graph(compared, fid):
    r = compared[fid]
    assert r["exec_agree"] and r["step_agree"], (r["ref_msg"], r["gp_msg"])
    assert r["goal_agree"], (r["ref_unsat"], r["gp_unsat"])
    assert r["message_agree"], (r["ref_msg"], r["gp_msg"])


def test_a_failing_gold_program_fails_the_same_way(compared):
    r = compared["688_1"]  # grabs a glass twice: "already grabbed"
    assert not r["ref_exec"] and not r["gp_exec"]
    assert "already grabbed" in r["gp_msg"]


@pytest.mark.slow
def test_eai_dataset_tasks():
    from groundplan.bench.datasets import load_tasks

    tasks = load_tasks("eai-virtualhome")
    assert len(tasks) == 342
    t = next(x for x in tasks if x.id == "27_2")
    assert t.skillset == "virtualhome" and "(switched_on washing_machine_1001)" in t.goal
    assert t.extras["gold_script"][0].startswith("[")
