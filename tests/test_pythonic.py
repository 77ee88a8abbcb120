"""One reader of ProgPrompt's pythonic program lines (groundplan.methods.pythonic), used by
ProgPrompt on VirtualHome and COWP's ProgPrompt-style baseline, each with its dialect."""

from __future__ import annotations

import groundplan.methods.cowp.progprompt as cowp_pp
import groundplan.methods.progprompt as vh_pp
from groundplan.methods.pythonic import CallLine, parse_assert, parse_call

SKILLS = ["walk", "grab", "putin", "open"]


def test_parse_call_and_assert():
    assert parse_call("putin('mug', \"sink\");") == CallLine("putin", ("mug", "sink"))
    assert parse_call("  Walk( kitchen ) ") == CallLine("Walk", ("kitchen",))
    assert parse_call("walk()") == CallLine("walk", ())
    assert parse_call("x = walk('a')") is None and parse_call("# a comment") is None
    assert parse_assert("assert('mug' is 'clean')") == ("mug", "clean")
    assert parse_assert("assert(coffee_mug is in_hand)") == ("coffee_mug", "in_hand")
    assert parse_assert("walk('a')") is None


def test_progprompt_dialect():
    assert vh_pp.parse_step("putin('Mug', 'sink')", SKILLS) == ["putin", "mug", "sink"]
    for bad in ("Walk('kitchen')", "walk('a', 'b', 'c')", "__import__('os').system('ls')", "fly('x')",
                "walk(mug.handle)"):
        assert vh_pp.parse_step(bad, SKILLS) is None, bad


def test_cowp_dialect():
    prog = cowp_pp.parse_program("  assert('cup' is 'clean')\n  else: wash_up('cup')\n"
                                 "  pick_up('coffee_mug')\n  print('done')\ndef next_task():\n  walk('x')\n")
    guard, call = prog
    assert (guard.obj, guard.condition, guard.recovery[0].verb, guard.recovery[0].args) == \
        ("cup", "clean", "wash_up", ["cup"])
    assert (call.verb, call.args) == ("pick_up", ["coffee mug"])
