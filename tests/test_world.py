import pytest

from groundplan.errors import SceneError
from groundplan.world import load_scene, parse_autogpt_p_scene, parse_yaml_scene, write_yaml_scene

GOOD = """SCENE-DESCRIPTION
OBJECTS
coke:0
counter:1
table:0
human:0
END-OBJECTS
RELATIONS
on coke:0 counter:1
at robot:0 counter:1
END-RELATIONS
LOCATIONS
counter1 coke:0 counter:1
table0 table:0
human0 human:0
END-LOCATIONS"""


def test_autogpt_p_reader():
    s = parse_autogpt_p_scene(GOOD, file="k.txt")
    assert {o.name for o in s.objects} == {"coke0", "counter1", "table0"}
    assert {a.name for a in s.agents} == {"robot0", "human0"}
    robot = s.agent("robot0")
    assert robot.location == "counter1" and robot.cost == 1 and s.agent("human0").cost == 100
    assert s.object("coke0").cls == "coke"


@pytest.mark.parametrize("mutate,needle,line", [
    (lambda t: t.replace("RELATIONS\non", "RELATIONZ\non"), "unknown section", 8),
    (lambda t: t.replace("coke:0\ncounter:1\n", "coke0\ncounter:1\n"), "class:index", 3),
    (lambda t: t.replace("on coke:0 counter:1", "on coke:0 shelf:3"), "unknown object 'shelf3'", 9),
    (lambda t: t.replace("END-OBJECTS", "END-OBJECTS\nbanana:0"), "outside a section", 8),
])
def test_autogpt_p_reader_errors_name_file_and_line(mutate, needle, line):
    with pytest.raises(SceneError) as ei:
        parse_autogpt_p_scene(mutate(GOOD), file="k.txt")
    assert needle in str(ei.value)
    assert ei.value.file == "k.txt" and ei.value.line == line


def test_lenient_drops_with_warning():
    s = parse_autogpt_p_scene(GOOD.replace("on coke:0 counter:1", "closed bottle:0"), file="k.txt", strict=False)
    assert any("bottle0" in w for w in s.warnings)


def test_yaml_round_trip(tmp_path):
    s = parse_autogpt_p_scene(GOOD, file="k.txt")
    text = write_yaml_scene(s)
    s2 = parse_yaml_scene(text)
    assert s2.facts == s.facts
    assert {o.name for o in s2.objects} == {o.name for o in s.objects}
    assert {(a.name, a.location, a.cost) for a in s2.agents} == {(a.name, a.location, a.cost) for a in s.agents}


@pytest.mark.parametrize("text,needle", [
    ("objects: [a0]\nfurniture: []\n", "unknown section 'furniture'"),
    ("objects: [a0]\nfacts:\n  - on a0 b0\n", "unknown object 'b0'"),
    ("objects: [a0\n", "invalid YAML"),
    ("objects: [a0]\nagents:\n  - {name: r0, kind: dog}\n", "kind 'dog'"),
])
def test_yaml_errors(text, needle):
    with pytest.raises(SceneError) as ei:
        parse_yaml_scene(text, file="s.yaml")
    assert needle in str(ei.value) and str(ei.value).startswith("s.yaml")


def test_exploration_hides_contents(tmp_path):
    p = tmp_path / "s.yaml"
    p.write_text("objects: [counter0, fridge0, milk0]\nagents: [{name: robot0, kind: robot, at: counter0}]\n"
                 "locations: {counter0: [], fridge0: [milk0]}\nfacts: [in milk0 fridge0]\nexplored: [counter0]\n")
    s = load_scene(p)
    assert "milk0" not in s.visible().object_names
    assert "milk0" in s.explore("fridge0").visible().object_names


def test_skillset_yaml_boolean_names_are_rejected(tmp_path):
    from groundplan.errors import SkillSetError
    from groundplan.skills import load_skillset

    f = tmp_path / "s.yaml"
    f.write_text("name: s\ncapabilities:\n  - name: place\n    parameters: [{name: on, type: support}]\n")
    with pytest.raises(SkillSetError) as ei:
        load_skillset(str(f))
    assert "boolean" in str(ei.value) and "s.yaml" in str(ei.value)
