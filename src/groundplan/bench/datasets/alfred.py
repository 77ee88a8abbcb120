"""An ALFRED-style dataset generated on alfworld's AI2-THOR floor plans (ALFRED's own data
cannot be downloaded here), and a loader for real ALFRED trajectory json.

Per floor plan and seed a scene is generated (groundplan.world.alfred); for each of ALFRED's
seven task categories a goal is drawn over the scene's objects, written as a PDDL goal and in
natural language from varied templates (alfred_templates.yaml), and planned by Fast Downward
on the ``alfred`` skill set; the gold plan is that plan over class names, in RobLM's text
format. Splits: ``train`` and ``valid_seen`` on ALFRED's training floor plans (different
seeds: new object placements), ``valid_unseen`` on the held-out floor plans."""

from __future__ import annotations

import json
import random
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Iterator

from groundplan.core.datasets.alfred_sample import AlfredSample
from groundplan.core.datasets.alfred_text import CAPABILITY_TO_ACTION, PlanStep, plan_text
from groundplan.errors import DatasetError
from groundplan.pddl.goal import parse_goal
from groundplan.planners.base import get_planner
from groundplan.schemas import yaml_lines as yaml_fast
from groundplan.skills.builder import build_task
from groundplan.skills.skillset import load_skillset
from groundplan.world.alfred import AGENT, floorplan_numbers, generate_scene, knowledge, words
from groundplan.world.scene import Scene

CATEGORIES = ("look_at_obj_in_light", "pick_and_place_simple", "pick_two_obj_and_place",
              "pick_and_place_with_movable_recep", "pick_clean_then_place_in_recep",
              "pick_cool_then_place_in_recep", "pick_heat_then_place_in_recep")
SHORT = {"look_at_obj_in_light": "look", "pick_and_place_simple": "pick_place", "pick_two_obj_and_place": "pick_two",
         "pick_and_place_with_movable_recep": "movable", "pick_clean_then_place_in_recep": "clean",
         "pick_cool_then_place_in_recep": "cool", "pick_heat_then_place_in_recep": "heat"}
SPLIT_SEEDS = {"train": range(0, 1000), "valid_seen": range(1000, 2000), "valid_unseen": range(2000, 3000)}


@lru_cache(maxsize=1)
def templates() -> dict[str, Any]:
    ref = resources.files("groundplan.bench.datasets").joinpath("alfred_templates.yaml")
    return yaml_fast.safe_load(ref.read_text())


def class_plan(fd_plan: Iterable[str], scene: Scene) -> list[PlanStep]:
    """An instance-level skill-set plan -> ALFRED high-level steps over class names."""
    cls = {o.name: o.cls for o in scene.objects}
    out = []
    for step in fd_plan:
        toks = step.replace("(", " ").replace(")", " ").split()
        name, args = toks[0].lower(), [a for a in toks[1:] if a != AGENT]
        action = CAPABILITY_TO_ACTION.get(name)
        if action is None:
            raise DatasetError(f"plan step '{step}' is not one of ALFRED's high-level actions")
        if name == "gotolocation":
            out.append(PlanStep(action, (cls[args[1]],)))
        elif name == "putobject":
            out.append(PlanStep(action, (cls[args[0]], cls[args[1]])))
        else:  # pickup / heat / cool / clean / slice / toggle: the object
            out.append(PlanStep(action, (cls[args[0]],)))
    return out


def _where(scene: Scene) -> dict[str, str]:
    return {f.args[0]: f.args[1] for f in scene.facts if f.predicate == "inreceptacle"}


def _draw_goal(category: str, scene: Scene, rng: random.Random) -> tuple[str, str, str] | None:
    """(pddl goal, goal sentence, target instance) or None when the scene cannot host the category."""
    kn = knowledge()
    where = _where(scene)
    by_cls: dict[str, list[str]] = {}
    for o in scene.objects:
        by_cls.setdefault(o.cls, []).append(o.name)
    recs = [o for o in scene.objects if o.cls in kn.receptacles and o.name in {loc.name for loc in scene.locations}]
    movable = [o.name for o in scene.objects if o.name in where and o.cls in kn.pickupable]
    cls = {o.name: o.cls for o in scene.objects}
    tmpl = templates()

    def dests(obj: str, exclude: Iterable[str] = ()) -> list[str]:
        ex = set(exclude) | {where.get(obj)}
        return [r.name for r in recs if obj in _contains(scene, r.name) and r.name not in ex]

    def sliced(obj: str) -> tuple[str, str]:
        if obj in kn.sliceable_names(scene) and by_cls.get("knife") and rng.random() < 0.3:
            return f" (issliced {obj})", rng.choice(tmpl["slice_words"]) + " "
        return "", ""

    def say(sentence: str, **slots: str) -> str:
        return sentence.format(**{k: words(v) for k, v in slots.items()})

    choices = tmpl[category]
    if category == "look_at_obj_in_light":
        lamps = [o.name for o in scene.objects if o.cls in ("desklamp", "floorlamp") and o.name in where]
        objs = [o for o in movable if cls[o] not in kn.movable_receptacles]
        if not lamps or not objs:
            return None
        lamp, obj = rng.choice(lamps), rng.choice(objs)
        return (f"(and (holds {AGENT} {obj}) (ison {lamp}))",
                say(rng.choice(choices), obj=cls[obj], lamp=cls[lamp]), obj)
    if category == "pick_two_obj_and_place":
        pairs = [c for c, names in by_cls.items() if len([n for n in names if n in movable]) >= 2]
        rng.shuffle(pairs)
        for c in pairs:
            a, b = [n for n in by_cls[c] if n in movable][:2]
            ds = [d for d in dests(a, [where[b]]) if d in dests(b, [where[a]])]
            if ds:
                d = rng.choice(ds)
                return (f"(and (inreceptacle {a} {d}) (inreceptacle {b} {d}))",
                        say(rng.choice(choices), obj=c, dest=cls[d]), a)
        return None
    if category == "pick_and_place_with_movable_recep":
        mrs = [m for m in movable if cls[m] in kn.movable_receptacles]
        rng.shuffle(mrs)
        for m in mrs:
            inner = [o for o in movable if o != m and o in _contains(scene, m) and cls[o] not in kn.movable_receptacles]
            ds = dests(m)
            if inner and ds:
                o, d = rng.choice(inner), rng.choice(ds)
                return (f"(and (inreceptacle {o} {m}) (inreceptacle {m} {d}))",
                        say(rng.choice(choices), obj=cls[o], recep=cls[m], dest=cls[d]), o)
        return None
    need = {"pick_clean_then_place_in_recep": ("cleanable", "isclean", "sinkbasin"),
            "pick_cool_then_place_in_recep": ("coolable", "iscool", "fridge"),
            "pick_heat_then_place_in_recep": ("heatable", "ishot", "microwave")}.get(category)
    cands = movable
    if need:
        if not by_cls.get(need[2]):
            return None
        cands = [o for o in movable if any(f.predicate == need[0] and f.args == (o,) for f in scene.facts)]
    rng.shuffle(cands)
    for obj in cands:
        ds = dests(obj)
        if need:
            ds = [d for d in ds if cls[d] != need[2]]
        if not ds:
            continue
        d = rng.choice(ds)
        extra, prefix = sliced(obj)
        state = f" ({need[1]} {obj})" if need else ""
        sentence = say(rng.choice(choices), obj=cls[obj], dest=cls[d])
        if prefix:
            sentence = sentence.replace(f"the {words(cls[obj])}", prefix + words(cls[obj]), 1).replace(
                f"a {words(cls[obj])}", prefix + words(cls[obj]), 1)
        return f"(and (inreceptacle {obj} {d}){state}{extra})", sentence, obj
    return None


def _contains(scene: Scene, host: str) -> set[str]:
    return {f.args[1] for f in scene.facts if f.predicate == "cancontain" and f.args[0] == host}


def generate(split: str, *, floorplans: Iterable[int] | None = None, seeds_per_floorplan: int = 1,
             goals_per_category: int = 1, planner_timeout: float = 20.0, seed: int = 0) -> Iterator[AlfredSample]:
    """Samples of ``split``; each floor plan x seed gives up to 7 x goals_per_category tasks."""
    if split not in SPLIT_SEEDS:
        raise DatasetError(f"unknown split '{split}' (train, valid_seen, valid_unseen)")
    fps = list(floorplans) if floorplans is not None else floorplan_numbers(
        "unseen" if split == "valid_unseen" else "train")
    skillset = load_skillset("alfred")
    planner = get_planner("fast-downward", prune_above=None)
    base = SPLIT_SEEDS[split].start
    for fp in fps:
        for s in range(seeds_per_floorplan):
            scene_seed = base + seed * seeds_per_floorplan + s
            scene = generate_scene(fp, scene_seed)
            task = build_task(skillset, scene)
            rng = random.Random(f"{split}:{fp}:{scene_seed}")
            for category in CATEGORIES:
                for k in range(goals_per_category):
                    drawn = _draw_goal(category, scene, rng)
                    if drawn is None:
                        break
                    goal, sentence, target = drawn
                    res = planner.plan(task.domain, task.problem.with_goal(parse_goal(goal)), timeout=planner_timeout)
                    if not res.solved:
                        continue
                    steps = class_plan(res.plan, scene)
                    yield AlfredSample(f"{split}-{fp}-{scene_seed}-{SHORT[category]}-{k}", split, category, fp,
                                       scene_seed, sentence, goal, target, plan_text(steps), tuple(res.plan),
                                       round(res.seconds, 4))


def write_jsonl(samples: Iterable[AlfredSample], path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with path.open("w") as fh:
        for smp in samples:
            fh.write(json.dumps(smp.to_json()) + "\n")
            fh.flush()
            n += 1
    return n


def read_jsonl(path: Path) -> list[AlfredSample]:
    if not path.is_file():
        raise DatasetError("dataset file not found", file=str(path))
    out = []
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(AlfredSample.from_json(json.loads(line), source=f"{path}:{i}"))
        except json.JSONDecodeError as exc:
            raise DatasetError(f"invalid JSON: {exc.msg}", file=str(path), line=i) from None
    return out


# ------------------------------------------------------------------ real ALFRED trajectories

def load_alfred_traj(path: Path) -> dict[str, Any]:
    """A real ALFRED ``traj_data.json`` (if a user has the dataset): goal sentences, the task
    category, the floor plan and the high-level plan in RobLM's text format (ALFRED's
    ``plan.high_pddl`` discrete actions with their class arguments)."""
    try:
        d = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise DatasetError("ALFRED trajectory not found", file=str(path)) from None
    except json.JSONDecodeError as exc:
        raise DatasetError(f"invalid JSON: {exc.msg}", file=str(path), line=exc.lineno) from None
    try:
        steps = []
        for hp in d["plan"]["high_pddl"]:
            da = hp["discrete_action"]
            if da["action"] in ("NoOp", "End"):
                continue
            steps.append(PlanStep(da["action"], tuple(a.lower() for a in da.get("args", []))))
        goals = [a["task_desc"] for a in d["turk_annotations"]["anns"]]
        return {"category": d["task_type"], "floorplan": d["scene"]["floor_plan"], "goals": goals,
                "plan": plan_text(steps)}
    except (KeyError, TypeError) as exc:
        raise DatasetError(f"not an ALFRED trajectory: missing {exc}", file=str(path)) from None
