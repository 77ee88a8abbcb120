"""The malformed-file corpus of the documented formats (tests/data/malformed/formats/): each
skill set, scene and object-affordance map holds one mistake, and `groundplan plan` reports
it as exit code 2 and one line ``error: file:line: message`` before Fast Downward runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
CORPUS_DIR = DATA / "malformed" / "formats"
ARM, ARM_SCENE = DATA / "formats" / "arm.yaml", DATA / "formats" / "arm_scene.yaml"
KITCHEN = Path(__file__).resolve().parents[1] / "examples" / "scenes" / "kitchen.yaml"

#: file -> (line, words the message must contain). skills_* are run as --skills with the arm
#: scene, scene_* as --scene with the household skill set, oam_* as --oam with the kitchen.
CORPUS = {
    "skills_unknown_section.yaml": (19, "unknown section 'capabilites' (did you mean capabilities?)"),
    "skills_unknown_key.yaml": (22, "'precondition' (did you mean preconditions?)"),
    "skills_unknown_predicate.yaml": (27, "unknown predicate 'holdng' in (holdng ?actor ?object) (did you mean holding?)"),
    "skills_wrong_arity.yaml": (29, "predicate 'at' takes 2 arguments (at ?o - block ?l - location), got 1"),
    "skills_unbound_variable.yaml": (29, "variable ?target in (at ?object ?target) is bound by no parameter"),
    "skills_unknown_type.yaml": (25, "unknown type 'blok' (did you mean block?)"),
    "skills_unknown_type_in_predicate.yaml": (14, "unknown type 'locaton' (did you mean location?)"),
    "skills_unknown_parent_type.yaml": (10, "type 'cube' has unknown type 'blocks' (did you mean block?)"),
    "skills_duplicate_capability.yaml": (24, "capability 'grasp' declared twice"),
    "skills_duplicate_predicate.yaml": (16, "predicate 'holding' declared twice"),
    "skills_duplicate_key.yaml": (24, "duplicate key 'effects' (first given on line 23)"),
    "skills_duplicate_parameter.yaml": (21, "capability 'grasp' has two parameters named object"),
    "skills_yaml_boolean.yaml": (25, "is a boolean; quote names such as \"on\""),
    "skills_pddl_syntax.yaml": (22, "capabilities[0].preconditions: unbalanced parentheses"),
    "skills_agent_capability.yaml": (12, "capability 'plase', which the skill set does not define"),
    "skills_missing_type.yaml": (21, "capabilities[0].parameters[1] needs the key 'type'"),
    "skills_effect_on_derived.yaml": (23, "changes the derived predicate 'hand_empty'"),
    "skills_constant_in_formula.yaml": (22, "'location0' in (at ?object location0) is not a variable"),
    "skills_message_placeholder.yaml": (28, "names {target}, which is not a parameter"),
    "scene_unknown_section.yaml": (11, "unknown section 'fact' (did you mean facts?)"),
    "scene_agent_unknown_key.yaml": (5, "unknown key in agents[0]: 'capabilites' (did you mean capabilities?)"),
    "scene_agent_bad_kind.yaml": (5, "agents[0].kind 'robto' is not one of robot, human, child (did you mean robot?)"),
    "scene_duplicate_object.yaml": (3, "object 'apple0' listed twice"),
    "scene_duplicate_section.yaml": (14, "duplicate key 'facts' (first given on line 11)"),
    "scene_unknown_predicate.yaml": (13, "predicate 'closd', unknown to skill set 'household' (did you mean closed?)"),
    "scene_wrong_arity.yaml": (13, "predicate 'closed' takes 1 argument (closed ?cl - close)"),
    "scene_affordance.yaml": (14, "sink0 is a sink with affordances [contain, heat-resistance, liquid-contain]; "
                                  "'on' needs a support as argument 2"),
    "scene_fact_unknown_object.yaml": (12, "unknown object 'appel0' (did you mean apple0?)"),
    "scene_unknown_location.yaml": (8, "location 'cuonter0' is not an object of the scene (did you mean counter0?)"),
    "scene_agent_name_clash.yaml": (6, "agent 'table0' has the name of another object"),
    "scene_bad_cost.yaml": (6, "agents[1].cost must be a number, not 'high'"),
    "oam_unknown_affordance.yaml": (3, "class 'stool' has unknown affordance 'suport' (did you mean support?)"),
    "oam_duplicate_class.yaml": (4, "duplicate key 'mug' (first given on line 2)"),
    "oam_not_a_list.yaml": (3, "stool must be a list or empty, not 'support'"),
    "oam_duplicate_affordance.yaml": (2, "stool lists 'carry' twice"),
    "oam_json_affordances_not_list.json": (4, "oams[1].affordances must be a list, not 'pour'"),
    "oam_json_unknown_key.json": (2, "unknown key 'oamz' (did you mean oams?)"),
}


def _args(name: str) -> list[str]:
    path = str(CORPUS_DIR / name)
    goal = ["--goal", "and (inhand apple0 human0)"]
    if name.startswith("skills_"):
        return ["plan", "--scene", str(ARM_SCENE), "--skills", path, "--goal", "and (at cube0 location1)"]
    if name.startswith("scene_"):
        return ["plan", "--scene", path, *goal]
    return ["plan", "--scene", str(KITCHEN), "--oam", path, *goal]


def _cli(args: list[str], monkeypatch, capsys) -> tuple[int, str, str]:
    from groundplan.cli.main import main

    monkeypatch.setattr(sys, "argv", ["groundplan", *args])
    with pytest.raises(SystemExit) as ei:
        main()
    cap = capsys.readouterr()
    return ei.value.code, cap.out, cap.err


def test_the_corpus_is_complete():
    assert sorted(p.name for p in CORPUS_DIR.iterdir()) == sorted(CORPUS)
    kinds = [n.split("_")[0] for n in CORPUS]
    assert kinds.count("skills") >= 12 and kinds.count("scene") + kinds.count("oam") >= 8


def test_the_baselines_plan(monkeypatch, capsys):
    """The corpus spoils valid files: the skill set and scenes it starts from plan."""
    code, out, err = _cli(["plan", "--scene", str(ARM_SCENE), "--skills", str(ARM), "--goal",
                           "and (at cube0 location1)"], monkeypatch, capsys)
    assert code == 0, err
    assert out.splitlines()[:2] == ["grasp cube0 location0 robot0", "put cube0 location1 robot0"]


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_malformed_file_exit_2_one_line(name, monkeypatch, capsys):
    line, words = CORPUS[name]
    code, out, err = _cli(_args(name), monkeypatch, capsys)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"error: {CORPUS_DIR / name}:{line}: "), lines[0]
    assert words in lines[0], lines[0]
    assert "Traceback" not in err and "ParseError" not in err


def test_through_the_installed_command():
    """One file through a real `groundplan` process: exit 2, one line on stderr."""
    name = "skills_unknown_section.yaml"
    r = subprocess.run([sys.executable, "-m", "groundplan.cli.main", *_args(name)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"error: {CORPUS_DIR / name}:19: unknown section 'capabilites' (did you mean capabilities?) (expected one "
        "of name, domain_name, requirements, types, affordance_types, location_type, actor_type, "
        "capability_type_prefix, object_label, agents, predicates, hidden_predicates, derived, functions, "
        "cost_effect, init_implications, capabilities, semantic_conditions)"]
