"""Every shipped dataset, registered by name in the registry of ``groundplan.core.datasets``
(name -> version, loader); loaders read the data directory. Import this package (or call its
``get_dataset`` / ``load_tasks``) to have them all registered."""

from __future__ import annotations

from groundplan.bench.datasets import autogpt_p, saycan
from groundplan.core.datasets import (
                     DATASETS,
                     DatasetSpec,
                     eai,
                     get_dataset,
                     load_tasks,
                     progprompt,
                     register,
                     tabletop,
)

register(DatasetSpec("autogptp-saycan", "autogpt-p-standalone@14fa604",
                     "AutoGPT+P's SayCan set: 104 instructions in 8 families with PDDL goals", autogpt_p.saycan_tasks))
register(DatasetSpec("autogptp-plan-tool", "autogpt-p-standalone@14fa604",
                     "AutoGPT+P plan-tool sets: simple_task, simple_goal, complex_goal, knowledge, implicit (5x30)",
                     autogpt_p.plan_tool_tasks))
register(DatasetSpec("autogptp-scenarios", "autogpt-p-standalone@14fa604",
                     "AutoGPT+P's 150 tool-selection scenarios (plan, partial, exploration, alternative, complex)",
                     autogpt_p.scenario_tasks))
register(DatasetSpec("autogptp-substitution", "autogpt-p-standalone@14fa604",
                     "AutoGPT+P alternative-suggestion sets (simple, medium, complex; 3x30)", autogpt_p.substitution_tasks,
                     has_goals=False))
register(DatasetSpec("saycan-101", "say-can.github.io@v0",
                     "SayCan's 101 evaluation instructions in 7 families (no PDDL goals; extras: family, start states, "
                     "SayCan plan)", saycan.saycan101_tasks, has_goals=False, has_scenes=False))
register(DatasetSpec("saycan-101-judged", "say-can.github.io@v0+autogpt-p-standalone@14fa604",
                     "SayCan's 101 instructions in SayCan's wording, judged by AutoGPT+P's gold goal and scene for the "
                     "same instruction (joined by family and position)", saycan.saycan101_judged_tasks))

from groundplan.bench.datasets import cowp as _cowp  # noqa: E402

register(DatasetSpec("cowp", _cowp.VERSION, "COWP's six dining tasks x 150 seeded trials with execution-time "
                     "situations (Ding et al., Table 4)", _cowp.cowp_tasks))


register(DatasetSpec("progprompt-env1", "progprompt-vh@56e6551",
                     "ProgPrompt's 10 VirtualHome environment-1 tasks (initial and final graphs; goal conditions "
                     "as ProgPrompt computes them)", progprompt.env1_tasks))
register(DatasetSpec("progprompt-env2", "progprompt-vh@56e6551",
                     "ProgPrompt's 10 VirtualHome environment-2 tasks (initial and final graphs)", progprompt.env2_tasks))
register(DatasetSpec("progprompt-test_unseen", "progprompt-vh@56e6551",
                     "ProgPrompt's test_unseen: the 10 environment-0 tasks BrainBody-LLM reports (initial graph "
                     "derived from the final graphs)", progprompt.test_unseen_tasks))
register(DatasetSpec("franka-tabletop", "groundplan@1",
                     "BrainBody-LLM Table 4: the 7 Franka tabletop tasks (scenes written for groundplan; a checker each)",
                     tabletop.franka_tasks,
                     has_goals=False))
register(DatasetSpec("eai-virtualhome", "eai-eval@1.0.5",
                     "EAI's 342 VirtualHome programs (scene 1): initial/final graphs, gold scripts, symbolic goals",
                     eai.eai_tasks))

from groundplan.bench.datasets import wake as _wake  # noqa: E402

register(DatasetSpec("wake-vh", _wake.VERSION, "Wake et al.'s 14 VirtualHome scenarios (Table I; goals from the "
                     "reference programs, run on groundplan's kitchen graph)", _wake.vh_tasks))
register(DatasetSpec("wake-vh-highlevel", _wake.VERSION, "Wake et al.'s 14 scenarios with higher-level instructions "
                     "(Table V/VI)", _wake.vh_highlevel_tasks))
register(DatasetSpec("wake-vh-variation", _wake.VERSION, "Wake et al.'s scenario 5 and its 10 paraphrases "
                     "(Sec. V-C)", _wake.vh_variation_tasks))
register(DatasetSpec("wake-lfo", "groundplan-lfo@1", "Wake et al.'s learning-from-observation role-plays (Sec. III-A): "
                     "multi-step instructions on the lfo shelf, fridge, drawer and window scenes", _wake.lfo_tasks))

__all__ = ["DATASETS", "DatasetSpec", "get_dataset", "load_tasks", "register"]

from groundplan.bench.datasets import llmp as _llmp  # noqa: E402

register(DatasetSpec("llmp", _llmp.VERSION, "LLM+P's 7 IPC domains x 20 problems: natural-language description, gold "
                     "PDDL problem, one in-context example per domain (Liu et al. 2023)", _llmp.llmp_tasks,
                     has_scenes=False))
