"""The environments BrainBody-LLM acts in, behind one small interface: what the prompts
show (objects, actions, environment triplets), executing one low-level command (with the
simulator's or controller's error message), and scoring the final state.

- ``VHEnv``: a VirtualHome graph and the ``virtualhome`` skill set. Commands are script
  lines (``<char0> [putin] <salmon> (327) <fridge> (305)``); an object written without an id
  (``<char0> [walk] <kitchen>``, as the paper's Body examples do) is resolved to a node of that
  class: one in the character's hands, else the last one used, else one the character is
  close to, else the smallest id.
- ``TabletopEnv`` (in ``groundplan.methods.brainbody.tabletop``): the Franka tabletop.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from groundplan.core.datasets.eai import check_vh_goal
from groundplan.core.datasets.progprompt import progprompt_eval
from groundplan.core.metrics import goal_result
from groundplan.core.task import Task
from groundplan.methods.brainbody.environment import Environment, Outcome, Score
from groundplan.methods.brainbody.tabletop import TabletopEnv
from groundplan.pddl.goal import parse_goal
from groundplan.pddl.state import evaluate_goal
from groundplan.sim.virtualhome import VHWorld
from groundplan.world.virtualhome import (
    ScriptError,
    ScriptLine,
    VHGraph,
    parse_script_line,
    read_vh_graph_file,
)

#: the action list BrainBody-LLM's VirtualHome prompts give (Appendix A)
VH_ACTIONS = ("walk", "run", "walktowards", "walkforward", "turnleft", "turnright", "sit", "standup", "grab",
              "open", "close", "put", "putin", "switchon", "switchoff", "drink", "touch", "lookat")
#: classes left out of object lists and environment triplets (structure, not things)
STRUCTURE = frozenset({"wall", "floor", "ceiling", "door", "doorjamb", "window", "walllamp", "ceilinglamp", "rug",
                       "curtains", "wallpictureframe", "character"})


class VHEnv:
    """One episode in VirtualHome: the task's initial graph, a session, and its scorer."""

    def __init__(self, task: Task, *, actions: Sequence[str] = VH_ACTIONS):
        self.task = task
        self.actions = tuple(actions)
        path = Path(task.scene_file)
        self.initial = read_vh_graph_file(path)
        self.world = VHWorld(self.initial)
        self.session = self.world.session()
        self.char = self.initial.character(0)
        self._last: dict[str, int] = {}
        self.executed: list[str] = []  # script lines that executed

    # -- prompts
    def object_list(self) -> list[str]:
        return sorted({n.class_name for n in self.initial.nodes if n.class_name not in STRUCTURE})

    def graph(self) -> VHGraph:
        return self.session.graph()

    def environment_info(self, task: str = "", limit: int = 60) -> str:
        """Relational triplets ``(subject:predicate:object)``: the character's room and hands,
        then states and ON / INSIDE relations, objects named in ``task`` first."""
        g = self.graph()
        words = set(re.findall(r"[a-z]+", task.lower()))
        cls = {n.id: n.class_name for n in g.nodes}

        def rank(name: str) -> int:
            return 0 if name in words or any(w in name for w in words if len(w) > 3) else 1

        trip: list[tuple[int, str]] = []
        for f, r, t in g.edges:
            if f == self.char.id and r in ("INSIDE", "HOLDS_RH", "HOLDS_LH", "ON"):
                rel = {"HOLDS_RH": "holds", "HOLDS_LH": "holds"}.get(r, r.lower())
                trip.append((-1, f"(character:{rel}:{cls.get(t)})"))
        for n in g.nodes:
            if n.class_name in STRUCTURE or n.category == "Rooms":
                continue
            for s in n.states:
                if s in ("CLEAN", "DIRTY", "PLUGGED_IN", "PLUGGED_OUT"):
                    continue
                trip.append((rank(n.class_name), f"({n.class_name}:is:{s.lower()})"))
        for f, r, t in g.edges:
            if r not in ("ON", "INSIDE") or f == self.char.id:
                continue
            a, b = cls.get(f), cls.get(t)
            if a is None or b is None or a in STRUCTURE or b in STRUCTURE:
                continue
            if g.node(t) is not None and g.node(t).category == "Rooms":
                continue
            trip.append((min(rank(a), rank(b)), f"({a}:{r.lower()}:{b})"))
        trip.sort(key=lambda x: x[0])
        seen = list(dict.fromkeys(t for _, t in trip))
        return ", ".join(seen[:limit])

    # -- acting
    def resolve(self, line: ScriptLine) -> ScriptLine:
        g = self.graph()
        held = {t for f, r, t in g.edges if f == self.char.id and r in ("HOLDS_RH", "HOLDS_LH")}
        close = {t for f, r, t in g.edges if f == self.char.id and r == "CLOSE"}
        args = []
        for cls, node_id in line.args:
            if node_id >= 0 and g.node(node_id) is not None:
                args.append((cls, node_id))
                continue
            cands = [n.id for n in g.nodes if n.class_name == cls]
            if not cands:
                args.append((cls, node_id))  # reported as not found
                continue
            pick = (next((c for c in cands if c in held), None) if line.action.startswith("PUT") else None) \
                or (self._last.get(cls) if self._last.get(cls) in cands else None) \
                or next((c for c in sorted(cands) if c in close), None) or min(cands)
            args.append((cls, pick))
        return ScriptLine(line.action, tuple(args), line.char)

    def execute(self, command: str) -> Outcome:
        try:
            line = _parse_command(command)
        except ScriptError as exc:
            return Outcome(False, str(exc), command.strip())
        line = self.resolve(line)
        missing = [c for c, i in line.args if i < 0]
        if missing:  # a class the scene does not have
            return Outcome(False, f"<{missing[0]}> cannot be found when executing [{line.action}]",
                           line.text(char=True, lower=True).replace(" (-1)", ""))
        res = self.session.execute(line)
        if res.ok:
            for cls, node_id in line.args:
                self._last[cls] = node_id
            self.executed.append(line.text(char=False))
        return Outcome(res.ok, res.message, line.text(char=True, lower=True))

    # -- scoring
    def score(self) -> Score:
        final = self.graph()
        ex = self.task.extras
        if ex.get("final_graph_file"):
            gt = read_vh_graph_file(ex["final_graph_file"])
            return _score(progprompt_eval(self.initial, gt, final))
        if ex.get("vh_goal") is not None:
            return _score(check_vh_goal(final, ex["vh_goal"], self.executed))
        if self.task.goal:
            return _score(evaluate_goal(parse_goal(self.task.goal), self.world.domain, self.world.problem,
                                        self.session.facts))
        return Score(False, 0.0, {"unsatisfied": ["no goal"]})


def _score(report) -> Score:
    """Any goal evaluator's record read through ``core.metrics.goal_result`` (one success /
    GCR reading for ProgPrompt's eval, EAI's goal check and a PDDL goal report)."""
    r = goal_result(report)
    return Score(r.success, r.gcr, r.detail())


_ID_LESS = re.compile(r"<([^<>]+)>(?!\s*\()")


def _parse_command(command: str) -> ScriptLine:
    """A Body command: ``<char0> [putin] <salmon> (327) <fridge> (305)``; ids may be left
    out (``<char0> [walk] <kitchen>``) and are then -1 (resolved by class)."""
    text = command.strip().strip("`").strip()
    m = re.search(r"(<char\d+>\s*)?\[\w+\].*", text)
    if not m:
        raise ScriptError(f"not a command: '{text[:80]}' (expected '<char0> [action] <object> (id)')")
    text = m.group(0).splitlines()[0]
    text = _ID_LESS.sub(lambda mm: mm.group(0) if re.fullmatch(r"char\d+", mm.group(1)) else f"<{mm.group(1)}> (999999999)",
                        text)
    line = parse_script_line(text)
    return ScriptLine(line.action, tuple((c, -1 if i == 999999999 else i) for c, i in line.args), line.char)


def make_env(task: Task) -> "Environment":
    if task.skillset == "tabletop":
        return TabletopEnv(task)
    if task.skillset == "household":
        from groundplan.methods.brainbody.household import HouseholdEnv

        return HouseholdEnv(task)
    return VHEnv(task)


__all__ = ["VH_ACTIONS", "STRUCTURE", "Outcome", "Score", "Environment", "VHEnv", "make_env"]
