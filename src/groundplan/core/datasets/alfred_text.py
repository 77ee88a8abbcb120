"""RobLM's text format (Sec. 3.5): ``Goal [<SEP> Context] <BOS> Plan <EOS>`` with plans written
``Action0(arg0[,arg1]); Action1(arg0[,arg1]); ...`` over class names, and a plan parser that
tolerates malformed model output (missing separators, stray text, unbalanced parentheses,
unknown actions).

Below ``methods`` and ``bench``: the ALFRED-style dataset (``bench/datasets/alfred.py``) writes
its gold plans in it, RobLM (``methods/roblm``) reads and generates it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

SEP, BOS, EOS = "<SEP>", "<BOS>", "<EOS>"
SPECIAL_TOKENS = (SEP, BOS, EOS)

#: ALFRED's eight high-level actions: text name -> skill-set capability
ACTIONS = {"GotoLocation": "gotolocation", "PickupObject": "pickupobject", "PutObject": "putobject",
           "CoolObject": "coolobject", "HeatObject": "heatobject", "CleanObject": "cleanobject",
           "SliceObject": "sliceobject", "ToggleObject": "toggleobject"}
CAPABILITY_TO_ACTION = {v: k for k, v in ACTIONS.items()}
_LOWER = {k.lower(): k for k in ACTIONS}


@dataclass(frozen=True)
class PlanStep:
    action: str  # ALFRED action name (GotoLocation ...)
    args: tuple[str, ...]  # class names

    def text(self) -> str:
        return f"{self.action}({','.join(self.args)})"


def plan_text(steps: list[PlanStep] | tuple[PlanStep, ...]) -> str:
    return " ".join(s.text() + ";" for s in steps)


@lru_cache(maxsize=4)
def _template(name: str) -> str:
    return resources.files("groundplan.prompts.roblm").joinpath(f"{name}.txt").read_text().strip()


def sample_text(goal: str, context: str | None, plan: str | None = None) -> str:
    """One training sample (``plan`` given) or a generation prompt (``plan`` None), from the
    templates in groundplan/prompts/roblm."""
    if context:
        head = _template("prompt_context").format(goal=goal.strip(), context=context.strip())
    else:
        head = _template("prompt_no_context").format(goal=goal.strip())
    if plan is None:
        return head
    return f"{head} {plan.strip()} {EOS}"


_STEP_RE = re.compile(r"([A-Za-z]+)\s*\(([^()]*)\)?")


def extract_plan(output: str) -> str:
    """The text between <BOS> and <EOS> (the whole output when they are missing)."""
    text = output
    if BOS in text:
        text = text.split(BOS, 1)[1]
    if EOS in text:
        text = text.split(EOS, 1)[0]
    return text


def parse_plan(output: str) -> tuple[list[PlanStep], list[str]]:
    """Plan steps from model output, and a list of problems met (malformed pieces that were
    skipped). Action names are matched case-insensitively; numbered forms ``0.GotoLocation(x)``
    and newline-separated steps are accepted."""
    text = extract_plan(output)
    steps: list[PlanStep] = []
    problems: list[str] = []
    for piece in re.split(r"[;\n]", text):
        piece = piece.strip()
        if not piece:
            continue
        m = _STEP_RE.search(piece)
        if not m:
            problems.append(f"not an action call: {piece[:40]!r}")
            continue
        name = _LOWER.get(m.group(1).lower())
        if name is None:
            problems.append(f"unknown action {m.group(1)!r}")
            continue
        args = tuple(a.strip().lower() for a in m.group(2).split(",") if a.strip())
        if not args:
            problems.append(f"{name} without arguments")
            continue
        steps.append(PlanStep(name, args))
    return steps, problems


__all__ = ["SEP", "BOS", "EOS", "SPECIAL_TOKENS", "ACTIONS", "CAPABILITY_TO_ACTION", "PlanStep", "plan_text", "sample_text",
           "extract_plan", "parse_plan"]
