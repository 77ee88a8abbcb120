"""h^2 preprocessing of a translated (SAS) task before Fast Downward's search.

The preprocessor is the one SymK ships (the ``up-symk`` wheel; Alcázar and Torralba's h^2
mutex detection, ICAPS 2015): forward and backward h^2 analysis removes the facts and
operators that cannot occur on any path from the initial state to the goal and adds the
mutexes it proves. On domains with dead ends that delete-relaxation heuristics do not see,
this is the difference between solving and not: on LLM+P's floortile grids (painted tiles can
no longer be entered) Fast Downward's ``astar(ff())`` and ``lama-first`` time out on 16 of 20
problems, and after h^2 pruning they solve each in seconds (``benchmarks/results/llmp``).

The preprocessor writes SymK's dialect of the SAS format (each mutex group names its
direction, ``fw`` or ``bw``); :func:`to_fast_downward` turns it back into the format
Fast Downward's own search binary reads, so the search is still the real Fast Downward."""

from __future__ import annotations

import contextlib
import os
import resource
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from groundplan.errors import PlannerError
from groundplan.planners.base import packaged_binary


def preprocessor_binary() -> Path:
    """The h^2 preprocessor of the up-symk wheel (a dependency of groundplan)."""
    return packaged_binary("up_symk", "symk", "builds", "release", "bin", "preprocess",
                           what="SymK's h^2 preprocessor")


@dataclass(frozen=True)
class H2Outcome:
    """``status``: ``pruned`` (``sas`` is the smaller task), ``unsolvable`` (h^2 proves the
    goal unreachable), ``skipped`` (timeout or failure: plan on the task as translated,
    ``note`` says why)."""

    status: str
    sas: str | None = None
    seconds: float = 0.0
    operators_before: int = 0
    operators_after: int = 0
    note: str = ""


def to_fast_downward(sas_text: str) -> str:
    """Drop the direction line (``fw``/``bw``) SymK writes at the top of each mutex group."""
    out: list[str] = []
    after_begin = False
    for line in sas_text.splitlines():
        if after_begin and line in ("fw", "bw"):
            after_begin = False
            continue
        after_begin = line == "begin_mutex_group"
        out.append(line)
    return "\n".join(out) + "\n"


def h2_preprocess(sas_text: str, *, timeout: float, memory_mb: int) -> H2Outcome:
    """Run the preprocessor on ``sas_text`` with a wall-time and an address-space bound.
    Never raises for the task's sake: anything but a clean run is ``skipped`` with a note."""
    t0 = time.perf_counter()
    before = sas_text.count("begin_operator")
    try:
        binary = preprocessor_binary()
    except PlannerError as exc:
        return H2Outcome("skipped", note=str(exc), operators_before=before)
    mem = memory_mb * 1024 * 1024

    def limit() -> None:  # runs in the child
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (mem, mem))

    with tempfile.TemporaryDirectory(prefix="gp-h2-") as tmp:
        out_file = os.path.join(tmp, "out.sas")
        # its own h^2 bound a little inside ours, so it normally stops itself and still writes
        # the task (the mutexes found so far are sound)
        own = max(1, int(timeout * 0.8))
        try:
            proc = subprocess.run([str(binary), "--sas-file", out_file, "--h2_time_limit", str(own)],
                                  input=sas_text.encode(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  timeout=max(0.05, timeout), preexec_fn=limit, cwd=tmp)
        except subprocess.TimeoutExpired:
            return H2Outcome("skipped", seconds=time.perf_counter() - t0, operators_before=before,
                             note=f"h^2 preprocessing exceeded {timeout:.1f} s")
        seconds = time.perf_counter() - t0
        log = proc.stdout.decode("utf-8", "replace")
        if proc.returncode != 0 or not os.path.exists(out_file):
            last = (log.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
            return H2Outcome("skipped", seconds=seconds, operators_before=before,
                             note=f"h^2 preprocessor failed (exit code {proc.returncode}): {last[:200]}")
        if "Unsolvable task in preprocessor" in log:
            return H2Outcome("unsolvable", seconds=seconds, operators_before=before,
                             note="h^2 analysis proves that no plan reaches the goal")
        sas = to_fast_downward(Path(out_file).read_text())
    return H2Outcome("pruned", sas, seconds, before, sas.count("begin_operator"))


__all__ = ["H2Outcome", "h2_preprocess", "preprocessor_binary", "to_fast_downward"]
