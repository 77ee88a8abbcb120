"""benchmarks/small_model_oracle_rerank.py keeps the next round's held-out set blind."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_refuses_the_blind_set():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "small_model_oracle_rerank.py"),
                          "--sets", "heldout-f,heldout-g"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert "heldout-g is kept blind" in out.stderr
    assert "Traceback" not in out.stderr


def test_refuses_the_eighth_blind_set():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "small_model_oracle_rerank.py"),
                          "--sets", "heldout-h-oracle"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert "heldout-h-oracle is kept blind" in out.stderr
    assert "Traceback" not in out.stderr


def test_refuses_the_ninth_blind_set():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "small_model_oracle_rerank.py"),
                          "--sets", "heldout-i,heldout-f"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert "heldout-i is kept blind" in out.stderr
    assert "Traceback" not in out.stderr


def test_bad_config_is_one_line_and_exit_2():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "small_model_oracle_rerank.py"),
                          "--sets", "heldout-f", "--config", "{max_goals: 20"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 2
    assert out.stderr.startswith("error: --config is not JSON")
    assert "Traceback" not in out.stderr
