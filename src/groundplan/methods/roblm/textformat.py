"""RobLM's text format: moved to ``groundplan.core.datasets.alfred_text`` (the ALFRED-style
dataset writes it too, and datasets do not import method internals); re-exported here so old
imports keep working."""

from groundplan.core.datasets.alfred_text import (
    ACTIONS,
    BOS,
    CAPABILITY_TO_ACTION,
    EOS,
    SEP,
    SPECIAL_TOKENS,
    PlanStep,
    extract_plan,
    parse_plan,
    plan_text,
    sample_text,
)

__all__ = ["SEP", "BOS", "EOS", "SPECIAL_TOKENS", "ACTIONS", "CAPABILITY_TO_ACTION", "PlanStep", "plan_text", "sample_text",
           "extract_plan", "parse_plan"]
