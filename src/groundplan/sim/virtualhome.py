"""Executing VirtualHome scripts: a VirtualHome graph as a planning task of the
``virtualhome`` skill set (``VHWorld``), and a session that executes script lines one by one
with groundplan's executor (``VHSession``), failures named as VirtualHome names them. The
graph, script and scene conversions themselves are in ``groundplan.world.virtualhome``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from groundplan.pddl.formula import Atom
from groundplan.sim.executor import Executor
from groundplan.skills.builder import build_task
from groundplan.skills.skillset import load_skillset
from groundplan.world.virtualhome import (
    SKILLSET,
    ScriptError,
    ScriptLine,
    VHGraph,
    facts_to_graph,
    graph_to_scene,
    parse_script_line,
)


class VHWorld:
    """A graph with its scene and planning task (domain + problem) for the skill set."""

    def __init__(self, graph: VHGraph, *, skillset: str = SKILLSET, name: str = "virtualhome"):
        self.graph = graph
        self.scene = graph_to_scene(graph, name)
        self.planning_task = build_task(load_skillset(skillset), self.scene, None, strict=False)

    @property
    def domain(self):
        return self.planning_task.domain

    @property
    def problem(self):
        return self.planning_task.problem

    def character_name(self, index: int = 0) -> str:
        return self.graph.character(index).name

    def step_for(self, line: ScriptLine) -> str:
        """The groundplan step of a script line (raises ScriptError for an unknown node)."""
        parts = [line.action.lower()]
        for cls, node_id in line.args:
            node = self.graph.node(node_id)
            if node is None:
                raise ScriptError(f"<{cls}> ({node_id}) cannot be found when executing [{line.action}]")
            parts.append(node.name)
        parts.append(self.character_name(line.char or 0))
        return " ".join(parts)

    def session(self) -> "VHSession":
        return VHSession(self)

    def to_graph(self, facts: Iterable[Atom]) -> VHGraph:
        return facts_to_graph(facts, self.graph)


@dataclass(frozen=True)
class VHStepResult:
    line: str
    ok: bool
    message: str = ""
    step: str = ""


class VHSession:
    """Executes script lines one by one on a world's initial state."""

    def __init__(self, world: VHWorld):
        self.world = world
        self.executor = Executor(world.domain, world.problem)
        self.history: list[VHStepResult] = []

    @property
    def facts(self) -> frozenset[Atom]:
        return self.executor.facts

    def execute(self, line: ScriptLine | str) -> VHStepResult:
        if isinstance(line, str):
            try:
                line = parse_script_line(line)
            except ScriptError as exc:
                res = VHStepResult(str(line).strip(), False, str(exc))
                self.history.append(res)
                return res
        text = line.text(char=False)
        domain = self.world.domain
        if line.action.lower() not in domain.action_map:  # refused here, never sent to the executor
            res = VHStepResult(text, False, f"unknown action '{line.action.lower()}' (the skill set has: "
                                            f"{', '.join(a.name for a in domain.actions)})")
            self.history.append(res)
            return res
        try:
            step = self.world.step_for(line)
        except ScriptError as exc:
            res = VHStepResult(text, False, str(exc))
        else:
            r = self.executor.apply(step)
            res = VHStepResult(text, r.ok, r.reason, step)
        self.history.append(res)
        return res

    def graph(self) -> VHGraph:
        """The graph of the current state (VHGraph is frozen: the last one is reused until
        an action changes the facts)."""
        facts = self.executor.facts
        cached = getattr(self, "_graph", None)
        if cached is None or cached[0] is not facts:
            self._graph = (facts, self.world.to_graph(facts))
        return self._graph[1]


__all__ = ["VHWorld", "VHStepResult", "VHSession"]
