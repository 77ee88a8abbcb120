"""The ONE definition of every metric (DESIGN.md, "Metrics"), computed from an episode and
its task. Methods call the small helpers below when they record what they measured; the bench
runner stores ``episode_metrics(ep, task)`` for every episode; reports aggregate the stored
rows (``groundplan.bench.metrics.aggregate``). Nothing else computes these numbers.

Definitions (per episode):

- success: the method's check goal held on the final state (``Episode.success``; the method
  evaluated the task's gold goal or its dataset's evaluator on the executed state). An invalid
  dataset row is never a success.
- gcr (goal-condition recall): satisfied conditions / conditions of the best disjunct
  (``gcr(satisfied, total)``; no conditions = 1.0, the empty goal holds). A method stores the
  recall its evaluator measured; without one, gcr is 1.0 for a success and 0.0 otherwise.
- sr: 1 iff gcr == 1.
- exec: executed steps / planned steps (``exec_rate``). An EMPTY plan (0 planned steps) has
  exec 1.0 when the goal held (nothing needed doing) and 0.0 otherwise (the method did
  nothing and nothing was achieved). What a "step" is belongs to the method (a command sent
  to the simulator, a program line, an action of the plan) and is recorded in
  ``executed_steps`` / ``planned_steps``; ``exec`` is always recomputed from them.
- minimal: success and plan cost == ``task.extras["min_costs"]`` (None when not recorded).
- minimal_tools: success and tool calls == ``task.extras["min_tool_calls"]`` (None when not
  recorded).
- completed (COWP task completion): the goal holds at the end (== success).
- situation_handled (COWP): the trial met a situation and still completed using only objects
  the dataset accepts (``task.extras["accepted_objects"]``, when given); None if no situation.
- OAM precision / recall / F1 over object-affordance pairs (AutoGPT+P Table II, ``oam_prf``).
- llm_calls, prompt_tokens, completion_tokens, tokens, wall_time: from the episode's usage.

An episode that ended in an error (``error``, ``crash``, ``unsupported``) is not a failure of
the method: it counts in the rates' denominators but is flagged (``error``) so a summary can
say "0 successes, 584 errors".
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Optional, Union

from groundplan.core.verdict import ERROR_STATUSES
from groundplan.knowledge.oam import OAM
from groundplan.knowledge.oam_llm import OAMScores, evaluate_oam
from groundplan.pddl.state import condition_recall

if TYPE_CHECKING:  # pragma: no cover - core.episode imports this module (ExecutionScore's EXEC)
    from groundplan.core.episode import Episode
    from groundplan.core.task import Task

#: the status of an invalid dataset row (``core.episode.EpisodeStatus.INVALID``)
INVALID = "invalid"

#: plan costs closer than this are equal (minimal)
COST_EPS = 1e-6
#: a goal-condition recall this close to 1 is 1 (sr)
GCR_EPS = 1e-9


# --------------------------------------------------------------------------- the small helpers


def exec_rate(executed: int, planned: int, success: Optional[bool]) -> float:
    """EXEC: executed / planned steps. An empty plan's EXEC is 1.0 when the goal held (nothing
    needed doing) and 0.0 otherwise (``success`` None, no check goal, counts as not held)."""
    if planned:
        return float(executed) / float(planned)
    return 1.0 if success else 0.0


def gcr(satisfied: int, total: int) -> float:
    """Goal-condition recall of one conjunction: satisfied / total; no conditions = 1.0.
    (The same rule as ``groundplan.pddl.state.condition_recall``, which the PDDL goal
    evaluator below this layer uses; this is that function.)"""
    return condition_recall(satisfied, total)


def sr(recall: Optional[float]) -> bool:
    """SR: 1 iff the goal-condition recall is 1."""
    return recall is not None and float(recall) >= 1.0 - GCR_EPS


@dataclass(frozen=True)
class GoalResult:
    """What a goal evaluator found on a final state, in one shape: whether the goal held, its
    recall, what did not hold and how many conditions there were (None when not counted).
    ``goal_result`` reads every evaluator's record into it."""

    success: bool
    gcr: float
    unsatisfied: tuple[str, ...] = ()
    conditions: Optional[int] = None

    @property
    def sr(self) -> bool:
        return sr(self.gcr)

    def detail(self) -> dict[str, Any]:
        d: dict[str, Any] = {"unsatisfied": list(self.unsatisfied)}
        if self.conditions is not None:
            d["conditions"] = self.conditions
        return d


def goal_result(report: Any) -> GoalResult:
    """A ``GoalResult`` from any goal evaluator's record: ``pddl.state.GoalReport``
    (success, gcr, satisfied, unsatisfied), ``core.datasets.eai.GoalCheck`` (success,
    satisfied, total, unsatisfied), ``core.datasets.progprompt.ProgPromptScore`` (sr, gcr,
    unsatisfied, total)."""
    if isinstance(report, GoalResult):
        return report
    held = getattr(report, "success", None)
    if held is None:
        held = report.sr
    total = getattr(report, "total", None)
    unsatisfied = tuple(str(u) for u in (getattr(report, "unsatisfied", None) or ()))
    satisfied = getattr(report, "satisfied", None)
    if total is None and isinstance(satisfied, (tuple, list)):
        total = len(satisfied) + len(unsatisfied)
    return GoalResult(bool(held), float(report.gcr), unsatisfied, None if total is None else int(total))


def step_metrics(executed: int, planned: int, success: Optional[bool],
                 recall: Optional[float] = None) -> dict[str, Any]:
    """What a method records about its execution (``Episode.metrics``): executed and planned
    steps, EXEC by the one rule, and the goal-condition recall when it measured one."""
    m: dict[str, Any] = {"executed_steps": int(executed), "planned_steps": int(planned),
                         "exec": exec_rate(executed, planned, success)}
    if recall is not None:
        m["gcr"] = float(recall)
    return m


def success(ep: "Episode") -> bool:
    """Success: the episode's check goal held after execution (the method evaluated it on the
    executed state); an invalid dataset row is never a success."""
    return bool(ep.success) and ep.status != INVALID


def minimal(success: bool, cost: Optional[float], min_costs: Optional[float]) -> Optional[bool]:
    """Success at the recorded minimal plan cost (None when no minimum is recorded)."""
    if min_costs is None:
        return None
    return bool(success and cost is not None and abs(float(cost) - float(min_costs)) < COST_EPS)


def minimal_tools(success: bool, tool_calls: Optional[int], min_tool_calls: Optional[int]) -> Optional[bool]:
    """Success with the recorded minimal number of tool calls (None when none is recorded)."""
    if min_tool_calls is None:
        return None
    return bool(success and tool_calls is not None and int(tool_calls) == int(min_tool_calls))


def completion(success: bool) -> bool:
    """COWP task completion: the trial's goal holds at the end."""
    return bool(success)


def situation_handled(situation_met: bool, success: bool, objects_used: Optional[Iterable[str]],
                      accepted_objects: Optional[Iterable[str]]) -> Optional[bool]:
    """COWP situation handling: None when no situation was met; else the trial completed using
    only objects the dataset accepts for the task (any objects when it names none)."""
    if not situation_met:
        return None
    ok_objects = accepted_objects is None or objects_used is None or set(objects_used) <= set(accepted_objects)
    return bool(success and ok_objects)


OAMLike = Union[OAM, Mapping[str, Iterable[str]]]


def _oam(m: OAMLike, name: str) -> OAM:
    if isinstance(m, OAM):
        return m
    return OAM({str(c): frozenset(a) for c, a in m.items()}, name)


def oam_prf(predicted: OAMLike, truth: OAMLike, classes: Optional[Iterable[str]] = None) -> OAMScores:
    """OAM precision, recall and F1 over object-affordance pairs (AutoGPT+P eqs. 11-13) on
    ``classes`` (default: the truth's); a class the prediction lacks counts with no
    affordances; a rate with an empty denominator is 0. Maps may be ``OAM`` objects or plain
    ``{class: affordances}`` mappings. (The pair counting is ``knowledge.oam_llm.evaluate_oam``,
    below this layer, where the map builders live.)"""
    return evaluate_oam(_oam(predicted, "predicted"), _oam(truth, "truth"), classes)


# --------------------------------------------------------------------------- per episode


@dataclass(frozen=True)
class EpisodeMetrics:
    success: bool
    minimal: Optional[bool]
    minimal_tools: Optional[bool]
    gcr: float
    sr: bool
    exec: float
    completed: bool
    situation_met: bool
    situation_handled: Optional[bool]
    cost: Optional[float]
    min_costs: Optional[float]
    tool_calls: Optional[int]
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    tokens: int
    wall_time: float
    invalid: bool
    #: the episode ended in an error, a crash or a refusal (the method did not fail: it could not run)
    error: bool = False
    #: what the verdict was judged on (groundplan.core.verdict): a check goal existed; else
    #: whether the method's own goal held after execution (None: not evaluated)
    checked: bool = True
    own_goal_held: Optional[bool] = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _num(v: Any) -> Optional[float]:
    try:
        return None if v is None or v == "" else float(v)
    except (TypeError, ValueError):
        return None


def _int(v: Any) -> Optional[int]:
    f = _num(v)
    return None if f is None else int(f)


def episode_exec(ep: "Episode") -> float:
    """EXEC of an episode from its recorded steps (``executed_steps`` / ``planned_steps``);
    an episode that recorded no steps planned none. Metrics read back from a results file
    (the stored ``EpisodeMetrics``: ``exec`` without steps) keep their ``exec``; a method
    that records ``exec`` without its steps is reported by ``disagreements``."""
    m = ep.metrics or {}
    ok = success(ep)
    if m.get("planned_steps") is None and m.get("exec") is not None:
        return float(m["exec"])
    return exec_rate(_int(m.get("executed_steps")) or 0, _int(m.get("planned_steps")) or 0, ok)


def episode_metrics(ep: "Episode", task: "Task") -> EpisodeMetrics:
    """Every per-episode metric, by the definitions above (what the bench stores)."""
    m = ep.metrics or {}
    invalid = ep.status == INVALID
    ok = success(ep)
    cost = _num(m.get("cost"))
    min_costs = _num(task.extras.get("min_costs"))
    tool_calls = _int(m.get("tool_calls"))
    recall = None if invalid else _num(m.get("gcr"))
    if recall is None:
        recall = 1.0 if ok else 0.0
    met = bool(m.get("situation_met", False))
    accepted = task.extras.get("accepted_objects")
    u = ep.usage
    return EpisodeMetrics(
        success=ok, minimal=minimal(ok, cost, min_costs),
        minimal_tools=minimal_tools(ok, tool_calls, _int(task.extras.get("min_tool_calls"))),
        gcr=recall, sr=sr(recall), exec=episode_exec(ep), completed=completion(ok), situation_met=met,
        situation_handled=situation_handled(met, ok, m.get("objects_used"), accepted),
        cost=cost, min_costs=min_costs, tool_calls=tool_calls, llm_calls=u.calls,
        prompt_tokens=u.prompt_tokens, completion_tokens=u.completion_tokens, tokens=u.total_tokens,
        wall_time=round(float(ep.wall_time), 6), invalid=invalid, error=ep.status in ERROR_STATUSES,
        checked=True if m.get("checked") is None else bool(m["checked"]),
        own_goal_held=None if m.get("own_goal_held") is None else bool(m["own_goal_held"]))


def disagreements(ep: "Episode", task: "Task") -> list[str]:
    """Where the figures a method recorded in ``ep.metrics`` differ from the one definition
    (empty when the method went through this module): its ``exec`` and its ``gcr``/``sr``."""
    m = ep.metrics or {}
    em = episode_metrics(ep, task)
    out = []
    if m.get("exec") is not None and abs(float(m["exec"]) - em.exec) > 1e-9:
        out.append(f"exec: the method recorded {m['exec']}, the definition gives {em.exec} "
                   f"({m.get('executed_steps')} of {m.get('planned_steps')} steps, success {em.success})")
    if m.get("planned_steps") is None and m.get("exec") is not None:
        out.append("exec recorded without planned_steps/executed_steps")
    if m.get("sr") is not None and bool(m["sr"]) != em.sr:
        out.append(f"sr: the method recorded {m['sr']}, the definition gives {em.sr} (gcr {em.gcr})")
    if not 0.0 <= em.exec <= 1.0:
        out.append(f"exec {em.exec} is not a rate in [0, 1] ({m.get('executed_steps')} executed of "
                   f"{m.get('planned_steps')} planned steps)")
    if m.get("gcr") is not None and not 0.0 <= float(m["gcr"]) <= 1.0:
        out.append(f"gcr {m['gcr']} is not a recall in [0, 1]")
    return out


__all__ = [
    "COST_EPS", "GCR_EPS", "exec_rate", "gcr", "sr", "GoalResult", "goal_result", "step_metrics", "success",
    "minimal", "minimal_tools", "completion", "situation_handled", "oam_prf", "OAMScores", "EpisodeMetrics",
    "episode_exec", "episode_metrics", "disagreements",
]
