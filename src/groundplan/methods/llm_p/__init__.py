"""LLM+P (Liu et al. 2023, "LLM+P: Empowering Large Language Models with Optimal Planning
Proficiency"): the LLM writes the PDDL problem for a natural-language description, a
classical planner (Fast Downward) solves it with the given domain, and the plan counts as a
success only when it is valid for the GOLD problem and reaches its goal (checked by
executing it there with groundplan's executor).

Methods:

- ``llm_p``: the paper's prompt, one in-context example of the same domain (its description
  and its PDDL problem), then the new description;
- ``llm_p_noctx``: the paper's "LLM+P w/o context" ablation, the domain's description and the
  new description, no example;
- ``llm_p_gbnf``: the paper's prompt, decoding constrained by a grammar of a PDDL problem
  over the domain's predicates, arities and types (groundplan's addition for small models);
- ``llm_p_oracle``: no LLM; the gold problem is the answer (the pipeline's ceiling).

Tasks need ``extras`` with ``domain_file`` and ``problem_file`` (the ``llmp`` dataset); any
other task is refused up front (status ``unsupported``)."""

from groundplan.methods.llm_p.method import (
    LLMP,
    LLMPGrammar,
    LLMPInputs,
    LLMPNoContext,
    LLMPOracle,
    extract_problem,
    render_prompt,
    solve_and_judge,
    task_inputs,
)

__all__ = ["LLMP", "LLMPGrammar", "LLMPNoContext", "LLMPOracle", "LLMPInputs", "extract_problem", "render_prompt",
           "solve_and_judge", "task_inputs"]
