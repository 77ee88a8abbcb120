"""COWP's worked example (paper Sec. 3.3, Figs. 3-7): "serve water" when the cup is dirty.

One hand-made trial of task 4 (drinking water): the robot has a cup, a faucet and the table;
the objects spawned are a dish bowl, a frying pan, a drinking glass, a sponge and an oven tray; the
appliances a microwave and an oven. The situation "the cup is dirty." is forced at the first
``find_cup``. COWP answers from GPT-3's logged answers (``cowp_gpt3``; ``--llm embedded``
sends the prompts the log lacks to the embedded model, otherwise fixed defaults answer
them) or from the oracle (``--oracle``). Prints every exchange, the precondition the plan
monitor added, the effect the knowledge acquirer added and the new plan, as
docs/cowp.md shows them.

    .venv/bin/python benchmarks/cowp_worked_example.py            # GPT-3 replay
    .venv/bin/python benchmarks/cowp_worked_example.py --oracle   # acceptability table
    .venv/bin/python benchmarks/cowp_worked_example.py --appliances microwave,oven,dishwasher
"""

from __future__ import annotations

import argparse
import json

from groundplan.core.task import Task
from groundplan.methods import RunContext, get_method
from groundplan.methods.cowp.spec import task_spec
from groundplan.methods.cowp.world import TrialSetup
from groundplan.planners import get_planner

SPAWNED = ("dish bowl", "frying pan", "drinking glass", "sponge", "oven tray")
APPLIANCES = ("microwave", "oven")


def example_task(situation: tuple[int, str] = (2, "find_cup"), appliances: tuple[str, ...] = APPLIANCES) -> Task:
    spec = task_spec(4)
    setup = TrialSetup(4, 0, 4000, False, SPAWNED, appliances)
    return Task(id="worked-example", dataset="cowp", instruction=spec.instruction, scene_file=str(spec.scene_file),
                goal=spec.goal_text, skillset="dining", subset=spec.key,
                extras={**setup.to_dict(), "force_situation": situation})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--oracle", action="store_true", help="answers from the acceptability table")
    ap.add_argument("--llm", default=None, help="fallback LLM backend for prompts the log lacks (e.g. embedded)")
    ap.add_argument("--appliances", default=",".join(APPLIANCES),
                    help="comma-separated appliances spawned (e.g. microwave,oven,dishwasher)")
    ap.add_argument("--json", action="store_true", help="print the episode as JSON")
    a = ap.parse_args()
    llm = None
    if a.llm:
        from groundplan.llm import LLMConfig, build_llm

        llm = build_llm(LLMConfig(backend=a.llm))
    ep = get_method("cowp_oracle" if a.oracle else "cowp_gpt3").run(
        example_task(appliances=tuple(w.strip() for w in a.appliances.split(",") if w.strip())), RunContext(llm=llm, planner=get_planner("fast-downward")))
    if a.json:
        print(json.dumps(ep.to_json(), indent=1))
        return
    for e in ep.trace:
        t = e["type"]
        if t == "plan":
            print(f"\n[plan: {e.get('why')}] {e['status']}")
            for i, s in enumerate(e.get("steps") or [], 1):
                print(f"  S{i}: {s}")
        elif t == "situation":
            print(f"\n[situation before '{e['step']}'] {e['text']}")
        elif t == "llm_call":
            q = [ln for ln in e["prompt"].splitlines() if "?" in ln or ln.startswith("sentence:")]
            u = e.get("usage", {})
            src = u.get("source")
            if u.get("backend") == "cowp-defaults":
                src = "not in GPT-3's log: fixed default"
            if e.get("finish_reason") == "replay-approximate":
                src += ", approximate: same question over another list"
            print(f"  {e['purpose']}: {q[-1] if q else e['prompt'][-80:]!r} -> {e['text']!r} ({src})")
        elif t == "monitor":
            print(f"  monitor: {e['action']}: {'suitable' if e['suitable'] else 'NOT suitable'}")
        elif t == "knowledge":
            print(f"\n[knowledge: {e['change']}]")
            if e.get("pddl"):
                print("  " + e["pddl"].replace("\n", "\n  "))
            if e.get("belief"):
                print(f"  state += {e['belief']}")
            if e.get("facts"):
                print(f"  {e['object']} is now a {e['role']}; state += {' '.join(e['facts'])}")
        elif t == "acquire":
            print(f"  acquirer ({e['route']}): capable {e.get('capable')}, chosen {e.get('chosen')}")
        elif t == "step":
            print(f"  exec {e['action']}: {'ok' if e['ok'] else 'FAILED: ' + str(e.get('reason'))}")
        elif t == "result":
            print(f"\n[result] success={e['success']} situation={e['situation']!r} handled={e['handled']}")


if __name__ == "__main__":
    main()
