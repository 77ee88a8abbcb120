"""Benchmark harness: tasks, dataset loaders, runner, results store, metrics, reports."""
