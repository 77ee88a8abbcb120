"""Can a local model judge whether a scene holds what a request asks for? (issue 48, abstain)

goalsearch's abstain check reads the request with rules and WordNet; five blind sets have left it
at 50-58 % of refusals. What it misses needs knowledge of class identity (is a fridge a freezer?)
and purpose (what unblocks a sink?). This experiment asks a local model the question whole, for
every request of the absent-object sets, and scores its answer as log P(" Yes") - log P(" No"):

    A robot helper is in this room: <scene description>
    The things in the room: <every object's class>.
    A person says: "<instruction>"
    Question: Is there something in the room that does what the person asks for or needs?
    Answer:

It reports, per set, the AUC of the margin separating the requests to refuse (lower) from the
controls, and the refusals and false refusals of the model alone and of "the rules refuse, or the
model's margin is below t", with t chosen on the calibration sets and applied unchanged to the test
set. Nothing here changes goalsearch: it is the evidence for or against building such a stage.

    .venv/bin/python benchmarks/abstain_llm_judge.py --model qwen2.5-coder-1.5b \\
        --calibrate c d e --test f --rules '/tmp/ab_{set}/requests.jsonl' \\
        --out benchmarks/results/goalsearch_abstain/llm_judge
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import goalsearch_golden as G  # sibling script (benchmarks/ is sys.path[0])

ROOT = Path(__file__).resolve().parents[1]
SETS = ROOT / "benchmarks" / "data" / "abstain"
PROMPT = ("A robot helper is in this room: {description}\nThe things in the room: {things}.\n"
          "A person says: \"{instruction}\"\n"
          "Question: Is there something in the room that does what the person asks for or needs? "
          "Answer Yes or No.\nAnswer:")


def _scene(scene_file: str) -> tuple[str, str]:
    data = G.H.yaml.safe_load(Path(scene_file).read_text())
    names = [o["name"] if isinstance(o, dict) else str(o) for o in data.get("objects", [])]
    things = ", ".join(dict.fromkeys(G._class_of(n).replace("_", " ") for n in names))
    return str(data.get("description") or data.get("name") or "a room"), things


def judge(set_letter: str, llm, progress: bool) -> list[dict]:
    from groundplan.llm.goal_search import score_continuations

    rows = []
    items = G.abstain_items(SETS / f"abstain_2026-11-29{set_letter}.yaml")
    for k, (t, e) in enumerate(items):
        desc, things = _scene(t.scene_file)
        prompt = PROMPT.format(description=desc, things=things, instruction=t.instruction.strip())
        res = score_continuations(llm, prompt, [" Yes", " No"])
        rows.append({"set": set_letter, "id": t.id, "expect": e["expect"], "family": e.get("family"),
                     "margin": round(res.logprobs[0] - res.logprobs[1], 4)})
        if progress and sys.stderr.isatty():
            print(f"\r{set_letter}: {k + 1}/{len(items)}", end="", file=sys.stderr, flush=True)
    if progress and sys.stderr.isatty():
        print(file=sys.stderr)
    return rows


def auc(rows: list[dict]) -> float:
    """P(a control's margin > a refusal's margin), ties half."""
    pos = [r["margin"] for r in rows if r["expect"] == "act"]
    neg = [r["margin"] for r in rows if r["expect"] == "refuse"]
    if not pos or not neg:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def rules_refused(pattern: str, set_letter: str) -> dict[str, bool]:
    """Whether goalsearch's rules refused each request: the ``requests.jsonl`` of a
    ``goalsearch_abstain.py run`` on the set (``pattern`` with ``{set}`` for the set's letter)."""
    out = {}
    for line in Path(pattern.format(set=set_letter)).read_text().splitlines():
        r = json.loads(line)
        out[r["task"]] = bool(r["default"].get("refused"))
    return out


def counts(rows: list[dict], refused) -> dict:
    ref = [r for r in rows if r["expect"] == "refuse"]
    ctl = [r for r in rows if r["expect"] == "act"]
    return {"refused": sum(refused(r) for r in ref), "to_refuse": len(ref),
            "false": sum(refused(r) for r in ctl), "controls": len(ctl)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="qwen2.5-coder-1.5b")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--calibrate", nargs="+", default=["c", "d", "e"])
    ap.add_argument("--test", nargs="+", default=["f"])
    ap.add_argument("--rules", required=True,
                    help="the rules' decisions: requests.jsonl of goalsearch_abstain.py run per set, {set} for its letter")
    ap.add_argument("--max-false", type=float, default=0.03, help="false-refusal rate allowed on calibration")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    from groundplan.llm import LLMConfig, build_llm
    from groundplan.llm.models import resolve_model

    t0 = time.time()
    llm = build_llm(LLMConfig(cache=False, n_threads=args.threads, model=str(resolve_model(args.model).path)))
    args.out.mkdir(parents=True, exist_ok=True)
    rows_file = args.out / "margins.jsonl"
    done = {}
    if rows_file.exists():
        for line in rows_file.read_text().splitlines():
            r = json.loads(line)
            done.setdefault(r["set"], []).append(r)
    for s in [*args.calibrate, *args.test]:
        if s not in done:
            done[s] = judge(s, llm, True)
            with rows_file.open("a") as f:
                for r in done[s]:
                    f.write(json.dumps(r) + "\n")
    rules = {s: rules_refused(args.rules, s) for s in [*args.calibrate, *args.test]}
    cal = [r for s in args.calibrate for r in done[s]]
    # the largest threshold whose added false refusals on the calibration sets stay within --max-false
    cands = sorted({r["margin"] for r in cal}) + [float("-inf")]
    best_t = float("-inf")
    for t in sorted(cands):
        c = counts(cal, lambda r, t=t: rules[r["set"]].get(r["id"], False) or r["margin"] < t)
        if c["false"] <= args.max_false * c["controls"]:
            best_t = t
    alone_t = float("-inf")  # the model alone, at most --max-false of the calibration controls refused
    for t in sorted(cands):
        if counts(cal, lambda r, t=t: r["margin"] < t)["false"] <= args.max_false * sum(r["expect"] == "act" for r in cal):
            alone_t = t
    lines = [f"# A local model as the abstain judge ({args.model})", "",
             f"Command: `.venv/bin/python benchmarks/abstain_llm_judge.py --model {args.model} --calibrate "
             f"{' '.join(args.calibrate)} --test {' '.join(args.test)} --rules '{args.rules}' --out {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}`; "
             f"{time.time() - t0:.0f} s. Prompt: `{PROMPT!r}`.", "",
             "| set | role | AUC (controls above refusals) | rules: refused / false | model alone (t = "
             f"{alone_t:.3f}): refused / false | rules or model (t = {best_t:.3f}): refused / false |",
             "|---|---|---|---|---|---|"]
    summary = {"model": args.model, "threshold": best_t, "threshold_alone": alone_t, "sets": {}}
    for s in [*args.calibrate, *args.test]:
        rs = done[s]
        a = auc(rs)
        by_rules = counts(rs, lambda r, s=s: rules[s].get(r["id"], False))
        both = counts(rs, lambda r, s=s: rules[s].get(r["id"], False) or r["margin"] < best_t)
        alone = counts(rs, lambda r: r["margin"] < alone_t)
        role = "calibration" if s in args.calibrate else "test"
        lines.append(f"| {s} | {role} | {a:.3f} | {by_rules['refused']}/{by_rules['to_refuse']} / "
                     f"{by_rules['false']}/{by_rules['controls']} | {alone['refused']}/{alone['to_refuse']} / "
                     f"{alone['false']}/{alone['controls']} | {both['refused']}/{both['to_refuse']} / "
                     f"{both['false']}/{both['controls']} |")
        summary["sets"][s] = {"role": role, "auc": round(a, 4), "rules": by_rules, "model_alone": alone,
                              "rules_or_model": both}
    (args.out / "judge.md").write_text("\n".join(lines) + "\n")
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
