"""groundplan's Python API: the user's path from a scene, a robot and an instruction to a
checked, executed plan, without a dataset (docs/python-api.md).

    from groundplan import load_scene, build_task, plan, run, make_llm, verdict

    task = build_task("examples/scenes/kitchen.yaml")            # household skills, default map
    print(plan(task, "and (inhand coke0 human0)").plan)
    ep = run("goalsearch", "bring me a coke", "examples/scenes/kitchen.yaml")
    print(verdict(ep), ep.plan)
    ep = run("goalsearch", "bring me a coke", load_scene("examples/scenes/kitchen.yaml"))  # a Scene in memory

Everything here is a thin layer over the packages below (world, knowledge, skills, sim, llm,
methods): the same defaults as the command line (``groundplan plan`` / ``groundplan run``),
in particular the default object-affordance map, extended by any map given.
"""

from __future__ import annotations

import contextlib
import hashlib
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional, Sequence, Union

from groundplan.core.task import Task
from groundplan.core.verdict import Verdict, verdict, with_checks
from groundplan.errors import ConfigError
from groundplan.knowledge.oam import OAM, default_oam, load_oam
from groundplan.skills.skillset import SkillSet, load_skillset
from groundplan.world import Scene, load_scene

if TYPE_CHECKING:  # pragma: no cover
    from groundplan.core.episode import Episode
    from groundplan.llm.base import LLM
    from groundplan.planners.base import Planner
    from groundplan.sim.pipeline import PlanOutcome
    from groundplan.skills.builder import PlanningTask

PathLike = Union[str, Path]

#: the method ``groundplan run`` uses when none is named (it serves the embedded model best)
DEFAULT_METHOD = "goalsearch"


def _oam(oam: Union[None, PathLike, OAM, Sequence[PathLike]], replace: bool) -> OAM:
    from groundplan.sim.pipeline import resolve_oam

    if isinstance(oam, OAM):
        return oam if replace else default_oam().merged(oam)
    if oam is None:
        return default_oam()
    import os

    paths = [str(oam)] if isinstance(oam, (str, Path)) else [str(p) for p in oam]
    return resolve_oam(os.pathsep.join(paths), replace=replace)


def build_task(scene: Union[PathLike, Scene], skills: Union[str, PathLike, SkillSet] = "household",
               oam: Union[None, PathLike, OAM, Sequence[PathLike]] = None, *, oam_replace: bool = False,
               infer: Any = "default", strict: bool = True) -> "PlanningTask":
    """Scene + skill set + object-affordance map -> a planning task (PDDL domain and problem).

    ``scene``: a file (groundplan YAML or AutoGPT+P ``.txt``) or a ``Scene``. ``skills``: a
    skill set name (``household``), a YAML file or a ``SkillSet``. ``oam``: None for the
    default map (as the CLI), or map file(s) / an ``OAM`` extending it (``oam_replace``:
    instead of it). Classes no map knows get inferred affordances (``infer``; see
    ``PlanningTask.inferred``)."""
    from groundplan.skills.builder import build_task as _build

    sc = scene if isinstance(scene, Scene) else load_scene(scene, strict=strict)
    sk = skills if isinstance(skills, SkillSet) else load_skillset(str(skills))
    # a skill set without affordance types (lfo, dining, ...) reads no map
    the_map = _oam(oam, oam_replace) if sk.affordance_types or oam is not None else None
    return _build(sk, sc, the_map, strict=strict, infer=infer)


def make_planner(name: str = "fast-downward", *, timeout: Optional[float] = None) -> "Planner":
    """A planner by name (Fast Downward by default) held to the configured bounds."""
    import dataclasses

    from groundplan.planners import PlannerLimits, get_planner

    if name == "fast-downward":
        limits = PlannerLimits.configured()
        return get_planner(name, limits=limits if timeout is None else dataclasses.replace(limits, timeout=timeout))
    return get_planner(name)


def plan(task: Union["PlanningTask", PathLike, Scene], goal: str, *, check: Optional[str] = None,
         planner: Optional["Planner"] = None, timeout: Optional[float] = None) -> "PlanOutcome":
    """Plan ``goal`` (a PDDL formula, ``(and (inhand apple0 human0))`` or AutoGPT+P's
    ``and (inhand apple0 human0)``) in ``task`` (a planning task, or a scene file or ``Scene``
    built with the defaults), execute the plan in the simulator and evaluate ``check`` on its
    final state. Returns a ``PlanOutcome`` (status, plan, cost, goal_reached, check, error)."""
    from groundplan.sim.pipeline import plan_and_check

    pt = task if not isinstance(task, (str, Path, Scene)) else build_task(task)
    return plan_and_check(pt, goal, planner or make_planner(timeout=timeout), check_text=check, timeout=timeout)


def make_llm(backend: str = "embedded", *, model: Optional[str] = None, base_url: Optional[str] = None,
             cache: bool = True, script: Sequence[str] = (), replay: Sequence[PathLike] = (),
             record: Optional[PathLike] = None, **config: Any) -> "LLM":
    """An LLM: ``embedded`` (the bundled SmolLM2, offline), ``openai`` (any OpenAI-compatible
    ``base_url``: OpenAI, vLLM, Ollama, llama.cpp's server; the server's only model when
    ``model`` is None), ``replay`` (recorded transcripts), ``scripted`` (answers in order, for
    tests). Further ``LLMConfig`` fields (``n_threads``, ``api_key_env``, ...) as keywords.
    Use it as a context manager, or call ``close()``."""
    from groundplan.llm import LLMConfig, build_llm

    cfg = LLMConfig(backend=backend, model=model, base_url=base_url, cache=cache, script=tuple(script),
                    replay=tuple(Path(p) for p in replay), record=Path(record) if record else None, **config)
    return build_llm(cfg)


#: where in-memory scenes are written for the methods, which read their scene from a file
#: (removed when the interpreter exits)
_SCENE_DIR: Optional[tempfile.TemporaryDirectory] = None


def scene_file(scene: Union[PathLike, Scene]) -> str:
    """A file holding ``scene``: the path itself, or, for an in-memory ``Scene`` (a perception
    pipeline's), a groundplan YAML file written once per distinct scene to a temporary
    directory of this process."""
    global _SCENE_DIR
    if not isinstance(scene, Scene):
        return str(scene)
    from groundplan.world import write_yaml_scene

    text = write_yaml_scene(scene)
    if _SCENE_DIR is None:
        _SCENE_DIR = tempfile.TemporaryDirectory(prefix="groundplan-scenes-")
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in (scene.name or "scene"))[:60]
    path = Path(_SCENE_DIR.name) / f"{safe}-{hashlib.sha256(text.encode()).hexdigest()[:12]}.yaml"
    if not path.exists():
        path.write_text(text, encoding="utf-8")
    return str(path)


def user_task(instruction: str, scene: Union[PathLike, Scene], *, skills: str = "household",
              oam: Optional[PathLike] = None, check: Optional[str] = None, task_id: str = "run") -> Task:
    """The ``Task`` a method runs on for the user's own instruction and scene (a file or an
    in-memory ``Scene``): no dataset; ``check`` is the goal the final state must satisfy for
    the verdict "success" (without it, the best verdict is "goal holds (unverified)"). Every
    location the scene does not mark unexplored counts as explored (AutoGPT+P runs its tool
    loop with Explore). An instruction with no words is bad input (``ConfigError``)."""
    if not str(instruction or "").strip(" \t\n.,;:!?\"'"):
        raise ConfigError("the instruction is empty: say what the robot should do, e.g. 'bring me the apple'")
    path = scene_file(scene)
    sc = scene if isinstance(scene, Scene) else load_scene(path, strict=False)
    explored = sorted(sc.explored) if sc.explored is not None else ["all"]
    source = f"<scene {sc.name}>" if isinstance(scene, Scene) else path
    return Task(id=task_id, dataset="", instruction=instruction, scene_file=path, goal=check or None,
                skillset=str(skills), oam_file=str(oam) if oam else None, extras={"explored": explored},
                source=source)


def refusal(method: str, task: Task) -> Optional[str]:
    """Why ``method`` cannot run on ``task`` (None when it can): asked before anything runs."""
    from groundplan.methods import method_class

    return method_class(method).supports(task)


def run(method: str, instruction: str, scene: Union[PathLike, Scene], *, skills: str = "household",
        oam: Optional[PathLike] = None, check: Optional[str] = None, llm: Optional["LLM"] = None,
        planner: Optional["Planner"] = None, seed: int = 0, config: Optional[Mapping[str, Any]] = None,
        on_event: Optional[Callable[[dict], None]] = None, task: Optional[Task] = None,
        oam_replace: bool = False, infer: Any = "default", allow_unsafe: bool = False) -> "Episode":
    """Run ``method``'s whole algorithm on ``instruction`` in ``scene`` (a file, or a
    ``Scene`` built in memory, e.g. by a perception pipeline) and return the ``Episode``
    (status, goal, plan, metrics, usage, trace; ``verdict(episode)``), settled: its
    ``status``, ``success`` and ``error`` agree with the verdict (docs/formats.md "Episode
    record"). ``llm``: the method's LLM (``make_llm``); None gives the embedded model to a
    method that needs one. ``oam_replace`` / ``infer``: as in ``build_task``, for every
    task the method builds. ``on_event(event)`` is called for each trace event as it
    happens. ``allow_unsafe``: skip the safety check of goals and steps (docs/safety.md; for
    experiments). Raises ``MethodRefused`` when the method cannot run on this task (its reason)."""
    from groundplan.core.episode import RunContext, failed_episode, run_method, settle_episode, trace_listener
    from groundplan.errors import GroundplanError
    from groundplan.methods import method_class
    from groundplan.methods.base import MethodRefused
    from groundplan.sim.pipeline import build_defaults

    t = task or user_task(instruction, scene, skills=skills, oam=oam, check=check)
    cls = method_class(method)
    why = cls.supports(t)
    if why is not None:
        raise MethodRefused(why)
    cls.configure(config)  # an unknown setting or a bad value: ConfigError before anything runs
    own_llm = llm is None and cls.needs_llm
    if own_llm:
        llm = make_llm("embedded")
    ctx = RunContext(llm=llm, planner=planner or make_planner(), seed=seed, config=dict(config or {}),
                     planner_timeout=None, allow_unsafe=allow_unsafe)
    t0 = time.perf_counter()
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(build_defaults(infer=infer, oam_replace=oam_replace))
            if on_event is not None:
                stack.enter_context(trace_listener(on_event))
            try:
                ep = run_method(cls(), t, ctx)
            except GroundplanError as exc:  # an error a method let through (e.g. the endpoint's)
                ep = failed_episode(t, method, "error", str(exc), seed=seed, wall_time=time.perf_counter() - t0)
            ep = with_checks(ep, t)
    finally:
        if own_llm and llm is not None:
            llm.close()
    return settle_episode(ep)


#: what ``from groundplan import *`` and the docs name
__all__ = ["load_scene", "load_skillset", "load_oam", "default_oam", "build_task", "make_planner", "plan",
           "make_llm", "user_task", "scene_file", "refusal", "run", "verdict", "Verdict", "DEFAULT_METHOD"]
