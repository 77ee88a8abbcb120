"""``python -m groundplan`` is the ``groundplan`` command."""

from __future__ import annotations

import subprocess
import sys


def test_python_m_groundplan_runs_the_cli():
    out = subprocess.run([sys.executable, "-m", "groundplan", "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "goal" in out.stdout and "run" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "groundplan", "no-such-command"], capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 2
