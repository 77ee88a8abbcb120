"""Resource bounds come from configuration (groundplan.limits) and reach every reader."""

import subprocess
import sys

import pytest

from groundplan import limits as gl
from groundplan.errors import ConfigError, GoalError, GoalErrorKind
from groundplan.pddl import parse_goal


def test_limits_load_from_a_toml_file(tmp_path):
    f = tmp_path / "groundplan.toml"
    f.write_text("[llm]\nbackend = 'embedded'\n\n[limits]\nplanner_timeout = 7.5\nplan_max_steps = 12\n")
    lim = gl.load(f)
    assert lim.planner_timeout == 7.5 and lim.plan_max_steps == 12
    assert lim.goal_max_depth == gl.Limits().goal_max_depth  # untouched keys keep their defaults
    assert gl.discover(environ={gl.CONFIG_ENV: str(f)}) == lim
    assert gl.discover(environ={}, cwd=tmp_path) == lim  # ./groundplan.toml
    assert gl.discover(environ={}, cwd=tmp_path / "nowhere") == gl.Limits()


@pytest.mark.parametrize("text, needle", [
    ("[limits]\nplaner_timeout = 5\n", "unknown limit 'planer_timeout'"),
    ("[limits]\nplanner_timeout = 'x'\n", "limit 'planner_timeout' must be a number"),
    ("[limits]\nplan_max_steps = 2.5\n", "limit 'plan_max_steps' must be an integer"),
    ("[limits]\ngoal_max_depth = 0\n", "must be a positive number"),
    ("[limits]\nplan_max_steps = true\n", "must be an integer"),
    ("limits = 3\n", "'limits' must be a table"),
    ("[limits\n", "line 1"),
])
def test_bad_limits_files_name_the_file_and_key(tmp_path, text, needle):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    with pytest.raises(ConfigError) as exc:
        gl.load(f)
    assert str(f) in str(exc.value) and needle in str(exc.value)


def test_limits_in_force_reach_the_parsers():
    from groundplan.llm.config import LLMConfig
    from groundplan.methods.base_llm import read_commands
    from groundplan.methods.brainbody.agents import parse_plan
    from groundplan.methods.wake_prompts.schema import AnswerFormatError, extract_answer

    nested = "(and (and (and (and (inhand apple0 human0)))))"
    parse_goal(nested)
    steps = "\n".join(f"{i}: walk to the kitchen" for i in range(1, 100))
    with gl.use(gl.Limits(goal_max_depth=3, plan_max_steps=5, answer_max_chars=50, llm_max_output_chars=77)):
        with pytest.raises(GoalError) as exc:
            parse_goal(nested)
        assert exc.value.kind == GoalErrorKind.TOO_LARGE and "goal_max_depth" in str(exc.value)
        assert len(parse_plan(steps)) == 5
        assert len(read_commands("\n".join("<char0> [walk] <kitchen> (1)" for _ in range(50)))) == 5
        with pytest.raises(AnswerFormatError, match="answer_max_chars"):
            extract_answer('{"task_cohesion": "' + "x" * 100 + '"}')
        assert LLMConfig().max_output_chars == 77
    assert gl.current() == gl.Limits()  # restored
    assert len(parse_plan(steps)) == gl.Limits().plan_max_steps


def test_translation_is_bounded_by_the_planner_timeout(kitchen_task):
    """The default planner translates in a bounded child: past the bound, TIMEOUT with a reason."""
    from groundplan.planners import PlannerLimits, PlanStatus, get_planner

    planner = get_planner("fast-downward", limits=PlannerLimits(timeout=0.001))
    res = planner.plan(kitchen_task.domain, kitchen_task.problem.with_goal(parse_goal("and (inhand apple0 human0)")))
    assert res.status == PlanStatus.TIMEOUT and "planner_timeout" in res.error
    ok = get_planner("fast-downward").plan(kitchen_task.domain,
                                           kitchen_task.problem.with_goal(parse_goal("and (inhand apple0 human0)")))
    assert ok.solved


_MEMORY_PROBE = """
import sys
from groundplan.errors import PlannerError
from groundplan.pddl import parse_goal
from groundplan.pddl.writer import write_domain, write_problem
from groundplan.planners.fast_downward import translate_bounded
from groundplan.sim.pipeline import build

t = build(sys.argv[1])
dom, prob = write_domain(t.domain), write_problem(t.problem.with_goal(parse_goal("and (inhand apple0 human0)")))
try:
    sas, _ = translate_bounded(dom, prob, timeout=60, memory_mb=int(sys.argv[2]))
    print("ok", sas.startswith("begin_version"))
except PlannerError as exc:
    print("error", exc)
"""


def test_translation_memory_bound_is_reported():
    """A fresh interpreter (little free heap to reuse): 1 MB beyond its size is too little to
    translate the kitchen, 1 GB is plenty."""
    from conftest import KITCHEN

    def probe(mb):
        r = subprocess.run([sys.executable, "-c", _MEMORY_PROBE, str(KITCHEN), str(mb)], capture_output=True,
                           text=True, timeout=120)
        return r.stdout.strip()

    assert probe(1024) == "ok True"
    out = probe(1)
    assert out.startswith("error") and "planner_memory_mb" in out, out


def test_cli_limits_option_and_command(tmp_path):
    from conftest import KITCHEN

    f = tmp_path / "lim.toml"
    f.write_text("[limits]\ngoal_max_depth = 2\n")
    gp = [sys.executable, "-m", "groundplan.cli.main"]
    r = subprocess.run([*gp, "--limits", str(f), "plan", "--scene", str(KITCHEN),
                        "--goal", "and (and (and (inhand apple0 human0)))"], capture_output=True, text=True)
    assert r.returncode == 2 and "goal_max_depth" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([*gp, "--limits", str(f), "limits", "--json"], capture_output=True, text=True)
    assert r.returncode == 0 and '"goal_max_depth": 2' in r.stdout
    f.write_text("[limits]\nplaner_timeout = 3\n")
    r = subprocess.run([*gp, "--limits", str(f), "limits"], capture_output=True, text=True)
    assert r.returncode == 2 and str(f) in r.stderr and "[limits]" in r.stderr and "planer_timeout" in r.stderr
