"""AutoGPT+P: Plan tool (Alg. 3/4), Suggest Alternative (Alg. 2), Explore, memory, tool
selection (Alg. 1) - offline, with scripted LLMs."""

from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import KITCHEN

from groundplan.core.task import Task
from groundplan.knowledge.oam import OAM
from groundplan.llm import ScriptedLLM
from groundplan.llm.types import UsageMeter
from groundplan.methods import RunContext, get_method
from groundplan.methods.autogpt_p.alternative import (
    alternative_suggestion,
    naive_alternative,
    rarest_affordance,
)
from groundplan.methods.autogpt_p.config import AutoGPTPConfig
from groundplan.methods.autogpt_p.dialogue import Dialogue, parse_list, parse_object, tool_grammar, trim
from groundplan.methods.autogpt_p.loop import parse_tool_selection
from groundplan.methods.autogpt_p.memory import Memory, SimulatedUser, explore, perceived_scene
from groundplan.methods.autogpt_p.method import gold_goal, task_mode
from groundplan.methods.autogpt_p.plan_tool import (
    EMPTY_GOAL_FEEDBACK,
    check_syntax_and_semantics,
    extract_goal,
    original_conditions,
    planning_with_self_correction,
)
from groundplan.world import load_scene


def dlg(answers, **kw) -> tuple[Dialogue, ScriptedLLM]:
    llm = ScriptedLLM(answers)
    return Dialogue(llm, UsageMeter(), **kw), llm


# --------------------------------------------------------------------------- goal extraction


@pytest.mark.parametrize("answer, goal", [
    ("so the goal is (:goal (and (inhand apple0 human0)))", "(and (inhand apple0 human0))"),
    ("first (:goal (on a b)) then better (:goal (in apple0 bowl0))", "(in apple0 bowl0)"),
    # the original kept only the first expression of (:goal A B C)
    ("(:goal (inhand coke0 robot0) (on coke0 ?support))", "(inhand coke0 robot0)"),
    ("(:goal and (on a b) (on c d))", "(and (on a b) (on c d))"),
    ("(goal (visited counter1))", None),  # no (:goal: the original's format error
    ("no goal here", None),
    ("(:goal (and ))", "(and )"),
])
def test_extract_goal_as_the_original(answer, goal):
    assert extract_goal(answer) == goal


def test_checks_syntax_semantics_and_empty_goal(kitchen_task):
    conds = original_conditions()
    ok = check_syntax_and_semantics("(:goal (inhand apple0 human0))", kitchen_task, conds, allow_hidden=True)
    assert ok.goal is not None and ok.feedback is None
    bad_obj = check_syntax_and_semantics("(:goal (inhand pear0 human0))", kitchen_task, conds, allow_hidden=True)
    assert bad_obj.goal is None and "pear0" in bad_obj.feedback
    qvar = check_syntax_and_semantics("(:goal (inhand ?o human0))", kitchen_task, conds, allow_hidden=True)
    assert "'?'" in qvar.feedback
    sem = check_syntax_and_semantics("(:goal (and (inhand apple0 robot0) (on apple0 table0)))", kitchen_task, conds,
                                     allow_hidden=True)
    assert sem.goal is None and "in the hand of an actor" in sem.feedback
    # a disjunction is fine when one disjunct is (Alg. 4 works per DNF disjunct)
    ok2 = check_syntax_and_semantics("(:goal (or (on apple0 table0) (on apple0 counter0)))", kitchen_task, conds,
                                     allow_hidden=True)
    assert ok2.goal is not None
    empty = check_syntax_and_semantics("(:goal (and ))", kitchen_task, conds, allow_hidden=True)
    assert empty.feedback == EMPTY_GOAL_FEEDBACK
    fmt = check_syntax_and_semantics("(goal (on apple0 table0))", kitchen_task, conds, allow_hidden=True)
    assert "correct format" in fmt.feedback


def test_semantics_as_the_original_logs_show():
    """Two behaviours measured on the original's logs: "in" excludes "on" for the same
    object, and every (:goal ...) block of an answer is checked, not only the last one
    (the planned one)."""
    from groundplan.sim.pipeline import build

    task = build(str(KITCHEN))
    conds = original_conditions()
    in_on = check_syntax_and_semantics("(:goal (and (on banana0 table0) (in banana0 bowl0)))", task, conds,
                                       allow_hidden=True)
    assert in_on.goal is None and "only be in one other object" in in_on.feedback
    two = ("the goal would be (:goal (and (inhand apple0 robot0) (inhand apple0 human0))) but an object cannot be "
           "in two hands, so: (:goal (or (inhand apple0 robot0) (inhand apple0 human0)))")
    chk = check_syntax_and_semantics(two, task, conds, allow_hidden=True)
    assert chk.goal is None and "in the hand of an actor" in chk.feedback
    assert chk.text == "(or (inhand apple0 robot0) (inhand apple0 human0))"
    # a correct earlier block does not matter; neither does an earlier block that does not parse
    fine = check_syntax_and_semantics("(:goal (on apple0 table0)) or (:goal (on pear9 ) (:goal (inhand apple0 "
                                      "human0))", task, conds, allow_hidden=True)
    assert fine.goal is not None and fine.text == "(inhand apple0 human0)"
    # grammar-constrained answers are one goal: only it is checked
    one = check_syntax_and_semantics("ignored", task, conds, allow_hidden=True, text="(inhand apple0 human0)")
    assert one.goal is not None


# --------------------------------------------------------------------------- Alg. 3


def test_plan_tool_self_correction(kitchen_task, planner):
    d, llm = dlg(["(:goal (and (inhand apple0 robot0) (on apple0 table0)))", "(:goal (on apple0 table0))"])
    out = planning_with_self_correction(d, kitchen_task, "put the apple on the table", planner, max_rounds=10,
                                        conditions=original_conditions())
    assert out.solved and out.rounds == 2 and len(out.feedback) == 1
    assert out.plan and out.goal_text == "(on apple0 table0)"
    # the correction round is the same conversation: prompt, answer, feedback
    second = llm.requests[1]
    assert [m.role for m in second.messages] == ["user", "assistant", "user"]
    assert "contradiction" in second.messages[-1].content
    assert 'The user asks "put the apple on the table"' in second.messages[0].content


def test_plan_tool_without_correction_stops_after_one_goal(kitchen_task, planner):
    d, llm = dlg(["(:goal (inhand pear0 human0))", "(:goal (on apple0 table0))"])
    out = planning_with_self_correction(d, kitchen_task, "x", planner, max_rounds=10, self_correction=False)
    assert out.status == "no_goal" and len(llm.requests) == 1


def test_plan_tool_gives_up_after_n_rounds(kitchen_task, planner):
    d, llm = dlg(["no goal"] * 5)
    out = planning_with_self_correction(d, kitchen_task, "x", planner, max_rounds=3)
    assert out.status == "no_goal" and len(llm.requests) == 3 and out.rounds == 3


def test_partial_plan_prompt(kitchen_task, planner):
    d, llm = dlg(["(:goal (on apple0 table0))"])
    planning_with_self_correction(d, kitchen_task, "make breakfast", planner, max_rounds=5, partial=True)
    prompt = llm.requests[0].messages[0].content
    assert 'The user(human) asks: "make breakfast"' in prompt and "partial goal" in prompt


def test_plan_tool_constrained(kitchen_task, planner):
    d, llm = dlg(["(:goal (inhand apple0 human0))"], constrained=True)
    out = planning_with_self_correction(d, kitchen_task, "bring me the apple", planner, max_rounds=2)
    assert out.solved and llm.requests[0].constraint is not None


# --------------------------------------------------------------------------- Alg. 2

OAM_SMALL = OAM({
    "apple": frozenset({"grasp", "carry", "consumable", "rotate"}),
    "banana": frozenset({"grasp", "carry", "consumable"}),
    "salad": frozenset({"carry", "consumable"}),
    "cup": frozenset({"grasp", "carry", "contain"}),
    "plate": frozenset({"grasp", "carry", "support"}),
})


def test_rarest_affordance():
    assert rarest_affordance(["grasp", "consumable"], ["banana", "cup", "plate"], OAM_SMALL) == "consumable"


def test_alternative_suggestion_affordance_path():
    d, llm = dlg(["needs ['carry', 'consumable', 'flying']", "OBJECT:banana"])
    res = alternative_suggestion(d, "apple", ["banana", "salad", "cup", "tomato"], "I want an apple", OAM_SMALL)
    assert res.alternative == "banana" and res.path == "affordance"
    assert res.relevant == ("carry", "consumable")  # unknown names dropped
    assert res.candidates == ("banana", "salad")
    assert "for the affordance consumable" in llm.requests[1].messages[0].content


def test_alternative_suggestion_single_candidate_asks_nothing_more():
    d, llm = dlg(["['consumable']"])
    res = alternative_suggestion(d, "apple", ["salad", "cup"], "I want an apple", OAM_SMALL)
    assert res.alternative == "salad" and res.path == "single" and len(llm.requests) == 1


def test_alternative_suggestion_fallbacks():
    # no class has the affordances -> direct question
    d, llm = dlg(["['rotate']", "OBJECT: cup."])
    res = alternative_suggestion(d, "apple", ["banana", "cup"], "I want an apple", OAM_SMALL)
    assert res.path == "direct" and res.alternative == "cup"
    assert "the best for the following task" in llm.requests[1].messages[0].content
    # the answer is not a kept class -> direct question
    d, _ = dlg(["['grasp']", "OBJECT:pear", "OBJECT:plate"])
    res = alternative_suggestion(d, "apple", ["banana", "cup", "plate"], "I want an apple", OAM_SMALL)
    assert res.path == "direct" and res.alternative == "plate"


def test_naive_alternative():
    d, llm = dlg(["I think OBJECT:banana"])
    assert naive_alternative(d, "apple", ["banana"], "I want an apple").alternative == "banana"
    assert len(llm.requests) == 1


def test_answer_parsers():
    assert parse_list("so: ['grasp', \"carry\"] and [1]") == ["1"]
    assert parse_list("the list ['grasp', \"carry\"]") == ["grasp", "carry"]
    assert parse_object("OBJECT: Banana.") == "banana"
    assert parse_object("nothing") is None


# --------------------------------------------------------------------------- memory, Explore, user


def kitchen_world():
    return load_scene(KITCHEN)


def test_perceived_scene_hides_unexplored_locations():
    w = kitchen_world()
    sc = perceived_scene(w, frozenset({"counter0"}))
    names = {o.name for o in sc.objects}
    assert "apple0" in names and "salmon0" not in names and "fridge0" not in names
    assert all("salmon0" not in f.args for f in sc.facts)
    assert perceived_scene(w, None).object_names == w.object_names


def test_explore_tool():
    mem = Memory(kitchen_world(), frozenset({"counter0"}), "bring me the coke")
    assert "coke0" not in mem.object_names() and mem.unexplored == ["table0", "fridge0", "trash_can0"]
    mem2, res = explore(mem, "fridge0.")
    assert res == "explored fridge0" and "coke0" in mem2.object_names()
    assert explore(mem2, "fridge0")[1] == "fridge0 was already explored"
    assert explore(mem2, "garage0")[1].startswith("garage0 cannot be explored. Possible destinations: table0")
    moved, _ = explore(mem, "fridge0", move_robot=True)
    assert any(f.predicate == "at" and f.args == ("robot0", "fridge0") for f in moved.world.facts)


def test_simulated_user_and_alternatives(tmp_path):
    p = tmp_path / "subs.csv"
    p.write_text("missing,substitution\nglass,cup\n")
    user = SimulatedUser.from_file(p)
    assert user.answer("glass", "cup") == "yes" and user.answer("glass", "bowl") == "no"
    mem = Memory(kitchen_world(), None, "I want a glass of milk").with_alternative("glass", "cup")
    assert mem.request == "I want a cup of milk" and mem.alternatives == (("glass", "cup"),)
    assert mem.history == ()
    assert mem.with_request("thanks, now a banana").history == ("I want a cup of milk",)


@pytest.mark.parametrize("answer, tool", [
    ("blah\n\nSELECTED TOOL: EXPLORE fridge0", ("EXPLORE", "fridge0")),
    ("SELECTED TOOL:PLAN Bring me the coke", ("PLAN", "Bring me the coke")),
    ("Therefore, the selected tool would be PLAN.", ("PLAN", "")),
    ("SUGGEST_ALTERNATIVE: cloth0", ("SUGGEST_ALTERNATIVE", "cloth0")),
    ("nothing works. FAILURE", None),
    ("SELECTED TOOL: FAILURE", None),
    ("no idea", None),
])
def test_parse_tool_selection(answer, tool):
    call = parse_tool_selection(answer)
    assert (call.tool, call.parameter) == tool if tool else call is None


def test_trim_keeps_prompt_and_latest():
    from groundplan.llm.types import Message

    msgs = [Message("user", "p" * 300)] + [Message("assistant" if i % 2 == 0 else "user", "x" * 300)
                                           for i in range(10)]
    kept = trim(msgs, 400)
    assert kept[0] == msgs[0] and kept[-1] == msgs[-1] and len(kept) < len(msgs)
    assert kept[1].role == "user"


def test_tool_grammar_parses():
    from groundplan.llm.gbnf import parse_gbnf

    g = parse_gbnf(tool_grammar(["fridge0", "table0"]))
    assert g.matches("SELECTED TOOL: EXPLORE fridge0") and g.matches("FAILURE")
    assert g.matches("SELECTED TOOL: SUGGEST_ALTERNATIVE glass") and not g.matches("SELECTED TOOL: EXPLORE sink0")


# --------------------------------------------------------------------------- the method


def loop_task(tmp_path, instruction="Give me the coke", goal="and (inhand coke0 human0)", subs="") -> Task:
    p = tmp_path / "subs.csv"
    p.write_text("missing,substitution\n" + subs)
    return Task("k:1", "test", instruction, str(KITCHEN), goal,
                extras={"explored": ["counter0"], "min_tool_calls": 2, "min_costs": 6,
                        "substitutions_file": str(p)})


def test_loop_explore_then_plan(tmp_path, planner):
    llm = ScriptedLLM(["The coke is probably cold. SELECTED TOOL: EXPLORE fridge0",
                       "SELECTED TOOL: PLAN Give me the coke",
                       "(:goal (inhand coke0 human0))"])
    ep = get_method("autogpt_p").run(loop_task(tmp_path), RunContext(llm=llm, planner=planner))
    assert ep.success and ep.status == "success"
    assert ep.metrics["tools"] == ["EXPLORE fridge0", "PLAN Give me the coke"] and ep.metrics["tool_calls"] == 2
    assert ep.metrics["ended_by"] == "plan" and ep.plan
    # the second tool selection continues the conversation with the new memory and the result
    second = llm.requests[1]
    assert second.messages[-1].content.startswith("New Scene Memory:")
    assert "Result of last tool execution: explored fridge0" in second.messages[-1].content
    assert "coke0" in second.messages[-1].content and "coke0" not in second.messages[0].content
    types = [e["type"] for e in ep.trace]
    assert "explore" in types and "tool_call" in types and types[-1] == "note"


def test_loop_alternative_accepted_rewrites_request(tmp_path, planner, monkeypatch):
    import groundplan.methods.autogpt_p.method as mm

    llm = ScriptedLLM(["SELECTED TOOL: SUGGEST_ALTERNATIVE pepsi", "['grasp', 'consumable']",
                       "SELECTED TOOL: PLAN", "(:goal (inhand apple0 human0))"])
    task = loop_task(tmp_path, "Give me a pepsi", "and (inhand apple0 human0)", "pepsi,apple\n")
    extra = OAM({"pepsi": frozenset({"consumable", "grasp"}), "apple": frozenset({"consumable", "grasp", "carry"}),
                 "banana": frozenset({"consumable", "grasp", "carry"})})
    orig = mm.AutoGPTPBase._oam
    monkeypatch.setattr(mm.AutoGPTPBase, "_oam", staticmethod(lambda task, cfg=None: orig(task, cfg).merged(extra)))
    ep = get_method("autogpt_p").run(task, RunContext(llm=llm, planner=planner))
    assert ep.metrics["alternatives"] == ["pepsi->apple"]
    assert 'The user asks "Give me a apple"' in llm.requests[3].messages[0].content
    assert "New Substitution: pepsi->apple" in llm.requests[2].messages[-1].content
    assert ep.success


def test_loop_rejected_alternative_asks_sentiment_then_failure_falls_back_to_partial_plan(tmp_path, planner):
    llm = ScriptedLLM(["SELECTED TOOL: SUGGEST_ALTERNATIVE pear", "[]", "OBJECT:apple", "No",
                       "Nothing else works. FAILURE",
                       "(:goal (inhand apple0 robot0))",  # the fallback Partial Plan tool
                       "FAILURE"])
    ep = get_method("autogpt_p").run(loop_task(tmp_path, "Give me a pear", "and (inhand apple0 robot0)"),
                                     RunContext(llm=llm, planner=planner))
    assert "Your goal is to classify the sentiment" in llm.requests[3].messages[0].content
    assert "Substitution pear->apple rejected" in llm.requests[4].messages[-1].content
    assert "If an object requested by the user does not exist" in llm.requests[5].messages[0].content
    assert ep.success and ep.metrics["ended_by"] == "failure" and ep.metrics["tools"] == ["SUGGEST_ALTERNATIVE pear"]


def test_loop_failure_falls_back_to_partial_plan_only_once(tmp_path, planner):
    """FAILURE runs the Partial Plan tool only if it has not run yet in the episode (as the
    original's loop logs show): after a selected INCOMPLETE_PLAN, FAILURE ends the loop."""
    unreachable = "(:goal (inhand pear0 human0))"  # no pear: every round rejected
    llm = ScriptedLLM(["SELECTED TOOL: INCOMPLETE_PLAN"] + [unreachable] * 5 + ["FAILURE", "never asked"])
    ep = get_method("autogpt_p").run(loop_task(tmp_path, "Give me a pear", "and (inhand apple0 robot0)"),
                                     RunContext(llm=llm, planner=planner))
    assert ep.metrics["ended_by"] == "failure" and ep.metrics["tools"] == ["INCOMPLETE_PLAN"]
    assert len(llm.requests) == 7
    # no Partial Plan before: FAILURE runs it once (it fails here), the next FAILURE ends the loop
    llm = ScriptedLLM(["FAILURE"] + [unreachable] * 5 + ["FAILURE", "never asked"])
    ep = get_method("autogpt_p").run(loop_task(tmp_path, "Give me a pear", "and (inhand apple0 robot0)"),
                                     RunContext(llm=llm, planner=planner))
    assert ep.metrics["ended_by"] == "failure" and ep.metrics["tools"] == [] and len(llm.requests) == 7
    fallbacks = [e for e in ep.trace if e["type"] == "tool_call" and e.get("fallback")]
    assert len(fallbacks) == 1


def test_loop_without_fallback_and_limit(tmp_path, planner):
    llm = ScriptedLLM(["FAILURE"])
    cfg = {"partial_plan_on_failure": False}
    ep = get_method("autogpt_p").run(loop_task(tmp_path), RunContext(llm=llm, planner=planner, config=cfg))
    assert not ep.success and ep.metrics["ended_by"] == "failure" and len(llm.requests) == 1
    llm = ScriptedLLM(["SELECTED TOOL: EXPLORE table0"], cycle=True)
    ep = get_method("autogpt_p").run(loop_task(tmp_path), RunContext(llm=llm, planner=planner,
                                                                     config={"max_tool_calls": 3}))
    assert ep.metrics["ended_by"] == "limit" and ep.metrics["tool_calls"] == 3


def test_plan_mode_episode(planner):
    task = Task("k:2", "test", "Bring me the apple", str(KITCHEN), "and (inhand apple0 human0)",
                extras={"min_costs": 3})
    assert task_mode(task) == "plan"
    llm = ScriptedLLM(["(:goal (and (inhand apple0 robot0) (inhand apple0 human0)))",
                       "(:goal (inhand apple0 human0))"])
    ep = get_method("autogpt_p").run(task, RunContext(llm=llm, planner=planner))
    assert ep.success and ep.metrics["rounds"] == 2 and ep.metrics["corrections"] == 1
    assert ep.usage.calls == 2 and ep.usage.prompt_tokens > 0
    llm = ScriptedLLM(["(:goal (and (inhand apple0 robot0) (inhand apple0 human0)))"])
    ep = get_method("autogpt_p_no_correction").run(task, RunContext(llm=llm, planner=planner))
    assert not ep.success and ep.status == "no_plan"


def test_alternative_mode_episode():
    task = Task("s:1", "test", "I want a glass of water", str(KITCHEN), None,
                extras={"missing_object": "glass", "alternatives": ["cup"]})
    assert task_mode(task) == "alternative"
    ep = get_method("autogpt_p_naive_alternative").run(task, RunContext(llm=ScriptedLLM(["OBJECT:cup"]),
                                                                        planner=object()))
    assert ep.success and ep.metrics["path"] == "naive"


def test_config_overrides_and_errors():
    from groundplan.errors import ConfigError

    cfg = AutoGPTPConfig().updated({"max_rounds": 3})
    assert cfg.rounds(in_loop=False) == 3 and replace(cfg, self_correction=False).rounds(in_loop=True) == 1
    with pytest.raises(ConfigError):
        AutoGPTPConfig().updated({"nope": 1})
    with pytest.raises(ConfigError):
        AutoGPTPConfig(goal_mode="magic")


def test_gold_goal_tolerates_surplus_parenthesis():
    assert str(gold_goal("and (inhand apple0 human0))")) == str(gold_goal("and (inhand apple0 human0)"))
