"""The split of the suite into ``make test`` and ``make test-all`` (docs/testing.md) names real
tests, and the Makefile targets select what the docs say."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conftest import SLOW

ROOT = Path(__file__).resolve().parents[1]


def test_every_test_named_slow_exists():
    """A renamed or deleted test would silently move back into ``make test``: each name in
    conftest's ``SLOW`` is a test function of its file."""
    missing = []
    for name, tests in SLOW.items():
        f = ROOT / "tests" / name
        assert f.is_file(), f"conftest.SLOW names {name}, which is not a test file"
        defined = {n.name for n in ast.walk(ast.parse(f.read_text())) if isinstance(n, ast.FunctionDef)}
        missing += [f"{name}::{t}" for t in tests if t not in defined]
    assert not missing, f"conftest.SLOW names tests that do not exist: {missing}"


def _pytest_marks(target: str) -> str:
    text = (ROOT / "Makefile").read_text()
    body = re.search(rf"^{re.escape(target)}:.*\n((?:\t.*\n)+)", text, re.M)
    assert body, f"no {target} target in the Makefile"
    marks = re.search(r'pytest[^\n]*-m "([^"]+)"', body.group(1))
    assert marks, f"{target} runs no pytest -m selection"
    return marks.group(1)


def test_make_test_leaves_out_only_slow_terminal_and_browser_tests():
    fast = _pytest_marks("test")
    assert set(re.findall(r"not (\w+)", fast)) == {"slow", "terminal_embedded", "browser"}, fast
    every = _pytest_marks("test-all")
    assert set(re.findall(r"not (\w+)", every)) == {"terminal_embedded", "browser"}, every


def test_ci_runs_every_test():
    ci = (ROOT / ".ci" / "run").read_text()
    for target in ("make test-all", "make test-terminal", "make test-browser"):
        assert re.search(rf"^{re.escape(target)}\b", ci, re.M), f".ci/run does not run {target}"
