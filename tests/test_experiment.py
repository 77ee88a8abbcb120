"""The experiment launcher (issue 22): experiments declared as TOML, checked before anything
runs, run through the benchmark runner and measuring scripts, tables written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from groundplan.bench.experiment import load_experiment, run_experiment, sample_task_ids
from groundplan.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]


def _write(tmp_path: Path, text: str, name: str = "exp.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize("text, message", [
    ('name = "x"\n[[run]]\ndataset = "autogptp-saycan"\nmethdo = "oracle"\n', "unknown key 'methdo' (did you mean method?)"),
    ('name = "x"\nreproduce = "y"\n[[run]]\ndataset = "d"\nmethod = "m"\n', "unknown key 'reproduce' (did you mean reproduces?)"),
    ('[[run]]\ndataset = "autogptp-saycan"\nmethod = "oracle"\nseeds = 3\n', "'seeds' must be a list"),
    ('[[run]]\ndataset = "autogptp-saycan"\nmethod = "oracle"\nsample = 1.5\n', "'sample' must be a fraction"),
    ('[[run]]\ndataset = "autogptp-saycan"\n', "missing key 'method'"),
    ('[[script]]\npath = "/bin/rm"\n', "must be a Python script under benchmarks/"),
    ('name = "x"\n', "no [[run]] or [[script]] step"),
])
def test_bad_experiment_files_name_the_key(tmp_path, text, message):
    with pytest.raises(ConfigError) as exc:
        load_experiment(_write(tmp_path, text))
    assert message in str(exc.value)
    assert str(tmp_path / "exp.toml") in str(exc.value)


def test_unknown_method_or_dataset_is_refused_before_running(tmp_path):
    p = _write(tmp_path, '[[run]]\ndataset = "autogptp-saycan"\nmethod = "orcale"\n')
    with pytest.raises(ConfigError, match=r"unknown method 'orcale' \(did you mean oracle\?\)"):
        run_experiment(load_experiment(p), root=tmp_path)
    assert not (tmp_path / "results").exists()


def test_cli_exit_2_on_a_bad_file(tmp_path):
    p = _write(tmp_path, '[[run]]\ndatset = "x"\nmethod = "oracle"\n')
    r = subprocess.run([sys.executable, "-m", "groundplan.cli.main", "bench", "experiment", str(p)],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert "unknown key 'datset' (did you mean dataset?)" in r.stderr
    assert "Traceback" not in r.stderr


def test_sample_is_seeded_and_at_least_the_fraction():
    ids = [f"t{i}" for i in range(104)]
    a = sample_task_ids(ids, 0.1, 0)
    assert a == sample_task_ids(ids, 0.1, 0)
    assert len(a) == 11 and list(a) == [i for i in ids if i in set(a)]
    assert sample_task_ids(ids, 0.1, 1) != a


def test_every_shipped_experiment_file_loads():
    files = sorted((ROOT / "experiments").glob("*.toml"))
    assert files, "experiments/ holds the declared experiments"
    for f in files:
        exp = load_experiment(f)
        assert exp.reproduces, f"{f.name}: say which published figure it regenerates"


def test_a_run_and_a_script_step_end_to_end(tmp_path):
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "benchmarks" / "hello.py").write_text(
        "import sys\nprint('measured', sys.argv[1:])\n")
    p = _write(tmp_path, """
name = "tiny"
reproduces = "a test"
out = "out"
[[run]]
dataset = "autogptp-saycan"
method = "oracle"
tasks = ["saycan_a_nl_primitive:2", "saycan_a_nl_primitive:3"]
[[script]]
path = "benchmarks/hello.py"
args = ["{out}"]
stdout = "hello.txt"
""")
    results = run_experiment(load_experiment(p), root=tmp_path)
    assert [r.ok for r in results] == [True, True]
    assert results[0].metrics["n"] == 2 and results[0].metrics["success"] == 1.0
    assert (tmp_path / "out" / "hello.txt").read_text().startswith("measured")
    assert (tmp_path / "out" / "report.md").is_file()
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary
    assert "| run: oracle on autogptp-saycan (none) | yes |" in (tmp_path / "out" / "experiment.md").read_text()
    # a second run resumes from the results file; --fresh runs every episode anew
    db = tmp_path / "results" / "experiments" / "tiny.sqlite"
    assert db.is_file()
    again = run_experiment(load_experiment(p), root=tmp_path)
    assert again[0].metrics["n"] == 2
    fresh = run_experiment(load_experiment(p), root=tmp_path, fresh=True)
    assert fresh[0].ok and fresh[0].metrics["n"] == 2
    assert len(list(db.parent.glob("tiny.sqlite.*.bak"))) == 1  # the previous file, moved aside
    with pytest.raises(ConfigError, match="--fresh"):
        run_experiment(load_experiment(p), root=tmp_path, db=tmp_path / "other.sqlite", fresh=True)
