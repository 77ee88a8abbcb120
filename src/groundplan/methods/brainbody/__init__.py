"""``brainbody``: BrainBody-LLM (Bhat, Kaypak et al.) - a Brain-LLM writes numbered
natural-language steps, a Body-LLM maps each to one low-level command or ``<pass>``, and the
simulator's (or controller's) error on a failed command goes back to the Brain, which replans
from the error step, at most K times (Algorithm 1).

Registered variants (settings in ``RunContext.config`` override the variant's defaults; an unknown
setting or a bad value is a ConfigError, exit 2):

| method | Brain | Body | K |
|---|---|---|---|
| ``brainbody`` | LLM | LLM | 3 |
| ``brainbody_nofb`` | LLM | LLM | 0 (BB-LLM without feedback) |
| ``brainbody_embed`` | LLM | MiniLM embedding matching | 3 |
| ``brainbody_gbnf`` | LLM | LLM under a grammar (``<pass>`` or a well-formed command; groundplan's option for small models, not in the paper) | 3 |
| ``brainbody_oracle`` | gold plan | gold command per step | 3 (proves the loop) |

Settings (``BrainBodyConfig``): ``K``, ``brain`` (llm / oracle), ``body`` (llm / embedding / oracle),
``planning_examples`` (how many), ``execution_examples``, ``env_limit`` (triplets shown),
``temperature``, ``constrained`` (grammar-constrained Body).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Literal, Optional

from groundplan.core.datasets.progprompt import train_tasks
from groundplan.core.task import Task
from groundplan.errors import ConfigError, GroundplanError
from groundplan.methods.base import Attempt, EpisodeRecorder, Method, RunContext, register_method
from groundplan.methods.brainbody.agents import (
    PASS,
    EmbeddingBody,
    GoldPlan,
    LLMBody,
    LLMBrain,
    OracleBody,
    OracleBrain,
    body_grammar,
    verbalise_vh,
)
from groundplan.methods.brainbody.algorithm import brainbody_loop, loop_metrics
from groundplan.methods.brainbody.envs import make_env
from groundplan.prompts.brainbody import load_text

DEFAULT_PLANNING_EXAMPLES = ("refrigerate the salmon", "turn off the table lamp", "put the soap in the bathroomcabinet",
                             "bring my book to the sofa", "wash mug")


# ------------------------------------------------------------------------------- examples


def vh_command_text(command: str) -> str:
    """A gold script line as the paper's Body examples write it (no ids): ``<char0> [walk] <kitchen>``."""
    m = re.search(r"\[(\w+)\]", command)
    objs = re.findall(r"<([^<>]+)>\s*\(", command)
    return "<char0> [" + (m.group(1).lower() if m else "?") + "]" + "".join(f" <{o}>" for o in objs)


def vh_planning_examples(n: int = 3) -> str:
    by_name = {t.name: t for t in train_tasks()}
    out = []
    for name in [x for x in DEFAULT_PLANNING_EXAMPLES if x in by_name][:n]:
        t = by_name[name]
        steps = [s for s, _ in t.steps if s.strip().lower().rstrip(".") != "done"]
        out.append(f"High-level Instruction: {name}\nStep-by-step Plans:\n" +
                   "\n".join(f"{i}: {s}" for i, s in enumerate(steps)) + f"\n{len(steps)}: Done.")
    return "\n\n".join(out)


def vh_execution_examples(n: int = 8) -> str:
    """Step -> command pairs from the training set (steps with exactly one command), and
    ``<pass>`` for steps without one, with the paper's explanations."""
    singles, passes, seen = [], [], set()
    for t in train_tasks():
        for s, cmds in t.steps:
            s = s.strip()
            if s.lower().rstrip(".") == "done" or s.lower() in seen:
                continue
            if len(cmds) == 1:
                act = vh_command_text(cmds[0]).split("[")[1].split("]")[0]
                if act not in {x[2] for x in singles}:
                    singles.append((s, vh_command_text(cmds[0]), act))
                    seen.add(s.lower())
            elif not cmds and len(passes) < 2:
                passes.append(s)
                seen.add(s.lower())
    out = []
    for s, c, act in singles[: max(1, n - len(passes))]:
        objs = " and ".join(c.split("> <")[1:]).replace(">", "").replace("<", "") or "the object"
        out.append(f"Description: {s}\nAction Plan: {c}\nExplanation: Since there exists a {act} action that is "
                   f"executable by the simulator and {objs} in the simulator, this action plan will satisfy the given "
                   f"description.")
    for s in passes:
        out.append(f"Description: {s}\nAction Plan: <pass>\nExplanation: There is no action that is executable by "
                   f"the simulator for this step, so I should not generate an action plan but simply pass it.")
    return "\n\n".join(out)


def gold_plan(task: Task) -> GoldPlan:
    ex = task.extras
    if ex.get("gold_plan") is not None:  # tabletop: [{step, command}]
        return GoldPlan([g["step"] for g in ex["gold_plan"]], [g.get("command") for g in ex["gold_plan"]])
    if ex.get("gold_steps"):
        return GoldPlan.from_annotation(ex["gold_steps"], verbalise_vh)
    if ex.get("gold_script"):
        return GoldPlan.from_annotation([{"step": "000000", "script": ex["gold_script"]}], verbalise_vh)
    raise GroundplanError(f"task {task.id} has no gold plan for an oracle Brain/Body")


def environment_refusal(name: str, task: Task) -> Optional[str]:
    """Why none of BrainBody-LLM's environments (``make_env``) can host ``task``; None when one can."""
    ex = task.extras or {}
    if task.skillset == "tabletop":
        return None if "number" in ex else (f"method '{name}' needs a tabletop task (extras['number'], the "
                                            "brainbody-tabletop dataset)")
    if task.skillset == "virtualhome":
        if task.goal or ex.get("final_graph_file") or ex.get("vh_goal") is not None:
            return None
        return f"method '{name}' needs a goal to score its VirtualHome run (a gold goal, or --check GOAL)"
    if task.skillset == "household":
        return None if task.goal else (f"method '{name}' needs a check goal to score its run in a household "
                                       "scene (it writes no goal of its own): --check GOAL")
    return (f"method '{name}' runs on the virtualhome / tabletop / household skill sets (BrainBody-LLM's "
            f"environments: a VirtualHome graph, the Franka tabletop, a groundplan scene), not '{task.skillset}'")


# ------------------------------------------------------------------------------- method


@dataclass(frozen=True)
class BrainBodyConfig:
    """BrainBody-LLM's settings (``bench run ... --method brainbody`` options)."""

    #: replanning rounds after a simulator error (Algorithm 1's K; 0 = no feedback)
    K: int = 3
    brain: Literal["llm", "oracle"] = "llm"
    body: Literal["llm", "embedding", "oracle"] = "llm"
    #: the Body answers under a grammar (one well-formed command or <pass>); not in the paper
    constrained: bool = False
    planning_examples: int = 2
    execution_examples: int = 6
    #: environment triplets shown to the Brain
    env_limit: int = 25
    temperature: float = 0.0

    def __post_init__(self) -> None:
        for name in ("K", "planning_examples", "execution_examples", "env_limit"):
            if getattr(self, name) < 0:
                raise ConfigError(f"setting '{name}' must be at least 0, not {getattr(self, name)}")


class BrainBodyMethod(Method):
    config_class = BrainBodyConfig
    default_config: ClassVar[BrainBodyConfig] = BrainBodyConfig()
    prompt_package = "groundplan.prompts.brainbody"

    @classmethod
    def supports(cls, task: Task) -> Optional[str]:
        return environment_refusal(cls.name, task)

    def needs_llm_for(self, cfg: BrainBodyConfig) -> bool:
        return "llm" in (cfg.brain, cfg.body)

    def _run(self, task: Task, ctx: RunContext, cfg: BrainBodyConfig, rec: EpisodeRecorder, pt: None) -> Attempt:
        env = make_env(task)
        spec = env.prompt_spec() if hasattr(env, "prompt_spec") else None
        brain, body = self._roles(task, ctx, cfg, env, spec, rec.usage, rec)
        # Algorithm 1: the Brain plans, the Body maps each step to a command, the simulator's
        # errors go back to the Brain (at most K replans)
        res = brainbody_loop(task.instruction, brain, body, env, K=cfg.K, recorder=rec, limits=ctx.limits,
                             agent=getattr(env, "agent", "a virtual agent"), env_limit=cfg.env_limit)
        score = env.score()
        rec.event("result", success=score.success, gcr=score.gcr, **{k: v for k, v in score.detail.items()})
        return Attempt.executed(bool(score.success), tuple(res.commands), goal=task.goal,
                                metrics=loop_metrics(res, score, {"K": cfg.K, "brain": cfg.brain, "body": cfg.body}),
                                error="; ".join(map(str, score.detail.get("unsatisfied", [])))[:500])

    def _roles(self, task, ctx, cfg, env, spec, meter, rec):
        gold = None
        oracle_brain = oracle_body = None
        if "oracle" in (cfg.brain, cfg.body):
            if hasattr(env, "oracle_roles"):
                oracle_brain, oracle_body = env.oracle_roles()
            else:
                gold = gold_plan(task)
                oracle_brain, oracle_body = OracleBrain(gold), OracleBody(gold)
        temp = cfg.temperature
        if cfg.brain == "oracle":
            brain = oracle_brain
        else:
            plan_ex = spec["planning_examples"] if spec else vh_planning_examples(cfg.planning_examples)
            fb_ex = spec["feedback_examples"] if spec else _vh_feedback_examples()
            brain = LLMBrain(ctx.llm, plan_ex, fb_ex, meter, rec, temperature=temp, seed=ctx.seed,
                             max_steps=ctx.limits.plan_max_steps)
        agent = getattr(env, "agent", "a virtual agent")
        if cfg.body == "oracle":
            body = oracle_body
        elif cfg.body == "embedding":
            render = spec["render"] if spec else (lambda a, objs: "<char0> [" + a + "]" + "".join(f" <{o}>" for o in objs))
            body = EmbeddingBody(list(env.actions), env.object_list(), render)
        else:
            ex = spec["execution_examples"] if spec else vh_execution_examples(cfg.execution_examples)
            syntax = spec["syntax"] if spec else "<char0> [action] <object> <object>"
            grammar = None
            if cfg.constrained:
                prefix = spec["syntax"].split(" ")[0] if spec else "<char0>"
                objs = env.object_list() + [o.lower() for o in env.object_list()]
                grammar = body_grammar(list(env.actions), objs, prefix)
            body = LLMBody(ctx.llm, ex, env.object_list(), list(env.actions), syntax, agent, meter, rec,
                           seed=ctx.seed, temperature=temp, grammar=grammar)
        return brain, body


def _vh_feedback_examples() -> str:
    return load_text("vh_feedback_examples.txt")


@register_method("brainbody")
class BrainBody(BrainBodyMethod):
    description = "BrainBody-LLM: Brain-LLM plans, Body-LLM maps steps to commands, simulator errors fed back (K=3)"


@register_method("brainbody_nofb")
class BrainBodyNoFeedback(BrainBodyMethod):
    description = "BrainBody-LLM without feedback (K=0)"
    default_config = BrainBodyConfig(K=0)


@register_method("brainbody_embed")
class BrainBodyEmbedding(BrainBodyMethod):
    description = "BrainBody-LLM with embedding matching (MiniLM) as the Body"
    default_config = BrainBodyConfig(body="embedding")


@register_method("brainbody_gbnf")
class BrainBodyConstrained(BrainBodyMethod):
    description = "BrainBody-LLM whose Body answers under a grammar (<pass> or one well-formed command); not in the paper"
    default_config = BrainBodyConfig(constrained=True)


@register_method("brainbody_oracle")
class BrainBodyOracle(BrainBodyMethod):
    description = "BrainBody loop with the gold plan as Brain and the gold command per step as Body (no LLM)"
    needs_llm = False
    default_config = BrainBodyConfig(brain="oracle", body="oracle")

    @classmethod
    def supports(cls, task: Task) -> Optional[str]:
        why = environment_refusal(cls.name, task)
        ex = task.extras or {}
        if why is None and task.skillset != "tabletop" and not (ex.get("gold_plan") is not None
                                                                 or ex.get("gold_steps") or ex.get("gold_script")):
            why = f"method '{cls.name}' needs the task's gold plan (extras gold_steps / gold_script)"
        return why


__all__ = ["BrainBodyConfig", "BrainBodyMethod", "BrainBody", "BrainBodyNoFeedback", "BrainBodyEmbedding", "BrainBodyOracle",
           "vh_planning_examples", "vh_execution_examples", "gold_plan", "PASS"]
