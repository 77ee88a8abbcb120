"""benchmarks/small_model_oracle_rerank.py keeps the next round's held-out set blind."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _script():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location("small_model_oracle_rerank_t", ROOT / "benchmarks" / "small_model_oracle_rerank.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("sets,blind", [("heldout-f,heldout-aa", "heldout-aa"), ("heldout-aa-oracle", "heldout-aa-oracle")])
def test_refuses_a_blind_set(sets, blind, monkeypatch, capsys):
    """A set written for the next round and not yet measured goes in ``BLIND``; the script
    refuses it with one line and exit 2 (the test sets the list, so that it holds whichever set
    is blind at the time)."""
    mod = _script()
    monkeypatch.setattr(mod, "BLIND", ("heldout-aa", "heldout-aa-oracle"))
    monkeypatch.setattr(sys, "argv", ["small_model_oracle_rerank.py", "--sets", sets])
    assert mod.main() == 2
    err = capsys.readouterr().err
    assert f"{blind} is kept blind" in err
    assert "Traceback" not in err


def test_bad_config_is_one_line_and_exit_2():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "small_model_oracle_rerank.py"),
                          "--sets", "heldout-f", "--config", "{max_goals: 20"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 2
    assert out.stderr.startswith("error: --config is not JSON")
    assert "Traceback" not in out.stderr
