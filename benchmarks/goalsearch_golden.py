"""goalsearch's behaviour frozen (issue 48): the first goal of every instruction of every
committed evaluation set, with the commit and the code it came from, so that a rebuild of
goalsearch is judged against it.

    .venv/bin/python benchmarks/goalsearch_golden.py sets                 # the sets and their sizes
    nice -n 10 .venv/bin/python benchmarks/goalsearch_golden.py freeze --at a226527  # resumable; ~1 h
    .venv/bin/python benchmarks/goalsearch_golden.py compare [--sets heldout-aa,saycan] [--limit N] [--at C]
    .venv/bin/python benchmarks/goalsearch_golden.py status               # rows frozen per set
    .venv/bin/python benchmarks/goalsearch_golden.py abstain check        # the absent-object set is sound
    .venv/bin/python benchmarks/goalsearch_golden.py abstain baseline     # refusals today -> abstain_baseline.md

The sets: the held-out sets a to aa (``heldout`` ... ``heldout-aa``, benchmarks/data/
heldout_goals/) and their oracle-map variants (``<set>-oracle``: the unseen-class scenes with
their hand-written map), AutoGPT+P's SayCan set (``saycan``), its plan-tool sets
(``plan-tool``) and the unseen-class suite (``unseen-classes``, benchmarks/data/
unseen_classes, default map plus inference). Tasks are loaded by small_model_heldout.py and
unseen_classes.py, not copied here.

``freeze`` writes benchmarks/results/goalsearch_golden/golden.jsonl, one JSON line per
instruction (set, task, instruction, goal: the goal goalsearch planned and executed, its
first that was valid and solvable; success and verdict against the gold goal; status;
seconds), and meta.json (the git commit, the last commit that changed
methods/small_model, the SHA-256 of every methods/small_model/*.py, the options, the sets
and their counts). It is append-only and resumable: rows already written are skipped; it
refuses to resume at another commit than meta.json's (exit 2).

``--at COMMIT`` runs the code of a commit from a clean ``git archive`` export of src/ (under
$TMPDIR/goalsearch_golden_src, not in the repository): several people edit this working tree at
once, and a freeze must not pick up their uncommitted edits half way. ``freeze`` defaults to
HEAD; ``compare`` and ``abstain`` default to the working tree (the code being rebuilt).

``compare`` runs the current code (``--method``, ``--config``, ``--at``) on the frozen instructions and
lists, per set, every instruction whose first goal changed, and the success before and after.
It exits 0 whatever changed (2 on bad input).

``abstain`` reads the absent-object request set (benchmarks/data/abstain/, issue 48: requests
for things a scene lacks, expected answer a refusal, and control requests that can be met, with
gold goals). ``abstain check`` plans every control's gold goal and executes it (it must be
reachable), and checks that every refusal's absent class is absent from its scene and that its
nearest alternatives exist (exit 1 if not). ``abstain baseline`` runs goalsearch once on every
request and writes the refusal rate on the refusals and the false-refusal rate on the controls
(an answer counts as a refusal when its status or verdict says refused or abstained).
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import small_model_heldout as H  # sibling scripts: benchmarks/ is sys.path[0] when run as a script
import unseen_classes as U

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "goalsearch_golden"
GOLDEN = OUT / "golden.jsonl"
META = OUT / "meta.json"
CODE_REL = "src/groundplan/methods/small_model"
CODE_DIR = ROOT / CODE_REL
#: where ``--at COMMIT`` exports a commit's package source (outside the repository)
EXPORTS = Path(os.environ.get("TMPDIR", "/tmp")) / "goalsearch_golden_src"
#: the source in use once ``--at`` is applied: {"commit": sha, "dir": export folder}
_SOURCE: dict = {}
#: set in the process ``--at`` starts: the commit whose export it runs
AT_ENV = "GOALSEARCH_GOLDEN_AT"
UNSEEN = "unseen-classes"
ABSTAIN_FILE = ROOT / "benchmarks" / "data" / "abstain" / "abstain_2026-11-29.yaml"


def golden_sets() -> list[str]:
    """Every committed evaluation set, in freezing order: the small ones first, then the
    held-out sets a to aa, then their oracle-map variants."""
    heldout = list(H.HELDOUT_FILES)
    return [UNSEEN, "saycan", "plan-tool", *heldout, *[f"{h}-oracle" for h in heldout]]


def tasks_for(set_name: str) -> list:
    """The tasks of one set (small_model_heldout.py's loaders; the unseen-class suite's items
    as Tasks in its own skill set, default map plus inference)."""
    if set_name == UNSEEN:
        from groundplan.bench.task import Task

        items, skillset = U.load_suite()
        return [Task(i.id, "unseen-classes", i.instruction, str(i.scene), i.goal, skillset=skillset,
                     subset=i.scene.stem, extras={"group": "unseen", "scene": i.scene.stem},
                     source=f"instructions.yaml:{i.id}") for i in items]
    return H.tasks_for(set_name)


def parse_sets(text: str | None) -> list[str]:
    """``--sets`` (comma-separated; default every set). Raises ValueError naming an unknown one."""
    known = golden_sets()
    if not text:
        return known
    sets = [s.strip() for s in text.split(",") if s.strip()]
    for s in sets:
        if s not in known:
            close = difflib.get_close_matches(s, known, n=1)
            hint = f" (did you mean {close[0]}?)" if close else f" (sets: {', '.join(known)})"
            raise ValueError(f"unknown set {s!r}{hint}")
    return sets


def code_hashes(code_dir: Path = CODE_DIR) -> dict[str, str]:
    """SHA-256 of every methods/small_model/*.py: what identifies the frozen behaviour."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(code_dir.glob("*.py"))}


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def export_commit(at: str) -> tuple[str, Path]:
    """A clean export of commit ``at`` (``git archive`` of src/, kept under EXPORTS): its sha and
    folder. Raises ValueError for an unknown commit."""
    sha = _git("rev-parse", "--verify", "--quiet", f"{at}^{{commit}}")
    if not sha:
        raise ValueError(f"no commit {at!r} in {ROOT}")
    dest = EXPORTS / sha
    if not (dest / "src" / "groundplan").is_dir():
        part = EXPORTS / f"{sha}.part"
        shutil.rmtree(part, ignore_errors=True)
        part.mkdir(parents=True)
        data = subprocess.run(["git", "archive", sha, "src"], cwd=ROOT, capture_output=True, check=True).stdout
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(part, filter="data")
        part.rename(dest)
    return sha, dest


def use_commit(at: str, argv: list[str]) -> None:
    """Run this command on the code of commit ``at``: the script starts again with the export's
    src/ first on PYTHONPATH (the shared working tree's uncommitted edits play no part); in that
    process (AT_ENV set) the export is checked to be what groundplan is imported from."""
    sha, dest = export_commit(at)
    if os.environ.get(AT_ENV) != sha:
        path = os.pathsep.join(p for p in (str(dest / "src"), os.environ.get("PYTHONPATH", "")) if p)
        env = {**os.environ, "PYTHONPATH": path, AT_ENV: sha}
        sys.stdout.flush()
        os.execve(sys.executable, [sys.executable, str(Path(__file__).resolve()), *argv], env)
    import groundplan

    if not Path(groundplan.__file__).resolve().is_relative_to(dest.resolve()):
        raise ValueError(f"groundplan is imported from {Path(groundplan.__file__).parent}, not from {dest}")
    _SOURCE.update(commit=sha, dir=dest)


def code_identity() -> dict:
    """The code the rows come from: a clean export of a commit (``--at``), else the working tree."""
    if _SOURCE:
        sha = _SOURCE["commit"]
        return {"commit": sha, "code_commit": _git("log", "-1", "--format=%H", sha, "--", CODE_REL),
                "code_dirty": False, "source": f"git archive of {sha} (src/ only, a clean export)",
                "sha256": code_hashes(_SOURCE["dir"] / CODE_REL)}
    return {"commit": _git("rev-parse", "HEAD"),
            "code_commit": _git("log", "-1", "--format=%H", "--", CODE_REL),
            "code_dirty": bool(_git("status", "--porcelain", "--", CODE_REL)),
            "source": "the working tree", "sha256": code_hashes()}


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def read_rows(path: Path | None = None) -> list[dict]:
    """The rows of a golden file (default the golden file); a last line cut short by a killed
    run is ignored."""
    path = path or GOLDEN
    if not path.is_file():
        return []
    rows = []
    lines = path.read_text().split("\n")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            if n < len(lines) - 1 or path.read_text().endswith("\n"):
                raise ValueError(f"{path}:{n}: not a JSON line") from None
    return rows


class Runner:
    """One goalsearch (or ``method``) with its planner and options, loaded once."""

    def __init__(self, method: str = "goalsearch", config: dict | None = None, threads: int = 1):
        from groundplan.methods import RunContext, get_method
        from groundplan.planners import get_planner

        self.method_name, self.config = method, dict(config or {})
        self.method = get_method(method)
        llm = None
        if method == "goalsearch":
            from groundplan.methods.small_model.search import SearchOptions

            if bool(self.config.get("lm_scoring", SearchOptions().lm_scoring)):
                from groundplan.llm import LLMConfig, build_llm

                llm = build_llm(LLMConfig(cache=False, n_threads=threads))
        self.ctx = RunContext(llm=llm, planner=get_planner("fast-downward"), config=self.config)

    def run(self, set_name: str, task) -> dict:
        from groundplan.core.verdict import verdict
        from groundplan.errors import GroundplanError

        t0 = time.perf_counter()
        try:
            ep = self.method.run(task, self.ctx)
            goal, success, verdict_s, status = ep.goal, bool(ep.success), verdict(ep), ep.status
        except GroundplanError as exc:  # an error is recorded, not a failure
            goal, success, status = None, False, "error"
            verdict_s = "error: " + " ".join(str(exc).split())
        return {"set": set_name, "task": task.id, "instruction": task.instruction, "goal": goal,
                "success": success, "verdict": verdict_s, "status": status, "gold": task.goal,
                "seconds": round(time.perf_counter() - t0, 3)}


def _write_meta(meta: dict) -> None:
    META.write_text(json.dumps(meta, indent=1) + "\n")


def _tally(rows: list[dict], set_name: str) -> dict:
    mine = [r for r in rows if r["set"] == set_name]
    return {"done": len(mine), "success": sum(r["success"] for r in mine)}


def freeze(sets: list[str], threads: int, limit: int | None = None) -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    ident = code_identity()
    meta = json.loads(META.read_text()) if META.is_file() else {}
    rows = read_rows()
    if rows and meta.get("sha256") and (meta["sha256"], meta.get("commit")) != (ident["sha256"], ident["commit"]):
        changed = sorted(k for k in set(meta["sha256"]) | set(ident["sha256"])
                         if meta["sha256"].get(k) != ident["sha256"].get(k))
        print(f"error: {_rel(META)}: the freeze began at {meta.get('commit', '?')[:10]} (resume with --at "
              f"{meta.get('commit', '?')[:10]}); this is {ident['commit'][:10]}"
              + (f", methods/small_model differs ({', '.join(changed)})" if changed else "")
              + "; compare instead, or move the golden file away to freeze anew", file=sys.stderr)
        return 2
    if GOLDEN.is_file() and not GOLDEN.read_text().endswith("\n") and GOLDEN.stat().st_size:
        text = GOLDEN.read_text()  # a line cut short by a killed run
        GOLDEN.write_text(text[: text.rfind("\n") + 1])
    if not meta.get("sha256"):
        meta = {"what": "goalsearch's first goal per instruction of every committed evaluation set (issue 48)",
                **ident, "method": "goalsearch", "config": {}, "threads": threads,
                "embedding_cache": os.environ.get("GROUNDPLAN_EMBEDDING_CACHE", "(default store)"),
                "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "sets": {}}
    meta.setdefault("sets", {})
    done = {(r["set"], r["task"]) for r in rows}
    runner = Runner(threads=threads)
    with GOLDEN.open("a") as fh:
        for s in sets:
            tasks = tasks_for(s)
            info = meta["sets"].setdefault(s, {})
            info["tasks"] = len(tasks)
            todo = [t for t in tasks if (s, t.id) not in done][: limit if limit else None]
            for t in todo:
                row = runner.run(s, t)
                fh.write(json.dumps(row) + "\n")
                fh.flush()
                rows.append(row)
                print(f"{s} {t.id} {'ok ' if row['success'] else 'BAD'} {row['seconds']:.2f}s -> {row['goal']}",
                      flush=True)
            info.update(_tally(rows, s))
            info["complete"] = info["done"] == info["tasks"]
            meta["finished"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
            on_disk = json.loads(META.read_text()) if META.is_file() else {}
            # another freeze of other sets may run beside this one: keep the sets it wrote
            meta["sets"] = {**on_disk.get("sets", {}), s: info}
            _write_meta(meta)
            print(f"== {s}: {info['done']}/{info['tasks']} frozen, {info['success']} successes", flush=True)
    return 0


def compare(sets: list[str], method: str, config: dict, threads: int, limit: int | None,
            out: Path | None) -> int:
    before = {}
    for r in read_rows():
        before[(r["set"], r["task"])] = r
    runner = Runner(method, config, threads)
    lines = ["# goalsearch golden comparison", "",
             f"Golden: {_rel(GOLDEN)} (code {json.loads(META.read_text()).get('code_commit', '?')[:10]}); "
             f"now: {method} {json.dumps(config)} at {code_identity()['commit'][:10]} ({code_identity()['source']}).", "",
             "| set | frozen | compared | first goal changed | success before | success after |",
             "|---|---|---|---|---|---|"]
    details: list[str] = []
    for s in sets:
        tasks = [t for t in tasks_for(s) if (s, t.id) in before]
        frozen = len(tasks)
        tasks = tasks[:limit] if limit else tasks
        changed, ok0, ok1 = [], 0, 0
        for t in tasks:
            b, a = before[(s, t.id)], runner.run(s, t)
            ok0, ok1 = ok0 + b["success"], ok1 + a["success"]
            if a["goal"] != b["goal"] or a["success"] != b["success"]:
                changed.append((t, b, a))  # (the same goal can fare otherwise: the scene's map changed)
            print(f"{s} {t.id} {'same' if a['goal'] == b['goal'] else 'CHANGED'} -> {a['goal']}", file=sys.stderr,
                  flush=True)
        lines.append(f"| {s} | {frozen} | {len(tasks)} | {sum(a['goal'] != b['goal'] for _, b, a in changed)} "
                     f"| {ok0} | {ok1} |")
        if changed:
            details += [f"## {s}", ""]
            for t, b, a in changed:
                mark = {(True, False): "lost", (False, True): "gained"}.get((b["success"], a["success"]), "same")
                goals = (f"`{b['goal']}` -> `{a['goal']}`" if a["goal"] != b["goal"]
                         else f"the same goal `{a['goal']}`")
                details.append(f"- {t.id} ({mark}) {t.instruction!r}: {goals} ({b['verdict']} -> {a['verdict']})")
            details.append("")
    text = "\n".join(lines + [""] + details)
    print(text)
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n")
    return 0


def status() -> int:
    meta = json.loads(META.read_text()) if META.is_file() else {}
    rows = read_rows()
    print(f"commit {meta.get('commit', '?')}; code {meta.get('code_commit', '?')}; {len(rows)} rows")
    for s in golden_sets():
        n = len(tasks_for(s))
        t = _tally(rows, s)
        print(f"{s}: {t['done']}/{n} frozen, {t['success']} successes")
    return 0


def abstain_items(path: Path = ABSTAIN_FILE) -> list[tuple]:
    """(task, entry) per request of the absent-object set: the Task through small_model_heldout's
    loader (own scenes with their hand-written map), the YAML entry for expect / family / absent /
    need / nearest."""
    entries = {t["id"]: t for t in H.yaml.safe_load(path.read_text())["tasks"]}
    return [(t, entries[t.id]) for t in H.heldout_tasks(path, oracle=True)]


def _scene_objects(scene_file: str) -> set[str]:
    data = H.yaml.safe_load(Path(scene_file).read_text())
    return {o["name"] if isinstance(o, dict) else str(o) for o in data.get("objects", [])}


def _class_of(name: str) -> str:
    return name.rstrip("0123456789")


def abstain_check(path: Path = ABSTAIN_FILE) -> int:
    """Every control's gold goal is reachable; every refusal's absent class is absent from its
    scene and its nearest alternatives are objects of the scene."""
    from groundplan.errors import GroundplanError
    from groundplan.methods.base import execute_and_score
    from groundplan.planners import get_planner
    from groundplan.sim.pipeline import build, plan_and_check

    planner = get_planner("fast-downward")
    bad = 0
    for t, e in abstain_items(path):
        objs = _scene_objects(t.scene_file)
        if e["expect"] == "refuse":
            present = sorted(o for o in objs if e.get("absent") and _class_of(o) == e["absent"])
            missing = [n for n in e.get("nearest", []) if n not in objs]
            ok = not present and not missing and e["family"] in ("absent-class", "unmet-need") \
                and bool(e.get("absent") or e.get("need"))
            msg = f"present: {present}" if present else f"nearest not in the scene: {missing}" if missing else \
                "refusal entry sound" if ok else "needs family absent-class/unmet-need and absent/need"
        else:
            try:
                pt = build(t.scene_file, oam_file=t.oam_file, strict=False)
                out = plan_and_check(pt, t.goal, planner, typecheck=False)
                ok = out.status == "solved" and bool(execute_and_score(pt, out.plan, t).success)
                msg = out.status if not ok else f"{len(out.plan)} steps"
            except GroundplanError as exc:
                ok, msg = False, "error: " + " ".join(str(exc).split())
        bad += not ok
        print(f"{t.id} {'ok ' if ok else 'BAD'} {msg}", flush=True)
    print(f"{bad} unsound entries")
    return 1 if bad else 0


def is_refusal(row: dict) -> bool:
    """Whether an answer is a refusal: its status or verdict says refused or abstained."""
    text = f"{row.get('status', '')} {row.get('verdict', '')}".lower()
    return "refus" in text or "abstain" in text


def abstain_baseline(path: Path = ABSTAIN_FILE, limit: int | None = None, out: Path | None = None) -> int:
    runner, ident = Runner(), code_identity()
    rows = []
    items = abstain_items(path)
    for t, e in items[:limit] if limit else items:
        r = runner.run("abstain", t)
        r.update(expect=e["expect"], family=e["family"], scene=e["scene"], refused=is_refusal(r))
        rows.append(r)
        print(f"{t.id} {e['expect']} {'REFUSED' if r['refused'] else 'answered'} {r['verdict']} -> {r['goal']}",
              file=sys.stderr, flush=True)
    ref = [r for r in rows if r["expect"] == "refuse"]
    ctl = [r for r in rows if r["expect"] == "act"]
    n_ref, n_false = sum(r["refused"] for r in ref), sum(r["refused"] for r in ctl)
    pct = lambda a, b: f"{a}/{b} = {100 * a / b:.0f} %" if b else "-"  # noqa: E731
    verdicts: dict[str, int] = {}
    for r in ref:
        verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
    lines = ["# Absent-object requests: today's goalsearch (baseline)", "",
             f"Set: `{_rel(path)}` ({len(ref)} requests to refuse, {len(ctl)} controls). Code: "
             f"{ident['commit'][:10]} ({ident['source']}), goalsearch as shipped. Command: "
             "`.venv/bin/python benchmarks/goalsearch_golden.py abstain baseline"
             + (f" --at {ident['commit'][:10]}`" if _SOURCE else "`") + ".", "",
             f"- refusals on the requests to refuse: {pct(n_ref, len(ref))}",
             f"- false refusals on the controls: {pct(n_false, len(ctl))}",
             f"- controls met (gold goal held): {pct(sum(r['success'] for r in ctl), len(ctl))}",
             "- verdicts on the requests to refuse: " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())),
             "", "A refusal is an answer whose status or verdict says refused or abstained. The set was written "
             "and committed before goalsearch ran on it; nothing was tuned on this run. Refusal requests have no "
             "gold goal, so an answer that is not a refusal ends `goal holds (unverified)` at best: the robot "
             "did something else instead (the table shows what).", "", "| task | family | instruction | answer (goal) | verdict |", "|---|---|---|---|---|"]
    lines += [f"| {r['task']} | {r['family']} | {r['instruction']} | `{r['goal']}` | {r['verdict']} |" for r in rows]
    text = "\n".join(lines) + "\n"
    print(text)
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)
        out.with_suffix(".jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("sets", help="list the sets and their sizes")
    sub.add_parser("status", help="rows frozen per set")
    f = sub.add_parser("freeze", help="run goalsearch on every set into golden.jsonl (resumable)")
    c = sub.add_parser("compare", help="run the current code; list the first goals that changed")
    for p in (f, c):
        p.add_argument("--sets", help="comma-separated (default: every set; see `sets`)")
        p.add_argument("--threads", type=int, default=1, help="the embedded model's threads, if it is used")
        p.add_argument("--limit", type=int, help="at most N instructions per set")
        p.add_argument("--at", metavar="COMMIT", default="HEAD" if p is f else None,
                       help="run the code of COMMIT from a clean export (freeze: default HEAD; compare: "
                            "default the working tree)")
    c.add_argument("--method", default="goalsearch", help="the method to compare (default goalsearch)")
    c.add_argument("--config", default="{}", help="JSON options for the method")
    c.add_argument("--out", type=Path, help="also write the comparison (markdown) to this file")
    a = sub.add_parser("abstain", help="the absent-object request set: check it, or run today's baseline")
    a.add_argument("action", choices=["check", "baseline"])
    a.add_argument("--file", type=Path, default=ABSTAIN_FILE)
    a.add_argument("--limit", type=int)
    a.add_argument("--out", type=Path, default=OUT / "abstain_baseline.md")
    a.add_argument("--at", metavar="COMMIT", help="run the code of COMMIT from a clean export (default: the "
                   "working tree)")
    args = ap.parse_args(argv)
    if args.cmd == "sets":
        for s in golden_sets():
            print(f"{s} {len(tasks_for(s))}")
        return 0
    if args.cmd == "status":
        return status()
    if getattr(args, "at", None):
        try:
            use_commit(args.at, sys.argv[1:] if argv is None else list(argv))
        except (ValueError, subprocess.CalledProcessError, OSError) as exc:
            print(f"error: --at {args.at}: {' '.join(str(exc).split())}", file=sys.stderr)
            return 2
    if args.cmd == "abstain":
        if not args.file.is_file():
            print(f"error: --file: no such file {args.file}", file=sys.stderr)
            return 2
        if args.action == "check":
            return abstain_check(args.file)
        return abstain_baseline(args.file, args.limit, args.out)
    try:
        sets = parse_sets(args.sets)
    except ValueError as exc:
        print(f"error: --sets: {exc}", file=sys.stderr)
        return 2
    if args.limit is not None and args.limit < 1:
        print(f"error: --limit: {args.limit} is not a positive number", file=sys.stderr)
        return 2
    if args.cmd == "freeze":
        return freeze(sets, args.threads, args.limit)
    try:
        config = json.loads(args.config)
        if not isinstance(config, dict):
            raise ValueError("not a JSON object")
    except ValueError as exc:
        print(f"error: --config: {exc}", file=sys.stderr)
        return 2
    if not GOLDEN.is_file() or not META.is_file():
        print(f"error: no golden file {_rel(GOLDEN)} (run `freeze` first)", file=sys.stderr)
        return 2
    try:
        from groundplan.methods import get_method

        get_method(args.method)
    except Exception as exc:  # noqa: BLE001 - an unknown method name is bad input
        print(f"error: --method: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    return compare(sets, args.method, config, args.threads, args.limit, args.out)


if __name__ == "__main__":
    sys.exit(main())
