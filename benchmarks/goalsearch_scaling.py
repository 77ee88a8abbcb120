"""How goalsearch scales with the scene (issue 48): generated household scenes of 25, 100, 300
and 1,000 objects (``groundplan.world.generate.household_scene``), each instruction run twice
in one process with the encoder loaded: the first call on the new scene (no embedding cache on
disk, so nothing is remembered from an earlier run; vectors of phrases an earlier scene of the
same run shared stay in memory) and a warm call (the same instruction
again). Beside it, in the same run, the planner alone on the same scene and the gold goal (Fast
Downward through ``groundplan plan``'s path, the task already built), which is what planning
alone costs.

    .venv/bin/python benchmarks/goalsearch_scaling.py                   # 25 100 300 1000
    .venv/bin/python benchmarks/goalsearch_scaling.py --sizes 25 100 --out /tmp/scaling.md

Writes benchmarks/results/goalsearch_scaling/scaling.md (and .json). Targets (issue 48): at most
2 s warm and 10 s first at 1,000 objects.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "goalsearch_scaling"
#: (instruction, gold goal): a named object, a class, a need
INSTRUCTIONS = (
    ("bring me coke0", "(inhand coke0 human0)"),
    ("put coke0 on counter0", "(on coke0 counter0)"),
    ("I'm thirsty", None),
)


def _say(msg: str) -> None:
    if sys.stderr.isatty():
        print(msg, file=sys.stderr, flush=True)


def measure(sizes: list[int]) -> list[dict]:
    from groundplan import api
    from groundplan.core.verdict import verdict
    from groundplan.world.generate import household_scene
    from groundplan.world.yaml_io import write_yaml_scene

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        api.run("goalsearch", "bring me the apple", ROOT / "examples" / "scenes" / "kitchen.yaml")  # encoder loaded
        for n in sizes:
            scene = household_scene(n)
            path = Path(tmp) / f"household{n}.yaml"
            write_yaml_scene(scene, path)
            for instruction, gold in INSTRUCTIONS:
                row = {"objects": n, "instruction": instruction}
                for kind in ("first", "warm"):
                    _say(f"{n} objects, {kind}: {instruction}")
                    t0 = time.perf_counter()
                    ep = api.run("goalsearch", instruction, path, check=gold)
                    row[kind] = round(time.perf_counter() - t0, 2)
                    row[f"{kind}_verdict"] = verdict(ep)
                row["goal"] = ep.goal
                if gold:
                    task = api.build_task(path)
                    t0 = time.perf_counter()
                    res = api.plan(task, f"(and {gold})")
                    row["bare_planner"] = round(time.perf_counter() - t0, 2)
                    row["bare_status"] = res.status
                rows.append(row)
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| objects | instruction | first call (s) | warm call (s) | verdict | bare planner, gold goal (s) |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['objects']} | {r['instruction']} | {r['first']} | {r['warm']} | {r['warm_verdict']} | "
                     f"{r.get('bare_planner', '-')} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[25, 100, 300, 1000])
    ap.add_argument("--out", type=Path, default=OUT / "scaling.md")
    args = ap.parse_args()
    os.environ["GROUNDPLAN_EMBEDDING_CACHE"] = "off"  # a first call finds nothing on disk from earlier runs
    rows = measure(args.sizes)
    text = ("# goalsearch on generated household scenes\n\n"
            "`.venv/bin/python benchmarks/goalsearch_scaling.py` (one process, encoder loaded; first call with a "
            "embedding cache off on disk). Bare planner: the same scene and the gold goal, planned alone.\n\n" + table(rows))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    args.out.with_suffix(".json").write_text(json.dumps(rows, indent=1) + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
