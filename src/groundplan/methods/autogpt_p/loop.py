"""The AutoGPT+P feedback loop (Sec. IV-B, Alg. 1): the LLM selects a tool from the memory
expressed in natural language; the tool updates the memory; a plan from the Plan or Partial
Plan tool is executed; the loop ends when the Plan tool has produced the final plan or no
tool is selected.

Details as the original's loop logs show them: the tool selection is one conversation (the
first prompt, then "New Scene Memory: ..." with the result of the last tool); the Plan tool
plans for the current user request (rewritten when an alternative was accepted), with up to
5 correction rounds; a planner timeout switches to the partial-goal prompt; an answer of
FAILURE runs the Partial Plan tool once if it has not run yet in the episode, else ends the
loop; after 10 tool selections the loop stops."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Optional

from groundplan.knowledge.oam import OAM
from groundplan.llm.errors import LLMEndpointError, LLMError
from groundplan.llm.types import Message
from groundplan.methods.autogpt_p.alternative import alternative_suggestion, naive_alternative
from groundplan.methods.autogpt_p.config import AutoGPTPConfig
from groundplan.methods.autogpt_p.dialogue import YES_NO_GRAMMAR, Dialogue, parse_yes, tool_grammar
from groundplan.methods.autogpt_p.memory import Memory, SimulatedUser, explore
from groundplan.methods.autogpt_p.plan_tool import (
    PlanToolResult,
    original_conditions,
    planning_with_self_correction,
)
from groundplan.methods.autogpt_p.prompting import (
    ask_substitution,
    scene_memory,
    sentiment_prompt,
    tool_selection_prompt,
)
from groundplan.planners.base import Planner
from groundplan.skills.skillset import SkillSet

PLAN, PARTIAL_PLAN, EXPLORE, SUGGEST_ALTERNATIVE = "PLAN", "INCOMPLETE_PLAN", "EXPLORE", "SUGGEST_ALTERNATIVE"
TOOLS = (PARTIAL_PLAN, SUGGEST_ALTERNATIVE, EXPLORE, PLAN)
_SELECTED = re.compile(r"SELECTED TOOL:[ \t]*(.*)", re.IGNORECASE)
_ANY_TOOL = re.compile(r"\b(INCOMPLETE_PLAN|SUGGEST_ALTERNATIVE|EXPLORE|PLAN|FAILURE)\b")


@dataclass(frozen=True)
class ToolCall:
    tool: str
    parameter: str = ""


def parse_tool_selection(answer: str) -> Optional[ToolCall]:
    """The tool of an answer: after the last ``SELECTED TOOL:``, else the last tool name in
    the text (older models often end with "the selected tool would be PLAN."). None: FAILURE
    or no tool."""
    text = answer or ""
    found = _SELECTED.findall(text)
    if found:
        line = found[-1].strip()
    else:
        names = list(_ANY_TOOL.finditer(text))
        if not names:
            return None
        m = names[-1]
        line = text[m.start():].split("\n", 1)[0]
    parts = line.split(None, 1)
    if not parts:
        return None
    name = parts[0].strip(" .,:;*`'\"").upper()
    if name not in TOOLS:
        return None
    param = parts[1].strip() if len(parts) > 1 else ""
    return ToolCall(name, param.strip(" :*`'\"").rstrip("."))


@dataclass(frozen=True)
class LoopOutcome:
    memory: Memory
    tools: tuple[ToolCall, ...]
    final: bool  # the Plan tool produced the final plan
    ended_by: str  # plan | failure | limit | llm_error
    error: Optional[str] = None


class FeedbackLoop:
    """Algorithm 1 with its tools, for one episode."""

    def __init__(self, dialogue: Dialogue, skillset: SkillSet, oam: OAM, planner: Planner, user: SimulatedUser,
                 config: AutoGPTPConfig, timeout: Optional[float] = None):
        self.d, self.skillset, self.oam, self.planner = dialogue, skillset, oam, planner
        self.user, self.cfg, self.timeout = user, config, timeout
        self.messages: list[Message] = []
        self.conditions = original_conditions() if config.semantic_conditions == "original" else None

    def _event(self, type_: str, **data) -> None:
        if self.d.recorder is not None:
            self.d.recorder.event(type_, **data)

    # ------------------------------------------------------------------ Alg. 1

    def run(self, memory: Memory) -> LoopOutcome:
        tools: list[ToolCall] = []
        result: Optional[str] = None
        partial_ran = False  # the Partial Plan tool ran in this episode (selected or as the fallback)
        for turn in range(self.cfg.max_tool_calls):
            try:
                call = self.tool_selection(memory, result, first=turn == 0)
            except LLMEndpointError:
                raise  # the endpoint failed: an error episode, not a failed tool loop
            except LLMError as exc:
                return LoopOutcome(memory, tuple(tools), False, "llm_error", str(exc))
            try:
                if call is None:
                    if self.cfg.partial_plan_on_failure and not partial_ran:
                        partial_ran = True
                        self._event("tool_call", tool=PARTIAL_PLAN, parameter="", fallback=True)
                        memory, result, _ = self.plan_tool(memory, partial=True)
                        continue
                    return LoopOutcome(memory, tuple(tools), False, "failure")
                partial_ran = partial_ran or call.tool == PARTIAL_PLAN
                tools.append(call)
                self._event("tool_call", tool=call.tool, parameter=call.parameter, turn=turn)
                memory, result, final = self.execute_tool(call, memory)
            except LLMEndpointError:
                raise
            except LLMError as exc:
                return LoopOutcome(memory, tuple(tools), False, "llm_error", str(exc))
            if final:
                return LoopOutcome(memory, tuple(tools), True, "plan")
        return LoopOutcome(memory, tuple(tools), False, "limit")

    def tool_selection(self, memory: Memory, result: Optional[str], *, first: bool) -> Optional[ToolCall]:
        """ToolSelection (eq. 8): the memory in natural language -> a tool."""
        mem_text = scene_memory(memory.object_names(), memory.relations(), memory.unexplored)
        prompt = tool_selection_prompt(mem_text, memory.request, memory.history, result=result, first=first)
        self.messages.append(Message("user", prompt))
        answer = self.d.ask("tool_selection", self.messages, grammar=tool_grammar(memory.unexplored), max_tokens=400)
        self.messages.append(Message("assistant", answer))
        call = parse_tool_selection(answer)
        self._event("note", what="tool selection", selected=None if call is None else f"{call.tool} {call.parameter}")
        return call

    def execute_tool(self, call: ToolCall, memory: Memory) -> tuple[Memory, str, bool]:
        """ExecuteTool: the new memory, the result line, whether the plan is final."""
        if call.tool == EXPLORE:
            mem, res = explore(memory, call.parameter.split()[0] if call.parameter else "",
                               move_robot=self.cfg.explore_moves_robot)
            self._event("explore", location=call.parameter, result=res,
                        revealed=sorted(set(mem.object_names()) - set(memory.object_names())))
            return mem, res, False
        if call.tool == SUGGEST_ALTERNATIVE:
            return (*self.suggest_alternative(memory, call.parameter.split()[0] if call.parameter else ""), False)
        if call.tool == PARTIAL_PLAN:
            mem, res, _ = self.plan_tool(memory, partial=True)
            return mem, res, False
        mem, res, ok = self.plan_tool(memory, partial=False)
        return mem, res, ok

    # ------------------------------------------------------------------ tools

    def plan_tool(self, memory: Memory, *, partial: bool) -> tuple[Memory, str, bool]:
        task = memory.planning_task(self.skillset, self.oam)
        out: PlanToolResult = self._plan(task, memory.request, partial)
        retries = 0
        while out.status == "timeout" and retries < self.cfg.timeout_partial_retries:
            retries += 1
            out = self._plan(task, memory.request, True)
            partial = True
        if not out.solved:
            self._event("result", tool=PARTIAL_PLAN if partial else PLAN, status=out.status, error=out.error)
            return memory, ("Planning failed due to unreachable goal" if partial else "Planning failed"), False
        mem, done, failure, cost = memory.executed_plan(self.skillset, self.oam, out.plan, recorder=self.d.recorder)
        self._event("result", tool=PARTIAL_PLAN if partial else PLAN, status="executed", goal=out.goal_text,
                    executed=len(done), planned=len(out.plan), cost=cost, failure=failure)
        return mem, "Planning succeeded", not partial

    def _plan(self, task, request: str, partial: bool) -> PlanToolResult:
        return planning_with_self_correction(
            self.d, task, request, self.planner, max_rounds=self.cfg.rounds(in_loop=True), partial=partial,
            self_correction=self.cfg.self_correction, allow_hidden=self.cfg.allow_hidden_predicates,
            timeout=self.timeout, robot=self.cfg.robot_name, example=self.cfg.goal_example,
            conditions=self.conditions)

    def suggest_alternative(self, memory: Memory, missing: str) -> tuple[Memory, str]:
        classes = memory.classes()
        if self.cfg.alternative == "naive":
            res = naive_alternative(self.d, missing, classes, memory.request)
        else:
            res = alternative_suggestion(self.d, missing, classes, memory.request, self.oam)
        alt = res.alternative
        statement = self.user.answer(missing, alt)
        self._event("note", what="suggest alternative", missing=missing, alternative=alt, path=res.path,
                    relevant=list(res.relevant), rarest=res.rarest, question=ask_substitution(missing, alt or "?"),
                    user=statement)
        accepted = statement.strip().lower() == "yes"
        if not accepted and alt is not None:
            answer = self.d.ask("sentiment", [Message("user", sentiment_prompt(statement))], grammar=YES_NO_GRAMMAR,
                                max_tokens=10)
            accepted = parse_yes(answer)
        if accepted and alt is not None:
            return memory.with_alternative(missing, alt), f"New Substitution: {missing}->{alt}"
        return memory, f"Substitution {missing}->{alt} rejected"


def initial_memory(world, explored: Optional[frozenset[str]], request: str) -> Memory:
    return Memory(world=replace(world, explored=None), explored=explored, request=request)


__all__ = ["FeedbackLoop", "LoopOutcome", "ToolCall", "parse_tool_selection", "initial_memory", "TOOLS", "PLAN",
           "PARTIAL_PLAN", "EXPLORE", "SUGGEST_ALTERNATIVE"]
