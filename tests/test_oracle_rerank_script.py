"""benchmarks/small_model_oracle_rerank.py keeps the next round's held-out set blind."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("sets,blind", [("heldout-f,heldout-g", "heldout-g"), ("heldout-h-oracle", "heldout-h-oracle"),
                                        ("heldout-i,heldout-f", "heldout-i"), ("heldout-j-oracle", "heldout-j-oracle"),
                                        ("heldout-k,heldout-f", "heldout-k"), ("heldout-l-oracle", "heldout-l-oracle"),
                                        ("heldout-m,heldout-f", "heldout-m"), ("heldout-n-oracle", "heldout-n-oracle"),
                                        ("heldout-o,heldout-f", "heldout-o"), ("heldout-p,heldout-f", "heldout-p"),
                                        ("heldout-q-oracle", "heldout-q-oracle"), ("heldout-r,heldout-f", "heldout-r"),
                                        ("heldout-s-oracle", "heldout-s-oracle"), ("heldout-t,heldout-f", "heldout-t"), ("heldout-u-oracle", "heldout-u-oracle"), ("heldout-v,heldout-f", "heldout-v"), ("heldout-w-oracle", "heldout-w-oracle"), ("heldout-x-oracle", "heldout-x-oracle"), ("heldout-y-oracle", "heldout-y-oracle"), ("heldout-z-oracle", "heldout-z-oracle")])
def test_refuses_a_blind_set(sets, blind):
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "small_model_oracle_rerank.py"),
                          "--sets", sets], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert f"{blind} is kept blind" in out.stderr
    assert "Traceback" not in out.stderr


def test_bad_config_is_one_line_and_exit_2():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "small_model_oracle_rerank.py"),
                          "--sets", "heldout-f", "--config", "{max_goals: 20"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 2
    assert out.stderr.startswith("error: --config is not JSON")
    assert "Traceback" not in out.stderr
