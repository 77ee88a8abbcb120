"""The core records every method and benchmark shares: tasks, episodes, traces, verdicts,
metrics (below ``methods``, above ``llm``)."""
