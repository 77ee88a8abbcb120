"""Reliability and security (issue 12): LLM output is parsed, never executed; fuzzed
outputs through every parse-check path; resource bounds; malformed files with file:line;
the API key never stored."""

from __future__ import annotations

import pytest

from groundplan.datadir import data_dir

needs_vh = pytest.mark.skipif(not (data_dir(required=False) / "progprompt-vh").is_dir(),
                              reason="needs ../shared/data/progprompt-vh")


# ----------------------------------------------------------------------------- 4. never executed as code

VH_SKILLS = ("walk", "find", "grab", "open", "close", "putin", "put", "switchon", "standup")


@pytest.mark.parametrize("line", [
    "__import__('os').system('touch /tmp/groundplan_pwned')",
    "__import__(\"os\").system(\"echo hi\")",
    "eval(\"__import__('os').system('x')\")",
    "exec('import os')",
    "os.system('rm -rf /')",
    "grab('mug').__class__",
    "walk('kitchen'); __import__('os').system('x')",
    "grab(__import__('os'))",
    "fly('mug')",
    "putin('a', 'b', 'c')",
])
def test_pythonic_plan_parser_treats_code_as_an_invalid_step(line):
    from groundplan.methods.progprompt import parse_step

    assert parse_step(line, VH_SKILLS) is None


def test_pythonic_plan_parser_reads_calls():
    from groundplan.methods.progprompt import parse_step

    assert parse_step("putin('salmon', 'fridge')", VH_SKILLS) == ["putin", "salmon", "fridge"]
    assert parse_step("walk(kitchen);", VH_SKILLS) == ["walk", "kitchen"]
    assert parse_step("standup()", VH_SKILLS) == ["standup"]


@needs_vh
def test_progprompt_episode_with_import_line_records_an_invalid_step_and_runs_nothing(tmp_path):
    from groundplan.bench.datasets import load_tasks
    from groundplan.llm import ScriptedLLM
    from groundplan.methods import RunContext, get_method

    marker = tmp_path / "pwned"
    t = next(x for x in load_tasks("progprompt-env1") if x.instruction == "put chicken in the fridge")
    program = (f"\t# 1: walk\n\twalk('kitchen')\n\t__import__('os').system('touch {marker}')\n"
               f"\teval(\"open('{marker}', 'w')\")\n\tfind('fridge')\n")
    ep = get_method("progprompt").run(t, RunContext(llm=ScriptedLLM([program], cycle=True)))
    assert not marker.exists()
    steps = [e for e in ep.trace if e.get("type") == "step"]
    bad = [e for e in steps if "__import__" in e.get("code", "") or "eval" in e.get("code", "")]
    assert len(bad) == 2 and all(not e["ok"] and e["reason"].startswith("invalid step") and "command" not in e
                                 for e in bad)
    assert any(e.get("command", "").startswith("<char0> [walk]") for e in steps)
    assert ep.metrics["planned_steps"] == 4
