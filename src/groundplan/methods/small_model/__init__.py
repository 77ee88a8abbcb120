"""Small-model planning (issue 10): the ``goalsearch`` method. An offline 135M model plans
by structure rather than size: candidate goals enumerated from the domain and scene, scored
by sentence embeddings, a retrieved example pool and the model's log-probabilities, with
decomposition of multi-part instructions and the plan tool's self-correction."""

from groundplan.methods.small_model.method import GoalSearch
from groundplan.methods.small_model.search import GoalCandidate, GoalSearcher, SearchOptions, SearchResult

__all__ = ["GoalCandidate", "GoalSearch", "GoalSearcher", "SearchOptions", "SearchResult"]
