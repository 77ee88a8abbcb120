"""goalsearch: need statements, multi-step references and class synonyms.
Sentences written for these tests (none from a held-out or evaluation set)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_small_model import needs_minilm

from groundplan.methods.small_model.candidates import need_phrases, scene_view
from groundplan.methods.small_model.needs import is_need_statement, wanted
from groundplan.methods.small_model.scene_lexicon import Lexicon, synonyms
from groundplan.methods.small_model.search import GoalSearcher, SearchOptions
from groundplan.pddl.formula import Atom
from groundplan.sim.pipeline import build


@pytest.mark.parametrize("text,need", [
    ("ugh, my mouth is so dry after that run", True),
    ("it's freezing in this room", True),
    ("the soup went cold while we talked", True),
    ("I could really go for something sweet", True),
    ("would you mind taking the apple to the table?", False),
    ("hey robot, fetch the coke", False),
    ("the salmon belongs in the fridge", False),
    ("please, the apple onto the table", False),
    ("I'm hungry, so grab me a banana", False),
    ("first open the fridge, then hand me the coke", False),
    # a wish about a state, a modal statement, a command after a condition, a grasp (fixed after
    # the first held-out d run: the plan-tool sets' "I want the X to be ..." became hand-overs)
    ("I want the banana to be in the bowl", False),
    ("the salmon shouldn't be sitting out on the counter", False),
    ("if the coke is in the fridge, fetch it for me", False),
    ("grasp the sponge", False),
    ("I'd like the apple in the fridge", False),  # a wish about where a named thing is
    ("I want the cups washed", False),
    ("yes, my mouth is dry", True),
])
def test_need_statements(text, need):
    assert is_need_statement(text) is need


def test_wanted_objects_follow_a_wish():
    text = "I'd like the apple, the banana is too ripe"
    assert wanted(text, text.index("apple"))
    assert not wanted(text, text.index("banana"))


def test_need_phrases_by_class_head_noun_and_predicate(kitchen):
    view = scene_view(kitchen.domain, kitchen.problem)
    assert need_phrases(Atom("liquid_warm", ("water0",)), view)  # by predicate alone
    assert not need_phrases(Atom("chopped", ("apple0",)), view)
    from groundplan.methods.small_model.candidates import SceneView

    garage = SceneView({"garage_door0": "garage_door"}, {"garage_door0": "the garage door"}, {}, (), ())
    assert need_phrases(Atom("opened", ("garage_door0",)), garage) == need_phrases(
        Atom("opened", ("door0",)), SceneView({"door0": "door"}, {}, {}, (), ()))


def test_synonyms_name_scene_classes(kitchen):
    assert "fridge" in synonyms()["refrigerator"] and "refrigerator" in synonyms()["fridge"]
    view = scene_view(kitchen.domain, kitchen.problem)
    on = Lexicon(view, synonyms_on=True).mentions_simple("put it in the refrigerator")
    off = Lexicon(view, synonyms_on=False).mentions_simple("put it in the refrigerator")
    assert [set(m.objects) for m in on] == [{"fridge0"}] and not off


@needs_minilm
@pytest.mark.parametrize("instruction,expected", [
    # a need: handing over a drink, not a placement of what the sentence mentions
    ("my mouth is so dry after sitting at the table all day", {"(inhand coke0 human0)", "(inhand bottle0 human0)"}),
    # a clause that closes what an earlier clause opened
    ("open the fridge, put the apple inside and shut the door again", {"(in apple0 fridge0)", "(closed fridge0)"}),
    # a state a clause asks for counts although it holds now (the fridge is opened on the way)
    ("take the coke out of the fridge, close the fridge and give me the coke", {"(closed fridge0)",
                                                                              "(inhand coke0 human0)"}),
    # "from it" is where the water comes from; "the cup" is the cup filled before
    ("open the bottle, fill the cup from it and pass the cup to me", {"(opened bottle0)", "(liquid_in water0 cup0)",
                                                                     "(inhand cup0 human0)"}),
])
def test_needs_and_multistep_references(encoder, kitchen, instruction, expected):
    res = GoalSearcher(encoder).search(instruction, kitchen.domain, kitchen.problem)
    got = {a.pddl() for a in res.goals[0].atoms}
    if instruction.startswith("my mouth"):
        assert len(got) == 1 and got <= expected, (res.structure, res.goals[:3])
    else:
        assert got == expected, (res.structure, res.clauses, res.goals[:3])


@needs_minilm
def test_multistep_references_switch_off(encoder, kitchen):
    # (closing_steps also reads "shut the door again" right: off as well)
    off = GoalSearcher(encoder, options=SearchOptions.of(multistep_refs=False, need_mode=False, synonyms=False,
                                                      closing_steps=False))
    res = off.search("open the fridge, put the apple inside and shut the door again", kitchen.domain, kitchen.problem)
    assert "(closed fridge0)" not in {a.pddl() for a in res.goals[0].atoms}


def test_all_but_is_an_exception(kitchen):
    from test_small_model import _analysis

    an = _analysis(kitchen, "clear the counter, all but the sponge")
    assert "sponge0" in an.excluded


@needs_minilm
def test_coordinated_subjects_share_the_predicate(encoder, kitchen):
    res = GoalSearcher(encoder).search("the apple and the banana belong on the table", kitchen.domain, kitchen.problem)
    assert {a.pddl() for a in res.goals[0].atoms} == {"(on apple0 table0)", "(on banana0 table0)"}, res.clauses


@needs_minilm
@pytest.mark.parametrize("instruction,expected", [
    # the group's clause decides its destination; the other clause adds its own atom
    ("put everything on the counter in the bin, then close the refrigerator",
     {"(in bottle0 trash_can0)", "(in cup0 trash_can0)", "(in sponge0 trash_can0)", "(in apple0 trash_can0)",
      "(closed fridge0)"}),
    # "everything in the <synonym>": the things there
    ("everything in the refrigerator goes onto the table", {"(on coke0 table0)", "(on salmon0 table0)"}),
    # "... and close it": closes where the group went
    ("put everything on the counter in the fridge and close it",
     {"(in bottle0 fridge0)", "(in cup0 fridge0)", "(in sponge0 fridge0)", "(in apple0 fridge0)", "(closed fridge0)"}),
])
def test_groups_with_other_clauses(encoder, kitchen, instruction, expected):
    res = GoalSearcher(encoder).search(instruction, kitchen.domain, kitchen.problem)
    assert {a.pddl() for a in res.goals[0].atoms} == expected, (res.structure, res.goals[:3])


def test_idiomatic_all_is_no_quantifier():
    from groundplan.methods.small_model.mentions import quantifier_text

    assert "all" not in quantifier_text("crumbs all over the table").split()
    assert "all" in quantifier_text("put all the cups away").split()
    assert len(quantifier_text("not at all")) == len("not at all")


@needs_minilm
def test_class_use_phrases_are_weighted(encoder, kitchen):
    """A class-use phrase counts ``w_class_uses`` of a name phrase."""
    full = GoalSearcher(encoder, options=SearchOptions.of(w_class_uses=1.0))
    part = GoalSearcher(encoder, options=SearchOptions.of(w_class_uses=0.5))
    _, c1, e1, _, _ = full.scene(kitchen.domain, kitchen.problem)
    _, c2, e2, _, _ = part.scene(kitchen.domain, kitchen.problem)
    i = next(k for k, c in enumerate(c1) if c.n_uses and c.atom.pddl() == "(inhand coke0 human0)")
    row = sum(len(c.phrases) for c in c1[:i + 1])
    assert abs(float(e2[row - 1] @ e2[row - 1]) - 0.25 * float(e1[row - 1] @ e1[row - 1])) < 1e-4


def test_speech_words_are_strings():
    """YAML reads bare on / off / yes as booleans: every word list of speech.yaml is text."""
    from importlib import resources

    import yaml

    data = yaml.safe_load(resources.files("groundplan.knowledge").joinpath("data", "goalsearch", "speech.yaml").read_text())
    assert all(isinstance(w, str) for k, words in data.items() if k != "idioms" for w in words)
    # idioms are [pattern, replacement] pairs of text
    assert all(len(pair) == 2 and all(isinstance(x, str) for x in pair) for pair in data.get("idioms") or ())


def test_spare_is_an_adjective_not_the_verb_empty():
    from groundplan.methods.small_model.cues import _EMPTY_ONE

    assert _EMPTY_ONE.search("tip the nuts into the spare ")
    assert _EMPTY_ONE.search("hand me an empty ")
    assert not _EMPTY_ONE.search("please empty the ")  # the verb: the full one is meant
    assert not _EMPTY_ONE.search("clean the ")


@needs_minilm
def test_a_word_level_all_group_takes_other_clauses_too(encoder):
    """'everything on the shelf' of a scene whose classes the mention analysis groups by no
    noun: the group from the words, and '... and close it' closes where it went."""
    scene = Path(__file__).resolve().parent / "data" / "scenes" / "hobby_workshop.yaml"
    pt = build(str(scene), strict=False)
    res = GoalSearcher(encoder).search("put everything on the shelf into the cabinet and close it", pt.domain, pt.problem)
    got = {a.pddl() for a in res.goals[0].atoms}
    assert got == {"(in tweezers0 cabinet0)", "(in glue_gun0 cabinet0)", "(in headlamp0 cabinet0)",
                   "(closed cabinet0)"}, res.goals[:2]
