"""goalsearch's goal adapter: the scene text, the training target, the
modes of goalsearch's ``adapter`` setting, and the LoRA wrapping, saving and loading on a tiny
randomly initialised Llama (the real adapter is measured by benchmarks/small_model_adapter.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from groundplan.errors import ConfigError
from groundplan.methods.base import TraceRecorder
from groundplan.methods.small_model import adapter as A
from groundplan.methods.small_model.method import GoalSearch, _with_adapter
from groundplan.pddl.formula import Atom
from groundplan.pddl.model import Problem

ROOT = Path(__file__).resolve().parents[1]


def _problem():
    objs = {"robot0": "robot_profile", "human0": "human", "table0": "table", "fridge0": "fridge", "cup0": "cup",
            "tea0": "tea", "apple0": "apple", "window0": "window"}
    init = frozenset({Atom("on", ("cup0", "table0")), Atom("liquid_in", ("tea0", "cup0")),
                      Atom("in", ("apple0", "fridge0")), Atom("closed", ("fridge0",)), Atom("at", ("human0", "table0")),
                      Atom("at", ("robot0", "table0"))})
    return Problem("p", "d", objs, init)


def test_scene_text_lists_places_states_and_the_rest():
    text = A.scene_text(_problem())
    assert text.splitlines() == ["liquid in cup0: tea0", "in fridge0: apple0", "on table0: cup0", "closed: fridge0",
                                 "human0 is at table0", "also: window0"]  # places in name order
    p = A.prompt_text(text, "  I'm thirsty ")
    assert p.startswith("Scene:\n") and p.endswith("\nRequest: I'm thirsty\nGoal:")


def test_training_target_is_the_first_alternative():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from small_model_adapter import simple_goal

    assert simple_goal("(or (inhand cup0 human0) (on cup0 table0))") == "(and (inhand cup0 human0))"
    assert simple_goal("(and (in a0 b0) (or (and (x c0) (not (y d0))) (z e0)))") == "(and (in a0 b0) (x c0) (not (y d0)))"


def test_data_refuses_evaluation_sets(tmp_path, capsys):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import argparse

    from small_model_adapter import cmd_data

    for s in ("saycan", "plan-tool", "heldout-aa"):
        assert cmd_data(argparse.Namespace(sets=f"heldout-b,{s}", out=tmp_path / "x.jsonl")) == 2
        assert s in capsys.readouterr().err
    assert cmd_data(argparse.Namespace(sets="heldout-b,heldout-zz", out=tmp_path / "x.jsonl")) == 2
    assert "unknown set 'heldout-zz'" in capsys.readouterr().err  # not silently another set
    assert not (tmp_path / "x.jsonl").exists()


@pytest.fixture
def adapter_dir(tmp_path):
    (tmp_path / "adapter.json").write_text("{}")
    return str(tmp_path)


def test_adapter_setting_is_checked(adapter_dir, tmp_path):
    assert GoalSearch.configure({"adapter": "rerank", "adapter_path": adapter_dir}).adapter == "rerank"
    with pytest.raises(ConfigError, match=r"adapter 'rerenk' \(did you mean rerank\?\)"):
        GoalSearch.configure({"adapter": "rerenk"})
    with pytest.raises(ConfigError, match="needs a trained goal adapter"):  # refused before any episode
        GoalSearch.configure({"adapter": "first", "adapter_path": str(tmp_path / "none")})


class _Fake:
    def __init__(self):
        self.asked = []
        self.lp = -0.01

    def generate(self, prompt):
        assert prompt.endswith("Goal:")
        return "(and (inhand apple0 human0))", self.lp

    def logprobs(self, problem, instruction, goals):
        self.asked.append(list(goals))
        return [-float(len(g)) for g in goals]  # the shortest goal is likeliest


class _G:
    def __init__(self, text):
        self.text, self.score, self.source, self.lm_logprob = text, 0.0, "single", None


def test_modes_order_the_candidates(monkeypatch, adapter_dir):
    fake = _Fake()
    monkeypatch.setattr(A, "shared_adapter", lambda path=None: fake)
    goals = [_G("(and (inhand cup0 human0) (on cup0 table0))"), _G("(and (inhand apple0 human0))"),
             _G("(and (on tea0 table0))"), _G("(and (opened fridge0) (inhand cup0 human0) (on a b))")]
    off = _with_adapter(GoalSearch.configure({}), goals, _problem(), "x", TraceRecorder())
    assert off == goals
    first = _with_adapter(GoalSearch.configure({"adapter": "first", "adapter_path": adapter_dir}), goals, _problem(), "x", TraceRecorder())
    assert [g.text for g in first] == ["(and (inhand apple0 human0))", goals[0].text, goals[2].text, goals[3].text]
    assert first[0].source == "adapter"
    sure = _with_adapter(GoalSearch.configure({"adapter": "confident", "adapter_path": adapter_dir}), goals, _problem(), "x", TraceRecorder())
    assert [g.text for g in sure] == [g.text for g in first]
    fake.lp = -0.5  # below adapter_min_logprob (-0.05): goalsearch's order stands
    assert _with_adapter(GoalSearch.configure({"adapter": "confident", "adapter_path": adapter_dir}), goals, _problem(), "x",
                         TraceRecorder()) == goals
    rr = _with_adapter(GoalSearch.configure({"adapter": "rerank", "adapter_k": 3, "adapter_path": adapter_dir}), goals, _problem(), "x",
                       TraceRecorder())
    assert fake.asked == [[g.text for g in goals[:3]]]  # only the first k are scored
    assert [g.text for g in rr] == [goals[2].text, goals[1].text, goals[0].text, goals[3].text]


def test_missing_adapter_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="no goal adapter there"):
        A.GoalAdapter(tmp_path)


def test_lora_round_trip_on_a_tiny_model(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from groundplan.methods.roblm.lm import tiny_model

    texts = ["Scene: on table0: cup0 Request: give me the cup Goal: (and (inhand cup0 human0))"]

    def base():
        lm = tiny_model(texts, seed=1)
        lm.tokenizer.eos_token = "<EOS>"
        return lm.model, lm.tokenizer

    model, tok = base()
    cfg = A.LoraConfig(rank=2, alpha=4.0, top_layers=1)
    params = A.add_lora(model, cfg)
    assert params and all(p.requires_grad for p in params)
    assert not any(p.requires_grad for n, p in model.named_parameters() if "lora_" not in n)
    with torch.no_grad():
        for p in params:
            p.add_(0.5)  # as if trained
    A.save_adapter(model, tmp_path, cfg, {"step": 1})
    monkeypatch.setattr(A, "load_base", base)
    ad = A.GoalAdapter(tmp_path, max_new_tokens=4)
    ad.load()
    state = A.lora_state(ad._model)
    saved = A.lora_state(model)
    assert state.keys() == saved.keys() and all(torch.equal(state[k], saved[k]) for k in state)
    lps = ad.logprobs(_problem(), "give me the cup", ["(and (inhand cup0 human0))", "(and)"])
    assert len(lps) == 2 and all(x < 0 for x in lps)
    assert isinstance(ad.goal(_problem(), "give me the cup"), str)
