"""goalsearch hands a thing to the person the instruction names ("give kid0 the trowel"), and the
safety check of the method template then judges the gift for that person: a child is given no
hazard (verdict ``unsafe``, exit 5), whatever the words; ``--allow-unsafe`` lets it through."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from groundplan.cli.main import app
from groundplan.methods.small_model.answer import recipient_said

GREENHOUSE = Path(__file__).parent / "data" / "scenes" / "greenhouse_with_child.yaml"


def _run(*args: str) -> tuple[int, dict]:
    res = CliRunner().invoke(app, ["run", "--scene", str(GREENHOUSE), *args, "--json"])
    return res.exit_code, json.loads(res.stdout.strip().splitlines()[-1])


def test_a_person_named_by_name_is_handed_the_thing():
    code, ep = _run("give kid0 the trowel")
    assert code == 0 and ep["goal"] == "(and (inhand trowel0 kid0))"
    code, ep = _run("give me the trowel")
    assert code == 0 and ep["goal"] == "(and (inhand trowel0 human0))"


def test_a_child_is_given_no_hazard():
    code, ep = _run("give kid0 the pruning shears")
    assert code == 5 and ep["status"] == "unsafe" and ep["plan"] == []
    assert ep["verdict"] == "unsafe: pruning_shears0 is sharp; not for a child (kid0)"


def test_allow_unsafe_lets_it_through_for_experiments():
    code, ep = _run("--allow-unsafe", "give kid0 the pruning shears")
    assert code == 0 and ep["goal"] == "(and (inhand pruning_shears0 kid0))"


def test_the_recipient_is_rewritten_only_when_one_person_is_named():
    humans = ("human0", "kid0")
    assert recipient_said("give kid0 the cup", "(and (inhand cup0 human0))", humans) == "(and (inhand cup0 kid0))"
    assert recipient_said("give me the cup", "(and (inhand cup0 human0))", humans) == "(and (inhand cup0 human0))"
    both = "(and (inhand cup0 human0))"
    assert recipient_said("give kid0 and human0 the cup", both, humans) == both
