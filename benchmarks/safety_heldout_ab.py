"""What issue 50's inference changes (hazard vetoes, confidences, WordNet checks) cost goalsearch
on the evaluation sets: the same code with and without them, on the instructions whose scene has
a class whose affordance types changed.

Run each step under the code to measure (``PYTHONPATH`` = a clean export's ``src``); the
"without" export is the "with" one with ``knowledge/infer.py`` and ``skills/builder.py`` of the
commit before the change (a226527):

    git archive HEAD src | tar -x -C /tmp/with
    git archive HEAD src | tar -x -C /tmp/without
    git show a226527:src/groundplan/knowledge/infer.py > /tmp/without/src/groundplan/knowledge/infer.py
    git show a226527:src/groundplan/skills/builder.py > /tmp/without/src/groundplan/skills/builder.py
    python benchmarks/safety_heldout_ab.py scenes /tmp/scenes.json                    # every set's scenes
    PYTHONPATH=/tmp/with/src python benchmarks/safety_heldout_ab.py types /tmp/scenes.json /tmp/t_with.json
    PYTHONPATH=/tmp/without/src python benchmarks/safety_heldout_ab.py types /tmp/scenes.json /tmp/t_without.json
    python benchmarks/safety_heldout_ab.py affected /tmp/scenes.json /tmp/t_without.json /tmp/t_with.json /tmp/affected.json
    PYTHONPATH=/tmp/with/src python benchmarks/safety_heldout_ab.py run /tmp/affected.json SETS /tmp/with.jsonl
    PYTHONPATH=/tmp/without/src python benchmarks/safety_heldout_ab.py run /tmp/affected.json SETS /tmp/without.jsonl
    python benchmarks/safety_heldout_ab.py compare /tmp/without.jsonl /tmp/with.jsonl
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _golden():
    sys.path.insert(0, str(HERE))
    import goalsearch_golden as G  # a sibling script

    return G


def _key(t) -> str:
    return json.dumps([t.scene_file, t.skillset, t.oam_file])


def scenes(out: str) -> None:
    G = _golden()
    res: dict = {}
    for s in G.golden_sets():
        for t in G.tasks_for(s):
            res.setdefault(_key(t), []).append([s, t.id])
    Path(out).write_text(json.dumps(res))
    print(f"{len(res)} scene configurations", file=sys.stderr)


def types(scenes_file: str, out: str) -> None:
    """Each scene's object classes and the types (affordances) the built domain gives them."""
    from groundplan.sim.pipeline import build

    res: dict = {}
    for key in json.loads(Path(scenes_file).read_text()):
        sf, sk, oam = json.loads(key)
        try:
            pt = build(sf, skillset=sk, oam_file=oam, strict=False)
        except Exception as exc:  # recorded, compared as is
            res[key] = {"error": str(exc)[:200]}
            continue
        th = pt.domain.types
        res[key] = {o.cls: sorted(a for a in th.supertypes(o.cls) if a != o.cls) if o.cls in th else []
                    for o in pt.scene.objects}
    Path(out).write_text(json.dumps(res))


def affected(scenes_file: str, without: str, with_: str, out: str) -> None:
    sc, a, b = (json.loads(Path(p).read_text()) for p in (scenes_file, without, with_))
    changed = {k: {c: [sorted(set(a[k].get(c, [])) - set(b[k].get(c, []))),
                       sorted(set(b[k].get(c, [])) - set(a[k].get(c, [])))]
                   for c in set(a[k]) | set(b[k]) if set(a[k].get(c, [])) != set(b[k].get(c, []))}
               for k in sc if a[k] != b[k]}
    changed = {k: v for k, v in changed.items() if v}
    Path(out).write_text(json.dumps(changed, indent=1))
    per, total = collections.Counter(), collections.Counter()
    for k, tasks in sc.items():
        for s, _ in tasks:
            total[s] += 1
            per[s] += k in changed
    print(f"{len(changed)} of {len(sc)} scene configurations changed")
    for s in total:
        print(f"{s:22} {per[s]:4} / {total[s]:4} instructions in an affected scene")


def run(affected_file: str, sets: str, out: str) -> None:
    G = _golden()
    changed = json.loads(Path(affected_file).read_text())
    runner = G.Runner("goalsearch", {}, 1)
    with open(out, "w") as fh:
        for s in sets.split(","):
            for t in G.tasks_for(s):
                if _key(t) in changed:
                    fh.write(json.dumps(runner.run(s, t)) + "\n")
                    fh.flush()


def compare(without: str, with_: str) -> None:
    old = {(r["set"], r["task"]): r for r in map(json.loads, open(without))}
    new = {(r["set"], r["task"]): r for r in map(json.loads, open(with_))}
    per: dict = collections.defaultdict(lambda: [0, 0, 0, 0])
    lines = []
    for k, o in old.items():
        n = new.get(k)
        if n is None:
            continue
        p = per[k[0]]
        p[0] += 1
        p[1] += o["success"]
        p[2] += n["success"]
        p[3] += o["goal"] != n["goal"]
        if o["goal"] != n["goal"] or o["success"] != n["success"]:
            lines.append(f"- {k[0]} {k[1]} \"{o['instruction']}\": without `{o['goal']}` "
                         f"({'success' if o['success'] else 'failure'}); with `{n['goal']}` "
                         f"({'success' if n['success'] else 'failure'})")
    print("| set | instructions in affected scenes | success without | success with | first goal changed |")
    print("|---|---|---|---|---|")
    for s, (c, a, b, d) in per.items():
        print(f"| {s} | {c} | {a} | {b} | {d} |")
    print()
    print("\n".join(lines))


def main(argv: list[str]) -> int:
    cmds = {"scenes": (scenes, 1), "types": (types, 2), "affected": (affected, 4), "run": (run, 3),
            "compare": (compare, 2)}
    if not argv or argv[0] not in cmds or len(argv) - 1 != cmds[argv[0]][1]:
        print(f"usage: safety_heldout_ab.py {{{'|'.join(cmds)}}} ARGS (see the module docstring)", file=sys.stderr)
        return 2
    cmds[argv[0]][0](*argv[1:])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
