"""The recorded GPT-3.5 outputs of Wake et al. (``unzipped/out_*`` in the original
repository, read from the data directory) judged by groundplan's executor with the same
checks the method uses: executability (every step runs in the ``virtualhome`` skill set)
and correctness (the reference program's changes hold afterwards).

Folders: ``out_task_planning_..._temp=2.0`` (Table II: 14 scenarios x 5 trials),
``..._highlevel`` (Table VI), ``..._variation`` (scenario 5's 10 paraphrases x 5 trials) and
``out_feedback_test_..._temp=0.0`` (Table III: one file per feedback round). Each file also
carries the original's own verdict (``was_execution_successful``, from VirtualHome's Unity
simulator), reported beside ours.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from groundplan.core.task import Task
from groundplan.errors import DatasetError
from groundplan.methods.wake_prompts import make_world
from groundplan.methods.wake_prompts.feedback import AutoFeedback
from groundplan.methods.wake_prompts.judge import execute_answer
from groundplan.methods.wake_prompts.prompts import PromptSet, original_prompts, original_root
from groundplan.methods.wake_prompts.session import read_answer
from groundplan.pddl.goal import parse_goal
from groundplan.world.wake_actions import VIRTUALHOME_ACTIONS

FOLDERS = {
    "task_planning": "out_task_planning_gpt-3.5-turbo-16k_temp=2.0",
    "highlevel": "out_task_planning_gpt-3.5-turbo-16k_temp=2.0_highlevel",
    "variation": "out_task_planning_gpt-3.5-turbo-16k_temp=2.0_variation",
    "feedback": "out_feedback_test_gpt-3.5-turbo-16k_temp=0.0",
}

#: the paper's reported tables (1 = success), scenario -> trials
PAPER_TABLE_II = {n: [1] * 5 if n in (5, 6, 8, 12, 13) else [0] * 5 for n in range(1, 15)}
PAPER_TABLE_VI = {1: [0, 1, 1, 0, 0], 2: [0] * 5, 3: [0] * 5, 4: [0] * 5, 5: [1] * 5, 6: [1] * 5, 7: [0] * 5,
                  8: [1] * 5, 9: [0] * 5, 10: [0] * 5, 11: [0] * 5, 12: [0, 1, 1, 0, 1], 13: [0, 1, 1, 0, 1],
                  14: [1] * 5}
PAPER_TABLE_III = {1: 1, 2: 1, 3: 3, 4: 1, 5: 0, 6: 0, 7: 1, 8: 0, 9: 1, 10: 2, 11: 1, 12: 0, 13: 0, 14: 1}


@dataclass(frozen=True)
class RecordedVerdict:
    scenario: int
    index: int  # trial (or feedback round)
    items: tuple[str, ...]
    executable: bool
    correct: Optional[bool]
    failed_step: Optional[str]
    reason: Optional[str]
    unsatisfied: tuple[str, ...]
    recorded_executable: Optional[bool]  # the original's was_execution_successful
    recorded_feedback: str
    problems: tuple[str, ...]
    #: what our automatic feedback system (Sec. III-C) says about this answer: (kind, message),
    #: ("", "") when it accepts the answer
    our_feedback: tuple[str, str] = ("", "")

    @property
    def success(self) -> bool:
        return self.executable and self.correct is not False


def unzipped_root(data: Optional[Path] = None) -> Path:
    return original_root(data) / "task_decomposition_virtualhome" / "unzipped"


def recorded_files(folder: str, scenario: int, data: Optional[Path] = None) -> list[Path]:
    d = unzipped_root(data) / FOLDERS[folder] / f"scenario_{scenario}"
    if not d.is_dir():
        raise DatasetError("recorded outputs not found", file=str(d))
    return sorted(d.glob("*.json"), key=lambda p: int(p.stem))


def judge_text(task: Task, text: str, index: int = 0, *, prompts: Optional[PromptSet] = None) -> RecordedVerdict:
    """One recorded answer for ``task`` judged from the task's initial state."""
    ps = prompts or original_prompts("virtualhome")
    world, aff = make_world(task)
    env = world.environment()
    answer = read_answer(text, env, VIRTUALHOME_ACTIONS, ps)
    j = execute_answer(world, VIRTUALHOME_ACTIONS, answer, goal=parse_goal(task.goal) if task.goal else None,
                       required=tuple(task.extras.get("required_actions") or ()))
    fb = AutoFeedback(world, VIRTUALHOME_ACTIONS, aff).check(answer, j)
    rec = answer.data or {}
    flag = rec.get("was_execution_successful")
    f = j.failed
    return RecordedVerdict(int(task.extras.get("scenario", 0)), index, j.items, j.executable, j.correct,
                           f.item if f else None, f.reason if f else None,
                           tuple(j.goal.unsatisfied) if j.goal else (), None if flag is None else bool(flag),
                           str(rec.get("user_feedback") or ""), answer.problems,
                           (fb.kind, fb.text) if fb is not None else ("", ""))


#: the recorded feedback messages of the original's automatic feedback system, by what they
#: point at (first matching phrase), and our feedback kinds (feedback.yaml) in the same classes
RECORDED_FEEDBACK_CLASSES = (
    ("failed in a simulator", "simulator failure"),
    ("open and close", "omitted open/close"),
    ("Before you turn on the switch", "switch before putting inside"),
    ("turn on the switch in the end", "switch not turned on"),
)
OUR_FEEDBACK_CLASSES = {
    "step_failed": "simulator failure", "unknown_verb": "simulator failure", "unknown_entity": "simulator failure",
    "put_into_container": "verb selection", "putin_not_container": "verb selection",
    "open_before_putin": "omitted open/close", "close_after_putin": "omitted open/close",
    "switch_after_putin": "switch before putting inside", "switch_on_missing": "switch not turned on",
    "goal_missing": "goal not reached", "required_action": "goal not reached",
}


def recorded_feedback_class(text: str) -> str:
    for phrase, cls in RECORDED_FEEDBACK_CLASSES:
        if phrase.lower() in text.lower():
            return cls
    return "other" if text.strip() else ""


def our_feedback_class(kind: str) -> str:
    return OUR_FEEDBACK_CLASSES.get(kind, "other" if kind else "")


def judge_folder(folder: str, tasks: Iterable[Task], *, by: str = "scenario",
                 data: Optional[Path] = None) -> dict[int, list[RecordedVerdict]]:
    """Every recorded file of a folder, per scenario (``by="paraphrase"`` for the
    variation folder, whose scenario_N holds paraphrase N of scenario 5)."""
    ps = original_prompts("virtualhome", data)
    out: dict[int, list[RecordedVerdict]] = {}
    for t in tasks:
        key = int(t.id[1:]) if by == "paraphrase" else int(t.extras["scenario"])
        if by == "paraphrase" and key == 0:
            continue
        out[key] = [judge_text(t, p.read_text(), int(p.stem), prompts=ps) for p in recorded_files(folder, key, data)]
    return out


def rounds_to_success(verdicts: list[RecordedVerdict]) -> Optional[int]:
    """Feedback rounds before the first successful answer (None: never)."""
    for v in verdicts:
        if v.success:
            return v.index
    return None


__all__ = ["RecordedVerdict", "recorded_feedback_class", "our_feedback_class", "judge_text", "judge_folder", "recorded_files", "rounds_to_success", "FOLDERS",
           "PAPER_TABLE_II", "PAPER_TABLE_III", "PAPER_TABLE_VI", "unzipped_root"]
