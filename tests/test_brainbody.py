"""BrainBody-LLM (Alg. 1) with scripted LLMs and oracles, and the Base-LLM and ProgPrompt
baselines, on ProgPrompt's VirtualHome tasks."""

from __future__ import annotations

import pytest

from groundplan.datadir import data_dir
from groundplan.methods.brainbody.agents import PASS, parse_plan, read_command
from groundplan.methods.brainbody.algorithm import brainbody_loop
from groundplan.methods.brainbody.envs import Outcome

needs_data = pytest.mark.skipif(not (data_dir(required=False) / "progprompt-vh").is_dir(),
                                reason="needs ../shared/data/progprompt-vh")


def test_parse_plan_and_command():
    text = "0: walk to kitchen\n1: find fridge\n  2. open fridge\nnoise\n3: Done.\n4: never"
    assert parse_plan(text) == ["walk to kitchen", "find fridge", "open fridge"]
    assert read_command(" <char0> [walk] <kitchen> (205)\nExplanation: x") == "<char0> [walk] <kitchen> (205)"
    assert read_command("<pass>") == PASS and read_command("I am not sure") == PASS


class FakeEnv:
    """Commands 'ok' succeed, 'bad' fail with a message."""

    actions = ("a",)

    def __init__(self):
        self.done = []

    def object_list(self):
        return ["x"]

    def environment_info(self, task="", limit=60):
        return "(x:is:here)"

    def execute(self, command):
        self.done.append(command)
        return Outcome("bad" not in command, "" if "bad" not in command else "it failed", command)


class ListBrain:
    def __init__(self, first, fixes):
        self.first, self.fixes, self.calls = first, list(fixes), []

    def plan(self, ctx):
        return list(self.first)

    def replan(self, ctx, plan, error_step, feedback):
        self.calls.append((error_step, feedback))
        return self.fixes.pop(0) if self.fixes else []


class EchoBody:
    def act(self, step, index):
        return PASS if step == "wait" else f"[{step}]"


@pytest.mark.parametrize("K,replans,executed", [(0, 0, 2), (1, 1, 3), (3, 2, 3)])
def test_algorithm_1_feedback_loops(K, replans, executed):
    brain = ListBrain(["ok1", "bad", "wait", "ok2"], [["bad", "ok3"], ["ok4", "ok5"]])
    env = FakeEnv()
    res = brainbody_loop("t", brain, EchoBody(), env, K=K)
    assert res.feedback_loops == replans
    assert len(brain.calls) == replans and all(c == (1, "it failed") for c in brain.calls)
    assert res.executed >= executed - 1
    if K == 0:  # no feedback: the failing step is skipped, the pass counted, the rest runs
        assert env.done == ["[ok1]", "[bad]", "[ok2]"] and res.passes == 1
    if K == 3:  # two replans from step 1; the second plan works
        assert res.plan == ["ok1", "ok4", "ok5"] and env.done[-2:] == ["[ok4]", "[ok5]"]


@needs_data
def test_oracle_brain_and_body_solve_a_task():
    from groundplan.bench.datasets import load_tasks
    from groundplan.methods import RunContext, get_method

    t = next(x for x in load_tasks("progprompt-test_unseen") if x.instruction == "put salmon in the fridge")
    ep = get_method("brainbody_oracle").run(t, RunContext())
    assert ep.success and ep.metrics["gcr"] == 1.0 and ep.metrics["exec"] == 1.0
    assert ep.metrics["passes"] >= 0 and ep.plan[0] == "<char0> [walk] <kitchen> (205)"


@needs_data
def test_llm_brain_and_body_with_feedback():
    """A scripted Brain forgets to open the fridge; the simulator's error goes back to it
    and its new plan (from the error step) solves the task."""
    from groundplan.bench.datasets import load_tasks
    from groundplan.llm import ScriptedLLM
    from groundplan.methods import RunContext, get_method

    t = next(x for x in load_tasks("progprompt-env1") if x.instruction == "put chicken in the fridge")
    commands = {"find chicken": "<char0> [find] <chicken>", "grab chicken": "<char0> [grab] <chicken>",
                "find fridge": "<char0> [find] <fridge>", "open fridge": "<char0> [open] <fridge>",
                "put chicken in fridge": "<char0> [putin] <chicken> <fridge>", "close fridge": "<char0> [close] <fridge>",
                "wait a bit": "<pass>"}

    def answer(req):
        p = req.messages[-1].content
        if p.rstrip().endswith("Step-by-step Instructions:"):
            return "0: find chicken\n1: grab chicken\n2: wait a bit\n3: find fridge\n4: put chicken in fridge\n5: Done."
        if p.rstrip().endswith("Explanation:"):
            assert "is not open or is not openable when executing [PUTIN]" in p
            return "The fridge is closed.\nNew Plan:\n4: open fridge\n5: put chicken in fridge\n6: close fridge\n7: Done"
        step = p.rstrip().split("Description:")[-1].split("\n")[0].strip()
        return commands[step]

    llm = ScriptedLLM(answer)
    ep = get_method("brainbody").run(t, RunContext(llm=llm))
    assert ep.success, ep.error
    assert ep.metrics["feedback_loops"] == 1 and ep.metrics["passes"] == 1
    assert ep.metrics["exec"] == pytest.approx(6 / 7)  # the first putin failed
    kinds = [e["type"] for e in ep.trace]
    assert "feedback" in kinds and "replan" in kinds
    ep0 = get_method("brainbody_nofb").run(t, RunContext(llm=ScriptedLLM(answer)))
    assert not ep0.success and ep0.metrics["feedback_loops"] == 0


@needs_data
def test_prompts_follow_the_figures():
    from groundplan.bench.datasets import load_tasks
    from groundplan.llm import ScriptedLLM
    from groundplan.methods import RunContext, get_method

    t = load_tasks("progprompt-env2")[1]  # turn on tv
    llm = ScriptedLLM(["0: find tv\n1: switch on tv\n2: Done", "<char0> [find] <tv>", "<char0> [switchon] <tv>"])
    ep = get_method("brainbody").run(t, RunContext(llm=llm))
    plan_prompt = llm.requests[0].messages[-1].content
    assert "You have the following objects in scene:" in plan_prompt and "Environment Information: (" in plan_prompt
    assert "High-level Instruction: turn on tv" in plan_prompt and "Step-by-step Plans:\n0:" in plan_prompt
    body_prompt = llm.requests[1].messages[-1].content
    assert "<pass>" in body_prompt and body_prompt.rstrip().endswith("Description: find tv\nAction Plan:")
    assert ep.success, ep.error


@needs_data
def test_embedding_body_maps_steps():
    from groundplan.methods.brainbody.agents import EmbeddingBody

    body = EmbeddingBody(["walk", "grab", "open", "putin", "switchon"], ["fridge", "salmon", "kitchen", "tv"],
                         lambda a, objs: f"<char0> [{a}]" + "".join(f" <{o}>" for o in objs))
    assert body.act("open the fridge", 0) == "<char0> [open] <fridge>"
    assert body.act("grab the salmon", 0).startswith("<char0> [grab] <salmon>")


@needs_data
def test_base_llm_and_progprompt_baselines():
    from groundplan.bench.datasets import load_tasks
    from groundplan.llm import ScriptedLLM
    from groundplan.methods import RunContext, get_method

    t = next(x for x in load_tasks("progprompt-env1") if x.instruction == "put chicken in the fridge")
    prog = ("<char0> [find] <chicken>\n<char0> [grab] <chicken>\n<char0> [find] <fridge>\n"
            "<char0> [putin] <chicken> <fridge>\nHigh-level Instruction: next")
    ep = get_method("base_llm").run(t, RunContext(llm=ScriptedLLM([prog])))
    assert not ep.success and ep.metrics["exec"] == pytest.approx(3 / 4) and ep.metrics["planned_steps"] == 4

    code = ("# 0: find the chicken\n\tfind('chicken')\n\tgrab('chicken')\n\t# 1: put it in the fridge\n"
            "\tfind('fridge')\n\tassert('fridge' is 'opened')\n\t\telse: open('fridge')\n\tputin('chicken', 'fridge')\n"
            "\tclose('fridge')\n")

    def answer(req):
        p = req.messages[-1].content
        if p.rstrip().endswith("():"):
            assert "from actions import" in p and "def put_chicken_in_the_fridge():" in p
            return code
        assert "You see:" in p
        return "False"

    llm = ScriptedLLM(answer)
    ep = get_method("progprompt").run(t, RunContext(llm=llm))
    assert ep.success, ep.error
    assert ep.metrics["exec"] == 1.0 and ep.metrics["planned_steps"] == 6


def test_body_grammar_accepts_commands_and_pass():
    from groundplan.llm.gbnf import gbnf_matches
    from groundplan.methods.brainbody.agents import body_grammar

    g = body_grammar(["walk", "putin"], ["kitchen", "salmon", "fridge"])
    assert gbnf_matches(g, "<pass>") and gbnf_matches(g, "<char0> [walk] <kitchen>")
    assert gbnf_matches(g, "<char0> [putin] <salmon> <fridge>")
    assert not gbnf_matches(g, "<char0> [fly] <kitchen>") and not gbnf_matches(g, "walk to the kitchen")
    tt = body_grammar(["grasp", "move", "return to base"], ["red_cube", "location_A"], "<rob0>")
    assert gbnf_matches(tt, "<rob0> [return to base]") and gbnf_matches(tt, "<rob0> [move] <red_cube> <location_A>")


def test_progprompt_reads_a_fenced_chat_answer():
    from groundplan.methods.progprompt import extract_program, subgoals

    text = "Here you go:\n```python\ndef put_salmon():\n\t# 0: find salmon\n\tfind('salmon')\n\tgrab('salmon')\n```\nDone."
    assert subgoals(extract_program(text)) == [("0: find salmon", ["find('salmon')", "grab('salmon')"])]
    plain = "# 0: walk\n\twalk('kitchen')\n"
    assert subgoals(extract_program(plain)) == [("0: walk", ["walk('kitchen')"])]
    # a chat answer that repeats the def line and goes on with a next function: the first body only
    two = "def put_salmon():\n\t# 0: find salmon\n\tfind('salmon')\ndef throw_away():\n\t# 0: x\n\tgrab('apple')"
    assert subgoals(extract_program(two)) == [("0: find salmon", ["find('salmon')"])]


def test_progprompt_answer_opening_with_the_def_line_is_read():
    """The answer shapes a chat model gives, cut where the backend would stop generating
    (PROGRAM_STOP), still yield the program body; the original's stop "def " would leave
    nothing of an answer that repeats ``def task():``."""
    from groundplan.methods.progprompt import PROGRAM_STOP, extract_program, subgoals

    def generated(answer: str, stop) -> str:
        cut = min([answer.find(s) for s in stop if s in answer] or [len(answer)])
        return answer[:cut]

    body = "\t# 0: switch on tv\n\twalk('tv')\n\tswitchon('tv')"
    want = [("0: switch on tv", ["walk('tv')", "switchon('tv')"])]
    answers = [body + "\n\ndef throw_away_apple():\n\t# 0: x\n\tgrab('apple')",  # completion style
               "def watch_tv():\n" + body + "\n\ndef throw_away_apple():\n\tgrab('apple')",  # repeats def
               "Here is the code:\n\n```python\ndef watch_tv():\n" + body + "\n```\nIt walks to the tv."]  # fenced
    for a in answers:
        assert subgoals(extract_program(generated(a, PROGRAM_STOP))) == want, a
    assert subgoals(extract_program(generated(answers[1], ("def ",)))) != want  # why the stop changed
