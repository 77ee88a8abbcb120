"""benchmarks/small_model_need_lm.py: keeps blind sets blind; its top-1 count ranks as it says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import small_model_need_lm as N  # noqa: E402


@pytest.mark.parametrize("sets,blind", [("heldout-f,heldout-h-oracle", "heldout-h-oracle"),
                                        ("heldout-i-oracle", "heldout-i-oracle"),
                                        ("heldout-j,heldout-f", "heldout-j"),
                                        ("heldout-k-oracle,heldout-f", "heldout-k-oracle"),
                                        ("heldout-l,heldout-f", "heldout-l"), ("heldout-m-oracle", "heldout-m-oracle"),
                                        ("heldout-n,heldout-f", "heldout-n"), ("heldout-o", "heldout-o"),
                                        ("heldout-p", "heldout-p"), ("heldout-q,heldout-f", "heldout-q"),
                                        ("heldout-r", "heldout-r"), ("heldout-s,heldout-f", "heldout-s"),
                                        ("heldout-t", "heldout-t"), ("heldout-u,heldout-f", "heldout-u"), ("heldout-v", "heldout-v"), ("heldout-w", "heldout-w"), ("heldout-x", "heldout-x"), ("heldout-y", "heldout-y"), ("heldout-z", "heldout-z"), ("heldout-aa", "heldout-aa")])
def test_refuses_a_blind_set(sets, blind):
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "small_model_need_lm.py"), "dump",
                          "--sets", sets], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert f"{blind} is kept blind" in out.stderr
    assert "Traceback" not in out.stderr


def _row(scores, right, extra):
    return {"set": "s", "id": "x", "scores": scores, "right": right, "extra": extra}


def test_top1_combines_the_scores_as_documented():
    rows = [_row([1.0, 0.9, 0.8], [False, False, True], [-3.0, None, 0.0]),
            _row([1.0, 0.5], [True, False], [0.0, 2.0]),
            _row([1.0], [False], [0.0])]  # no right candidate: not counted
    assert N.top1(rows, 0.0) == {"s": [1, 2]}      # goalsearch's own order
    assert N.top1(rows, 1.0) == {"s": [0, 2]}      # 1.0 + (-3) < 0.8; 0.5 + 1*0 > 1.0 - 2
    assert N.top1(rows, 0.0, alone=True) == {"s": [1, 2]}  # the scorer alone: its best
