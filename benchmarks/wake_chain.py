"""Wake et al., Sec. III-A1 / Fig. 8: several instructions on one scene, each planned in the
environment the previous answer left (environment chaining), checked against the executor.

The relocation role-play (the paper's four instructions - juice to the top shelf, spam to
the trash, juice to the table, juice to the trash - with "juice back to the bottom shelf"
as a fifth before the last), on examples/scenes/lfo_shelf.yaml. For every instruction:

- chained: the environment in the prompt is the previous answer's environment_after;
- before = prev after: the answer's environment_before equals the previous environment_after;
- prompt = executor: the environment in the prompt equals the executor's state;
- after = executor: the answer's environment_after equals the executor's state after its plan.

    .venv/bin/python benchmarks/wake_chain.py [--env-source llm|executor] [--free-before] [--task shelf5]
    .venv/bin/python benchmarks/wake_chain.py --recorded --task shelf   # the original's GPT-3.5 answers

With ``--recorded`` the answers are not generated: the original repository's recorded
ChatGPT answers for the task (``examples/task_decomposition/out/<task>/N.json`` in the data
directory, written with the original's argument-free prompts) are served in order, read with
the original prompt set and judged by the same checks.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default="shelf5", help="a wake-lfo task id (shelf5, shelf, fridge, drawer, window)")
    ap.add_argument("--env-source", default="llm", choices=("llm", "executor"))
    ap.add_argument("--free-before", action="store_true",
                    help="let the model write environment_before itself (default: constrained to the input)")
    ap.add_argument("--feedback", default="none", choices=("none", "auto"))
    ap.add_argument("--units", action="store_true",
                    help="decode the task sequence as grasp-manipulation-release units (LfO)")
    ap.add_argument("--llm", default="embedded")
    ap.add_argument("--model")
    ap.add_argument("--base-url")
    ap.add_argument("--n-ctx", type=int, default=8192)
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("--recorded", action="store_true",
                    help="serve the original's recorded GPT-3.5 answers for the task instead of asking a model")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--md", type=Path)
    args = ap.parse_args(argv)

    from groundplan.bench.datasets.wake import lfo_tasks
    from groundplan.llm import LLMConfig, build_llm
    from groundplan.methods.wake_prompts import WakeConfig, WakePlanner, make_world
    from groundplan.methods.wake_prompts.actions import action_set
    from groundplan.methods.wake_prompts.prompts import load_prompts
    from groundplan.pddl.goal import parse_goal
    from groundplan.world.wake_env import environment_diff, environments_equal

    task = next(t for t in lfo_tasks() if t.id == args.task)
    actions = action_set(task.skillset)
    mapping = {"env_source": args.env_source, "pin_environment_before": not args.free_before,
               "feedback": args.feedback, "context_tokens": args.n_ctx, "units": args.units}
    if args.recorded:
        from groundplan.llm import ScriptedLLM
        from groundplan.methods.wake_prompts.prompts import original_root

        folder = original_root() / "task_decomposition" / "out" / task.id
        files = sorted(folder.glob("*.json"), key=lambda p: int(p.stem))
        if len(files) != len(task.extras["instructions"]):
            ap.error(f"{folder}: {len(files)} recorded answers for {len(task.extras['instructions'])} instructions")
        llm = ScriptedLLM([p.read_text(encoding="utf-8") for p in files], model="gpt-3.5 (recorded answers)")
        prompts = load_prompts(actions.name, "original")
        mapping["constrained"] = False  # the recorded text is taken as it is
    else:
        llm = build_llm(LLMConfig(backend=args.llm, model=args.model, base_url=args.base_url, n_ctx=args.n_ctx,
                                  cache=not args.no_cache))
        prompts = load_prompts(actions.name)
    cfg = WakeConfig.from_mapping(mapping)
    world, aff = make_world(task)
    planner = WakePlanner(llm, world, actions, prompts, cfg, affordances=aff)
    rows = []
    prev_after = None
    for i, (ins, goal) in enumerate(zip(task.extras["instructions"], task.extras["step_goals"])):
        env_prompt = planner.session.environment
        facts_before = planner.facts
        t0 = time.perf_counter()
        res = planner.run_instruction(ins, parse_goal(goal))
        prompts_env_ok = environments_equal(env_prompt, world.environment(facts_before))
        j, a = res.judgement, res.answer
        before = a.view.environment_before
        after = a.view.environment_after
        row = {
            "step": i + 1, "instruction": ins, "plan": list(j.items), "executable": j.executable,
            "goal_reached": j.correct, "rounds": res.rounds, "question": a.question,
            "chained": prev_after is None or environments_equal(env_prompt, prev_after),
            "before_eq_prev_after": None if prev_after is None or before is None else environments_equal(before,
                                                                                                        prev_after),
            "before_eq_prompt": None if before is None else environments_equal(before, env_prompt),
            "prompt_eq_executor": prompts_env_ok,
            "after_eq_executor": j.env_match,
            "after_vs_executor": environment_diff(j.env_after, after) if after is not None else ["no environment_after"],
            "seconds": round(time.perf_counter() - t0, 1),
        }
        rows.append(row)
        prev_after = planner.session.environment if args.env_source == "llm" else after
        sys.stderr.write(json.dumps({k: row[k] for k in ("step", "executable", "goal_reached", "before_eq_prev_after",
                                                         "prompt_eq_executor", "after_eq_executor", "seconds")}) + "\n")
    llm.close()
    before_mode = ("as recorded" if args.recorded else "free" if args.free_before else "constrained to the input")
    lines = [f"### Chained instructions on `{task.id}` ({llm.backend_name} {llm.model}, prompts {prompts.name}, "
             f"env_source {args.env_source}, environment_before {before_mode}"
             f"{', task sequence in grasp-manipulation-release units' if args.units else ''})", "",
             "| # | instruction | plan | executable | goal | chained | before = prev. after | prompt = executor | "
             "after = executor |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        plan = "<br>".join(r["plan"]) or "-"
        lines.append(f"| {r['step']} | {r['instruction']} | {plan} | {r['executable']} | {r['goal_reached']} | "
                     f"{r['chained']} | {r['before_eq_prev_after']} | {r['prompt_eq_executor']} | "
                     f"{r['after_eq_executor']} |")
    lines.append("")
    if args.recorded:
        lines += ["The recorded answers are argument-free (`move_hand()`, as the original prompts ask); the plan "
                  "column shows them grounded by the judge from `object_name` and the environment change.", ""]
    for r in rows:
        if r["after_vs_executor"]:
            lines.append(f"- step {r['step']}: environment_after vs executor: {'; '.join(r['after_vs_executor'])}")
    text = "\n".join(lines)
    sys.stdout.write(text + "\n")
    if args.md:
        args.md.write_text(text + "\n")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
