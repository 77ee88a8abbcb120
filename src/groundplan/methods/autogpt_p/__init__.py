"""AutoGPT+P (Birr et al., "AutoGPT+P: Affordance-based Task Planning with Large Language
Models"): the Plan / Partial Plan tool with self-correction (Alg. 3, Alg. 4), Suggest
Alternative (Alg. 2), Explore and the tool-selection feedback loop (Alg. 1).

    from groundplan.methods import get_method, RunContext
    episode = get_method("autogpt_p").run(task, RunContext(llm=llm, planner=planner))

Modules: ``plan_tool`` (Alg. 3), ``alternative`` (Alg. 2), ``memory`` (M, Explore, the
simulated user), ``loop`` (Alg. 1), ``method`` (the registered methods), ``dialogue`` (LLM
I/O and grammars), ``prompting`` (templates in ``groundplan.prompts.autogpt_p``)."""

from groundplan.methods.autogpt_p.config import AutoGPTPConfig
from groundplan.methods.autogpt_p.method import (
    AutoGPTP,
    AutoGPTPBase,
    AutoGPTPNaiveAlternative,
    AutoGPTPNoCorrection,
    task_mode,
)

__all__ = ["AutoGPTPConfig", "AutoGPTP", "AutoGPTPBase", "AutoGPTPNoCorrection", "AutoGPTPNaiveAlternative",
           "task_mode"]
