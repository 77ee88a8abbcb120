"""Method configurations are frozen, validated dataclasses (groundplan.core.config): an unknown
key or a bad value is a ConfigError (exit code 2) naming it, with a did-you-mean; the bench
runner and the Python API check them before anything runs."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal, Optional

import pytest
from conftest import KITCHEN

from groundplan.core.config import NoSettings, config_from
from groundplan.core.task import Task
from groundplan.errors import ConfigError
from groundplan.methods import available_methods, method_class


@dataclass(frozen=True)
class Demo:
    k: int = 3
    mode: Literal["a", "b"] = "a"
    rate: float = 0.5
    name: Optional[str] = None
    words: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.k < 0:
            raise ValueError(f"k must be at least 0, not {self.k}")


def test_config_from_builds_a_frozen_config_with_types_checked():
    cfg = config_from(Demo, {"k": 1, "mode": "b", "rate": 2, "name": "x", "words": ["p", "q"]}, owner="demo")
    assert cfg == Demo(1, "b", 2.0, "x", ("p", "q")) and isinstance(cfg.rate, float)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.k = 2  # type: ignore[misc]
    assert config_from(Demo, None, owner="demo") == Demo()
    assert config_from(Demo, {"k": 0}, owner="demo", base=Demo(mode="b")) == Demo(0, "b")


@pytest.mark.parametrize("values, message", [
    ({"K": 1}, "demo: unknown setting 'K' (did you mean k?) (known: k, mode, name, rate, words)"),
    ({"k": "three"}, "demo: setting 'k' must be an integer, not 'three'"),
    ({"k": True}, "demo: setting 'k' must be an integer, not True"),
    ({"k": 1.5}, "demo: setting 'k' must be an integer, not 1.5"),
    ({"mode": "c"}, "demo: setting 'mode' must be one of 'a', 'b', not 'c'"),
    ({"rate": "fast"}, "demo: setting 'rate' must be a number, not 'fast'"),
    ({"name": 3}, "demo: setting 'name' must be a string or none, not 3"),
    ({"words": "p"}, "demo: setting 'words' must be a list, not 'p'"),
    ({"k": -1}, "demo: k must be at least 0, not -1"),
])
def test_config_from_names_the_bad_key_or_value(values, message):
    with pytest.raises(ConfigError) as exc:
        config_from(Demo, values, owner="demo")
    assert str(exc.value) == message
    assert exc.value.exit_code == 2


def test_brainbody_k_1_is_refused_not_silently_k_3():
    """The issue's example: {"k": 1} used to run BrainBody with K=3."""
    with pytest.raises(ConfigError, match=r"brainbody: unknown setting 'k' \(did you mean K\?\)"):
        method_class("brainbody").configure({"k": 1})
    assert method_class("brainbody").configure({"K": 1}).K == 1
    # a variant's own defaults, overridden key by key
    nofb = method_class("brainbody_nofb").configure({"temperature": 0.5})
    assert (nofb.K, nofb.temperature) == (0, 0.5)
    assert method_class("brainbody_oracle").configure(None).brain == "oracle"


@pytest.mark.parametrize("method, values, fragment", [
    ("autogpt_p", {"max_round": 3}, "unknown setting 'max_round' (did you mean max_rounds?)"),
    ("autogpt_p", {"goal_mode": "magic"}, "goal_mode must be one of"),
    ("progprompt", {"examples": "3"}, "setting 'examples' must be an integer"),
    ("base_llm", {"env_limit": -1}, "setting 'env_limit' must be at least 0"),
    ("roblm", {"context": "graph"}, "setting 'context' must be one of"),
    ("wake_prompts", {"feedbak": "auto"}, "unknown setting 'feedbak' (did you mean feedback?)"),
    ("goalsearch", {"lm_scorin": False}, "unknown setting 'lm_scorin' (did you mean lm_scoring?)"),
    ("goalsearch", {"w_lm": "high"}, "setting 'w_lm' must be a number"),
    ("llm_p", {"max_token": 10}, "unknown setting 'max_token' (did you mean max_tokens?)"),
    ("oracle", {"K": 3}, "oracle: unknown setting 'K' (known: none)"),
    ("cowp", {"K": 3}, "cowp: unknown setting 'K'"),
])
def test_every_method_refuses_what_it_does_not_know(method, values, fragment):
    with pytest.raises(ConfigError) as exc:
        method_class(method).configure(values)
    assert fragment in str(exc.value)
    assert str(exc.value).startswith(f"{method}: ")


def test_every_registered_method_declares_a_frozen_config():
    for name in available_methods():
        cls = method_class(name)
        if not cls.__module__.startswith("groundplan."):
            continue  # a method another test registered for itself
        assert cls.config_class is not None, name
        assert dataclasses.is_dataclass(cls.config_class) and cls.config_class.__dataclass_params__.frozen, name
        cfg = cls.configure({})
        assert isinstance(cfg, cls.config_class), name
    assert method_class("oracle").config_class is NoSettings


def test_the_runner_refuses_a_bad_setting_before_any_episode(tmp_path):
    from groundplan.bench.runner import RunSpec, prepare_run
    from groundplan.bench.store import ResultStore
    from groundplan.core.datasets import DatasetSpec, register

    task = Task("k0", "test-config-kitchen", "give me the apple", str(KITCHEN), "(inhand apple0 human0)")
    register(DatasetSpec("test-config-kitchen", "1", "one kitchen task", lambda: [task]))
    with ResultStore(tmp_path / "r.sqlite") as st:
        with pytest.raises(ConfigError, match="oracle: unknown setting 'K'"):
            prepare_run(RunSpec("test-config-kitchen", "oracle", method_config={"K": 1}), st)
        assert st.runs() == []  # nothing ran, nothing stored
