"""The six-turn prompt of Wake et al. (Sec. II): five fixed turns (role, robot actions,
environment, output format, examples) and the instruction template (turn six), loaded
either from the project's templates (``groundplan.prompts.wake_prompts``) or from the
original repository's prompt files in the data directory (``source="original"``, for
fidelity runs; never copied into the project).

Turn files are written as ``[user]`` / ``[assistant]`` (and ``[system]``) sections, the
format both the original files and ours use."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Optional

from groundplan.datadir import data_dir
from groundplan.errors import ConfigError, DatasetError
from groundplan.llm.types import Message
from groundplan.schemas import yaml_lines as yaml_fast

PACKAGE = "groundplan.prompts.wake_prompts"
#: turn order of Sec. II (1-5), then the instruction template (6)
TURNS = ("role", "actions", "environment", "output_format", "examples")
#: original repository folders per action set
ORIGINAL_DIRS: Mapping[str, str] = {"lfo": "task_decomposition", "virtualhome": "task_decomposition_virtualhome"}
ORIGINAL_FILES: Mapping[str, str] = {"role": "prompt/prompt_role.txt", "actions": "prompt/prompt_function.txt",
                                     "environment": "prompt/prompt_environment.txt",
                                     "output_format": "prompt/prompt_output_format.txt",
                                     "examples": "prompt/prompt_example.txt"}
ORIGINAL_QUERY = "query/query.txt"
ORIGINAL_SYSTEM = "system/system.txt"
DATA_FOLDER = "microsoft-chatgpt-robot-manipulation-prompts/examples"

#: the five keys of Fig. 5, and the three the original VirtualHome prompts ask for
FULL_KEYS = ("task_cohesion", "environment_before", "environment_after", "instruction_summary", "question")
ORIGINAL_VH_KEYS = ("task_cohesion", "environment_after", "instruction_summary")

_SECTION = re.compile(r"^\[(system|user|assistant)\]\s*$", re.MULTILINE)


def parse_turns(text: str, *, file: str = "<prompt>") -> tuple[Message, ...]:
    """``[user]`` / ``[assistant]`` / ``[system]`` sections -> messages (text kept verbatim,
    the trailing newline of each section dropped)."""
    marks = list(_SECTION.finditer(text))
    if not marks:
        raise ConfigError(f"{file}: no [user] / [assistant] section")
    out = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        body = text[m.end():end]
        body = body[1:] if body.startswith("\n") else body
        out.append(Message(m.group(1), body.rstrip("\n")))  # type: ignore[arg-type]
    return tuple(out)


@dataclass(frozen=True)
class PromptSet:
    """Everything fixed about one conversation: system message, turns 1-5 as messages,
    the instruction template (``[ENVIRONMENT]`` / ``[INSTRUCTION]``), the answer keys the
    output format asks for, and whether the actions carry arguments."""

    name: str  # "project:lfo", "original:virtualhome", ...
    action_set: str
    system: Optional[str]
    turns: tuple[Message, ...]
    query_template: str
    keys: tuple[str, ...] = FULL_KEYS
    argless: bool = False  # the original LfO prompts write move_hand() without arguments
    source: str = "project"

    def query(self, environment: Mapping[str, Any], instruction: str) -> str:
        env = json.dumps(environment, ensure_ascii=False)
        return (self.query_template.replace("[ENVIRONMENT]", env)
                .replace("[INSTRUCTION]", json.dumps(instruction, ensure_ascii=False)))

    def fixed_messages(self) -> list[Message]:
        head = [Message("system", self.system)] if self.system else []
        return head + list(self.turns)


def _package_text(name: str) -> str:
    ref = resources.files(PACKAGE).joinpath(name)
    if not ref.is_file():
        raise ConfigError(f"prompt template '{name}' not found in {PACKAGE}")
    return ref.read_text(encoding="utf-8")


def project_prompts(action_set: str) -> PromptSet:
    if action_set not in ORIGINAL_DIRS:
        raise ConfigError(f"unknown action set '{action_set}' (lfo or virtualhome)")
    # the VirtualHome experiment (Sec. III-C) asks for three keys, the LfO prompts (Fig. 5) for five
    out_fmt = "output_format_virtualhome.txt" if action_set == "virtualhome" else "output_format.txt"
    files = {"role": "role.txt", "actions": f"actions_{action_set}.txt",
             "environment": f"environment_{action_set}.txt", "output_format": out_fmt,
             "examples": f"examples_{action_set}.txt"}
    turns: list[Message] = []
    for t in TURNS:
        turns.extend(parse_turns(_package_text(files[t]), file=files[t]))
    return PromptSet(f"project:{action_set}", action_set, _package_text("system.txt").strip(), tuple(turns),
                     _package_text(f"query_{action_set}.txt").rstrip("\n"),
                     ORIGINAL_VH_KEYS if action_set == "virtualhome" else FULL_KEYS, argless=False,
                     source="project")


def original_root(data: Optional[Path] = None) -> Path:
    return (data or data_dir()) / DATA_FOLDER


def original_prompts(action_set: str, data: Optional[Path] = None) -> PromptSet:
    """The original repository's prompt files for ``action_set`` (read at run time)."""
    if action_set not in ORIGINAL_DIRS:
        raise ConfigError(f"unknown action set '{action_set}' (lfo or virtualhome)")
    root = original_root(data) / ORIGINAL_DIRS[action_set]
    if not root.is_dir():
        raise DatasetError("the original Wake et al. prompt files are not in the data directory", file=str(root))
    turns: list[Message] = []
    for t in TURNS:
        p = root / ORIGINAL_FILES[t]
        if not p.is_file():
            raise DatasetError("prompt file missing", file=str(p))
        turns.extend(parse_turns(p.read_text(encoding="utf-8"), file=str(p)))
    system_file = root / ORIGINAL_SYSTEM
    system = system_file.read_text(encoding="utf-8").strip() if system_file.is_file() else None
    query = (root / ORIGINAL_QUERY).read_text(encoding="utf-8").rstrip("\n")
    keys = ORIGINAL_VH_KEYS if action_set == "virtualhome" else FULL_KEYS
    return PromptSet(f"original:{action_set}", action_set, system, tuple(turns), query, keys,
                     argless=action_set == "lfo", source="original")


def load_prompts(action_set: str, source: str = "project", data: Optional[Path] = None) -> PromptSet:
    if source == "project":
        return project_prompts(action_set)
    if source == "original":
        return original_prompts(action_set, data)
    raise ConfigError(f"unknown prompt source '{source}' (project or original)")


def feedback_templates() -> dict[str, str]:
    data = yaml_fast.safe_load(_package_text("feedback.yaml"))
    if not isinstance(data, dict):
        raise ConfigError("feedback.yaml: expected a mapping")
    return {str(k): str(v) for k, v in data.items()}


__all__ = ["PromptSet", "parse_turns", "project_prompts", "original_prompts", "load_prompts", "feedback_templates",
           "FULL_KEYS", "ORIGINAL_VH_KEYS", "TURNS", "original_root"]
