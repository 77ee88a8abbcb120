"""Executor: applies ground actions by interpreting the skill set's schemas; goal metrics."""

from groundplan.sim.executor import ExecutionTrace, Executor, StepResult, execute_plan

__all__ = ["ExecutionTrace", "Executor", "StepResult", "execute_plan"]
