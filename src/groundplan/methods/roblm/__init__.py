"""``roblm``: RobLM (Chalvatzaki et al.) - a fine-tuned small causal LM writes the whole
high-level ALFRED plan from the goal and a Graph2NL scene context in one shot; the plan is
parsed (tolerating malformed output), task- and geometrically grounded and executed.

Pieces: textformat (Goal <SEP> Context <BOS> Plan <EOS>; plan parser), lm (model loading,
fine-tuning, greedy / top-k top-p generation), grounding (navigation by A*, manipulation,
composite expansion, trying all instance matches), metrics (Fig. 5, Tables 2-3).
groundplan.world.graph2nl builds the contexts, groundplan.bench.datasets.alfred the data.

Settings (``RobLMConfig``, from ``RunContext.config``): ``model`` (checkpoint directory, ``smollm2`` or ``tiny``;
default ``smollm2``), ``context`` (none, scene_knowledge, scene_graph, full; default
scene_graph), ``sampling`` (greedy, top_k_top_p), ``max_new_tokens``. A task carries its
ALFRED-style sample in ``extras["alfred"]`` (see ``task_from_sample``)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from groundplan.core.datasets.alfred_sample import AlfredSample
from groundplan.core.datasets.alfred_text import parse_plan, sample_text
from groundplan.core.metrics import step_metrics
from groundplan.core.task import Task
from groundplan.errors import ConfigError
from groundplan.methods.base import Attempt, EpisodeRecorder, Method, RunContext, register_method
from groundplan.methods.roblm.grounding import AlfredWorld, execute, goal_satisfied
from groundplan.methods.roblm.lm import Sampling, generate, load_model
from groundplan.methods.roblm.metrics import accuracy, subtask_success
from groundplan.world.graph2nl import context


def task_from_sample(sample: Any) -> Task:
    """An ALFRED-style sample (groundplan.core.datasets.alfred_sample.AlfredSample) as a bench Task."""
    return Task(id=sample.id, dataset=f"alfred-{sample.split}", instruction=sample.goal_text,
                scene_file=f"alfworld:FloorPlan{sample.floorplan}#seed{sample.seed}", goal=sample.goal_pddl,
                skillset="alfred", subset=sample.category, extras={"alfred": sample.to_json()})


@dataclass(frozen=True)
class RobLMConfig:
    #: checkpoint directory, ``smollm2`` (the bundled base model) or ``tiny``
    model: str = "smollm2"
    #: the Graph2NL scene context in the prompt
    context: Literal["none", "scene_knowledge", "scene_graph", "full"] = "scene_graph"
    sampling: Literal["greedy", "top_k_top_p"] = "greedy"
    max_new_tokens: int = 72

    def __post_init__(self) -> None:
        if self.max_new_tokens < 1:
            raise ConfigError(f"setting 'max_new_tokens' must be at least 1, not {self.max_new_tokens}")


@register_method("roblm")
class RobLMMethod(Method):
    config_class = RobLMConfig
    skillsets = frozenset({"alfred"})
    needs_extras = ("alfred",)
    requirement = "RobLM's fine-tuned model plans ALFRED-style tasks (groundplan.bench.datasets.alfred)"
    needs_llm: ClassVar[bool] = False
    trace_types: ClassVar[tuple[str, ...]] = ("action",)
    description: ClassVar[str] = "RobLM: fine-tuned small LM plans from goal + Graph2NL context; grounded and executed"

    def __init__(self) -> None:
        self._models: dict[str, Any] = {}  # model source -> loaded model (a per-worker resource)

    def model(self, source: str) -> Any:
        if source not in self._models:
            self._models[source] = load_model(source)
        return self._models[source]

    def _run(self, task: Task, ctx: RunContext, cfg: RobLMConfig, rec: EpisodeRecorder, pt: None) -> Attempt:
        sample = AlfredSample.from_json(dict(task.extras["alfred"]), source=task.source)
        scene = sample.scene()
        kind = cfg.context
        prompt = sample_text(sample.goal_text, context(kind, scene, sample.target))
        lm = self.model(cfg.model)
        sampling = Sampling(cfg.sampling, max_new_tokens=cfg.max_new_tokens, seed=ctx.seed)
        t_gen = time.perf_counter()
        output = generate(lm, [prompt], sampling, batch_size=1)[0]
        gen_s = time.perf_counter() - t_gen
        rec.event("llm_call", purpose="plan", prompt=prompt, completion=output, seconds=gen_s)
        steps, problems = parse_plan(output)
        gold, _ = parse_plan(sample.plan)
        world = AlfredWorld(scene)
        run = execute(world, steps)
        for o in run.outcomes:
            rec.event("action", step=o.step.text(), ok=o.ok, grounded=o.grounded, reason=o.reason)
        success = goal_satisfied(sample.goal_pddl, run.facts, world.scene)
        acc = accuracy(steps, gold)
        metrics = {"action_accuracy": acc.actions, "argument_accuracy": acc.arguments, "full_plan_accuracy": acc.full,
                   "subtask": subtask_success(gold, run), "executed": run.executed, "planned": len(steps),
                   **step_metrics(run.executed, len(steps), success),
                   "parse_problems": problems, "context": kind, "generation_seconds": gen_s}
        return Attempt.executed(success, tuple(s.text() for s in steps), goal=task.goal, metrics=metrics)
