"""A method that cannot run on a task is refused up front, with its reason and exit 2
(issue 19, item 4): ``Method.supports`` per registered method, ``bench run`` before any episode."""

import sqlite3
import subprocess
import sys

import pytest
from conftest import KITCHEN

from groundplan.core.task import Task
from groundplan.methods import available_methods, method_class

GP = [sys.executable, "-m", "groundplan.cli.main"]


def user_task(goal=None, skillset="household"):
    return Task(id="user", dataset="", instruction="bring me the apple", scene_file=str(KITCHEN), goal=goal,
                skillset=skillset)


#: methods that run on a household task the user wrote (scene + instruction, no dataset fields)
HOUSEHOLD_NO_CHECK = {"goalsearch", "autogpt_p", "autogpt_p_no_correction", "autogpt_p_naive_alternative"}
#: ... and those that need a check goal there too (they write no goal of their own)
HOUSEHOLD_WITH_CHECK = HOUSEHOLD_NO_CHECK | {"oracle", "saycan", "saycan_oracle", "brainbody", "brainbody_nofb",
                                            "brainbody_gbnf", "brainbody_embed", "base_llm"}
REFUSED = {"wake_prompts", "cowp", "cowp_cw", "brainbody_oracle", "progprompt", "roblm", "llm_p"}


def test_every_registered_method_declares_what_it_runs_on():
    names = available_methods()
    assert REFUSED | HOUSEHOLD_NO_CHECK <= set(names)
    for name in names:
        cls = method_class(name)
        for task in (user_task(), user_task(goal="and (inhand apple0 human0)")):
            reason = cls.supports(task)
            assert reason is None or (f"'{name}'" in reason and "\n" not in reason), (name, reason)
    for name in HOUSEHOLD_NO_CHECK:
        assert method_class(name).supports(user_task()) is None, name
    for name in HOUSEHOLD_WITH_CHECK & set(names):
        assert method_class(name).supports(user_task(goal="and (inhand apple0 human0)")) is None, name
    for name in REFUSED:
        assert method_class(name).supports(user_task(goal="and (inhand apple0 human0)")) is not None, name


def test_oracle_needs_a_check_goal():
    why = method_class("oracle").supports(user_task())
    assert why is not None and "--check" in why
    assert method_class("goalsearch").supports(user_task()) is None


def test_skill_set_mismatch_names_both():
    why = method_class("wake_prompts").supports(user_task())
    assert "lfo / virtualhome" in why and "'household'" in why
    why = method_class("cowp").supports(user_task())
    assert "dining" in why


def test_bench_run_refuses_a_method_dataset_mismatch_before_any_episode(tmp_path):
    pytest.importorskip("groundplan.bench.datasets")
    db = tmp_path / "r.sqlite"
    r = subprocess.run([*GP, "bench", "run", "autogptp-saycan", "--method", "wake_prompts", "--llm", "scripted",
                        "--script", "{}", "--db", str(db), "--no-progress"], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 2, r.stderr
    assert "refused" in r.stderr and "wake_prompts" in r.stderr and "household" in r.stderr
    assert "Traceback" not in r.stderr
    if db.exists():
        with sqlite3.connect(db) as con:
            tables = {row[0] for row in con.execute("select name from sqlite_master where type='table'")}
            for t in tables & {"episodes", "runs"}:
                assert con.execute(f"select count(*) from {t}").fetchone()[0] == 0, t  # noqa: S608
