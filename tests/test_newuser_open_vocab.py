"""A new user's scenes and skill sets (helper H10's walk-through of issue 20): class names
spelt otherwise than the map's, plural names, objects listed under a location but in no fact,
and a skill set typed by declared types (no affordances)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from groundplan.cli.main import main
from groundplan.knowledge.infer import LexicalInferrer, head_class, singular_forms, words
from groundplan.knowledge.oam import default_oam


def _cli(args: list[str], monkeypatch, capsys) -> tuple[int, str, str]:
    """The installed command's path: ``main()`` with its exit code, stdout, stderr."""
    monkeypatch.setattr(sys, "argv", ["groundplan", *args])
    with pytest.raises(SystemExit) as ei:
        main()
    cap = capsys.readouterr()
    return ei.value.code or 0, cap.out, cap.err


TABLETOP = Path(__file__).resolve().parents[1] / "src" / "groundplan" / "skills" / "data" / "tabletop.yaml"


def test_words_split_camel_case_and_separators():
    assert words("CoffeeMug") == ["coffee", "mug"]
    assert words("Coffee-Mug") == words("coffee mug") == words("coffee_mug") == ["coffee", "mug"]
    assert words("TV") == ["tv"]


@pytest.mark.parametrize("cls,known", [
    ("Scissors", "scissors"),  # a map class in capitals
    ("Cutting-Board", "cutting_board"),  # the whole name with other separators
    ("CuttingBoard", "cutting_board"),
    ("cups", "cup"),  # plurals
    ("boxes", "box"),
    ("knives", "knife"),
    ("pill_bottles", "bottle"),
    ("Coffee Mug", "mug"),  # the head noun, as before
    ("BookShelf", "shelf"),
])
def test_head_class_finds_other_spellings_and_plurals(cls, known):
    assert head_class(cls, default_oam().mapping) == known


def test_head_class_still_refuses_non_heads():
    m = default_oam().mapping
    assert head_class("can", m) is None  # not trash_can
    assert head_class("bus", m) is None
    assert head_class("glasses", m) == "glass"
    assert "glas" not in singular_forms("glass")


def test_inference_of_a_respelt_class_is_the_map_entry():
    got = LexicalInferrer().explain(["Scissors", "cups"], default_oam())
    assert set(got["Scissors"].affordances) == set(default_oam().affordances("scissors"))
    assert {"carry", "grasp", "contain"} <= set(got["cups"].affordances)


def _blocks(tmp_path: Path, shelf: str = "{name: shelf0, class: location}") -> Path:
    p = tmp_path / "blocks.yaml"
    p.write_text(f"""name: blocks
objects: [cube0, cube1, {{name: table0, class: location}}, {shelf}]
agents:
  - {{name: robot0, kind: robot}}
locations:
  table0: [cube0, cube1]
  shelf0: []
facts:
  - at cube0 table0
  - at cube1 table0
  - in_workspace table0
  - in_workspace shelf0
""")
    return p


def test_skillset_without_affordances_gets_no_oam_warnings(tmp_path, monkeypatch, capsys):
    code, out, err = _cli(["plan", "--scene", str(_blocks(tmp_path)), "--skills", str(TABLETOP),
                                 "--goal", "(at cube0 shelf0)"], monkeypatch, capsys)
    assert code == 0, out + err
    assert "move cube0 shelf0 robot0" in out
    assert "affordance" not in out + err and "OAM" not in out + err


def test_goal_type_error_in_declared_types_says_how_to_fix(tmp_path, monkeypatch, capsys):
    code, out, err = _cli(["plan", "--scene", str(_blocks(tmp_path, shelf="shelf0")), "--skills", str(TABLETOP),
                                 "--goal", "(at cube0 shelf0)"], monkeypatch, capsys)
    assert code == 2
    lines = [ln for ln in (out + err).splitlines() if ln.strip()]
    assert len(lines) == 1, out + err
    assert "must be a location, but shelf0 is a shelf" in lines[0]
    assert "give shelf0 `class: location`" in lines[0] and "`shelf: [location]`" in lines[0]


def test_objects_listed_but_in_no_fact_are_warned_about(tmp_path, monkeypatch, capsys):
    p = tmp_path / "loose.yaml"
    p.write_text("""name: loose
objects: [table0, stapler0, hammer0, mug0]
agents:
  - {name: robot0, kind: robot, at: table0}
  - {name: human0, kind: human, at: table0}
locations:
  table0: [stapler0, hammer0, mug0]
facts:
  - on mug0 table0
""")
    code, out, err = _cli(["plan", "--scene", str(p), "--goal", "(inhand mug0 human0)", "--infer", "lexical"], monkeypatch, capsys)
    assert code == 0, out + err
    warn = [ln for ln in (out + err).splitlines() if "in no fact" in ln]
    assert len(warn) == 1 and "stapler0, hammer0" in warn[0] and "mug0" not in warn[0]
    assert "'on stapler0 table0'" in warn[0]


def test_class_with_a_space_gets_a_fixed_spelling_suggested(tmp_path, monkeypatch, capsys):
    p = tmp_path / "sp.yaml"
    p.write_text("""name: sp
objects: [table0, {name: mug1, class: Coffee Mug}]
agents:
  - {name: robot0, kind: robot, at: table0}
locations:
  table0: [mug1]
facts: [on mug1 table0]
""")
    code, out, err = _cli(["plan", "--scene", str(p), "--goal", "(inhand mug1 robot0)"], monkeypatch, capsys)
    assert code == 2
    lines = [ln for ln in (out + err).splitlines() if ln.strip()]
    assert len(lines) == 1, out + err
    assert lines[0].startswith(f"error: {p}:2: objects[1].class 'Coffee Mug' is not a valid name")
    assert "(did you mean Coffee_Mug?)" in lines[0]
    # and the suggested spelling plans: Coffee_Mug is a mug
    p.write_text(p.read_text().replace("Coffee Mug", "Coffee_Mug"))
    code, out, err = _cli(["plan", "--scene", str(p), "--goal", "(inhand mug1 robot0)"], monkeypatch, capsys)
    assert code == 0, out + err
    assert "grasp mug1 table0" in out


def test_list_fact_with_unquoted_on_is_the_predicate_on(tmp_path, monkeypatch, capsys):
    """docs/formats.md gives facts as `[on, apple0, counter0]`; YAML reads that `on` as true."""
    from groundplan.world import load_scene

    p = tmp_path / "shed.yaml"
    p.write_text("""name: "shed [v2]"
description: "Shed: a bench [left]; #1 'quotes'"
objects: [bench0, {name: can_a, class: watering_can}, sink0]
agents:
  - {name: robot0, kind: robot, at: bench0}
locations:
  bench0: [can_a]
  sink0: []
facts:
  - [on, can_a, bench0]
""")
    scene = load_scene(p)
    assert "(on can_a bench0)" in {f.pddl() for f in scene.facts}
    code, out, err = _cli(["scene", "show", str(p)], monkeypatch, capsys)
    assert code == 0, err
    back = tmp_path / "back.yaml"
    back.write_text(out)
    again = load_scene(back)
    assert again.facts == scene.facts and again.description == scene.description and again.name == scene.name


def test_run_refuses_a_bad_fact_like_plan(tmp_path, monkeypatch, capsys):
    """`groundplan run` checks the scene as strictly as `plan`: a misfit fact is one line, exit 2
    (it was a warning, and the run went on with the fact dropped)."""
    p = tmp_path / "shed.yaml"
    p.write_text("""name: shed
objects: [bench0, watering_can0, sink0]
agents:
  - {name: robot0, kind: robot, at: bench0}
  - {name: human0, kind: human, at: bench0}
locations:
  bench0: [watering_can0]
facts:
  - on watering_can0 sink0
""")
    code, out, err = _cli(["run", "--scene", str(p), "--method", "oracle", "--check", "(inhand watering_can0 human0)",
                           "give me the watering can"], monkeypatch, capsys)
    assert code == 2, out + err
    lines = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1 and f"{p}:9: fact (on watering_can0 sink0): sink0 is a sink" in lines[0], err


def test_class_clashing_with_a_type_names_the_line_and_a_fix(tmp_path, monkeypatch, capsys):
    p = tmp_path / "cl.yaml"
    p.write_text("""name: cl
objects: [table0, support0]
agents:
  - {name: robot0, kind: robot, at: table0}
locations:
  table0: [support0]
facts: [on support0 table0]
""")
    code, out, err = _cli(["plan", "--scene", str(p), "--goal", "(inhand support0 robot0)"], monkeypatch, capsys)
    assert code == 2
    assert err.strip() == (f"error: {p}:2: object class 'support' of support0 clashes with a type of skill set "
                           f"'household' (give it another class: {{name: support0, class: support_object}})")


def test_index_separator_is_not_part_of_the_class(tmp_path):
    from groundplan.world import load_scene
    from groundplan.world.yaml_io import write_yaml_scene

    p = tmp_path / "idx.yaml"
    p.write_text("""name: idx
objects: [table, mug_1, mug-2, mug3, {name: cup_a, class: cup}]
agents:
  - {name: robot_1, at: table}
locations:
  table: [mug_1, mug-2, mug3, cup_a]
facts: [on mug_1 table, on mug-2 table, on mug3 table, on cup_a table]
""")
    scene = load_scene(p)
    assert {o.name: o.cls for o in scene.objects} == {"table": "table", "mug_1": "mug", "mug-2": "mug",
                                                      "mug3": "mug", "cup_a": "cup"}
    assert scene.agents[0].kind == "robot"
    back = tmp_path / "back.yaml"
    back.write_text(write_yaml_scene(scene))
    assert {o.name: o.cls for o in load_scene(back).objects} == {o.name: o.cls for o in scene.objects}


@pytest.mark.parametrize("text,msg", [
    ("object;affordances\nhammer;grasp\n", ":1: expected the header row 'object,affordances'"),
    ("object,affordances\nhammer,grasp carry\n", ":2: row 'hammer,grasp carry' is not one object and one affordance"),
    ("object,affordances\nhammer,grasp,carry\n", ":2: row"),
    ("object,affordances\nhammer,\n", ":2: row 'hammer' is not one object and one affordance"),
])
def test_csv_oam_rows_are_checked(tmp_path, text, msg):
    from groundplan.errors import InputError
    from groundplan.knowledge.oam import load_oam

    p = tmp_path / "m.csv"
    p.write_text(text)
    with pytest.raises(InputError) as ei:
        load_oam(p)
    assert msg in str(ei.value)


def test_csv_oam_one_pair_per_row_loads(tmp_path):
    from groundplan.knowledge.oam import load_oam

    p = tmp_path / "m.csv"
    p.write_text("object,affordances\nhammer,grasp\nhammer,carry\nsink,support\n")
    assert load_oam(p).mapping == {"hammer": frozenset({"grasp", "carry"}), "sink": frozenset({"support"})}


def test_scene_show_writes_facts_one_per_line_and_never_wraps(tmp_path, monkeypatch, capsys):
    objs = [f"very_long_object_name_number_{i}_{j}" for i, j in zip("abcdefghij", range(10))]
    p = tmp_path / "wide.yaml"
    p.write_text("name: wide\nobjects: [table0, " + ", ".join(f"{o}0" for o in objs) + "]\n"
                 "agents:\n  - {name: robot0, kind: robot, at: table0}\n"
                 "locations:\n  table0: [" + ", ".join(f"{o}0" for o in objs) + "]\n"
                 "facts:\n" + "".join(f"  - on {o}0 table0\n" for o in objs))
    code, out, err = _cli(["scene", "show", str(p)], monkeypatch, capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "name: wide" and lines[1].startswith("objects: [table0, ")
    assert all(f"- on {o}0 table0" in lines for o in objs)  # one fact a line
    assert sum(ln.startswith("objects:") for ln in lines) == 1 and "cost: 1" in out  # one line, an int cost
    back = tmp_path / "back.yaml"
    back.write_text(out)
    code2, out2, _ = _cli(["scene", "show", str(back)], monkeypatch, capsys)
    assert code2 == 0 and out2 == out


@pytest.mark.parametrize("old,new,line,msg", [
    ('":typing", ":negative-preconditions"', '":typng", ":negative-preconditions"', 10,
     "requirements[0] ':typng' is not one of"),
    ('effects: "(and (at_base ?actor))"', 'effects: "(and (at_base ?actor) (not))"', 60,
     "'not' in an effect takes 1 argument, got 0"),
    ('effects: "(and (at_base ?actor))"', 'effects: "(and (at_base ?actor) (when (at_base ?actor)))"', 60,
     "'when' in an effect takes 2 arguments, got 1"),
    ('effects: "(and (at_base ?actor))"', 'effects: "(and (at_base ?actor) (forall ?x (at_base ?actor)))"', 60,
     "'forall' in an effect needs a variable list"),
    ("  cube: [block]", "  cube: [cube]", 23, "type 'cube' is its own ancestor"),
    ("  block: [object]", "  block: [cube]", 22, "type 'block' is its own ancestor"),
    ("  - name: return_to_base", "  - name: return to base", 58,
     "capabilities[2].name 'return to base' is not a valid name: a name has no spaces"),
    ("domain_name: franka_tabletop", 'domain_name: "franka tabletop (v2)"', 9,
     "domain_name 'franka tabletop (v2)' is not a valid name"),
    ("  block: [object]", "  blöck: [object]", 18, "types 'blöck' is not a valid name"),
    ('{decl: "(at_base ?r - actor)"', '{decl: "(at_base ?r - actör)"', 29,
     "predicates[3]: non-ASCII letter 'ö' in '(at_base ?r - actör)'; PDDL names are ASCII (did you mean "
     "'(at_base ?r - actor)'?)"),
])
def test_skill_set_mistakes_fast_downward_would_see(tmp_path, old, new, line, msg):
    """Mistakes that reached Fast Downward's parser (exit 1) or crashed (IndexError) or were
    accepted (a type cycle): each is now one `file:line: message`."""
    from groundplan.errors import SkillSetError
    from groundplan.skills.skillset import load_skillset

    text = TABLETOP.read_text()
    assert text.count(old) == 1
    p = tmp_path / "arm.yaml"
    p.write_text(text.replace(old, new), encoding="utf-8")
    with pytest.raises(SkillSetError) as ei:
        load_skillset(str(p))
    assert str(ei.value).startswith(f"{p}:{line}: ") and msg in str(ei.value), str(ei.value)
    if "typng" in new:
        assert "(did you mean :typing?)" in str(ei.value)


@pytest.mark.parametrize("name,fixed", [("café0", "cafe0"), ("mug;1", "mug1")])
def test_names_fast_downward_cannot_read_are_refused(tmp_path, monkeypatch, capsys, name, fixed):
    """A non-ASCII name reached Fast Downward (ParseError, exit 1); ';' starts a PDDL comment."""
    p = tmp_path / "nm.yaml"
    p.write_text(f"""name: nm
objects: [table0, "{name}"]
agents:
  - {{name: robot0, kind: robot, at: table0}}
locations:
  table0: ["{name}"]
facts: ["on {name} table0"]
""", encoding="utf-8")
    code, out, err = _cli(["plan", "--scene", str(p), "--goal", f"(inhand {fixed} robot0)"], monkeypatch, capsys)
    assert code == 2
    assert err.strip() == (f"error: {p}:2: objects[1] '{name}' is not a valid name: a name has no spaces, "
                           f"parentheses, '?', ';' or non-ASCII letters (did you mean {fixed}?)")


def test_scene_name_fast_downward_cannot_read_becomes_a_problem_name(tmp_path, monkeypatch, capsys):
    """The scene's name is free text; the PDDL problem name made from it was not (a non-ASCII
    letter, a parenthesis or ';' reached Fast Downward: ParseError, exit 1)."""
    from groundplan.skills.builder import _pddl_name

    assert _pddl_name("kitchen") == "kitchen" and _pddl_name("my kitchen") == "my_kitchen"  # as before
    assert _pddl_name("a.b+c-1") == "a.b+c-1"
    p = tmp_path / "gh.yaml"
    p.write_text("""name: "Gartenhütte (alt); v2"
objects: [table0, mug0]
agents:
  - {name: robot0, kind: robot, at: table0}
  - {name: human0, kind: human, at: table0}
locations:
  table0: [mug0]
facts: [on mug0 table0]
""", encoding="utf-8")
    code, out, err = _cli(["plan", "--scene", str(p), "--goal", "(inhand mug0 human0)"], monkeypatch, capsys)
    assert code == 0, err
    assert "handover human0 mug0 robot0" in out
    code, out, err = _cli(["pddl", "--scene", str(p)], monkeypatch, capsys)
    assert code == 0 and "(define (problem Gartenhutte_alt_v2)" in out
