"""LLM layer: the one way every method talks to a language model.

    from groundplan.llm import LLMConfig, build_llm, UsageMeter
    llm = build_llm(LLMConfig())                       # embedded SmolLM2, disk cache on
    meter = UsageMeter()
    answer = llm.chat("Hello", max_tokens=20, usage=meter)
    goal = llm.constrained(prompt, grammar=goal_grammar(domain, problem).gbnf)
    scores = llm.score("The capital of France is", [" Paris", " Rome"])
"""

from groundplan.llm.base import LLM, Backend, Wrapper, validate_json
from groundplan.llm.cache import CachedLLM, DiskCache
from groundplan.llm.config import LLMConfig, default_cache_dir
from groundplan.llm.embedded import EmbeddedLLM, bundled_model_path
from groundplan.llm.errors import (
    ConstraintViolationError,
    LLMAuthError,
    LLMConfigError,
    LLMConnectionError,
    LLMContextLengthError,
    LLMEndpointError,
    LLMError,
    LLMModelNotFoundError,
    LLMRateLimitError,
    LLMResponseError,
    LLMTimeoutError,
    LLMUnsupportedError,
    ReplayMissError,
    ScriptExhaustedError,
)
from groundplan.llm.factory import BACKENDS, build_llm, create_backend, register_backend, resolve_config
from groundplan.llm.gbnf import gbnf_matches, parse_gbnf
from groundplan.llm.goal import GoalProposal, propose_goal
from groundplan.llm.grammar import GoalGrammar, GoalGrammarOptions, goal_grammar, json_schema_grammar
from groundplan.llm.openai_compat import OpenAICompatLLM, RetryPolicy
from groundplan.llm.scripted import ScriptedLLM
from groundplan.llm.transcript import RecordingLLM, ReplayLLM, TranscriptWriter, read_transcript
from groundplan.llm.types import (
    ChatRequest,
    Completion,
    Constraint,
    GenerationParams,
    Message,
    ScoreRequest,
    ScoreResult,
    Usage,
    UsageMeter,
    UsageSummary,
)

__all__ = [
    "LLM", "Backend", "Wrapper", "validate_json", "CachedLLM", "DiskCache", "LLMConfig", "default_cache_dir",
    "EmbeddedLLM", "bundled_model_path", "OpenAICompatLLM", "RetryPolicy", "ScriptedLLM", "RecordingLLM",
    "ReplayLLM", "TranscriptWriter", "read_transcript", "BACKENDS", "resolve_config", "build_llm", "create_backend",
    "register_backend",
    "gbnf_matches", "parse_gbnf", "GoalProposal", "propose_goal", "GoalGrammar", "GoalGrammarOptions",
    "goal_grammar", "json_schema_grammar", "ChatRequest", "Completion", "Constraint", "GenerationParams",
    "Message", "ScoreRequest", "ScoreResult", "Usage", "UsageMeter", "UsageSummary",
    "LLMError", "LLMEndpointError", "LLMContextLengthError", "LLMConfigError", "LLMConnectionError",
    "LLMTimeoutError", "LLMAuthError", "LLMModelNotFoundError",
    "LLMResponseError", "LLMRateLimitError", "LLMUnsupportedError", "ReplayMissError", "ScriptExhaustedError",
    "ConstraintViolationError",
]
