"""Which ProgPrompt VirtualHome tasks are solvable on groundplan's evolving-graph executor,
and why the others are not (issue 7: "SR 1.0 on the solvable tasks").

For each task the gold program is executed from the task's initial graph (for test_unseen
the derived environment-0 graph, see groundplan.core.datasets.progprompt) and scored with
ProgPrompt's metric. For a task the gold program does not solve, every unsatisfied
condition is classified (a relation of the character with an object, another relation, a
state), and a search tries to reach the missing conditions: after the gold program, one more
[walk] from the gold program's final graph to each object named by an unsatisfied condition
and to what it stands on or in (CLOSE edges of the character are set by its last
navigation), keeping the best GCR.

    .venv/bin/python benchmarks/brainbody_solvable.py
    .venv/bin/python benchmarks/brainbody_solvable.py --datasets progprompt-test_unseen
"""

from __future__ import annotations

import argparse
import sys

from groundplan.core.datasets.progprompt import progprompt_eval, split_graphs
from groundplan.sim.virtualhome import VHWorld
from groundplan.world.virtualhome import parse_script_line

SPLITS = {"progprompt-env1": "env1", "progprompt-env2": "env2", "progprompt-test_unseen": "test_unseen"}


def run_script(init, lines):
    sess = VHWorld(init).session()
    failed = None
    for i, raw in enumerate(lines):
        r = sess.execute(parse_script_line(raw))
        if not r.ok and failed is None:
            failed = (i, r.message)
    return sess.graph(), failed


def kind(cond: str) -> str:
    parts = cond.split()
    if len(parts) == 2:
        return "state"
    return "character-object relation" if "character" in (parts[0], parts[2]) else "object-object relation"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default=",".join(SPLITS))
    args = ap.parse_args()
    print("| dataset | task | conditions | gold program SR | GCR | unsatisfied by kind | best GCR after one more walk | verdict |")
    print("|---|---|---|---|---|---|---|---|")
    summary = []
    for ds in args.datasets.split(","):
        ann, inits, finals = split_graphs(SPLITS[ds])
        solvable = 0
        for t, init, gt in zip(ann, inits, finals):
            lines = list(t.script)
            final, failed = run_script(init, lines)
            s = progprompt_eval(init, gt, final)
            kinds: dict[str, int] = {}
            for c in s.unsatisfied:
                kinds[kind(c)] = kinds.get(kind(c), 0) + 1
            best = s.gcr
            if not s.sr:
                # candidates: the objects named by the unsatisfied conditions and what they
                # stand on or in (a walk to a surface makes the character close to it)
                names = {w for c in s.unsatisfied for w in c.split() if w.islower() and w != "character"}
                ids = {nd.id for nd in final.nodes if nd.class_name in names}
                ids |= {b for a, r, b in final.edges if a in ids and r in ("ON", "INSIDE")}
                for nd in final.nodes:
                    if nd.id not in ids or nd.category in ("Characters", "Rooms"):
                        continue
                    g2, f2 = run_script(final, [f"<char0> [walk] <{nd.class_name}> ({nd.id})"])
                    if f2 is None:
                        best = max(best, progprompt_eval(init, gt, g2).gcr)
            ok = s.sr or best >= 1.0
            solvable += ok
            verdict = "solved by the gold program" if s.sr else ("solvable (one more walk)" if ok else "unsolvable")
            if failed is not None:
                verdict += f"; gold step {failed[0]} fails: {failed[1]}"
            print(f"| {ds.split('-', 1)[1]} | {t.name} | {s.total} | {int(s.sr)} | {s.gcr:.2f} | "
                  f"{', '.join(f'{k}: {v}' for k, v in sorted(kinds.items())) or '-'} | {best:.2f} | {verdict} |")
        summary.append((ds, solvable, len(ann)))
    print()
    for ds, n, total in summary:
        print(f"- {ds}: {n}/{total} tasks solvable on the executor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
