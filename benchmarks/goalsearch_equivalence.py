"""goalsearch's ranked goals before and after a change that must not change behaviour (a
refactor): for every instruction of every golden set (goalsearch_golden.py's sets), the
candidate goals goalsearch ranks, in order, after its focus, search, containment and
recipient rewrites, and its abstention, without planning. Two snapshots that agree line for
line mean the planned first goals agree too (the planner and the checks after the ranking are
not part of the change). Snapshots run with ``PYTHONHASHSEED=0``: a few rankings break ties in
set order, which follows Python's string hash seed (1 of 4,113 at f0e8414), and the sentence
vectors come from the embedding store once it holds them (a vector computed in another batch
differs in the last digits, enough to swap near ties): take the "before" snapshot twice and use
the second.

    .venv/bin/python benchmarks/goalsearch_equivalence.py snapshot --at f0e8414 --out /tmp/before.jsonl
    .venv/bin/python benchmarks/goalsearch_equivalence.py snapshot --out /tmp/after.jsonl   # working tree
    .venv/bin/python benchmarks/goalsearch_equivalence.py diff /tmp/before.jsonl /tmp/after.jsonl

``snapshot`` is resumable (rows already in ``--out`` are skipped) and takes ``--sets`` and
``--limit`` like goalsearch_golden.py. ``diff`` prints every instruction whose ranking or
answer differs and exits 1 if any does (2 on bad input).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import goalsearch_golden as G  # sibling script (benchmarks/ is sys.path[0])

TOP = 8  # candidates kept per instruction


def _ranked(method, task) -> dict:
    from groundplan.methods import RunContext
    from groundplan.methods.small_model.answer import abstention
    from groundplan.methods.small_model.focus import focus
    from groundplan.methods.small_model.method import _contained

    cfg = method.configure({})
    pt = method.build(task, cfg)
    searcher = method.searcher(cfg)
    problem = focus(task.instruction, pt.domain, pt.problem, searcher.encoder) or pt.problem
    res = searcher.search(task.instruction, pt.domain, problem, llm=None, usage=None)
    goals = _contained(task.instruction, list(res.goals), pt)
    why = abstention(task.instruction, pt.domain, pt.problem, goals[0].text if goals else None)
    del RunContext
    return {"goals": [g.text for g in goals[:TOP]], "scores": [round(float(g.score), 4) for g in goals[:TOP]],
            "abstain": None if why is None else why.reason, "structure": res.structure,
            "focused": problem is not pt.problem}


def snapshot(sets: list[str], out: Path, limit: int | None) -> int:
    from groundplan.errors import GroundplanError
    from groundplan.methods import get_method

    done = set()
    if out.is_file():
        for line in out.read_text().splitlines():
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            done.add((r["set"], r["task"]))
    method = get_method("goalsearch")
    t_start = time.perf_counter()
    n = 0
    with out.open("a") as fh:
        for s in sets:
            tasks = G.tasks_for(s)[:limit] if limit else G.tasks_for(s)
            for task in tasks:
                if (s, task.id) in done:
                    continue
                t0 = time.perf_counter()
                try:
                    row = _ranked(method, task)
                except GroundplanError as exc:
                    row = {"error": " ".join(str(exc).split())}
                row = {"set": s, "task": task.id, "instruction": task.instruction, **row,
                       "seconds": round(time.perf_counter() - t0, 3)}
                fh.write(json.dumps(row) + "\n")
                fh.flush()
                n += 1
            print(f"{s}: done ({n} rows so far, {time.perf_counter() - t_start:.0f} s)", flush=True)
    return 0


_COMPARED = ("goals", "scores", "abstain", "structure", "focused", "error")


def diff(a: Path, b: Path) -> int:
    ra = {(r["set"], r["task"]): r for r in G.read_rows(a)}
    rb = {(r["set"], r["task"]): r for r in G.read_rows(b)}
    both = sorted(set(ra) & set(rb))
    changed = 0
    for key in both:
        x, y = ra[key], rb[key]
        fields = [f for f in _COMPARED if x.get(f) != y.get(f)]
        if fields:
            changed += 1
            print(f"{key[0]} {key[1]}: {x['instruction']!r}")
            for f in fields:
                print(f"   {f}: {x.get(f)!r}\n   {' ' * len(f)}  -> {y.get(f)!r}")
    only = len(set(ra) ^ set(rb))
    print(f"{len(both)} instructions in both ({only} in one only); {changed} differ")
    return 1 if changed else 0


def _use_commit(at: str, argv: list[str]) -> None:
    """Run this script again on a clean export of commit ``at`` (goalsearch_golden.py's)."""
    sha, dest = G.export_commit(at)
    if os.environ.get(G.AT_ENV) != sha:
        path = os.pathsep.join(p for p in (str(dest / "src"), os.environ.get("PYTHONPATH", "")) if p)
        sys.stdout.flush()
        os.execve(sys.executable, [sys.executable, str(Path(__file__).resolve()), *argv],
                  {**os.environ, "PYTHONPATH": path, G.AT_ENV: sha})
    import groundplan

    if not Path(groundplan.__file__).resolve().is_relative_to(dest.resolve()):
        raise ValueError(f"groundplan is imported from {Path(groundplan.__file__).parent}, not from {dest}")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("snapshot")
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--sets")
    s.add_argument("--limit", type=int)
    s.add_argument("--at", metavar="COMMIT", help="the code of COMMIT from a clean export (default: working tree)")
    d = sub.add_parser("diff")
    d.add_argument("a", type=Path)
    d.add_argument("b", type=Path)
    args = ap.parse_args(argv)
    try:
        if args.cmd == "diff":
            return diff(args.a, args.b)
        if os.environ.get("PYTHONHASHSEED") != "0":
            # a few rankings break ties by set order, which follows the string hash seed
            sys.stdout.flush()
            os.execve(sys.executable, [sys.executable, str(Path(__file__).resolve()), *argv],
                      {**os.environ, "PYTHONHASHSEED": "0"})
        if args.at:
            _use_commit(args.at, argv)
        return snapshot(G.parse_sets(args.sets), args.out, args.limit)
    except ValueError as exc:
        print(f"goalsearch_equivalence: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
