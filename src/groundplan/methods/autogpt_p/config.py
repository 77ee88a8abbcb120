"""AutoGPT+P's settings, with the values the paper's evaluation used (read from its logs)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

from groundplan.core.config import config_from
from groundplan.errors import ConfigError

GOAL_MODES = ("auto", "free", "constrained")
ALTERNATIVE_MODES = ("affordance", "naive")


@dataclass(frozen=True)
class AutoGPTPConfig:
    #: Alg. 3 with the error message fed back; off: one goal, no correction round
    self_correction: bool = True
    #: Plan-tool rounds in the Plan-tool evaluation (the logs show up to 10 answers per case)
    max_rounds: int = 10
    #: Plan-tool rounds inside the tool-selection loop (the loop logs show at most 5)
    max_rounds_in_loop: int = 5
    #: tool selections per episode (Alg. 1; the loop logs stop after 10)
    max_tool_calls: int = 10
    #: Suggest Alternative: Alg. 2 ("affordance") or the paper's naive baseline
    alternative: str = "affordance"
    #: "free": the LLM answers in text and the goal is extracted (the original); "constrained":
    #: a grammar of the scene's goals / tools / objects (small local models); "auto":
    #: constrained wherever the grammar reaches the decoder (``LLM.supports_grammar``: embedded,
    #: llama.cpp and vLLM servers, transcripts recorded with grammars), free otherwise
    goal_mode: str = "auto"
    #: semantic conditions of Alg. 4: "original" (the six conditions the original's logs show,
    #: ``autogpt_p/data/semantic_conditions.yaml``) or "skillset" (the skill set's own)
    semantic_conditions: str = "original"
    #: the original's checker accepted the predicates marked "Do not use this predicate"
    allow_hidden_predicates: bool = True
    #: the original's Explore did not move the robot in its simulation (its plans after
    #: exploring start with a move; the Explore set's low "minimal" rate in Table VII comes
    #: from this); True moves the robot to the explored location
    explore_moves_robot: bool = False
    #: the loop logs: when the LLM answers FAILURE and the Partial Plan tool has not run yet in
    #: the episode (neither selected nor as this fallback), the original ran it on the request
    #: and went on; otherwise FAILURE ended the loop. Measured on the 103 FAILURE answers of
    #: its GPT-3/GPT-4 loop logs: this rule gives what followed in 94 (the rule "before any
    #: plan was executed" in 60). Off: FAILURE always ends the loop (Alg. 1)
    partial_plan_on_failure: bool = True
    #: planner timeout in the loop: retry with the partial-goal prompt this often (the original
    #: switched to partial-plan mode when its 120 s alarm fired)
    timeout_partial_retries: int = 2
    #: robot name shown in prompts (the logs show the anonymised name)
    robot_name: str = "HIDDEN_FOR_REVIEW"
    #: the example line of the goal prompt, as the logs show it
    goal_example: str = "Example: Bring me a banana -> (goal: and(inhand banana human))"
    #: free answers: tokens per answer
    max_tokens: int = 700
    #: object-affordance map to use instead of the task's (a path, or several joined by the
    #: OS path separator). The paper's Suggest Alternative evaluation used the ground-truth
    #: labels of its 70 test classes (``simulation_classes_ground_truth_.json``; its logs list
    #: their affordances in that file's order), its loop runs the GPT-4 map
    oam_file: Optional[str] = None
    #: context window of the model (tokens) used to trim long conversations; None: read
    #: it from the backend when it has one (embedded), else no trimming
    context_tokens: Optional[int] = None

    def __post_init__(self) -> None:
        if self.goal_mode not in GOAL_MODES:
            raise ConfigError(f"autogpt_p: goal_mode must be one of {', '.join(GOAL_MODES)}, not '{self.goal_mode}'")
        if self.alternative not in ALTERNATIVE_MODES:
            raise ConfigError(f"autogpt_p: alternative must be one of {', '.join(ALTERNATIVE_MODES)}, "
                              f"not '{self.alternative}'")
        if self.semantic_conditions not in ("original", "skillset"):
            raise ConfigError(f"autogpt_p: semantic_conditions must be 'original' or 'skillset', "
                              f"not '{self.semantic_conditions}'")
        for name in ("max_rounds", "max_rounds_in_loop", "max_tool_calls"):
            if getattr(self, name) < 1:
                raise ConfigError(f"autogpt_p: {name} must be at least 1")

    def rounds(self, in_loop: bool) -> int:
        if not self.self_correction:
            return 1
        return self.max_rounds_in_loop if in_loop else self.max_rounds

    def updated(self, overrides: Mapping[str, Any]) -> "AutoGPTPConfig":
        """A copy with ``overrides`` (e.g. a run's settings); an unknown key or a bad value is a
        ConfigError naming it."""
        if not overrides:
            return self
        return config_from(AutoGPTPConfig, overrides, owner="autogpt_p", base=self)


__all__ = ["AutoGPTPConfig", "GOAL_MODES", "ALTERNATIVE_MODES"]
