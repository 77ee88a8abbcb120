"""Methods: one module per published algorithm (plus the oracle), registered by name.

    from groundplan.methods import get_method, RunContext
    episode = get_method("oracle").run(task, RunContext(planner=get_planner()))
"""

from groundplan.methods.base import (
    EMPTY_USAGE,
    EVENT_TYPES,
    RETRYABLE,
    Episode,
    EpisodeStatus,
    ExecutionScore,
    Method,
    RunContext,
    TraceRecorder,
    available_methods,
    execute_and_score,
    failed_episode,
    get_method,
    method_class,
    register_method,
)

__all__ = [
    "EMPTY_USAGE", "EVENT_TYPES", "RETRYABLE", "Episode", "EpisodeStatus", "ExecutionScore", "Method", "RunContext",
    "TraceRecorder", "available_methods", "execute_and_score", "failed_episode", "get_method", "method_class",
    "register_method",
]
