"""groundplan: grounded LLM task planning for robots.

Layers (lower never import higher): world, knowledge, pddl, skills, planners, sim,
llm, prompts, methods, bench, cli.
"""

__version__ = "0.1.0"
