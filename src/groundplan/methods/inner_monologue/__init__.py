"""``inner_monologue``: Inner Monologue (Huang et al. 2022) on VirtualHome.

Closed loop, no planner: the LLM reads a dialogue - the human's task, what the robot sees
(passive scene description: the objects in the character's room, told again whenever the
room changes), and after every action the success detector's verdict ("Success: yes" or
"Action failed: <the executor's reason>") - and writes the next action, one VirtualHome
command (``<char0> [walk] <kitchen>``), or ``done``. The action is executed at once by the
same VirtualHome environment BrainBody-LLM acts in (``brainbody.envs.VHEnv``: ids resolved
by class, the executor's error messages), and scored the same way (ProgPrompt's goal
conditions from the final graph).

Variants: ``inner_monologue`` (the LLM writes each action; with ``constrained`` on, the
default, under a grammar of one command over the scene's classes, or ``done``, so a small
model's answer is always a well-formed action), ``inner_monologue_oracle`` (a scripted
policy answers the task's gold commands in order, then ``done``: the loop completes when the
"LLM" is right).

Config keys: ``examples`` (worked dialogues from ProgPrompt's training tasks, default 2),
``max_steps`` (default: the configured ``episode_max_steps``, at most), ``scene_limit``
(objects named in a scene line, default 40), ``constrained``, ``temperature``.

COWP's Inner Monologue-style baseline (``cowp_im``) is the same idea on COWP's dining world
with COWP's action sentences; this module is the VirtualHome one.
"""

from __future__ import annotations

from dataclasses import dataclass
from string import Template
from typing import Any, Callable, ClassVar, Optional, Sequence

from groundplan.core.metrics import step_metrics
from groundplan.core.task import Task
from groundplan.errors import GroundplanError
from groundplan.methods.base import (
    Attempt,
    EpisodeRecorder,
    Method,
    RunContext,
    TraceRecorder,
    register_method,
)
from groundplan.methods.brainbody import DEFAULT_PLANNING_EXAMPLES, environment_refusal, vh_command_text
from groundplan.methods.brainbody.envs import STRUCTURE, VHEnv
from groundplan.prompts.inner_monologue import feedback_texts, render, template_text

#: the VirtualHome actions the prompt offers (the ones ProgPrompt's and BrainBody-LLM's
#: tasks use; the skill set has more)
ACTIONS = ("walk", "find", "grab", "open", "close", "put", "putin", "putback", "switchon", "switchoff", "sit", "standup",
           "drink", "lookat", "touch", "wipe", "turnto")
DONE = "done"


@dataclass(frozen=True)
class InnerMonologueConfig:
    #: worked dialogues from ProgPrompt's training tasks
    examples: int = 2
    #: actions attempted at most (never above the configured ``episode_max_steps``)
    max_steps: int = 30
    #: objects named in one scene line
    scene_limit: int = 40
    #: the answer under a grammar of one command or ``done``
    constrained: bool = True
    temperature: float = 0.0

    def __post_init__(self) -> None:
        if self.examples < 0 or self.max_steps < 1 or self.scene_limit < 1 or self.temperature < 0:
            raise ValueError("examples >= 0, max_steps and scene_limit >= 1, temperature >= 0")

Policy = Callable[[str, int], str]  # (prompt, step index) -> answer


def fb(key: str, **slots: Any) -> str:
    return Template(feedback_texts()[key]).substitute(**slots)


def seen_objects(env: VHEnv, limit: int) -> tuple[str, list[str]]:
    """(the character's room, the classes of things in it, held things first): what the
    robot sees, for a passive scene description."""
    g = env.graph()
    rooms = {n.id: n.class_name for n in g.nodes if n.category == "Rooms"}
    char = env.char.id
    room_id = next((t for f, r, t in g.edges if f == char and r == "INSIDE" and t in rooms), None)
    held = [t for f, r, t in g.edges if f == char and r in ("HOLDS_RH", "HOLDS_LH")]
    inside = {f for f, r, t in g.edges if r == "INSIDE" and t == room_id}
    cls = {n.id: n.class_name for n in g.nodes}
    names = [cls[i] for i in held if i in cls]
    names += sorted({cls[i] for i in inside if i in cls and cls[i] not in STRUCTURE and i not in rooms
                     and i != char})
    return rooms.get(room_id, "house"), list(dict.fromkeys(names))[:limit]


def example_dialogues(n: int) -> str:
    """Worked dialogues from ProgPrompt's training tasks: each gold command, its success,
    and ``done``; the scene line names the objects the commands use."""
    from groundplan.core.datasets.progprompt import train_tasks

    by_name = {t.name: t for t in train_tasks()}
    out = []
    for name in [x for x in DEFAULT_PLANNING_EXAMPLES if x in by_name][:n]:
        cmds = [vh_command_text(c) for c in by_name[name].script]
        objs = list(dict.fromkeys(o.split(">")[0] for c in cmds for o in c.split("<")[2:]))
        lines = [fb("scene", objects=", ".join(objs))]
        for c in cmds:
            lines += [fb("robot", action=c), fb("success")]
        lines.append(fb("robot", action=DONE))
        out.append(render("example.txt", instruction=name, dialogue="\n".join(lines)))
    return "\n\n".join(out)


def action_grammar(objects: Sequence[str], actions: Sequence[str] = ACTIONS) -> str:
    def alt(xs: Sequence[str]) -> str:
        return " | ".join('"' + x.replace('"', "") + '"' for x in dict.fromkeys(xs))

    return Template(template_text("action.gbnf.txt")).substitute(actions=alt(actions), objects=alt(objects))


def read_action(text: str) -> str:
    """The first line of the answer, trimmed ("done" in any case is done)."""
    line = (text or "").strip().splitlines()[0].strip() if (text or "").strip() else ""
    return DONE if line.lower().rstrip(".").strip() == DONE else line


class InnerMonologueBase(Method):
    prompt_package: ClassVar[Optional[str]] = "groundplan.prompts.inner_monologue"
    skillsets: ClassVar[Optional[frozenset[str]]] = frozenset({"virtualhome"})
    requirement = "Inner Monologue acts in VirtualHome here (a VirtualHome graph and a goal to score)"
    config_class = InnerMonologueConfig

    @classmethod
    def supports(cls, task: Task) -> Optional[str]:
        return super().supports(task) or environment_refusal(cls.name, task)

    def policy(self, task: Task, ctx: RunContext, env: VHEnv, cfg: InnerMonologueConfig, meter: Any,
               rec: TraceRecorder) -> Policy:
        raise NotImplementedError

    def _run(self, task: Task, ctx: RunContext, cfg: InnerMonologueConfig, rec: EpisodeRecorder,
             pt: None) -> Attempt:
        commands: list[str] = []
        said_done, attempted, failed = False, 0, 0
        max_steps = min(cfg.max_steps, ctx.limits.episode_max_steps)
        env = VHEnv(task)
        policy = self.policy(task, ctx, env, cfg, rec.usage, rec)
        examples = example_dialogues(cfg.examples)
        room, objs = seen_objects(env, cfg.scene_limit)
        dialogue = [fb("scene", objects=", ".join(objs) or "nothing")]
        rec.event("feedback", scene=dialogue[0])
        for i in range(max_steps):
            prompt = render("prompt.txt", actions=", ".join(ACTIONS), examples=examples,
                            instruction=task.instruction, dialogue="".join(d + "\n" for d in dialogue))
            action = read_action(policy(prompt, i))
            if action == DONE:
                said_done = True
                dialogue.append(fb("robot", action=DONE))
                break
            attempted += 1
            out = env.execute(action)
            rec.event("step", index=i, action=out.command or action, ok=out.ok, reason=out.message or None)
            dialogue.append(fb("robot", action=action))
            if out.ok:  # success feedback
                commands.append(out.command)
                dialogue.append(fb("success"))
            else:
                failed += 1
                dialogue.append(fb("failure", reason=" ".join((out.message or "unknown reason").split())))
            new_room, objs = seen_objects(env, cfg.scene_limit)
            if new_room != room:  # passive scene description when the view changes
                room = new_room
                dialogue.append(fb("scene", objects=", ".join(objs) or "nothing"))
                rec.event("feedback", scene=dialogue[-1])
        score = env.score()
        ok = bool(score.success)
        rec.event("result", success=ok, gcr=score.gcr, said_done=said_done)
        executed = attempted - failed
        metrics = {**step_metrics(executed, attempted, ok, score.gcr),
                   "said_done": said_done, "checked": True, "tool_calls": 0,
                   "dialogue_lines": len(dialogue)}
        error = ("step bound reached without 'done'; " if not said_done else "") + \
            "; ".join(map(str, score.detail.get("unsatisfied", [])))[:400]
        return Attempt.executed(ok, tuple(commands), goal=task.goal, metrics=metrics, error=error)


@register_method("inner_monologue")
class InnerMonologue(InnerMonologueBase):
    description = "Inner Monologue: next VirtualHome action from the LLM with success and scene feedback (closed loop)"

    def policy(self, task: Task, ctx: RunContext, env: VHEnv, cfg: InnerMonologueConfig, meter: Any,
               rec: TraceRecorder) -> Policy:
        if ctx.llm is None:
            raise GroundplanError("no LLM in the run context (--llm)")
        llm = ctx.llm
        grammar = action_grammar(env.object_list()) if cfg.constrained else None

        def ask(prompt: str, i: int) -> str:
            if grammar is not None:
                c = llm.constrained(prompt, grammar=grammar, max_tokens=32, temperature=cfg.temperature,
                                    seed=ctx.seed, usage=meter)
            else:
                c = llm.chat(prompt, max_tokens=32, temperature=cfg.temperature, stop=["\n"],
                             seed=ctx.seed, usage=meter)
            rec.llm_call(f"next action {i + 1}", prompt if i == 0 else prompt[-300:], c)
            return c.text

        return ask


@register_method("inner_monologue_oracle")
class InnerMonologueOracle(InnerMonologueBase):
    needs_llm = False
    needs_extras = ("gold_script",)
    description = "Inner Monologue's loop with a scripted policy answering the gold commands (no LLM)"

    def policy(self, task: Task, ctx: RunContext, env: VHEnv, cfg: InnerMonologueConfig, meter: Any,
               rec: TraceRecorder) -> Policy:
        import ast

        raw = (task.extras or {}).get("gold_script")
        if not raw:
            raise GroundplanError(f"task {task.id} has no gold script for the scripted oracle")
        script = ast.literal_eval(raw) if isinstance(raw, str) else list(raw)

        def answer(prompt: str, i: int) -> str:
            return script[i] if i < len(script) else DONE

        return answer


__all__ = ["InnerMonologue", "InnerMonologueOracle", "InnerMonologueConfig", "ACTIONS", "seen_objects", "example_dialogues",
           "action_grammar", "read_action"]
