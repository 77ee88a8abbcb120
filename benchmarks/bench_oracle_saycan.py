"""The oracle on AutoGPT+P's SayCan set through the harness, and the report in the layout of
AutoGPT+P Table IV (rows: the eight SayCan families; columns: success / minimal).

    .venv/bin/python benchmarks/bench_oracle_saycan.py [--workers 2] [--out DIR]

Equivalent to:
    groundplan bench run autogptp-saycan --method oracle --db DIR/bench.sqlite
    groundplan bench report 'oracle@autogptp-saycan@none' --db DIR/bench.sqlite --out DIR
Prints the table, then every episode that failed or whose cost differs from min_costs.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GP = [sys.executable, "-m", "groundplan.cli.main"]
RUN = "oracle@autogptp-saycan@none"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", help="folder for bench.sqlite and the report (default: a temp folder)")
    args = ap.parse_args()
    out = Path(args.out or tempfile.mkdtemp(prefix="gporacle"))
    db = out / "bench.sqlite"
    for cmd in (["bench", "run", "autogptp-saycan", "--method", "oracle", "--db", str(db), "--workers",
                 str(args.workers), "--no-progress"],
                ["bench", "report", RUN, "--db", str(db), "--out", str(out)]):
        p = subprocess.run([*GP, *cmd], cwd=ROOT, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(p.stderr)
        print(" ".join(p.stdout.split()))
    md = (out / "report.md").read_text()
    start = md.index("## autogptp-saycan")
    print(md[start:md.index("\n\n", md.index("| Average", start))])
    c = sqlite3.connect(str(db))
    bad = 0
    for tid, status, m, err in c.execute("SELECT task_id, status, metrics, error FROM episodes WHERE run_id = ? "
                                         "ORDER BY task_id", (RUN,)):
        m = json.loads(m)
        if status != "success" or not m["minimal"]:
            bad += status != "success"
            print(f"  {tid}: {status}, cost {m['cost']} vs min_costs {m['min_costs']}" + (f" ({err})" if err else ""))
    print(f"unsuccessful episodes: {bad}; report in {out}")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
