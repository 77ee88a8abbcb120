"""goalsearch answers or abstains (issue 48, must-show 3): how often it refuses the requests of the
absent-object set, and how often it refuses requests it should meet.

    nice -n 10 .venv/bin/python benchmarks/goalsearch_abstain.py run --best-effort --at HEAD   # the committed run
    .venv/bin/python benchmarks/goalsearch_abstain.py run                  # the working tree, no best-effort pass
    .venv/bin/python benchmarks/goalsearch_abstain.py run --limit 3 --sets heldout --set-limit 5 --out /tmp/a

Two parts, written to ``--out`` (default benchmarks/results/goalsearch_abstain/): ``abstain.md``
(the tables), ``summary.json`` (the numbers) and ``requests.jsonl`` (one row per request of the
absent-object set).

(a) The absent-object set (benchmarks/data/abstain/abstain_2026-11-29.yaml, written before any
abstain code and never tuned on; its loader is goalsearch_golden.py's ``abstain_items``: the own
scenes with their hand-written map). Every request is a full goalsearch episode with the default
configuration (``abstain`` on). Per request to refuse: refused or not, the reason, the kind of the
refusal (``absent`` thing or unmet ``need``) against the kind the set expects (absent-class /
unmet-need), the nearest alternative named against the ones the set accepts. Per control: the gold
goal held (success), and false refusals. ``--best-effort`` runs the set a second time with
``abstain: false`` (the CLI's ``--best-effort``): what goalsearch does instead of refusing.

(b) False refusals on the committed evaluation sets (every instruction can be met: each has a
reachable gold goal): the held-out sets a to aa, their oracle-map variants, AutoGPT+P's SayCan and
plan-tool sets and the unseen-class suite (goalsearch_golden.py's ``golden_sets`` and
``tasks_for``). Only the abstain decision matters here, so it is taken directly, not by a full
episode: ``groundplan.methods.small_model.answer.abstention(instruction, pt.domain, pt.problem,
None)`` on the task's planning task (``sim.pipeline.build`` as ``Method.build`` makes it). The
decision does not depend on the goal passed (only the nearest alternative named does), so it is the
decision an episode takes.

``--at COMMIT`` runs the code of a commit from a clean export of src/ (as goalsearch_golden.py
does): several people edit this working tree at once. Without it the working tree runs, and the
report lists the files under src/groundplan with uncommitted edits.

Exit 0 whatever the rates; 2 on bad input (an unknown set, a missing file).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import goalsearch_golden as G  # sibling scripts: benchmarks/ is sys.path[0] when run as a script

ROOT = G.ROOT
OUT = ROOT / "benchmarks" / "results" / "goalsearch_abstain"
#: the set's family -> the kind of refusal that answers it (knowledge.abstain.Abstention.kind)
KIND_OF = {"absent-class": "absent", "unmet-need": "need"}
#: issue 48's bars
TARGET_REFUSED, TARGET_FALSE = 0.90, 0.03


def _progress(msg: str) -> None:
    if sys.stderr.isatty():
        print(msg, file=sys.stderr, flush=True)


def _rate(a: int, b: int) -> str:
    return f"{a}/{b} = {100 * a / b:.1f} %" if b else "-"


def _names_it(wanted: str | None, entry: dict) -> bool:
    """Whether the refusal's word names the class the set says is absent ("pizza" for pizza_box)."""
    absent = str(entry.get("absent") or "")
    if not wanted or not absent:
        return False
    w = wanted.lower().rstrip("s")
    parts = [p.rstrip("s") for p in absent.lower().split("_")]
    return w in parts or w == "".join(parts) or absent.lower().startswith(w)


def _nearest_ok(named: str | None, accepted: list) -> bool:
    """The nearest alternative named is one the set accepts; none named where it accepts none."""
    return named in accepted if named else not accepted


def episode(runner: G.Runner, task) -> dict:
    """One full goalsearch episode: goal, success, verdict, status and the abstention's metrics."""
    from groundplan.core.verdict import verdict
    from groundplan.errors import GroundplanError

    t0 = time.perf_counter()
    try:
        ep = runner.method.run(task, runner.ctx)
        m = dict(ep.metrics or {})
        row = {"goal": ep.goal, "success": bool(ep.success), "verdict": verdict(ep),
               "status": getattr(ep.status, "value", str(ep.status)), "kind": m.get("abstained"),
               "nearest": m.get("nearest"), "confidence": m.get("confidence")}
    except GroundplanError as exc:  # an error is recorded, not a failure
        row = {"goal": None, "success": False, "verdict": "error: " + " ".join(str(exc).split()),
               "status": "error", "kind": None, "nearest": None, "confidence": None}
    row["seconds"] = round(time.perf_counter() - t0, 3)
    row["refused"] = G.is_refusal(row)
    return row


def run_absent_set(path: Path, limit: int | None, best_effort: bool) -> list[dict]:
    """Every request of the absent-object set (the first ``limit``), default configuration and,
    with ``best_effort``, again with ``abstain: false``."""
    items = G.abstain_items(path)
    items = items[:limit] if limit else items
    modes = [("default", {})] + ([("best-effort", {"abstain": False})] if best_effort else [])
    rows = {t.id: {"task": t.id, "scene": e["scene"], "family": e["family"], "expect": e["expect"],
                   "instruction": t.instruction, "gold": t.goal, "absent": e.get("absent"), "need": e.get("need"),
                   "accepted_nearest": list(e.get("nearest") or [])} for t, e in items}
    for mode, config in modes:
        runner = G.Runner(config=config)
        for i, (t, e) in enumerate(items, 1):
            r = episode(runner, t)
            rows[t.id][mode] = r
            _progress(f"[{mode} {i}/{len(items)}] {t.id} {e['expect']}: "
                      f"{'REFUSED ' + r['verdict'] if r['refused'] else r['verdict']} -> {r['goal']}")
    out = []
    for t, e in items:
        row = rows[t.id]
        d = row["default"]
        if e["expect"] == "refuse":
            row["kind_ok"] = d["refused"] and d["kind"] == KIND_OF.get(e["family"])
            row["names_it"] = row["kind_ok"] and (e["family"] != "absent-class" or _names_it(_wanted(d), e))
            row["nearest_ok"] = d["refused"] and _nearest_ok(d["nearest"], row["accepted_nearest"])
        out.append(row)
    return out


def _wanted(d: dict) -> str | None:
    """The thing or need a refusal names, read from its verdict ("no wrench in the scene")."""
    v = d.get("verdict") or ""
    if not d.get("refused") or ":" not in v:
        return None
    reason = v.split(":", 1)[1].split(";", 1)[0].strip()
    for head, tail in (("no ", " in the scene"), ("nothing ", " in the scene")):
        if reason.startswith(head) and reason.endswith(tail):
            return reason[len(head):-len(tail)]
    return reason


def heldout_decisions(sets: list[str], set_limit: int | None) -> dict:
    """The abstain decision on every instruction of ``sets`` (each can be met): per set the count,
    the refusals (each with its reason) and build errors."""
    from groundplan.errors import GroundplanError
    from groundplan.methods.small_model.answer import abstention
    from groundplan.sim.pipeline import build

    built: dict[tuple, object] = {}
    out: dict[str, dict] = {}
    for s in sets:
        tasks = G.tasks_for(s)
        tasks = tasks[:set_limit] if set_limit else tasks
        info = out[s] = {"n": 0, "refused": [], "errors": []}
        t0 = time.perf_counter()
        for i, t in enumerate(tasks, 1):
            key = (t.scene_file, t.skillset, t.oam_file)
            try:
                if key not in built:
                    built[key] = build(t.scene_file, skillset=t.skillset, oam_file=t.oam_file, strict=False)
                pt = built[key]
                why = abstention(t.instruction, pt.domain, pt.problem, None)
            except GroundplanError as exc:
                info["errors"].append({"task": t.id, "error": " ".join(str(exc).split())})
                continue
            info["n"] += 1
            if why is not None:
                info["refused"].append({"task": t.id, "instruction": t.instruction, "gold": t.goal,
                                        "scene": Path(t.scene_file).stem, **why.to_dict()})
            _progress(f"[{s} {i}/{len(tasks)}] {t.id}: {'REFUSED ' + why.reason if why else 'answers'}")
        info["seconds"] = round(time.perf_counter() - t0, 1)
        _progress(f"== {s}: {len(info['refused'])}/{info['n']} refused")
    return out


def summarise(rows: list[dict], held: dict) -> dict:
    ref = [r for r in rows if r["expect"] == "refuse"]
    ctl = [r for r in rows if r["expect"] == "act"]
    fam: dict[str, dict] = {}
    for f in sorted({r["family"] for r in ref}):
        mine = [r for r in ref if r["family"] == f]
        fam[f] = {"n": len(mine), "refused": sum(r["default"]["refused"] for r in mine),
                  "kind_as_expected": sum(r["kind_ok"] for r in mine),
                  "names_the_thing": sum(r["names_it"] for r in mine),
                  "nearest_acceptable": sum(r["nearest_ok"] for r in mine)}
    n_h = sum(v["n"] for v in held.values())
    f_h = sum(len(v["refused"]) for v in held.values())
    worst = max(held.items(), key=lambda kv: (len(kv[1]["refused"]) / kv[1]["n"] if kv[1]["n"] else 0.0),
                default=None)
    summ = {
        "absent_set": {
            "requests_to_refuse": len(ref), "refused": sum(r["default"]["refused"] for r in ref),
            "refusal_rate": round(sum(r["default"]["refused"] for r in ref) / len(ref), 4) if ref else None,
            "by_family": fam,
            "controls": len(ctl), "false_refusals": sum(r["default"]["refused"] for r in ctl),
            "false_refusal_rate": round(sum(r["default"]["refused"] for r in ctl) / len(ctl), 4) if ctl else None,
            "controls_met": sum(r["default"]["success"] for r in ctl),
            "verdicts": dict(Counter(r["default"]["status"] for r in rows)),
        },
        "heldout": {
            "decision": "answer.abstention(instruction, pt.domain, pt.problem, None) on the built task",
            "sets": {s: {"n": v["n"], "refused": len(v["refused"]), "errors": len(v["errors"])}
                     for s, v in held.items()},
            "n": n_h, "false_refusals": f_h, "false_refusal_rate": round(f_h / n_h, 4) if n_h else None,
            "worst_set": None if worst is None else {
                "set": worst[0], "n": worst[1]["n"], "refused": len(worst[1]["refused"]),
                "rate": round(len(worst[1]["refused"]) / worst[1]["n"], 4) if worst[1]["n"] else None},
        },
        "targets": {"refusal_rate_at_least": TARGET_REFUSED, "false_refusal_rate_at_most": TARGET_FALSE},
    }
    if rows and "best-effort" in rows[0]:
        summ["absent_set"]["best_effort"] = {
            "refused": sum(r["best-effort"]["refused"] for r in ref),
            "controls_met": sum(r["best-effort"]["success"] for r in ctl),
            "false_refusals": sum(r["best-effort"]["refused"] for r in ctl)}
    return summ


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render(summ: dict, rows: list[dict], held: dict, meta: dict) -> str:
    a, h = summ["absent_set"], summ["heldout"]
    ok = lambda b: "yes" if b else "no"  # noqa: E731
    L = ["# goalsearch answers or abstains: the absent-object set and false refusals", "",
         f"Code: {meta['commit'][:10]} ({meta['source']}; src/groundplan uncommitted edits: "
         f"{', '.join(meta['src_dirty']) or 'none'}), goalsearch's default configuration. Run "
         f"{meta['date']}, {meta['seconds']:.0f} s. Command: `{meta['command']}`.", "",
         f"Absent-object set: `{meta['file']}`"
         + (" (requests/controls as listed below)." if not meta["whole_set"] else
            ", written before any abstain code and never used for tuning; this is its one measurement with the "
            "abstain code."), "",
         "## Summary", "",
         f"- refusals on the requests to refuse: **{_rate(a['refused'], a['requests_to_refuse'])}** "
         f"(issue 48: >= {100 * TARGET_REFUSED:.0f} %)"]
    for f, v in a["by_family"].items():
        L.append(f"  - {f}: {_rate(v['refused'], v['n'])}; refusal of the expected kind "
                 f"{v['kind_as_expected']}/{v['n']}; nearest alternative acceptable {v['nearest_acceptable']}/{v['n']}")
    L += [f"- false refusals on the set's controls: **{_rate(a['false_refusals'], a['controls'])}**; controls met "
          f"(gold goal held): {_rate(a['controls_met'], a['controls'])}"]
    if h["n"]:
        w = h["worst_set"]
        L.append(f"- false refusals over the committed evaluation sets: **{_rate(h['false_refusals'], h['n'])}** "
                 f"(issue 48: <= {100 * TARGET_FALSE:.0f} %); worst set {w['set']}: {_rate(w['refused'], w['n'])}")
    if "best_effort" in a:
        b = a["best_effort"]
        L.append(f"- `--best-effort` (abstain: false): {b['refused']}/{a['requests_to_refuse']} refused, controls met "
                 f"{_rate(b['controls_met'], a['controls'])}")
    ref = [r for r in rows if r["expect"] == "refuse"]
    ctl = [r for r in rows if r["expect"] == "act"]
    L += ["", "## Absent-object set, per kind", "",
          "| family | n | refused | rate | kind as expected | names the thing | nearest acceptable |",
          "|---|---|---|---|---|---|---|"]
    for f, v in a["by_family"].items():
        L.append(f"| {f} | {v['n']} | {v['refused']} | {100 * v['refused'] / v['n']:.1f} % | {v['kind_as_expected']} "
                 f"| {v['names_the_thing']} | {v['nearest_acceptable']} |")
    L.append(f"| all | {a['requests_to_refuse']} | {a['refused']} | "
             f"{100 * (a['refusal_rate'] or 0):.1f} % | {sum(v['kind_as_expected'] for v in a['by_family'].values())} "
             f"| {sum(v['names_the_thing'] for v in a['by_family'].values())} "
             f"| {sum(v['nearest_acceptable'] for v in a['by_family'].values())} |")
    L += ["", "Kind as expected: an absent-class request refused as a thing the scene lacks (`absent`), an unmet-need "
          "request as a need nothing meets (`need`). Names the thing: a refusal of the expected kind whose word is "
          "the absent class or a word of it (every need refusal of the kind `need` counts). Nearest acceptable: the alternative named is one the set lists, "
          "or none is named where the set lists none.", "",
          "## Absent-object set, per scene", "", "| scene | to refuse | refused | controls | false refusals |",
          "|---|---|---|---|---|"]
    for sc in dict.fromkeys(r["scene"] for r in rows):
        rr = [r for r in ref if r["scene"] == sc]
        cc = [r for r in ctl if r["scene"] == sc]
        L.append(f"| {sc} | {len(rr)} | {sum(r['default']['refused'] for r in rr)} | {len(cc)} "
                 f"| {sum(r['default']['refused'] for r in cc)} |")
    be = bool(rows) and "best-effort" in rows[0]
    L += ["", "## Requests to refuse", "",
          "| task | family | instruction | expected | refused | verdict | kind | nearest (accepted) |"
          + (" best-effort goal |" if be else ""), "|---|---|---|---|---|---|---|---|" + ("---|" if be else "")]
    for r in ref:
        d = r["default"]
        exp = r["absent"] or r["need"]
        L.append(f"| {r['task']} | {r['family']} | {_cell(r['instruction'])} | {_cell(exp)} | {ok(d['refused'])} "
                 f"| {_cell(d['verdict'])} | {d['kind'] or '-'}{'' if r['kind_ok'] or not d['refused'] else ' (!)'} "
                 f"| {d['nearest'] or '-'} ({', '.join(r['accepted_nearest']) or 'none'})"
                 + (f" | `{r['best-effort']['goal']}` |" if be else " |"))
    L += ["", "## Controls", "", "| task | instruction | refused | success | verdict | goal |"
          + (" best-effort |" if be else ""), "|---|---|---|---|---|---|" + ("---|" if be else "")]
    for r in ctl:
        d = r["default"]
        L.append(f"| {r['task']} | {_cell(r['instruction'])} | {ok(d['refused'])} | {ok(d['success'])} "
                 f"| {_cell(d['verdict'])} | `{d['goal']}` |"
                 + (f" {r['best-effort']['verdict']} |" if be else ""))
    if held:
        L += ["", "## False refusals on the committed evaluation sets", "",
              "Every instruction of these sets can be met (each has a reachable gold goal), so every refusal is "
              "false. Only the abstain decision is taken, not a full episode: "
              "`groundplan.methods.small_model.answer.abstention(instruction, pt.domain, pt.problem, None)` on the "
              "task's planning task (`groundplan.sim.pipeline.build(task.scene_file, skillset=task.skillset, "
              "oam_file=task.oam_file, strict=False)`, as `Method.build` makes it); the decision does not depend on "
              "the goal passed, only the nearest alternative named does. `<set>-oracle`: the set's unseen-class "
              "instructions with their hand-written map.", "",
              "| set | n | refused | rate | build errors |", "|---|---|---|---|---|"]
        for s, v in held.items():
            rate = f"{100 * len(v['refused']) / v['n']:.1f} %" if v["n"] else "-"
            L.append(f"| {s} | {v['n']} | {len(v['refused'])} | {rate} | {len(v['errors'])} |")
        L.append(f"| all | {h['n']} | {h['false_refusals']} | {100 * (h['false_refusal_rate'] or 0):.1f} % "
                 f"| {sum(len(v['errors']) for v in held.values())} |")
        wrong = [(s, x) for s, v in held.items() for x in v["refused"]]
        L += ["", f"### Every false refusal ({len(wrong)})", ""]
        if wrong:
            L += ["| set | task | instruction | reason | gold goal |", "|---|---|---|---|---|"]
            L += [f"| {s} | {x['task']} | {_cell(x['instruction'])} | {_cell(x['reason'])} | `{_cell(x['gold'])}` |"
                  for s, x in wrong]
        else:
            L.append("None.")
        errs = [(s, x) for s, v in held.items() for x in v["errors"]]
        if errs:
            L += ["", "Build errors (not counted):", ""] + [f"- {s} {x['task']}: {x['error']}" for s, x in errs]
    return "\n".join(L) + "\n"


def _src_dirty() -> list[str]:
    """Paths under src/groundplan with uncommitted edits (others work in the same tree)."""
    out = G._git("status", "--porcelain", "--", "src/groundplan")
    return [line[3:] for line in out.splitlines() if line.strip()]


def use_commit(at: str, argv: list[str]) -> None:
    """Run this script on the code of commit ``at`` (goalsearch_golden.py's clean ``git archive``
    export of src/, first on PYTHONPATH): other people's uncommitted edits in the shared working
    tree play no part. In the restarted process the export is checked to be what groundplan is
    imported from. Raises ValueError for an unknown commit or a wrong import."""
    sha, dest = G.export_commit(at)
    if os.environ.get(G.AT_ENV) != sha:
        path = os.pathsep.join(p for p in (str(dest / "src"), os.environ.get("PYTHONPATH", "")) if p)
        env = {**os.environ, "PYTHONPATH": path, G.AT_ENV: sha}
        sys.stdout.flush()
        os.execve(sys.executable, [sys.executable, str(Path(__file__).resolve()), *argv], env)
    import groundplan

    if not Path(groundplan.__file__).resolve().is_relative_to(dest.resolve()):
        raise ValueError(f"groundplan is imported from {Path(groundplan.__file__).parent}, not from {dest}")
    G._SOURCE.update(commit=sha, dir=dest)


def run(args: argparse.Namespace, argv: list[str]) -> int:
    t0 = time.perf_counter()
    if args.at:
        try:
            use_commit(args.at, argv)
        except (ValueError, subprocess.CalledProcessError, OSError) as exc:
            print(f"error: --at {args.at}: {' '.join(str(exc).split())}", file=sys.stderr)
            return 2
    if not args.file.is_file():
        print(f"error: --file: no such file {args.file}", file=sys.stderr)
        return 2
    for flag in ("limit", "set_limit"):
        v = getattr(args, flag)
        if v is not None and v < 1:
            print(f"error: --{flag.replace('_', '-')}: {v} is not a positive number", file=sys.stderr)
            return 2
    if args.sets.strip().lower() == "none":
        sets: list[str] = []
    else:
        try:
            sets = G.parse_sets(args.sets or None)
        except ValueError as exc:
            print(f"error: --sets: {exc}", file=sys.stderr)
            return 2
    rows = run_absent_set(args.file, args.limit, args.best_effort)
    held = heldout_decisions(sets, args.set_limit)
    summ = summarise(rows, held)
    ident = G.code_identity()
    meta = {"commit": ident["commit"], "source": ident["source"], "src_dirty": [] if args.at else _src_dirty(),
            "file": G._rel(args.file), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "seconds": time.perf_counter() - t0,
            "whole_set": args.limit is None and args.file.resolve() == G.ABSTAIN_FILE.resolve(),
            "command": "nice -n 10 .venv/bin/python benchmarks/goalsearch_abstain.py " + " ".join(argv)}
    text = render(summ, rows, held, meta)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "abstain.md").write_text(text)
    (args.out / "summary.json").write_text(json.dumps({**{k: meta[k] for k in ("commit", "src_dirty", "file", "date",
                                                                               "command")},
                                                       "seconds": round(meta["seconds"], 1), **summ}, indent=1) + "\n")
    (args.out / "requests.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(text)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="the absent-object set (full episodes) and false refusals on the evaluation sets")
    r.add_argument("--file", type=Path, default=G.ABSTAIN_FILE, help="the absent-object set")
    r.add_argument("--limit", type=int, help="the first N requests of the absent-object set only")
    r.add_argument("--best-effort", action="store_true", help="also run the absent-object set with abstain: false")
    r.add_argument("--sets", default="", help="evaluation sets for false refusals, comma-separated (default: every "
                   "set goalsearch_golden.py knows; 'none': none)")
    r.add_argument("--set-limit", type=int, help="at most N instructions per evaluation set")
    r.add_argument("--at", metavar="COMMIT", help="run the code of COMMIT from a clean export of src/ (default: "
                   "the working tree)")
    r.add_argument("--out", type=Path, default=OUT, help=f"folder for the results (default {G._rel(OUT)})")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = ap.parse_args(argv)
    return run(args, argv)


if __name__ == "__main__":
    sys.exit(main())
