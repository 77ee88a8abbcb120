"""The same benchmark run on 1 and 2 local workers and through Ray (a local head on
127.0.0.1 started here): identical metrics, and the wall time of each.

    .venv/bin/python benchmarks/bench_executors.py [--dataset autogptp-saycan] [--limit K] [--no-ray]

Each configuration is a fresh `groundplan bench run` (its own results file), timed from the
outside (process start to exit, so worker start-up is included). Prints a table and the
per-episode comparison; exit code 1 if any metric differs.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GP = [sys.executable, "-m", "groundplan.cli.main"]


def run(args: list[str]) -> float:
    t0 = time.perf_counter()
    p = subprocess.run([*GP, *args], cwd=ROOT, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(args)}\n{p.stderr}")
    print(" ".join(p.stdout.split()))
    return dt


def per_episode(db: Path) -> dict[str, dict]:
    c = sqlite3.connect(str(db))
    out = {}
    for tid, seed, status, m in c.execute("SELECT task_id, seed, status, metrics FROM episodes"):
        d = json.loads(m)
        d.pop("wall_time", None)
        out[f"{tid}#{seed}"] = {"status": status, **d}
    c.close()
    return out


def start_ray_head(tmp: str) -> tuple[subprocess.Popen, int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ray_bin = str(Path(sys.executable).parent / "ray")
    head = subprocess.Popen([ray_bin, "start", "--head", f"--port={port}", "--node-ip-address=127.0.0.1",
                             "--num-cpus=2", "--disable-usage-stats", "--include-dashboard=false",
                             "--object-store-memory=100000000", f"--temp-dir={tmp}", "--block"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            time.sleep(2)
            return head, port
        except OSError:
            time.sleep(0.5)
    stop_group(head)
    sys.exit("Ray head did not start")


def stop_group(proc: subprocess.Popen) -> None:
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        t = time.time()
        while time.time() - t < wait:
            if proc.poll() is not None:
                break
            time.sleep(0.3)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default="autogptp-saycan")
    ap.add_argument("--method", default="oracle")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--no-ray", action="store_true")
    ap.add_argument("--json", help="write the numbers here")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="gpbench"))
    common = [args.dataset, "--method", args.method, "--no-progress", "--timeout", str(args.timeout)]
    if args.limit:
        common += ["--limit", str(args.limit)]
    results: dict[str, dict] = {}
    for label, extra in (("local, 1 worker", ["--workers", "1"]), ("local, 2 workers", ["--workers", "2"])):
        db = tmp / f"{label.split(',')[1].strip().replace(' ', '')}.sqlite"
        results[label] = {"seconds": run(["bench", "run", *common, "--db", str(db), *extra]), "db": db}
    if not args.no_ray:
        try:
            import ray  # noqa: F401
        except ImportError:
            print("ray is not installed: skipping the Ray executor")
        else:
            ray_tmp = tempfile.mkdtemp(prefix="gpray", dir="/tmp")
            head, port = start_ray_head(ray_tmp)
            try:
                db = tmp / "ray.sqlite"
                secs = run(["bench", "run", *common, "--db", str(db), "--executor", "ray", "--address",
                            f"127.0.0.1:{port}", "--workers", "2"])
                results["Ray local head, 2 actors"] = {"seconds": secs, "db": db}
            finally:
                stop_group(head)
    ref_label = "local, 1 worker"
    ref = per_episode(results[ref_label]["db"])
    ok = True
    from groundplan.bench.metrics import aggregate, deterministic_view

    print(f"\n{args.method} on {args.dataset}: {len(ref)} episodes per configuration")
    print(f"{'configuration':28} {'wall s':>8} {'episodes':>8} {'success':>8} {'minimal':>8}  same as 1 worker")
    out = {}
    for label, r in results.items():
        eps = per_episode(r["db"])
        agg = deterministic_view(aggregate(eps.values()))
        same = eps == ref
        diffs = [k for k in ref if eps.get(k) != ref[k]]
        ok &= same
        print(f"{label:28} {r['seconds']:8.1f} {len(eps):8d} {agg['success']:8.3f} "
              f"{agg['minimal'] if agg['minimal'] is not None else float('nan'):8.3f}  "
              f"{'yes' if same else 'NO: ' + ', '.join(diffs[:5])}")
        out[label] = {"seconds": round(r["seconds"], 2), "episodes": len(eps), "metrics": agg, "identical": same,
                      "differing": diffs}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    print(f"(results files in {tmp}; load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
