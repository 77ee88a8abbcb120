"""Which method runs on which benchmark, and how: one explicit adapter per (method, dataset)
pair, or the reason the pair cannot be adapted (issue 23, the cross-table).

An ``Adapter`` says in one line what running the method on the dataset means (``native``:
the method's own benchmark) and may rewrite a task (``prepare``) or pass method
configuration. A pair without an adapter is a ``Refusal``: the reason is the method's own
``supports(task)`` refusal on the dataset's tasks when it has one, else the reason written
here (``NOT_ADAPTED``), else "no adapter written". Rows are (method, LLM) pairs: the
embedded model, the method's oracle where it has one, and recorded answers (replay) where
they exist.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Mapping, Optional, Union

from groundplan.core.task import Task


def _same(task: Task) -> Task:
    return task


@dataclass(frozen=True)
class Adapter:
    method: str
    dataset: str
    how: str
    prepare: Callable[[Task], Task] = _same
    config: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Refusal:
    method: str
    dataset: str
    reason: str


Cell = Union[Adapter, Refusal]


@dataclass(frozen=True)
class Row:
    """One row of the cross-table: a method with one kind of LLM."""

    label: str
    method: str
    llm: str  # "embedded", "none" (oracle / no LLM), or a replay backend "autogptp-replay:gpt-4"
    kind: str  # "embedded", "oracle", "replay"


#: the columns: every registered benchmark with gold goals and a scorer, one per family of
#: sets (progprompt-env1/env2, the wake variants and autogptp-substitution are left out to
#: keep the table small; saycan-101 has no goals: saycan-101-judged is its judged form)
DATASETS: tuple[str, ...] = ("autogptp-saycan", "saycan-101-judged", "autogptp-plan-tool", "autogptp-scenarios",
                             "cowp", "progprompt-test_unseen", "eai-virtualhome", "wake-vh", "franka-tabletop",
                             "wake-lfo", "llmp")

ROWS: tuple[Row, ...] = (
    Row("AutoGPT+P", "autogpt_p", "embedded", "embedded"),
    Row("AutoGPT+P, GPT-4 recorded", "autogpt_p", "autogptp-replay:gpt-4", "replay"),
    Row("goalsearch", "goalsearch", "embedded", "embedded"),
    Row("SayCan", "saycan", "embedded", "embedded"),
    Row("SayCan, oracle scorer", "saycan_oracle", "none", "oracle"),
    Row("Inner Monologue", "inner_monologue", "embedded", "embedded"),
    Row("Inner Monologue, scripted oracle", "inner_monologue_oracle", "none", "oracle"),
    Row("BrainBody-LLM", "brainbody", "embedded", "embedded"),
    Row("BrainBody-LLM, oracle Brain+Body", "brainbody_oracle", "none", "oracle"),
    Row("Base-LLM", "base_llm", "embedded", "embedded"),
    Row("ProgPrompt", "progprompt", "embedded", "embedded"),
    Row("COWP", "cowp", "embedded", "embedded"),
    Row("COWP, GPT-3 recorded", "cowp_gpt3", "none", "replay"),
    Row("COWP, oracle", "cowp_oracle", "none", "oracle"),
    Row("COWP Inner Monologue-style", "cowp_im", "embedded", "embedded"),
    Row("Wake et al.", "wake_prompts", "embedded", "embedded"),
    Row("LLM+P", "llm_p", "embedded", "embedded"),
    Row("LLM+P, oracle", "llm_p_oracle", "none", "oracle"),
    Row("planner on the gold goal (oracle)", "oracle", "none", "oracle"),
)

HOUSEHOLD = ("autogptp-saycan", "saycan-101-judged", "autogptp-plan-tool", "autogptp-scenarios")
VH = ("progprompt-test_unseen", "eai-virtualhome", "wake-vh")
NATIVE = {
    "autogpt_p": ("autogptp-saycan", "autogptp-plan-tool", "autogptp-scenarios"),
    "saycan": ("saycan-101-judged",), "saycan_oracle": ("saycan-101-judged",),
    "brainbody": ("progprompt-test_unseen", "franka-tabletop"),
    "brainbody_oracle": ("progprompt-test_unseen", "franka-tabletop"),
    "base_llm": ("progprompt-test_unseen", "franka-tabletop"), "progprompt": ("progprompt-test_unseen",),
    "cowp": ("cowp",), "cowp_gpt3": ("cowp",), "cowp_oracle": ("cowp",), "cowp_im": ("cowp",),
    "wake_prompts": ("wake-vh", "wake-lfo"), "llm_p": ("llmp",), "llm_p_oracle": ("llmp",),
}

_ADAPTERS: dict[tuple[str, str], Adapter] = {}
_NOT_ADAPTED: dict[tuple[str, str], str] = {}


def _adapt(method: str, dataset: str, how: str, prepare: Callable[[Task], Task] = _same, **config: Any) -> None:
    if (method, dataset) in _ADAPTERS:
        raise ValueError(f"adapter ({method}, {dataset}) written twice")
    native = dataset in NATIVE.get(method, ())
    _ADAPTERS[(method, dataset)] = Adapter(method, dataset, ("native: " if native else "") + how, prepare,
                                           MappingProxyType(dict(config)))


def _refuse(method: str, dataset: str, reason: str) -> None:
    _NOT_ADAPTED[(method, dataset)] = reason


# --- household skill set (AutoGPT+P's kitchens and scenarios): goal writers and SayCan
for _d in HOUSEHOLD:
    if _d != "saycan-101-judged":
        _adapt("autogpt_p", _d, "Plan tool / tool loop on the scene; success = gold goal after execution")
    _adapt("goalsearch", _d, "candidate goals over the scene, planned; gold goal after execution")
    _adapt("saycan", _d, "household actions described in words, scored x executor affordance; gold goal after "
           "execution")
    _adapt("saycan_oracle", _d, "SayCan's loop with the next step of a gold-goal plan as the scorer")
    _adapt("oracle", _d, "Fast Downward on the gold goal")
    _adapt("brainbody", _d, "Brain steps + Body commands over the household skill set's actions in the task's "
           "scene, K=3 executor feedback; gold goal after execution")
    _adapt("base_llm", _d, "one LLM writes the household commands (no Body, no feedback); gold goal after execution")
_adapt("autogpt_p", "saycan-101-judged", "the Plan tool on SayCan's own wording (AutoGPT+P's scene and gold goal)")
for _d in ("autogptp-saycan", "autogptp-plan-tool", "autogptp-scenarios"):
    _adapt("autogpt_p@replay", _d, "GPT-4's recorded answers from AutoGPT+P's evaluation logs, by task and round")
_refuse("autogpt_p@replay", "saycan-101-judged", "AutoGPT+P's logs hold GPT-4's answers to AutoGPT+P's rewording "
        "of these instructions, not to SayCan's wording")

# --- VirtualHome: BrainBody-LLM's environment (graph + executor + ProgPrompt / EAI scorers)
for _d in VH:
    _adapt("brainbody", _d, "Brain steps + Body commands in the VirtualHome graph, K=3 error feedback")
    _adapt("base_llm", _d, "one LLM writes the commands (no Body, no feedback)")
    _adapt("progprompt", _d, "pythonic program over the graph's classes, executed step by step")
    _adapt("inner_monologue", _d, "next command from the LLM with success and scene feedback (BrainBody's VHEnv)")
    _adapt("wake_prompts", _d, "Wake et al.'s VirtualHome action set prompts on the task's graph")
    _adapt("goalsearch", _d, "candidate goals over the VirtualHome domain, planned by Fast Downward")
    _adapt("oracle", _d, "Fast Downward on the VirtualHome gold goal")
for _d in ("progprompt-test_unseen", "eai-virtualhome"):
    _adapt("brainbody_oracle", _d, "gold steps and gold commands through the Brain/Body loop")
    _adapt("inner_monologue_oracle", _d, "the task's gold commands answered in order")
_refuse("brainbody_oracle", "wake-vh", "Wake et al.'s tasks have reference steps but no gold VirtualHome script")
_refuse("inner_monologue_oracle", "wake-vh", "Wake et al.'s tasks have no gold VirtualHome script to answer")

# --- the Franka tabletop (BrainBody-LLM Table 4)
_adapt("brainbody", "franka-tabletop", "Brain + Body with the tabletop controller's errors")
_adapt("brainbody_oracle", "franka-tabletop", "the gold tabletop plan through the loop")
_adapt("base_llm", "franka-tabletop", "one LLM writes the tabletop commands")

# --- COWP's dining world with situations
for _m in ("cowp", "cowp_gpt3", "cowp_oracle", "cowp_im"):
    _adapt(_m, "cowp", "COWP's trials with execution-time situations")
_adapt("oracle", "cowp", "Fast Downward on the dining goal (no situation handling)")
_adapt("goalsearch", "cowp", "candidate goals over the dining domain, planned (no situation handling)")

# --- Wake et al.'s learning-from-observation scenes, LLM+P's PDDL problems
_adapt("wake_prompts", "wake-lfo", "the six-turn conversation on the lfo scenes")
_adapt("oracle", "wake-lfo", "Fast Downward on the lfo step goals")
_adapt("goalsearch", "wake-lfo", "candidate goals over the lfo domain")
_adapt("llm_p", "llmp", "the LLM writes the PDDL problem from its description, Fast Downward solves it")
_adapt("llm_p_oracle", "llmp", "the gold problem file through the same planner and validation")

# --- reasons for pairs the methods' own refusals do not explain
_OWN_SKILLS = {
    "autogpt_p": "AutoGPT+P's prompts and goal grammar are written for the household affordance domain",
    "goalsearch": "goalsearch's candidate goals and phrases are written for scene-and-skill-set domains",
    "saycan": "SayCan's skill descriptions (prompts/saycan/skills.yaml) exist for the household skill set only",
    "cowp": "COWP's monitor needs situations and the acceptability data of its dining tasks",
}
for _m in ("cowp", "cowp_gpt3", "cowp_oracle", "cowp_im"):
    for _d in DATASETS:
        if _d != "cowp":
            _refuse(_m, _d, "COWP's monitor and baselines run on its dining world: situations, acceptable "
                    "objects and action sentences exist only for COWP's six tasks")
for _d in DATASETS:
    if _d != "llmp":
        _refuse("llm_p", _d, "LLM+P needs a PDDL domain file and a natural-language problem description with an "
                "in-context example of the same domain (the llmp set)")
        _refuse("llm_p_oracle", _d, "LLM+P's oracle solves the gold PDDL problem file of the llmp set")
for _d in ("llmp",):
    for _m in ("autogpt_p", "goalsearch", "saycan", "saycan_oracle", "oracle", "inner_monologue",
               "inner_monologue_oracle", "brainbody", "brainbody_oracle", "base_llm", "progprompt", "wake_prompts"):
        _refuse(_m, _d, "the llmp rows are bare PDDL problems (no scene, no skill set) for LLM+P")
for _d in ("franka-tabletop",):
    for _m in ("goalsearch", "oracle"):
        _refuse(_m, _d, "the tabletop tasks are judged by per-task checkers, not a goal formula")
for _m in ("saycan", "saycan_oracle"):
    for _d in VH + ("cowp", "wake-lfo", "franka-tabletop"):
        _refuse(_m, _d, _OWN_SKILLS["saycan"] + " (no descriptions for this skill set were written)")

ADAPTERS: Mapping[tuple[str, str], Adapter] = MappingProxyType(_ADAPTERS)
NOT_ADAPTED: Mapping[tuple[str, str], str] = MappingProxyType(_NOT_ADAPTED)


def adapter_key(row: Row) -> str:
    return f"{row.method}@replay" if row.kind == "replay" and row.method == "autogpt_p" else row.method


def cell(row: Row, dataset: str, sample: Optional[Task] = None) -> Cell:
    """The adapter for ``row`` on ``dataset``, or why there is none. ``sample``: one of the
    dataset's tasks, to ask the method's own ``supports`` (its refusal wins over an adapter)."""
    from groundplan.methods import method_class

    key = adapter_key(row)
    cls = method_class(row.method)
    own = cls.supports(sample) if sample is not None else None
    a = _ADAPTERS.get((key, dataset))
    if a is not None:
        if sample is not None:
            own = cls.supports(a.prepare(sample))
        return Refusal(row.method, dataset, own) if own else a
    reason = own or _NOT_ADAPTED.get((key, dataset)) or _NOT_ADAPTED.get((row.method, dataset))
    return Refusal(row.method, dataset, reason or "no adapter written for this pair")


__all__ = ["Adapter", "Refusal", "Row", "Cell", "ROWS", "DATASETS", "ADAPTERS", "NOT_ADAPTED", "cell", "adapter_key"]
