from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KITCHEN = ROOT / "examples" / "scenes" / "kitchen.yaml"


@pytest.fixture(scope="session")
def kitchen_task():
    from groundplan.sim.pipeline import build

    return build(KITCHEN)


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
