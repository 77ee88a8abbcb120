"""AutoGPT+P's recorded planning logs (autogpt_p/logs/planning/*.log): one case per
"NEW CASE" block with Task, Generated Goal, Desired Goal, Goal Reached and Costs. Each case
is matched to its dataset row (and so its scene) by task text and occurrence order."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from groundplan.bench.datasets.autogpt_p import plan_tool_tasks, saycan_tasks
from groundplan.core.task import Task
from groundplan.datadir import autogpt_p_root

_LOG_RE = re.compile(r"planning_(gpt_\d)_(on|off)_(saycan_saycan|simulation)_(.+)\.log$")
SAYCAN_FAMILY = {"nl_primitive": "saycan_a_nl_primitive", "nl_verb": "saycan_b_nl_verb",
                 "nl_noun": "saycan_c_nl_noun", "structured_language": "saycan_d_structured_language",
                 "embodiment": "saycan_e_embodiment", "crowd_sourced": "saycan_f_crowd_sourced",
                 "long_horizon": "saycan_g_long_horizon", "drawer": "saycan_x_drawer"}


@dataclass(frozen=True)
class LoggedCase:
    log: str
    index: int  # case number within the log
    model: str
    correction: str  # on / off
    subset: str
    task_text: str
    generated_goal: Optional[str]  # None when the LLM gave no parseable goal
    desired_goal: str
    reached: Optional[bool]  # None: the entry was cut off before its verdict
    cost: Optional[float]
    task: Optional[Task]  # the matched dataset row


def _field(block: str, name: str) -> Optional[str]:
    m = re.search(rf"^{re.escape(name)}:[ \t]*(.*)$", block, re.MULTILINE)
    return m.group(1).strip() if m else None


def load_logged_cases(root: Path | None = None) -> list[LoggedCase]:
    root = root or autogpt_p_root()
    logdir = root / "autogpt_p" / "logs" / "planning"
    by_subset: dict[str, list[Task]] = {}
    for t in saycan_tasks(root) + plan_tool_tasks(root):
        by_subset.setdefault(t.subset, []).append(t)
    cases: list[LoggedCase] = []
    for path in sorted(logdir.glob("planning_*.log")):
        m = _LOG_RE.search(path.name)
        if not m:
            continue
        model, corr, kind, sub = m.groups()
        subset = SAYCAN_FAMILY.get(sub, sub) if kind == "saycan_saycan" else sub
        rows = by_subset.get(subset, [])
        seen: dict[str, int] = {}
        text = path.read_text(errors="replace")
        for i, block in enumerate(text.split("NEW CASE")[1:]):
            task_text = _field(block, "Task")
            if task_text is None:
                continue
            gen = _field(block, "Generated Goal")
            desired = _field(block, "Desired Goal") or ""
            reached_s = _field(block, "Goal Reached")
            cost_s = _field(block, "Costs are")
            cost = None
            if cost_s:
                cm = re.match(r"([0-9.]+)", cost_s)
                cost = float(cm.group(1)) if cm else None
            matches = [t for t in rows if t.instruction.strip() == task_text.strip()]
            k = seen.get(task_text, 0)
            seen[task_text] = k + 1
            task = matches[k % len(matches)] if matches else None
            cases.append(LoggedCase(path.name, i, model, corr, subset, task_text,
                                    None if gen in (None, "None", "") else gen, desired,
                                    None if reached_s is None else reached_s == "True", cost, task))
    return cases
