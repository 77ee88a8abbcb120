"""AutoGPT+P: replay of the recorded logs (synthetic logs offline; the real logs when the
shared data is present), OAM strategies and evaluation, object-affordance detection, CLI."""

from __future__ import annotations

import json

import pytest
from conftest import needs_data
from typer.testing import CliRunner

from groundplan.knowledge.oad import (
    Detection,
    DetectorUnavailable,
    YoloV5Detector,
    load_detections,
    object_affordance_detection,
    scene_from_detections,
)
from groundplan.knowledge.oam import OAM
from groundplan.knowledge.oam_llm import (
    AffordanceSpec,
    build_oam,
    evaluate_logic,
    evaluate_oam,
    load_affordance_specs,
    load_classes,
    parse_listed,
    parse_logic,
    questions,
)
from groundplan.llm import ScriptedLLM
from groundplan.llm.errors import LLMConfigError, ReplayMissError
from groundplan.methods.autogpt_p.replay import (
    AutoGPTPReplayLLM,
    ReplaySource,
    feedback_category,
    parse_alternative_log,
    parse_loop_log,
    parse_planning_log,
    request_kind,
)

PLANNING_LOG = """Waiting for memory server 'Planning/Actor' ...
NEW CASE ------------------------------------------------------------------
You are the humanoid service robot HIDDEN_FOR_REVIEW assisting a human in a kitchen. Your task is to turn the user request into a goal state in PDDL. The predicates of the domain are defined as follows:
(:predicates
(on  ?o - carry ?s - support)
)
 and the problem without the goal is:
 (define (problem test)
    (:objects
        apple0 - apple
        table0 - table
    )
    (:init
        (on  apple0 table0)
    )
)

 The user asks "put the apple away". Explain step by step how you concluded that this is the desired goal state. Express the goal state in correct PDDL Syntaxwithout using the ? operator. You are allowed to use disjunctions
Example: Bring me a banana -> (goal: and(inhand banana human))
first answer (:goal (inhand apple0 robot0) )
There is a logical contradiction in the goal. an object that is in the hand of an actor cannot be in another hand or at another place. Please correct your answer
second answer (:goal (on apple0 table0))
----------------------------Results:----------------------------------
Task: put the apple away
Generated Goal: (and (on  apple0 table0))
Desired Goal: (and (on  apple0 table0))
Goal Reached: True
Costs are: 0 -- minimal costs: 0
----------------------------------------------------------------------------
NEW CASE ------------------------------------------------------------------
You are the humanoid service robot HIDDEN_FOR_REVIEW assisting a human
 The user asks "a cut-off case". Explain
Example: x
answer
"""

LOOP_LOG = """--------------------------------------NEW CASE ----------------------------------------
You are an robotic assistant that tries to help the user to achieve his plan.
Scene-Memory:
Objects: apple0,table0
Object Relations: on apple0 table0
Unexplored Locations: fridge0
User-Request: Give me the coke
Which tool would you use? End your answer with SELECTED TOOL:<TOOL> <PARAMETERS>.
End your answer with FAILURE if no tool is valid.

It may be cold. SELECTED TOOL: EXPLORE fridge0
Waiting for memory server 'Detection/Object' ...
New Scene Memory:
Objects: apple0,table0,coke0
Unexplored Locations:

Result of last tool execution: None

User-Request: Give me the coke
End your answer with FAILURE if no tool is valid.

SELECTED TOOL: SUGGEST_ALTERNATIVE coke
Out of the following affordances for a coke, which ones does the user need for the request "Give me the coke"? The affordances are:
grasp: The object can be grasped in any way
 End your answer with listing the affordances as strings in a python list format
['grasp']
Q:Out of the following affordances for a coke, which ones does the user need for the request "Give me the coke"? The affordances are:
grasp: The object can be grasped in any way
 End your answer with listing the affordances as strings in a python list format
A: ['grasp']
-----------------------------------------

Your goal is to classify the sentiment of the following user statement. If its affirmative answer with yes if not answer with no
 User statement: no
No.
New Scene Memory:
Result of last tool execution: Substitution coke->apple rejected
End your answer with FAILURE if no tool is valid.
SELECTED TOOL: PLAN Give me the coke
You are the humanoid service robot HIDDEN_FOR_REVIEW assisting a human in a kitchen.
 The user asks "Give me the coke". Explain step by step
Example: Bring me a banana -> (goal: and(inhand banana human))
(:goal (inhand coke0 human0))
---------------------------------------Results:---------------------------------------------
Task: Give me the coke
Desired Goal: (and (inhand  coke0 human0))
Goal Reached: True
Used tools EXPLORE, SUGGEST_ALTERNATIVE, PLAN
Tool Costs are: 3 -- minimal costs: 2
"""

ALT_LOG = """Q:Out of the following affordances for a apple, which ones does the user need for the request "I want an apple"? The affordances are:
grasp: The object can be grasped in any way
 End your answer with listing the affordances as strings in a python list format
A: ['grasp', 'consumable']
-----------------------------------------

Q:Which of these objects can replace a apple for the affordance consumable the best. The object(s) are: salad,banana
 Finish your answer by naming exactly one object with OBJECT:<object>
A: OBJECT:banana
-----------------------------------------

Missing: apple - Substitution: banana - Desired: ['banana', 'orange']
"""


def test_request_kinds_and_feedback_categories():
    assert request_kind("You are the humanoid service robot X") == "goal"
    assert request_kind("New Scene Memory:\nObjects:") == "tool"
    assert request_kind("Which of these objects can replace a x for the affordance y the best.") == "object"
    assert request_kind("Which of these objects can replace a x the best for the following task") == "object_direct"
    assert request_kind("hello") is None
    assert feedback_category("There is a logical contradiction in the goal. Dummy.") == "semantic"
    assert feedback_category("Your previous answer did not contain a goal in the correct format.") == "format"
    assert ReplaySource.parse("gpt-4-off") == ReplaySource("gpt_4", "off")
    assert ReplaySource.parse(None).name == "gpt-4-on"
    with pytest.raises(LLMConfigError):
        ReplaySource.parse("gpt-5")


def test_parse_planning_log(tmp_path):
    p = tmp_path / "planning_gpt_4_on_saycan_saycan_x.log"
    p.write_text(PLANNING_LOG)
    cases = parse_planning_log(p)
    assert len(cases) == 2 and not cases[1].result  # the second was cut off
    c = cases[0]
    assert c.task == "put the apple away" and c.reached is True
    assert [(e.round, e.answer) for e in c.exchanges] == [(0, "first answer (:goal (inhand apple0 robot0) )"),
                                                        (1, "second answer (:goal (on apple0 table0))")]
    assert c.exchanges[1].prompt.startswith("There is a logical contradiction")
    assert c.objects == {"apple0", "table0"} and c.facts == {"on apple0 table0"}


def test_parse_loop_and_alternative_logs(tmp_path):
    p = tmp_path / "l.log"
    p.write_text(LOOP_LOG)
    (c,) = parse_loop_log(p)
    kinds = [(e.kind, e.call, e.round) for e in c.exchanges]
    assert kinds == [("tool", 0, 0), ("tool", 0, 1), ("affordances", 0, 0), ("sentiment", 0, 0), ("tool", 0, 2),
                     ("goal", 0, 0)]
    assert c.exchanges[0].answer.endswith("SELECTED TOOL: EXPLORE fridge0")
    assert c.exchanges[2].answer == "['grasp']" and c.exchanges[3].answer == "No."
    assert c.result["Used tools"] == "EXPLORE, SUGGEST_ALTERNATIVE, PLAN"
    assert c.objects == {"apple0", "table0"}
    p = tmp_path / "a.log"
    p.write_text(ALT_LOG)
    (a,) = parse_alternative_log(p)
    assert a.task == "I want an apple" and a.missing == "apple" and a.result["Substitution"] == "banana"
    assert [e.kind for e in a.exchanges] == ["affordances", "object"] and a.exchanges[1].answer == "OBJECT:banana"


def _fake_root(tmp_path):
    logs = tmp_path / "autogpt_p" / "logs" / "planning"
    logs.mkdir(parents=True)
    (logs / "planning_gpt_4_on_simulation_demo.log").write_text(PLANNING_LOG)
    return tmp_path


def test_replay_serves_by_task_and_round_and_reports_divergence(tmp_path):
    llm = AutoGPTPReplayLLM("gpt-4", root=_fake_root(tmp_path))
    llm.begin_case("plan", "demo", "Put the apple away")  # case and spacing do not matter
    prompt = "You are the humanoid service robot ROBOTX ... anything, not the recorded text"
    a1 = llm.chat([{"role": "user", "content": prompt}])
    assert a1.text.startswith("first answer") and a1.usage.source == "replay"
    a2 = llm.chat([{"role": "user", "content": prompt}, {"role": "assistant", "content": a1.text},
                   {"role": "user", "content": "Your previous answer contained the object x, however ..."}])
    assert a2.text.startswith("second answer")
    rep = llm.end_case()
    assert rep.served == 2 and rep.faithful  # another feedback wording is only an [info] note
    assert any(n.severity == "info" for n in rep.notes)
    # our run asks for a third round: it ran past the recorded conversation
    llm.begin_case("plan", "demo", "put the apple away")
    llm.chat(prompt)
    llm.chat([{"role": "user", "content": prompt}, {"role": "assistant", "content": "x"},
              {"role": "user", "content": "fix it"}])
    with pytest.raises(ReplayMissError):
        llm.chat([{"role": "user", "content": prompt}, {"role": "assistant", "content": "x"},
                  {"role": "user", "content": "fix it"}, {"role": "assistant", "content": "y"},
                  {"role": "user", "content": "again"}])
    assert not llm.end_case().faithful
    # stopping early leaves recorded answers unused
    llm.begin_case("plan", "demo", "put the apple away")
    llm.chat(prompt)
    rep = llm.end_case()
    assert not rep.faithful and "stopped before 1" in str(rep.notes[-1])
    with pytest.raises(ReplayMissError):
        llm.begin_case("plan", "demo", "something never recorded")
    with pytest.raises(ReplayMissError):
        llm.chat(prompt)  # no case begun


# --------------------------------------------------------------------------- OAM


SPECS = (AffordanceSpec("grasp", "can be grasped", "Can a typical {} be grasped with one hand?"),
         AffordanceSpec("carry", "can be carried", "(Can a {} be carried?)&!(Is a {} fixed?)"),
         AffordanceSpec("open", "can be opened", "(Is a {} a door?)|(Is a {} a container?)&(Can a {} be opened?)"))


def test_logic_precedence():
    e = parse_logic("(a {})|(b {})&!(c {})")
    assert questions(e) == ["a {}", "b {}", "c {}"]
    truth = {"a {}": False, "b {}": True, "c {}": False}
    assert evaluate_logic(e, truth.__getitem__) is True
    truth["c {}"] = True
    assert evaluate_logic(e, truth.__getitem__) is False


def test_build_oam_strategies():
    llm = ScriptedLLM(["grasp, carry and open."])
    res = build_oam(llm, ["Cup"], "list", SPECS)
    assert res.oam.affordances("cup") == {"grasp", "carry", "open"} and res.llm_calls == 1

    def yes_no(req):
        q = req.messages[0].content
        return "Yes." if ("grasped" in q or "carried" in q or "container" in q or "opened" in q) else "No"

    res = build_oam(ScriptedLLM(yes_no), ["coffee cup"], "yes-no", SPECS)
    # yes-no asks each affordance's whole question once
    assert res.oam.affordances("coffee_cup") == {"grasp", "carry", "open"} and res.llm_calls == 3
    res = build_oam(ScriptedLLM(yes_no), ["coffee cup"], "logical", SPECS)
    assert res.oam.affordances("coffee_cup") == {"grasp", "carry", "open"}
    # every atomic question asked once: grasp, carried, fixed, door, container, opened
    assert res.llm_calls == 6


def test_build_oam_constrained_list_grammar():
    res = build_oam(ScriptedLLM(["grasp, open"]), ["cup"], "list", SPECS, constrained=True)
    assert res.oam.affordances("cup") == {"grasp", "open"}


def test_parse_listed_does_not_confuse_names():
    names = ["carry", "assisted-carry", "grasp"]
    assert parse_listed("assisted-carry", names) == {"assisted-carry"}
    assert parse_listed("The cup affords grasp and carry.", names) == {"grasp", "carry"}


def test_evaluate_oam():
    truth = OAM({"Cup": frozenset({"grasp", "contain"}), "Table": frozenset({"support"}),
                 "object": frozenset({"affordances"})})
    pred = OAM({"cup": frozenset({"grasp", "pour"})})
    s = evaluate_oam(pred, truth)
    assert (s.tp, s.fp, s.fn, s.classes) == (1, 1, 2, 2) and s.missing_classes == ("table",)
    assert s.precision == 0.5 and abs(s.recall - 1 / 3) < 1e-9


def test_load_specs_and_classes(tmp_path):
    p = tmp_path / "a.json"
    p.write_text(json.dumps({"affordance_types": [
        {"name": "id", "id": "name", "prompt": "prompt", "description": "description"},
        {"name": "grasp", "id": "0", "prompt": "Can a {} be grasped?", "description": "d"}]}))
    assert [s.name for s in load_affordance_specs(p)] == ["grasp"]
    c = tmp_path / "c.json"
    c.write_text(json.dumps({"object_classes": [{"name": "Cup"}, {"name": "Cup"}, {"name": "Paper Towel"}]}))
    assert load_classes(c) == ["Cup", "Paper Towel"]


# --------------------------------------------------------------------------- OAD


def test_object_affordance_detection(tmp_path):
    p = tmp_path / "d.json"
    p.write_text(json.dumps([{"class": "cup", "instance": 0, "bbox": [0.1, 0.1, 0.2, 0.3]},
                             {"class": "robotarm", "instance": 0}]))
    dets = load_detections(p)
    oam = OAM({"cup": frozenset({"grasp", "contain"})})
    pairs = object_affordance_detection(dets, oam)
    assert {(x.cls, x.instance, x.affordance) for x in pairs} == {("cup", 0, "grasp"), ("cup", 0, "contain")}
    sc = scene_from_detections(dets, oam)
    assert sc.object_names == ["cup0", "robotarm0"] and sc.geometry["cup0"] == (0.1, 0.1, 0.2, 0.3)
    assert "robotarm" in sc.warnings[0]
    c = tmp_path / "d.csv"
    c.write_text("class,instance,x0,y0,x1,y1\ncup,1,0,0,0.5,0.5\n")
    assert load_detections(c) == [Detection("cup", 1, (0.0, 0.0, 0.5, 0.5))]
    bad = tmp_path / "bad.csv"
    bad.write_text("class,instance,x0,y0,x1,y1\ncup,1,0,0,2,0.5\n")
    with pytest.raises(Exception, match="bounding box"):
        load_detections(bad)
    with pytest.raises(DetectorUnavailable, match="not public"):
        YoloV5Detector(tmp_path / "missing.pt").detect("image.png")


def test_cli_oam_eval_and_detect(tmp_path):
    from groundplan.cli.main import app

    truth = tmp_path / "gt.yaml"
    truth.write_text("cup: [grasp, contain]\n")
    pred = tmp_path / "p.yaml"
    pred.write_text("cup: [grasp]\n")
    r = CliRunner().invoke(app, ["oam", "eval", str(pred), "--truth", str(truth), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)[str(pred)]["recall"] == 0.5
    d = tmp_path / "d.json"
    d.write_text(json.dumps([{"class": "cup", "instance": 0, "bbox": [0, 0, 1, 1]}]))
    r = CliRunner().invoke(app, ["oam", "detect", str(d), "--oam", str(truth)])
    assert r.exit_code == 0 and "cup0 grasp" in r.stdout
    r = CliRunner().invoke(app, ["oam", "build", "--strategy", "magic"])
    assert r.exit_code == 2


def test_cli_oam_build_then_eval(tmp_path, monkeypatch):
    """``groundplan oam build`` writes the map the LLM's answers give; ``oam eval`` scores it."""
    import groundplan.llm
    from groundplan.cli.main import app
    from groundplan.llm import ScriptedLLM

    classes = tmp_path / "c.json"
    classes.write_text(json.dumps({"object_classes": [{"name": "Cup"}, {"name": "Table"}]}))
    specs = tmp_path / "a.json"
    specs.write_text(json.dumps({"affordance_types": [
        {"name": "grasp", "prompt": "Can a {} be grasped with one hand?", "description": "d"},
        {"name": "support", "prompt": "Can objects be placed on a {}?", "description": "d"}]}))

    def answer(req):  # a cup can be grasped, a table supports; and the model gets "table grasp" wrong
        q = req.messages[-1].content
        return "Yes" if ("cup be grasped" in q or "on a table" in q or "table be grasped" in q) else "No"

    llms = []
    monkeypatch.setattr(groundplan.llm, "build_llm", lambda cfg: llms.append(ScriptedLLM(answer)) or llms[-1])
    out = tmp_path / "o.json"
    r = CliRunner().invoke(app, ["oam", "build", "--strategy", "yes-no", "--llm", "scripted", "--classes",
                                 str(classes), "--affordances", str(specs), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "4 LLM calls" in r.stdout and len(llms[0].requests) == 4
    built = json.loads(out.read_text())
    assert "grasp" in json.dumps(built) and "support" in json.dumps(built)
    truth = tmp_path / "gt.yaml"
    truth.write_text("cup: [grasp]\ntable: [support]\n")
    r = CliRunner().invoke(app, ["oam", "eval", str(out), "--truth", str(truth), "--json"])
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)[str(out)]
    assert (s["tp"], s["fp"], s["fn"]) == (2, 1, 0) and abs(s["precision"] - 2 / 3) < 1e-9 and s["recall"] == 1.0
    # a bad affordances file is a one-line error naming it
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    r = CliRunner().invoke(app, ["oam", "build", "--strategy", "list", "--llm", "scripted", "--classes",
                                 str(classes), "--affordances", str(bad), "--out", str(out)])
    assert r.exit_code == 2 and "bad.json" in r.output and "Traceback" not in r.output


@needs_data
def test_oam_strategies_on_the_real_questions_with_an_oracle():
    """The three strategies over the AutoGPT+P affordance descriptions and yes/no questions
    of the data, with a scripted LLM that answers from the ground truth: list and
    yes-no recover the ground truth exactly; logical asks an atomic question at most once."""
    from groundplan.datadir import autogpt_p_root
    from groundplan.knowledge.oam import load_oam
    from groundplan.knowledge.oam_llm import class_key, data_file, spoken
    from groundplan.llm import ScriptedLLM

    root = autogpt_p_root()
    truth = load_oam(data_file(root, "truth"))
    classes = load_classes(data_file(root, "classes"))[:3]
    specs = load_affordance_specs(data_file(root, "specs"))
    assert len(specs) == 38  # the data's proposed affordances (the paper's appendix lists 40)
    keys = sorted((class_key(c) for c in classes), key=lambda k: -len(spoken(k)))

    def who(prompt: str) -> str:
        return next(k for k in keys if spoken(k) in prompt)

    def list_answer(req):
        return ", ".join(sorted(truth.affordances(who(req.messages[-1].content))))

    res = build_oam(ScriptedLLM(list_answer), classes, "list", specs)
    s = evaluate_oam(res.oam, truth, classes)
    assert res.llm_calls == 3 and (s.precision, s.recall) == (1.0, 1.0)
    prompt = ScriptedLLM(list_answer)
    build_oam(prompt, classes[:1], "list", specs)
    text = prompt.requests[0].messages[-1].content
    assert all(f"{sp.name}: {sp.description}" in text for sp in specs)  # the descriptions, as the paper's prompt

    questions_ = {sp.question.replace("{}", spoken(k)): (k, sp.name) for k in keys for sp in specs}

    def yes_no(req):
        q = req.messages[-1].content
        k, aff = next(v for qq, v in questions_.items() if qq in q)
        return "Yes." if aff in truth.affordances(k) else "No."

    res = build_oam(ScriptedLLM(yes_no), classes, "yes-no", specs)
    s = evaluate_oam(res.oam, truth, classes)
    assert res.llm_calls == 3 * len(specs) and (s.precision, s.recall, s.f1) == (1.0, 1.0, 1.0)
    logical = load_affordance_specs(data_file(root, "logical_specs"))
    llm = ScriptedLLM(lambda req: "No")
    res = build_oam(llm, classes[:1], "logical", logical)
    atoms = {q for sp in logical for q in questions(parse_logic(sp.question))}
    asked = [r.messages[-1].content for r in llm.requests]
    # each atomic question at most once (answers are cached), "and" stops at the first "No"
    assert res.llm_calls == len(asked) == len(set(asked)) and 0 < len(asked) <= len(atoms)
    assert all(any(a.replace("{}", spoken(class_key(classes[0]))) in q for a in atoms) for q in asked)


# --------------------------------------------------------------------------- the real logs


@needs_data
def test_real_logs_match_the_paper_tables():
    """The recorded verdicts of the paper's runs (first N cases per log) give its numbers."""
    from groundplan.datadir import autogpt_p_root
    from groundplan.methods.autogpt_p.replay import load_recorded_run

    root = autogpt_p_root()
    run = load_recorded_run(root, ReplaySource.parse("gpt-4"), "plan", "saycan_d_structured_language")
    assert len(run) == 15 and sum(bool(c.reached) for c in run) == 14  # Table IV: 0.93
    run = load_recorded_run(root, ReplaySource.parse("gpt-3"), "plan", "saycan_a_nl_primitive")
    assert len(run) == 15  # a cut-off case in this log is skipped
    alt = load_recorded_run(root, ReplaySource.parse("gpt-4"), "alternative", "medium", "naive")
    assert sum(c.result["Substitution"] in c.result["Desired"].split(",") for c in alt) == 21  # Table III: 0.70
    loop = load_recorded_run(root, ReplaySource.parse("gpt-4"), "loop", "plan")
    assert len(loop) == 30 and sum(bool(c.reached) for c in loop) == 26  # Table VII: 0.87


@needs_data
def test_replay_method_on_saycan_drawer_family(planner):
    from groundplan.bench.datasets.autogpt_p import saycan_tasks
    from groundplan.methods import RunContext, get_method

    llm = AutoGPTPReplayLLM("gpt-4")
    ctx = RunContext(llm=llm, planner=planner, planner_timeout=60)
    eps = [get_method("autogpt_p").run(t, ctx) for t in saycan_tasks() if t.subset == "saycan_x_drawer"]
    assert len(eps) == 3 and all(e.success for e in eps)  # Table IV drawer: 1.00
    assert all(e.metrics["replay_faithful"] for e in eps)
    assert all(e.usage.replayed_calls >= 1 for e in eps)


@needs_data
def test_replay_worked_example_explore_alternative_plan(planner):
    """The README's worked example: "I want to drink a glass of milk" with no milk and no
    glass (autogptp_complex row 10) on GPT-4's recorded answers: Explore, Suggest
    Alternative (milk -> water, accepted by the simulated user), Plan; goal reached."""
    from groundplan.bench.datasets import load_tasks
    from groundplan.methods import RunContext, get_method

    task = next(t for t in load_tasks("autogptp-scenarios") if t.id == "complex:10")
    ep = get_method("autogpt_p").run(task, RunContext(llm=AutoGPTPReplayLLM("gpt-4"), planner=planner,
                                                      planner_timeout=60))
    assert ep.success and ep.metrics["replay_faithful"]
    assert ep.metrics["tools"] == ["EXPLORE refrigerator0", "SUGGEST_ALTERNATIVE milk",
                                   "PLAN I want to drink a glass of water"]
    assert ep.metrics["alternatives"] == ["milk->water"] and ep.metrics["request"] == "I want to drink a glass of water"
    explored = next(e for e in ep.trace if e["type"] == "explore")
    assert {"cucumber0", "salad0"} <= set(explored["revealed"])  # hidden until explored
    alt = next(e for e in ep.trace if e["type"] == "note" and e.get("what") == "suggest alternative")
    assert alt["relevant"] == ["liquid", "drinkable"] and alt["path"] == "single" and alt["user"] == "yes"
    assert ep.plan[-1] == "handover human0 plastic_cup0 robot0"


@needs_data
@pytest.mark.parametrize("method, source", [("autogpt_p", "gpt-4"), ("autogpt_p_naive_alternative", "gpt-3")])
def test_replay_substitution_gives_the_recorded_alternative(method, source):
    """Suggest Alternative (Alg. 2) and the naive baseline on recorded answers suggest what
    the original suggested (simple set, first 5 rows)."""
    from groundplan.bench.datasets import load_tasks
    from groundplan.datadir import autogpt_p_root
    from groundplan.methods import RunContext, get_method

    gt = str(autogpt_p_root() / "object_affordance_mapping/data/oam/simulation_classes_ground_truth_.json")
    from groundplan.planners import get_planner

    llm = AutoGPTPReplayLLM(source)
    ctx = RunContext(llm=llm, planner=get_planner("fast-downward"), planner_timeout=10, config={"oam_file": gt})
    tasks = [t for t in load_tasks("autogptp-substitution") if t.subset == "simple"][:5]
    for t in tasks:
        ep = get_method(method).run(t, ctx)
        rec = ep.metrics["replay"]["recorded_result"]
        assert ep.metrics["alternative"] == rec["Substitution"], (t.id, ep.metrics)
        assert ep.success == (rec["Substitution"] in rec["Desired"].split(","))


@needs_data
def test_scenario_row_with_surplus_parenthesis_is_read_and_noted():
    """autogptp_partial row 2 ends with one ')' too many; the paper counted the row: it is
    read without it, and the task says so."""
    from groundplan.bench.datasets import load_tasks
    from groundplan.bench.validate import deep_check

    tasks = load_tasks("autogptp-scenarios")
    t = next(t for t in tasks if t.id == "partial:2")
    assert t.goal == "and (inhand apple0 human0)" and t.extras["goal_as_written"].endswith("))")
    assert deep_check(t) is None
    assert [x.id for x in tasks if "goal_as_written" in x.extras] == ["partial:2"]
