"""Every benchmark script is reachable: named by an experiment file (experiments/*.toml) or a
make target, or imported by a script that is; none edits sys.path (the package is installed
editable, and ``python benchmarks/X.py`` puts benchmarks/ first on sys.path for its siblings).
Per-run results are packed per folder and read back through benchmarks/results_archive.py."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import tomllib
from pathlib import Path

from conftest import ROOT

BENCH = ROOT / "benchmarks"


def scripts() -> list[Path]:
    skip = (BENCH / "data", BENCH / "results")
    return sorted(p for p in BENCH.rglob("*") if p.suffix in {".py", ".sh"} and p.is_file()
                  and not any(d in p.parents for d in skip) and "__pycache__" not in p.parts)


def named() -> set[Path]:
    out = set()
    for f in (ROOT / "experiments").glob("*.toml"):
        for step in tomllib.loads(f.read_text(encoding="utf-8")).get("script", []):
            out.add((ROOT / step["path"]).resolve())
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    out |= {(ROOT / m).resolve() for m in re.findall(r"(benchmarks/[\w/]+\.(?:py|sh))", make)}
    return out


def sibling_imports(path: Path) -> set[Path]:
    if path.suffix != ".py":
        return set()
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        mods = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
        for m in mods:
            cand = path.parent / f"{m.split('.')[0]}.py"
            if cand.is_file():
                found.add(cand.resolve())
    return found


def reachable() -> set[Path]:
    todo, seen = list(named()), set()
    while todo:
        p = todo.pop()
        if p in seen or not p.is_file():
            continue
        seen.add(p)
        todo.extend(sibling_imports(p))
    return seen


def test_every_benchmark_script_is_reachable():
    reach = reachable()
    unreachable = [str(p.relative_to(ROOT)) for p in scripts() if p.resolve() not in reach]
    assert unreachable == [], f"not named by experiments/*.toml, a make target or a reachable script: {unreachable}"


def test_the_reachability_check_can_fail(tmp_path):
    lone = BENCH / "results_archive.py"  # imported by reachable scripts, named by none
    assert lone.resolve() not in named() and lone.resolve() in reachable()


#: a sys.path edit pointing into this checkout (the script's folder, ROOT / "src", ...): the hack
#: an editable install and Python's own script-folder entry make unnecessary. Loading another
#: commit's exported source on purpose (goalsearch_golden.py --at) is not this.
CHECKOUT_PATH_EDIT = re.compile(r"sys\.path\.(insert|append)\([^\n]*(__file__|\bROOT\b|parents?\[)")


def test_no_benchmark_script_puts_the_checkout_on_sys_path():
    edits = [str(p.relative_to(ROOT)) for p in scripts() if CHECKOUT_PATH_EDIT.search(p.read_text(encoding="utf-8"))]
    assert edits == []


def test_the_sys_path_check_catches_the_old_forms():
    for line in ('sys.path.insert(0, str(Path(__file__).resolve().parent))',
                 'sys.path.insert(0, str(ROOT / "src"))', 'sys.path.append(str(Path(__file__).parents[1] / "src"))'):
        assert CHECKOUT_PATH_EDIT.search(line), line
    assert not CHECKOUT_PATH_EDIT.search('sys.path.insert(0, str(dest / "src"))')


def _archive_module():
    spec = importlib.util.spec_from_file_location("results_archive_t", BENCH / "results_archive.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_packed_run_reads_back_and_a_new_file_wins(tmp_path):
    A = _archive_module()
    runs = tmp_path / "results" / "exp" / "runs"
    runs.mkdir(parents=True)
    (runs / "a@s.json").write_text(json.dumps({"rows": [1]}))
    (runs / "b@s.json").write_text(json.dumps({"rows": [2]}))
    (runs / "notes.md").write_text("kept")
    arc, n = A.pack(runs, only="*.json")
    assert n == 2 and arc == tmp_path / "results" / "exp" / "runs.tar.xz"
    assert sorted(p.name for p in runs.iterdir()) == ["notes.md"]  # the tables stay, the runs are packed
    assert A.read_json(runs / "a@s.json") == {"rows": [1]}
    assert A.names(runs, "*@*.json") == ["a@s.json", "b@s.json"]
    (runs / "a@s.json").write_text(json.dumps({"rows": [3]}))  # a run made since: the file on disk wins
    assert A.read_all_json(runs) == {"a@s.json": {"rows": [3]}, "b@s.json": {"rows": [2]}}
    assert not A.exists(runs / "c@s.json")


def test_the_heldout_runs_behind_heldout_md_are_packed():
    A = _archive_module()
    folder = BENCH / "results" / "small_model" / "heldout"
    names = A.names(folder, "*@*.json")
    assert "shipped@heldout-aa.json" in names and len(names) >= 700
    res = A.read_json(folder / "shipped@heldout-aa.json")
    assert res["set"] == "heldout-aa" and sum(r["success"] for r in res["rows"]) == 78 and len(res["rows"]) == 114
