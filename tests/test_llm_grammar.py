"""Grammars, offline: the GBNF reader/matcher, the goal grammar builder (every sentence of
it parses and passes the goal check), JSON-schema grammars, llama.cpp accepting them."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from groundplan.llm import (
    GoalGrammarOptions,
    LLMConfigError,
    LLMError,
    goal_grammar,
    json_schema_grammar,
    parse_gbnf,
)
from groundplan.llm.gbnf import GrammarSyntaxError, sample
from groundplan.pddl import check_goal, parse_goal
from groundplan.pddl.formula import depth

SAYCAN = Path("/work/shared/data/autogpt-p/autogpt_p/data/evaluation/saycan")
OAM = Path("/work/shared/data/autogpt-p/object_affordance_mapping/data/oam/saycan_oam.json")
needs_data = pytest.mark.skipif(not SAYCAN.exists(), reason="shared AutoGPT+P data not present")


# ----------------------------------------------------------------------------- GBNF matcher

def test_gbnf_basics():
    g = parse_gbnf('''
# a comment
root ::= greeting " " name ("!" | "?")?
greeting ::= "hi" | "hello"
name ::= [A-Z] [a-z]* # trailing comment
''')
    assert g.matches("hi Bob") and g.matches("hello Al!") and g.matches("hi X?")
    assert not g.matches("hi bob") and not g.matches("hey Bob") and not g.matches("hi Bob!!")


def test_gbnf_repetition_classes_escapes():
    g = parse_gbnf(r'root ::= "a"{2,3} [^x\n]+ "\"" "\x41" ("b" | "c"){0,2}')
    assert g.matches('aazz"A') and g.matches('aaaq"Abc')
    assert not g.matches('azz"A') and not g.matches('aaq"') and not g.matches('aax"A') and not g.matches('aaq"Abbb')
    multiline = parse_gbnf('root ::= "(" (\n  "a" |\n  "b"\n) ")"\n')
    assert multiline.matches("(a)") and multiline.matches("(b)")


def test_gbnf_errors():
    with pytest.raises(GrammarSyntaxError, match="no 'root'"):
        parse_gbnf('x ::= "a"')
    with pytest.raises(GrammarSyntaxError, match="undefined rule 'y'"):
        parse_gbnf('root ::= y')
    with pytest.raises(GrammarSyntaxError, match="unterminated"):
        parse_gbnf('root ::= "abc')


def test_json_schema_grammar_round_trip():
    schema = {"type": "object", "properties": {"steps": {"type": "array", "items": {"type": "string"}},
                                               "done": {"type": "boolean"}}, "required": ["steps", "done"]}
    g = parse_gbnf(json_schema_grammar(schema))
    assert g.matches('{"steps": ["grasp apple0", "place apple0"], "done": true}')
    assert not g.matches('{"steps": "grasp", "done": true}')
    with pytest.raises(LLMConfigError):
        json_schema_grammar({"type": "no-such-type"})


# ----------------------------------------------------------------------------- goal grammar

@pytest.fixture(scope="module")
def saycan_tasks():
    if not SAYCAN.exists():
        pytest.skip("shared AutoGPT+P data not present")
    from groundplan.knowledge.oam import load_oam
    from groundplan.skills import build_task, load_skillset
    from groundplan.world import load_scene

    oam = load_oam(OAM)
    skills = load_skillset("household")
    return {p.relative_to(SAYCAN / "scenes").as_posix(): build_task(skills, load_scene(p, strict=False), oam, strict=False)
            for p in sorted((SAYCAN / "scenes").glob("*/*.txt"))}


@pytest.fixture(scope="module")
def kitchen(saycan_tasks):
    return saycan_tasks["saycan_g_long_horizon/simple_kitchen.txt"]


def test_goal_grammar_accepts_good_and_rejects_bad(kitchen):
    gg = goal_grammar(kitchen.domain, kitchen.problem)
    g = parse_gbnf(gg.gbnf)
    good = ["(:goal (inhand coke0 human0))",
            "(:goal (and (inhand coke0 human0) (on apple0 table0)))",
            "(:goal (and (or (inhand coke0 human0) (inhand pepsi0 human0)) (not (opened coke0))))",
            "(:goal (or (in apple0 trash_can0)))"]
    bad = ["(:goal (inhand table0 human0))",       # table0 is not carry
           "(:goal (inhand banana0 human0))",      # not in the scene
           "(:goal (holding coke0 human0))",       # no such predicate
           "(:goal (free table0))",                # hidden predicate
           "(:goal (inhand coke0))",               # wrong arity
           "(:goal (and (inhand coke0 human0))",   # unbalanced
           "(:goal (inhand ?x human0))",           # variables
           "(:goal (and (and (and (inhand coke0 human0)))))",  # deeper than max_depth
           "(:goal (and (on apple0 table0) (on apple0 table0) (on apple0 table0) (on apple0 table0) (on apple0 table0)))",
           "(inhand coke0 human0)"]                # wrapper required by default
    for s in good:
        assert g.matches(s), s
    for s in bad:
        assert not g.matches(s), s
    assert gg.predicates[0] == "on" and "free" not in gg.predicates and "hand_occupied" not in gg.predicates


def test_goal_grammar_options(kitchen):
    d, p = kitchen.domain, kitchen.problem
    plain = parse_gbnf(goal_grammar(d, p, GoalGrammarOptions(wrap_goal=False, allow_or=False, allow_not=False,
                                                             max_depth=1, max_args=2)).gbnf)
    assert plain.matches("(inhand coke0 human0)") and plain.matches("(and (inhand coke0 human0) (on apple0 table0))")
    assert not plain.matches("(or (inhand coke0 human0))") and not plain.matches("(not (inhand coke0 human0))")
    hidden = parse_gbnf(goal_grammar(d, p, GoalGrammarOptions(allow_hidden=True)).gbnf)
    assert hidden.matches("(:goal (free table0))")
    only = goal_grammar(d, p, GoalGrammarOptions(predicates=("inhand",)))
    assert only.predicates == ("inhand",)
    with pytest.raises(LLMConfigError, match="unknown predicate 'nope'"):
        goal_grammar(d, p, GoalGrammarOptions(predicates=("nope",)))
    with pytest.raises(LLMError, match="no goal can be written"):
        goal_grammar(d, p.__class__(p.name, p.domain_name, {}, p.init), GoalGrammarOptions())


def test_every_sentence_of_every_saycan_grammar_parses_and_checks(saycan_tasks):
    """The property constrained decoding relies on: whatever a model emits under the grammar
    parses and passes the goal check, and is no longer than the grammar's bound."""
    rng = random.Random(7)
    import llama_cpp

    for name, task in saycan_tasks.items():
        for opts in (GoalGrammarOptions(), GoalGrammarOptions(max_depth=3, max_args=2, wrap_goal=False)):
            gg = goal_grammar(task.domain, task.problem, opts)
            llama_cpp.LlamaGrammar.from_string(gg.gbnf, verbose=False)  # llama.cpp accepts it
            g = parse_gbnf(gg.gbnf)
            for _ in range(60):
                s = sample(g, rng)
                assert g.matches(s)
                assert len(s) <= gg.max_chars, (name, s)
                f = parse_goal(s)
                check_goal(f, task.domain, task.problem, allow_hidden=False)
                assert depth(f) <= opts.max_depth + 2  # and/or levels, then (not atom)


def test_max_chars_is_reached_by_the_longest_sentence(kitchen):
    d, p = kitchen.domain, kitchen.problem
    gg = goal_grammar(d, p, GoalGrammarOptions(max_depth=1, max_args=2))
    longest_atom = "(carried table0 human0 human0)"  # longest names of each type
    objs = sorted(p.objects, key=len, reverse=True)
    # build the longest sentence by hand: (:goal (and (not A) (not A))) with the longest atom
    atoms = []
    for pred in d.predicates:
        if pred.name in d.hidden_predicates:
            continue
        args = [max(p.objects_of_type(d, v.type), key=len) for v in pred.params if p.objects_of_type(d, v.type)]
        if len(args) == len(pred.params):
            atoms.append(f"({pred.name} {' '.join(args)})")
    a = max(atoms, key=len)
    s = f"(:goal (and (not {a}) (not {a})))"
    assert parse_gbnf(gg.gbnf).matches(s)
    assert len(s) == gg.max_chars
    assert objs and longest_atom


def test_grammar_rule_names_are_sanitised():
    from groundplan.pddl.formula import TypedVar
    from groundplan.pddl.model import Domain, Predicate, Problem, TypeHierarchy

    d = Domain("d", TypeHierarchy({"odd.type": frozenset({"object"})}),
               (Predicate("has_x", (TypedVar("?a", "odd.type"),)), Predicate("has-x", (TypedVar("?a", "odd.type"),))), ())
    p = Problem("p", "d", {"o_1": "odd.type", 'we"ird': "odd.type"}, frozenset())
    gg = goal_grammar(d, p)
    g = parse_gbnf(gg.gbnf)
    assert g.matches("(:goal (has_x o_1))") and g.matches("(:goal (has-x o_1))") and g.matches('(:goal (has-x we"ird))')
