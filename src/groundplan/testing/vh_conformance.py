"""Conformance of groundplan's executor (the ``virtualhome`` skill set) with VirtualHome's
evolving-graph executor (PyPI eai-eval, installed with --no-deps): ``compare(program)`` runs
one EAI gold program on both from its initial graph, step by step, and says where they agree
(executability, first failing step, goal verdict, final graph, failure message). Used by
tests/test_virtualhome_conformance.py and benchmarks/vh_conformance.py (all 342 programs)."""

from __future__ import annotations

import logging
import time
from typing import Any

from groundplan.core.datasets.eai import EAIProgram, check_vh_goal, eai_root
from groundplan.sim.virtualhome import VHWorld
from groundplan.world.virtualhome import VHGraph, parse_script_line

RELATIONS = ("ON", "INSIDE", "CLOSE", "FACING", "HOLDS_RH", "HOLDS_LH", "BETWEEN", "SITTING")
#: node states the evolving graph has (the skill set adds ProgPrompt's HEATED / WASHED / USED)
STATES = ("CLOSED", "OPEN", "ON", "OFF", "SITTING", "DIRTY", "CLEAN", "LYING", "PLUGGED_IN", "PLUGGED_OUT")


def _graph_sets(g: VHGraph) -> tuple[frozenset, frozenset]:
    return (frozenset(e for e in g.edges if e[1] in RELATIONS),
            frozenset((n.id, s) for n in g.nodes for s in n.states if s in STATES))


def _diff(a: VHGraph, b: VHGraph) -> dict[str, list]:
    ea, sa = _graph_sets(a)
    eb, sb = _graph_sets(b)
    return {"edges_only_reference": sorted(ea - eb)[:8], "edges_only_groundplan": sorted(eb - ea)[:8],
            "states_only_reference": sorted(sa - sb)[:8], "states_only_groundplan": sorted(sb - sa)[:8],
            "n": len(ea ^ eb) + len(sa ^ sb)}


def _msg(m: str) -> str:
    return m.split(" when executing")[0].strip()


NAVIGATION = ("[WALK]", "[FIND]", "[RUN]", "[TURNTO]")


def perturbed(p: EAIProgram) -> EAIProgram:
    """The program without the navigation lines (WALK / FIND / RUN / TURNTO) right before its
    first line that acts on an object, so that line acts on something the character is not
    close to: exercises the executors' failure semantics and messages."""
    from dataclasses import replace

    lines = list(p.lines)
    first = next((i for i, ln in enumerate(lines) if i > 0 and not ln.startswith(NAVIGATION)), None)
    if first is None:
        return p
    k = first
    while k > 0 and lines[k - 1].startswith(NAVIGATION):
        k -= 1
    if k == 0:  # keep the first line (the character must be somewhere)
        k = 1
    return replace(p, lines=tuple(lines[:k] + lines[first:]))


def reference_run(p: EAIProgram) -> dict[str, Any]:
    """VirtualHome's evolving graph, as EAI drives it (MotionPlanner, one line at a time)."""
    logging.disable(logging.CRITICAL)
    from virtualhome_eval.simulation.evolving_graph import utils
    from virtualhome_eval.simulation.evolving_graph.eval_utils import construct_planner

    data_dir = str(eai_root() / "dataset" / "programs_processed_precond_nograb_morepreconds")
    mp, _, _, _, _ = construct_planner(utils.load_name_equivalence(), utils.load_properties_data(),
                                       utils.load_object_placing(), 1, p.file_id, data_dir)
    from virtualhome_eval.simulation.evolving_graph.eval_utils import reformat_actions

    actions, _ = reformat_actions(list(p.lines))
    steps, graphs, executed = [], [], []
    for a in actions:
        try:
            ok, info = mp.my_execute_primitive_action_eval(a)
            msg = info.get_error_string()
        except Exception as exc:  # noqa: BLE001 - the original raises on some inputs
            ok, msg = False, f"exception {type(exc).__name__}: {exc}"
        steps.append((ok, msg))
        if not ok:
            break
        executed.append(a)
        graphs.append(VHGraph.from_dict(mp.env_state.to_dict()))
    final = VHGraph.from_dict(mp.env_state.to_dict())
    return {"steps": steps, "graphs": graphs, "final": final, "executed": executed}


def groundplan_run(p: EAIProgram, init: VHGraph) -> dict[str, Any]:
    world = VHWorld(init)
    sess = world.session()
    steps, graphs, executed = [], [], []
    for raw in p.lines:
        line = parse_script_line(raw)
        r = sess.execute(line)
        steps.append((r.ok, r.message))
        if not r.ok:
            break
        executed.append(line.text(char=False))
        graphs.append(sess.graph())
    return {"steps": steps, "graphs": graphs, "final": sess.graph(), "executed": executed}


def compare(p: EAIProgram) -> dict[str, Any]:
    t0 = time.perf_counter()
    init, _ = p.graphs()
    ref = reference_run(p)
    t1 = time.perf_counter()
    gp = groundplan_run(p, init)
    t2 = time.perf_counter()
    fail = lambda run: next((i for i, (ok, _) in enumerate(run["steps"]) if not ok), None)  # noqa: E731
    rf, gf = fail(ref), fail(gp)
    rg = check_vh_goal(ref["final"], p.vh_goal, ref["executed"])
    gg = check_vh_goal(gp["final"], p.vh_goal, gp["executed"])
    first_div = None
    for i, (a, b) in enumerate(zip(ref["graphs"], gp["graphs"])):
        if _graph_sets(a) != _graph_sets(b):
            first_div = i
            break
    out = {
        "id": p.file_id, "task": p.task_name, "steps": len(p.lines),
        "ref_exec": rf is None, "gp_exec": gf is None, "ref_fail": rf, "gp_fail": gf,
        "ref_msg": ref["steps"][rf][1] if rf is not None else "", "gp_msg": gp["steps"][gf][1] if gf is not None else "",
        "ref_goal": rg.success, "gp_goal": gg.success, "ref_unsat": list(rg.unsatisfied), "gp_unsat": list(gg.unsatisfied),
        "first_state_divergence": first_div,
        "divergent_line": p.lines[first_div] if first_div is not None else None,
        "final_diff": _diff(ref["final"], gp["final"]),
        "seconds_reference": round(t1 - t0, 3), "seconds_groundplan": round(t2 - t1, 3),
    }
    out["exec_agree"] = out["ref_exec"] == out["gp_exec"]
    out["step_agree"] = rf == gf
    out["goal_agree"] = rg.success == gg.success
    out["message_agree"] = rf is None or gf is None or _msg(out["ref_msg"]) == _msg(out["gp_msg"])
    out["final_identical"] = out["final_diff"]["n"] == 0
    return out


def cause(r: dict[str, Any]) -> str:
    if not r["exec_agree"]:
        who = "reference" if not r["ref_exec"] else "groundplan"
        msg = _msg(r["ref_msg"] if who == "reference" else r["gp_msg"])
        return f"only {who} fails ({msg})"
    if not r["step_agree"]:
        return "both fail, at different steps"
    if not r["goal_agree"]:
        return "goal verdicts differ (" + ", ".join(r["ref_unsat"] if not r["ref_goal"] else r["gp_unsat"])[:80] + ")"
    if not r["final_identical"]:
        return f"final graphs differ only in facts the goal does not name (first after {r['divergent_line']})"
    return "agree"


__all__ = ["compare", "cause", "perturbed", "reference_run", "groundplan_run", "RELATIONS", "STATES"]
