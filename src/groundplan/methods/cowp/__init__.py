"""COWP (Ding et al., "Integrating Action Knowledge and LLMs for Task Planning and Situation
Handling in Open Worlds"): open-world planning with a plan monitor and a knowledge acquirer,
its situation simulator, and the paper's baselines.

Registered methods: ``cowp``, ``cowp_gpt3`` (GPT-3's logged answers), ``cowp_oracle``
(acceptability table), ``cowp_cw`` (closed world), ``cowp_ek`` (external knowledge),
``cowp_lmzsp`` (LM zero-shot planner), ``cowp_progprompt`` (ProgPrompt-style),
``cowp_im`` (Inner Monologue-style)."""

from groundplan.methods.cowp import (  # noqa: F401  (each module registers its methods)
    closed_world,
    cowp,
    external_knowledge,
    inner_monologue,
    lmzsp,
    progprompt,
)
