"""Generate the ALFRED-style RobLM dataset (jsonl, one sample a line) outside the repository.

    nice -n 10 .venv/bin/python benchmarks/roblm_data.py --split train --out /tmp/roblm/train.jsonl \
        --seeds-per-floorplan 1 --goals-per-category 2
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from groundplan.bench.datasets.alfred import generate, write_jsonl


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--split", required=True, choices=["train", "valid_seen", "valid_unseen"])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--floorplans", type=int, nargs="*")
    ap.add_argument("--seeds-per-floorplan", type=int, default=1)
    ap.add_argument("--goals-per-category", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    t0 = time.perf_counter()
    n = write_jsonl(generate(a.split, floorplans=a.floorplans, seeds_per_floorplan=a.seeds_per_floorplan,
                             goals_per_category=a.goals_per_category, seed=a.seed), a.out)
    print(f"{n} samples -> {a.out} in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
