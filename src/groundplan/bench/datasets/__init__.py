"""Dataset registry: name -> (version, loader). Loaders read the data directory."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from groundplan.bench.datasets import autogptp, eai, progprompt, saycan
from groundplan.core.task import Task
from groundplan.errors import ConfigError


@dataclass(frozen=True)
class DatasetSpec:
    name: str
    version: str
    description: str
    loader: Callable[[], list[Task]]
    #: every row carries a gold goal (a row without one is malformed)
    has_goals: bool = True
    #: every row names a scene file (a row whose scene file is missing is malformed)
    has_scenes: bool = True


DATASETS: dict[str, DatasetSpec] = {}


def register(spec: DatasetSpec) -> None:
    DATASETS[spec.name] = spec


register(DatasetSpec("autogptp-saycan", "autogpt-p-standalone@14fa604",
                     "AutoGPT+P's SayCan set: 104 instructions in 8 families with PDDL goals", autogptp.saycan_tasks))
register(DatasetSpec("autogptp-plan-tool", "autogpt-p-standalone@14fa604",
                     "AutoGPT+P plan-tool sets: simple_task, simple_goal, complex_goal, knowledge, implicit (5x30)",
                     autogptp.plan_tool_tasks))
register(DatasetSpec("autogptp-scenarios", "autogpt-p-standalone@14fa604",
                     "AutoGPT+P's 150 tool-selection scenarios (plan, partial, exploration, alternative, complex)",
                     autogptp.scenario_tasks))
register(DatasetSpec("autogptp-substitution", "autogpt-p-standalone@14fa604",
                     "AutoGPT+P alternative-suggestion sets (simple, medium, complex; 3x30)", autogptp.substitution_tasks,
                     has_goals=False))
register(DatasetSpec("saycan-101", "say-can.github.io@v0",
                     "SayCan's 101 evaluation instructions in 7 families (no PDDL goals; extras: family, start states, "
                     "SayCan plan)", saycan.saycan101_tasks, has_goals=False, has_scenes=False))

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
                     lambda: __import__("groundplan.methods.brainbody.tabletop", fromlist=["_"]).franka_tasks(),
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


def get_dataset(name: str) -> DatasetSpec:
    """A registered dataset, or several joined with ``+`` (``autogptp-saycan+autogptp-plan-tool``):
    their tasks in order, one run; rows keep their own dataset name for reports."""
    parts = [p.strip() for p in name.split("+")]
    for p in parts:
        if p not in DATASETS:
            raise ConfigError(f"unknown dataset '{p}' (available: {', '.join(sorted(DATASETS))})")
    if len(parts) == 1:
        return DATASETS[parts[0]]
    specs = [DATASETS[p] for p in parts]

    def load() -> list[Task]:
        return [t for s in specs for t in s.loader()]

    return DatasetSpec("+".join(parts), "+".join(f"{s.name}@{s.version}" for s in specs),
                       "joined: " + "; ".join(s.description for s in specs), load,
                       has_goals=all(s.has_goals for s in specs), has_scenes=all(s.has_scenes for s in specs))


def load_tasks(name: str) -> list[Task]:
    return get_dataset(name).loader()
