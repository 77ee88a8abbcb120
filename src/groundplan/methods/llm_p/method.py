"""LLM+P: prompt -> the LLM's PDDL problem -> checked -> Fast Downward -> plan validated on
the gold problem. See the package docstring."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from groundplan.core.metrics import step_metrics
from groundplan.core.task import Task
from groundplan.errors import GroundplanError, PDDLSyntaxError
from groundplan.methods.base import (
    Attempt,
    Episode,
    EpisodeRecorder,
    EpisodeStatus,
    Method,
    RunContext,
    TraceRecorder,
    failed_episode,
    register_method,
)
from groundplan.pddl.parser import PDDLTask, check_task
from groundplan.planners.base import PlanStatus
from groundplan.prompts.llm_p import load
from groundplan.sim.pddl_task import validate_plan

#: the file name the generated problem is reported under in error messages
ANSWER_FILE = "<LLM answer>"
DEFAULT_MAX_TOKENS = 2048

_PLANNER_STATUS = {
    PlanStatus.UNSOLVABLE: EpisodeStatus.UNSOLVABLE,
    PlanStatus.TIMEOUT: EpisodeStatus.TIMEOUT,
    PlanStatus.INVALID: EpisodeStatus.NO_PLAN,
    PlanStatus.ERROR: EpisodeStatus.ERROR,
}


@dataclass(frozen=True)
class LLMPInputs:
    domain_file: str
    domain_text: str
    gold: PDDLTask  # the gold domain + problem, checked
    gold_text: str
    description: str
    example_description: str
    example_problem: str
    domain_description: str


def _read(path: str, what: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise GroundplanError(f"{path}: cannot read the {what}: {exc.strerror}") from None


def task_inputs(task: Task) -> LLMPInputs:
    ex = task.extras
    domain_file, problem_file = ex["domain_file"], ex["problem_file"]
    domain_text = _read(domain_file, "domain")
    gold_text = _read(problem_file, "gold problem")
    gold = check_task(domain_text, gold_text, domain_file=domain_file, problem_file=problem_file)
    return LLMPInputs(domain_file, domain_text, gold, gold_text, task.instruction.strip(),
                      _read(ex["example_nl_file"], "example description").strip() if ex.get("example_nl_file") else "",
                      _read(ex["example_problem_file"], "example problem").strip()
                      if ex.get("example_problem_file") else "",
                      _read(ex["domain_nl_file"], "domain description").strip() if ex.get("domain_nl_file") else "")


def render_prompt(inputs: LLMPInputs, *, with_context: bool) -> str:
    """The paper's prompt (``ic_pddl.txt``), or its no-context ablation (``pddl.txt``)."""
    if with_context:
        return load("ic_pddl.txt").substitute(example_description=inputs.example_description,
                                              example_problem=inputs.example_problem,
                                              description=inputs.description)
    return load("pddl.txt").substitute(domain_description=inputs.domain_description, description=inputs.description)


_DEFINE = re.compile(r"\(\s*define\b", re.IGNORECASE)


def extract_problem(text: str) -> Optional[str]:
    """The first ``(define ...)`` form of an answer (code fences and chatter around it
    ignored); cut at its matching parenthesis, or the rest of the answer when it never
    closes (the parser then names the unclosed line). None if there is none."""
    m = _DEFINE.search(text or "")
    if m is None:
        return None
    depth = 0
    i = m.start()
    while i < len(text):
        c = text[i]
        if c == ";":  # a comment runs to the end of the line
            j = text.find("\n", i)
            if j < 0:
                break
            i = j
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return text[m.start():i + 1]
        i += 1
    return text[m.start():]


def task_planner(ctx: RunContext):
    """The run's planner as configured for PDDL tasks (groundplan.sim.pddl_task.file_planner:
    no household object pruning, A* then lama-first), under the run's time bound."""
    if ctx.planner is None:
        return None
    from groundplan.sim.pddl_task import file_planner

    base = ctx.planner
    while hasattr(base, "inner"):  # the runner's wrappers (object pruning, isolation)
        base = base.inner
    return file_planner(getattr(base, "name", None), ctx.planner_timeout)


def solve_and_judge(inputs: LLMPInputs, answer: str, task: Task, ctx: RunContext, rec: TraceRecorder, *,
                    extra_metrics: Optional[dict[str, Any]] = None, planner=None) -> Attempt:
    """The rest of LLM+P once the LLM has answered: extract and check the problem, plan it
    with the domain (``planner``, default :func:`task_planner`), validate the plan on the
    gold problem (the outcome is judged here: the gold problem is the check)."""
    planner = planner if planner is not None else task_planner(ctx)
    metrics: dict[str, Any] = {"checked": True, "problem_parsed": False, "planned": False, "valid_on_gold": False,
                               "gcr": 0.0, **(extra_metrics or {})}

    def done(status: EpisodeStatus, error: Optional[str], plan: tuple[str, ...] = (), goal: Optional[str] = None):
        ok = status == EpisodeStatus.SUCCESS
        rec.event("result", success=ok, status=status.value, error=error)
        return Attempt(goal=goal, plan=plan, status=status.value, success=ok, metrics=metrics, error=error)

    problem_text = extract_problem(answer)
    if problem_text is None:
        return done(EpisodeStatus.NO_PLAN, "the answer contains no (define (problem ...)) form")
    metrics["problem_chars"] = len(problem_text)
    # padded with the answer's lines before it, so error lines count in the whole answer
    padded = "\n" * answer[:answer.find(problem_text)].count("\n") + problem_text
    try:
        generated = check_task(inputs.domain_text, padded, domain_file=inputs.domain_file,
                               problem_file=ANSWER_FILE)
    except PDDLSyntaxError as exc:
        return done(EpisodeStatus.NO_PLAN, f"the generated problem is not valid for the domain: {exc}")
    metrics["problem_parsed"] = True
    goal = generated.problem.goal.pddl() if generated.problem.goal is not None else None
    rec.event("goal", text=goal, source="generated problem", objects=len(generated.problem.objects),
              init=len(generated.problem.init), warnings=generated.warnings)
    if planner is None:
        return done(EpisodeStatus.ERROR, "no planner in the run context", goal=goal)
    res = planner.plan(generated.domain, generated.problem, timeout=ctx.planner_timeout)
    rec.event("plan", status=res.status.value, steps=res.plan, cost=res.cost, seconds=round(res.seconds, 4),
              error=res.error)
    metrics["planner_seconds"] = round(res.seconds, 4)
    if res.status != PlanStatus.SOLVED:
        status = _PLANNER_STATUS.get(res.status, EpisodeStatus.ERROR)
        return done(status, f"planning the generated problem: {res.status.value}: {res.error or ''}".rstrip(": "),
                    goal=goal)
    metrics["planned"] = True
    val = validate_plan(inputs.gold.domain, inputs.gold.problem, res.plan)
    metrics.update(valid_on_gold=val.valid, cost=val.cost, plan_steps=len(res.plan),
                   **step_metrics(val.executed, val.planned, val.valid, val.gcr))
    rec.event("check", against="gold problem", success=val.valid, gcr=val.gcr, reason=val.message(),
              unsatisfied=val.unsatisfied)
    if val.valid:
        return done(EpisodeStatus.SUCCESS, None, res.plan, goal)
    return done(EpisodeStatus.FAILURE, f"on the gold problem: {val.message()}", res.plan, goal)


@dataclass(frozen=True)
class LLMPConfig:
    """LLM+P's settings (checked up front by ``Method.configure``)."""

    #: the answer budget (default: about 1.5x the domain's example problem, at most DEFAULT_MAX_TOKENS)
    max_tokens: Optional[int] = None
    temperature: float = 0.0


class _LLMPBase(Method):
    prompt_package = "groundplan.prompts.llm_p"
    config_class = LLMPConfig
    with_context = True
    skillsets = frozenset({"pddl"})
    needs_extras = ("domain_file", "problem_file")
    requirement = "LLM+P writes the PDDL problem of a given PDDL domain, judged on its gold problem (the llmp dataset)"

    @classmethod
    def supports(cls, task: Task) -> Optional[str]:
        why = super().supports(task)
        if why is None and cls.with_context and not (task.extras or {}).get("example_problem_file"):
            why = (f"method '{cls.name}' needs an in-context example (extras example_nl_file and "
                   "example_problem_file)")
        return why

    def refused(self, task: Task, ctx: RunContext) -> Optional[Episode]:
        """The refusal in LLM+P's words for a task without its PDDL inputs."""
        if not (task.extras.get("domain_file") and task.extras.get("problem_file")):
            return failed_episode(task, self.name, EpisodeStatus.UNSUPPORTED,
                                  "LLM+P needs a PDDL domain and a gold problem (task extras domain_file and "
                                  "problem_file, as in the llmp dataset)", seed=ctx.seed)
        return super().refused(task, ctx)

    def _run(self, task: Task, ctx: RunContext, cfg: LLMPConfig, rec: EpisodeRecorder, pt: None) -> Attempt:
        inputs = task_inputs(task)
        answer = self._answer(inputs, ctx, rec, rec.usage)
        return solve_and_judge(inputs, answer, task, ctx, rec)

    def _max_tokens(self, inputs: LLMPInputs, cfg: dict) -> int:
        """The answer budget: configured, else about 1.5x the tokens of the domain's example
        problem (~3 characters a token; used as a length only, also when the prompt does not
        show it), else DEFAULT_MAX_TOKENS."""
        if "max_tokens" in cfg:
            return int(cfg["max_tokens"])
        if inputs.example_problem:
            return min(DEFAULT_MAX_TOKENS, len(inputs.example_problem) // 2 + 256)
        return DEFAULT_MAX_TOKENS

    def _answer(self, inputs: LLMPInputs, ctx: RunContext, rec: TraceRecorder, meter) -> str:
        cfg = dict(ctx.config or {})
        prompt = render_prompt(inputs, with_context=self.with_context)
        c = ctx.llm.chat(prompt, max_tokens=self._max_tokens(inputs, cfg),
                         temperature=float(cfg.get("temperature", 0.0)), seed=ctx.seed, usage=meter)
        rec.llm_call("problem", prompt, c)
        return c.text


@register_method("llm_p")
class LLMP(_LLMPBase):
    description = "LLM+P: the LLM writes the PDDL problem (one in-context example), Fast Downward plans it"


@register_method("llm_p_noctx")
class LLMPNoContext(_LLMPBase):
    description = "LLM+P without the in-context example (the paper's ablation)"
    with_context = False


@register_method("llm_p_gbnf")
class LLMPGrammar(_LLMPBase):
    description = ("LLM+P with grammar-constrained decoding: the answer is a well-formed PDDL problem over the "
                   "domain's predicates and types (ends when the problem closes)")

    def _answer(self, inputs: LLMPInputs, ctx: RunContext, rec: TraceRecorder, meter) -> str:
        from groundplan.methods.llm_p.grammar import problem_grammar

        cfg = dict(ctx.config or {})
        prompt = render_prompt(inputs, with_context=True)
        # not validated against the grammar here: an answer cut off by max_tokens is judged by
        # the PDDL checks like any other (unbalanced parenthesis on its last line)
        c = ctx.llm.constrained(prompt, grammar=problem_grammar(inputs.gold.domain),
                                max_tokens=int(cfg.get("max_tokens", DEFAULT_MAX_TOKENS)),
                                temperature=float(cfg.get("temperature", 0.0)), seed=ctx.seed, validate=False,
                                usage=meter)
        rec.llm_call("problem", prompt, c)
        return c.text


@register_method("llm_p_oracle")
class LLMPOracle(_LLMPBase):
    description = "LLM+P with the gold problem as the answer (no LLM): the pipeline's ceiling"
    needs_llm = False
    with_context = False

    def _answer(self, inputs: LLMPInputs, ctx: RunContext, rec: TraceRecorder, meter) -> str:
        rec.event("note", text="oracle: the gold problem is the answer")
        return inputs.gold_text


__all__ = ["LLMP", "LLMPNoContext", "LLMPGrammar", "LLMPOracle", "LLMPInputs", "task_inputs", "render_prompt", "extract_problem",
           "solve_and_judge", "task_planner", "ANSWER_FILE", "DEFAULT_MAX_TOKENS"]
