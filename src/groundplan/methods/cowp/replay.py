"""Replay of GPT-3's answers to COWP's prompts, from GPT-Planner's experience files.

GPT-Planner (the COWP code) kept an "experience pool" per task, ``experience/
experience_task_<N>.txt``: pairs of lines, a prompt (``raw prompt:...`` or ``prompt
(raw):...``) and the answer GPT-3 gave (text-davinci-002, temperature 0), looked up before
any new query. ``CowpReplayLLM`` answers a request whose question matches one of those
prompts with the logged answer (usage source ``replay``); a prompt the pool does not
hold goes to ``fallback`` - another LLM, or ``CowpDefaultLLM`` - or, without one, raises
``ReplayMissError``. Choice questions (prompt 3) list objects in a random order and rarely
repeat exactly; with ``approximate_choices`` a miss is answered by a logged answer to the same
question over another list when the object it chose is in this list (finish reason
``replay-approximate``, so runs can count such answers apart).

The question of a request is its last line holding a ``?`` (COWP's few-shot prompts end
with ``<question>?`` and ``answer:``), compared lower-case with whitespace collapsed, as
GPT-Planner's own lookup did. The predicate generator's prompt is never in the pool (its
answers were not logged)."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Iterable, Mapping, Optional

from groundplan.datadir import data_dir
from groundplan.llm.base import LLM, Backend
from groundplan.llm.errors import LLMConfigError, ReplayMissError
from groundplan.llm.types import ChatRequest, Completion, Usage

PREFIXES = ("raw prompt:", "prompt (raw):")
MODEL = "text-davinci-002 (GPT-Planner experience)"
#: finish_reason of an answer taken from the same choice question over another list
APPROXIMATE = "replay-approximate"
_WS = re.compile(r"\s+")
_CHOICE = re.compile(r"^there are some (objects|appliances), such as (.*?)\. (which is .*)$")


def normalize(question: str) -> str:
    return _WS.sub(" ", question.strip().lower())


def question_of(text: str) -> Optional[str]:
    """The question a prompt asks: its last line containing '?' (normalised), or None."""
    lines = [ln for ln in text.splitlines() if "?" in ln]
    return normalize(lines[-1]) if lines else None


def read_experience(path: Path | str) -> dict[str, str]:
    """One experience file -> {question: answer}; the first answer of a repeated question wins
    (GPT-Planner's lookup stops at the first match)."""
    p = Path(path)
    if not p.is_file():
        raise LLMConfigError(f"{p}: experience file not found")
    lines = p.read_text(encoding="utf-8").splitlines()
    out: dict[str, str] = {}
    for i in range(0, len(lines) - 1, 2):
        q, a = lines[i], lines[i + 1]
        for pre in PREFIXES:
            if q.startswith(pre):
                q = q[len(pre):]
                break
        else:
            continue
        out.setdefault(normalize(q), a.strip())
    return out


def experience_dir(root: Optional[Path | str] = None) -> Path:
    if root is not None:
        return Path(root)
    return data_dir() / "cowp-gpt-planner" / "experience"


class CowpReplayLLM(Backend):
    """Answers COWP prompts from GPT-Planner's experience pool; ``task`` (1, 4, 6, 9, 10, 11)
    picks that task's file first, then the others."""

    backend_name = "cowp-replay"
    cacheable = False

    def __init__(self, root: Optional[Path | str] = None, *, task: Optional[int] = None,
                 fallback: Optional[LLM] = None, tables: Optional[Mapping[int, Mapping[str, str]]] = None,
                 approximate_choices: bool = True):
        super().__init__()
        self.approximate_choices = approximate_choices
        self.approximate = 0
        self.root = experience_dir(root)
        if tables is None:
            files = sorted(self.root.glob("experience_task_*.txt"))
            if not files:
                raise LLMConfigError(f"{self.root}: no experience_task_*.txt files")
            tables = {int(f.stem.rsplit("_", 1)[1]): read_experience(f) for f in files}
        self.tables = tables
        self.task = task
        self.fallback = fallback
        self.hits = 0
        self.misses = 0
        self.missed: list[str] = []

    @classmethod
    def from_config(cls, config) -> "CowpReplayLLM":
        root = config.replay[0] if config.replay else None
        return cls(root, task=config.extra.get("cowp_task"))

    def for_task(self, task: int, fallback: Optional[LLM] = None) -> "CowpReplayLLM":
        """A view on the same tables for one task (cheap: nothing is re-read)."""
        return CowpReplayLLM(self.root, task=task, fallback=fallback if fallback is not None else self.fallback,
                             tables=self.tables, approximate_choices=self.approximate_choices)

    @property
    def model(self) -> str:
        return MODEL

    def lookup(self, question: str) -> Optional[str]:
        order = ([self.task] if self.task in self.tables else []) + [t for t in sorted(self.tables) if t != self.task]
        for t in order:
            a = self.tables[t].get(question)
            if a is not None:
                return a
        return None

    def covers(self, prompt: str) -> bool:
        q = question_of(prompt)
        return q is not None and self.lookup(q) is not None

    def lookup_choice(self, question: str) -> Optional[str]:
        """For a choice question ("there are some objects, such as A, B. which is the most
        suitable to ...?") that was never asked with this list: a logged answer to the same
        question over another list, whose chosen object is in this list (first such, task's
        own file first). GPT-Planner drew the list at random, so exact lists rarely repeat."""
        m = _CHOICE.match(question)
        if m is None:
            return None
        words = [w.strip() for w in m.group(2).split(",") if w.strip()]
        order = ([self.task] if self.task in self.tables else []) + [t for t in sorted(self.tables) if t != self.task]
        for t in order:
            for q, a in self.tables[t].items():
                mm = _CHOICE.match(q)
                if mm is None or mm.group(1) != m.group(1) or mm.group(3) != m.group(3):
                    continue
                logged = [w.strip() for w in mm.group(2).split(",") if w.strip()]
                named = next((w for w in logged if w in a.lower()), None)
                if named is not None and named in words:
                    return a
        return None

    def _complete(self, request: ChatRequest) -> Completion:
        t0 = time.perf_counter()
        text = "\n".join(m.content for m in request.messages if m.role == "user")
        q = question_of(text)
        answer = self.lookup(q) if q is not None else None
        if answer is not None:
            self.hits += 1
            return Completion(answer, "stop", Usage(0, 0, time.perf_counter() - t0, self.backend_name, MODEL, "replay"))
        if self.approximate_choices and q is not None:
            answer = self.lookup_choice(q)
            if answer is not None:
                self.approximate += 1
                return Completion(answer, APPROXIMATE, Usage(0, 0, time.perf_counter() - t0, self.backend_name, MODEL,
                                                             "replay"))
        self.misses += 1
        self.missed.append(q or text.splitlines()[-1] if text else "")
        if self.fallback is None:
            raise ReplayMissError(f"no GPT-3 answer in {self.root} for: {(q or text)[:120]!r}")
        return self.fallback.complete(request)


class CowpDefaultLLM(Backend):
    """Fixed answers for COWP prompts nobody logged, so a replay run needs no model:
    the plan monitor says "yes" (suitable - what GPT-Planner assumed when an answer held no
    "no"), the knowledge acquirer "no", a choice names nothing, and the predicate generator
    gets the situation's words joined by underscores ("the cup is dirty." -> cup_is_dirty)."""

    backend_name = "cowp-defaults"

    @property
    def model(self) -> str:
        return "cowp-defaults"

    def _complete(self, request: ChatRequest) -> Completion:
        text = "\n".join(m.content for m in request.messages if m.role == "user")
        last = [ln for ln in text.splitlines() if ln.strip()]
        tail = last[-1].strip() if last else ""
        if tail.startswith("predicate:"):
            sentence = next((ln for ln in reversed(last) if ln.startswith("sentence:")), "sentence:")
            answer = rule_predicate(sentence.split(":", 1)[1])
        elif tail == "answer:":
            answer = "no"
        elif tail.startswith("is it suitable"):
            answer = "yes"
        else:
            answer = ""
        return Completion(answer, "stop", Usage(0, 0, 0.0, self.backend_name, self.model, "model"))


_DROP = {"the", "a", "an", "there", "is", "are", "some", "of", "and", "to", "it"}


def rule_predicate(sentence: str) -> str:
    """A situation as a predicate name by rule: ``the cup is dirty.`` -> ``cup_is_dirty``,
    ``there is a power outage.`` -> ``power_outage`` (leading articles and "there is" dropped)."""
    words = re.findall(r"[a-z0-9]+", sentence.lower())
    while words and words[0] in _DROP:
        words.pop(0)
    return "_".join(words)[:60] or "situation"


def coverage(prompts: Iterable[str], replay: CowpReplayLLM) -> tuple[int, int]:
    ps = list(prompts)
    return sum(1 for p in ps if replay.covers(p)), len(ps)


__all__ = ["APPROXIMATE", "CowpReplayLLM", "CowpDefaultLLM", "read_experience", "question_of", "normalize", "rule_predicate",
           "experience_dir", "coverage", "MODEL"]
