"""benchmarks/small_model_need_lm.py: keeps blind sets blind; its top-1 count ranks as it says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import small_model_need_lm as N  # noqa: E402


def test_refuses_a_blind_set():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "small_model_need_lm.py"), "dump",
                          "--sets", "heldout-f,heldout-h-oracle"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert "heldout-h-oracle is kept blind" in out.stderr
    assert "Traceback" not in out.stderr


def test_refuses_the_ninth_blind_set():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "small_model_need_lm.py"), "dump",
                          "--sets", "heldout-i-oracle"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert "heldout-i-oracle is kept blind" in out.stderr
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
