"""Replay of AutoGPT+P's recorded evaluation logs (``autogpt_p/logs`` in the AutoGPT+P data):
every prompt and GPT-3 / GPT-4 answer of the paper's evaluation, correction rounds included.

The ``autogptp-replay`` backend answers the ``autogpt_p`` method's requests with those
recorded answers. Requests are matched by *task and round*, never by prompt text (our
prompts are rebuilt from our own scenes and differ in object order, whitespace, ...):

- the method announces each episode with ``begin_case(mode, subset, instruction, ...)``;
  the backend picks the recorded case of that task (same instruction; among duplicates the
  one whose recorded scene is most similar; then occurrence order) from the paper's run
  (the first ``N`` cases of a log, ``N`` = rows of the dataset file: later appended runs are
  ignored);
- each request's kind is read from the first words of its first message (goal prompt,
  tool selection, affordance question, object question, direct object question, sentiment),
  and the request is served the recorded answer of the same kind, call and round: the k-th
  correction round of the j-th Plan-tool call, the t-th tool selection, the i-th affordance
  question, ...;
- where our run differs from the recorded one (other feedback, another tool result, more
  rounds than were recorded) the difference is noted; ``end_case()`` returns the notes, so a
  benchmark can say which recorded runs could not be replayed faithfully and why.

Sources: ``gpt-4`` (= ``gpt-4-on``), ``gpt-4-off``, ``gpt-3``, ``gpt-3-off``. ``on``/``off``
selects the planning logs recorded with / without self-correction; the tool-selection and
alternative-suggestion logs exist once per model.

    llm = AutoGPTPReplayLLM("gpt-4")
    llm.begin_case("plan", "saycan_d_structured_language", "pick up the apple and move it to the trash")
    ...  # the method's requests
    report = llm.end_case()
"""

from __future__ import annotations

import csv
import math
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Optional, Sequence

from groundplan.datadir import autogpt_p_root
from groundplan.llm.base import Backend
from groundplan.llm.errors import LLMConfigError, ReplayMissError
from groundplan.llm.factory import register_backend
from groundplan.llm.types import ChatRequest, Completion, Usage

# --------------------------------------------------------------------------- request kinds

GOAL, TOOL, AFFORDANCES, OBJECT, OBJECT_DIRECT, SENTIMENT = (
    "goal", "tool", "affordances", "object", "object_direct", "sentiment")
KINDS = (GOAL, TOOL, AFFORDANCES, OBJECT, OBJECT_DIRECT, SENTIMENT)

_KIND_PREFIXES = (
    ("You are the humanoid service robot", GOAL),
    ("You are an robotic assistant", TOOL),
    ("New Scene Memory:", TOOL),
    ("Out of the following affordances for a", AFFORDANCES),
    ("Your goal is to classify the sentiment", SENTIMENT),
)


def request_kind(text: str) -> Optional[str]:
    """The kind of an AutoGPT+P prompt, from its first words (None: not one of them)."""
    t = text.lstrip()
    for prefix, kind in _KIND_PREFIXES:
        if t.startswith(prefix):
            return kind
    if t.startswith("Which of these objects can replace a"):
        first = t.split("\n", 1)[0]
        return OBJECT if "for the affordance" in first else OBJECT_DIRECT
    return None


_FEEDBACK_RE = re.compile(
    r"^(Your previous (answer|goal) |The \d+(st|nd|rd|th) argument of the predicate |The predicate \(.*\) needs to have |"
    r"There is a logical contradiction in the goal)")


def feedback_category(text: str) -> str:
    """A coarse class of a Plan-tool correction message (ours or the original's)."""
    t = text.strip()
    low = t.lower()
    if "logical contradiction" in low:
        return "semantic"
    if "did not contain a goal" in low or "correct format" in low:
        return "format"
    if "typing with a '?'" in low or "variable" in low:
        return "variable"
    if "this predicate does not exist" in low or "must not be used in a goal" in low:
        return "predicate"
    if "object does not exist" in low or "this object does not exist" in low:
        return "object"
    if "needs to have the type" in low or "needs an object of type" in low or "is not a" in low:
        return "type"
    if "arguments" in low:
        return "arity"
    return "other"


_RESULT_RE = re.compile(r"^Result of last tool execution: (.*)$", re.MULTILINE)


def tool_result_category(text: str) -> str:
    """A coarse class of a tool result line ("Planning failed", "explored table0", ...)."""
    t = text.strip()
    if t.startswith("Planning failed due to unreachable"):
        return "plan-unreachable"
    if t.startswith("Planning failed"):
        return "plan-failed"
    if t.startswith("Planning succeeded"):
        return "plan-succeeded"
    if t.startswith("New Substitution"):
        return "substitution-accepted"
    if t.startswith("Substitution") and t.endswith("rejected"):
        return "substitution-rejected"
    if t.endswith("was already explored"):
        return "already-explored"
    if "cannot be explored" in t:
        return "cannot-explore"
    if t.startswith("explored"):
        return "explored"
    if t == "None":
        return "none"
    return "other"


# --------------------------------------------------------------------------- recorded data


@dataclass(frozen=True)
class RecordedExchange:
    """One recorded LLM call: ``call`` numbers the calls of its kind within the case (the
    j-th Plan-tool invocation, ...), ``round`` the correction round (tool selection: the turn)."""

    kind: str
    call: int
    round: int
    prompt: str
    answer: str
    variant: str = ""  # goal prompts: "" or "partial"


@dataclass(frozen=True)
class RecordedCase:
    log: str
    index: int  # case number within its log
    task: str
    exchanges: tuple[RecordedExchange, ...]
    result: Mapping[str, str] = field(default_factory=dict)
    objects: frozenset[str] = frozenset()
    facts: frozenset[str] = frozenset()
    missing: Optional[str] = None

    def find(self, kind: str, call: int, rnd: int) -> Optional[RecordedExchange]:
        for e in self.exchanges:
            if e.kind == kind and e.call == call and e.round == rnd:
                return e
        return None

    @property
    def reached(self) -> Optional[bool]:
        v = self.result.get("Goal Reached")
        return None if v is None else v == "True"


_NOISE = ("Waiting for memory server", "Resolved memory server", "error_code=", "Rate limit reached", "HTTP Request:",
          "Error code:", "Request timed out", "The server is overloaded")
_RESULTS_RE = re.compile(r"^-{10,}Results:-{10,}\s*$")
_DASHES_RE = re.compile(r"^-{20,}\s*$")
_FIELD_RE = re.compile(r"^(Task|Generated Goal|Desired Goal|Goal Reached|Costs are|Plan costs are|Used tools|"
                       r"Tool Costs are|Tool Costs minimal|Plan Costs minimal|Costs minimal):? ?(.*)$")
_INSTRUCTION_RE = re.compile(r'The user(?:\(human\))? asks:? "(.*)"\. Explain', re.DOTALL)
_OBJECTS_BLOCK_RE = re.compile(r"\(:objects(.*?)\)\s*\(:init(.*?)\n\s*\)\s*\n", re.DOTALL)


def _is_noise(line: str) -> bool:
    return line.startswith(_NOISE)


def _problem_signature(prompt: str) -> tuple[frozenset[str], frozenset[str]]:
    m = _OBJECTS_BLOCK_RE.search(prompt)
    if not m:
        return frozenset(), frozenset()
    objs = frozenset(ln.split(" - ")[0].strip() for ln in m.group(1).splitlines() if " - " in ln)
    facts = set()
    for ln in m.group(2).splitlines():
        s = ln.strip()
        if s.startswith("(") and not s.startswith("(="):
            facts.add(" ".join(s.strip("()").split()))
    return objs, frozenset(facts)


def _memory_signature(prompt: str) -> tuple[frozenset[str], frozenset[str]]:
    objs: frozenset[str] = frozenset()
    facts: frozenset[str] = frozenset()
    for ln in prompt.splitlines():
        if ln.startswith("Objects:"):
            objs = frozenset(o.strip() for o in ln[len("Objects:"):].split(",") if o.strip())
        elif ln.startswith("Object Relations:"):
            facts = frozenset(" ".join(f.split()) for f in ln[len("Object Relations:"):].split(",") if f.strip())
    return objs, facts


def _fields(lines: Iterable[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for ln in lines:
        m = _FIELD_RE.match(ln)
        if m and m.group(1) not in out:
            out[m.group(1)] = m.group(2).strip()
    return out


def _text(lines: Sequence[str]) -> str:
    return "\n".join(lines).strip()


def _goal_prompt_end(lines: Sequence[str], start: int) -> int:
    """Index of the last line of a goal prompt starting at ``start``."""
    for i in range(start, len(lines)):
        ln = lines[i]
        if ln.startswith(" The user(human) asks"):
            return i
        if ln.startswith(" The user asks"):
            if i + 1 < len(lines) and lines[i + 1].startswith("Example:"):
                return i + 1
            return i
    return len(lines) - 1


def _split_goal_conversation(lines: Sequence[str]) -> list[tuple[str, str]]:
    """[(prompt, answer)]: the first prompt is '' (filled by the caller); feedback lines
    start the next round."""
    rounds: list[tuple[str, list[str]]] = [("", [])]
    for ln in lines:
        if _FEEDBACK_RE.match(ln):
            rounds.append((ln.strip(), []))
        else:
            rounds[-1][1].append(ln)
    return [(p, _text(a)) for p, a in rounds]


def parse_planning_log(path: Path | str) -> list[RecordedCase]:
    """A Plan-tool evaluation log (``logs/planning/planning_<model>_<on|off>_<set>.log``)."""
    p = Path(path)
    text = p.read_text(errors="replace")
    cases: list[RecordedCase] = []
    for idx, block in enumerate(text.split("NEW CASE")[1:]):
        lines = [ln for ln in block.split("\n")[1:] if not _is_noise(ln)]
        try:
            res_at = next(i for i, ln in enumerate(lines) if _RESULTS_RE.match(ln))
        except StopIteration:
            res_at = len(lines)
        start = next((i for i, ln in enumerate(lines) if ln.startswith("You are the humanoid service robot")), None)
        if start is None:
            continue
        end = _goal_prompt_end(lines, start)
        prompt = "\n".join(lines[start:end + 1])
        variant = "partial" if "If an object requested by the user does not exist" in lines[start] else ""
        conv = [ln for ln in lines[end + 1:res_at] if not _DASHES_RE.match(ln)]
        rounds = _split_goal_conversation(conv)
        ex = tuple(RecordedExchange(GOAL, 0, r, prompt if r == 0 else fb, ans, variant) for r, (fb, ans) in enumerate(rounds))
        result = _fields(lines[res_at:])
        m = _INSTRUCTION_RE.search(prompt)
        task = result.get("Task") or (m.group(1) if m else "")
        objs, facts = _problem_signature(prompt)
        cases.append(RecordedCase(p.name, idx, task, ex, result, objs, facts))
    return cases


_LOOP_CASE_SEP = re.compile(r"^-+NEW CASE -+\s*$", re.MULTILINE)


class _Segment:
    def __init__(self, kind: str, call: int, rnd: int, variant: str = ""):
        self.kind, self.call, self.round, self.variant = kind, call, rnd, variant
        self.prompt: list[str] = []
        self.answer: list[str] = []
        self.in_prompt = True

    def exchange(self) -> RecordedExchange:
        return RecordedExchange(self.kind, self.call, self.round, _text(self.prompt), _text(self.answer), self.variant)


def _prompt_done(kind: str, line: str, lines: Sequence[str], i: int) -> bool:
    if kind == TOOL:
        return line.startswith("End your answer with FAILURE if no tool is valid")
    if kind == GOAL:
        if line.startswith(" The user(human) asks"):
            return True
        if line.startswith(" The user asks"):
            return not (i + 1 < len(lines) and lines[i + 1].startswith("Example:"))
        return line.startswith("Example:")
    if kind == AFFORDANCES:
        return line.startswith(" End your answer with listing the affordances")
    if kind in (OBJECT, OBJECT_DIRECT):
        return line.startswith(" Finish your answer by naming exactly one object")
    if kind == SENTIMENT:
        return line.startswith(" User statement:")
    return True


def parse_loop_log(path: Path | str) -> list[RecordedCase]:
    """A tool-selection (AutoGPT+P loop) log (``logs/autogpt_p/autogptp_<model>_<set>.log``)."""
    p = Path(path)
    text = p.read_text(errors="replace")
    cases: list[RecordedCase] = []
    for idx, block in enumerate(_LOOP_CASE_SEP.split(text)[1:]):
        lines = [ln for ln in block.split("\n") if not _is_noise(ln)]
        segs: list[_Segment] = []
        counters: dict[str, int] = {}
        goal_call = -1
        cur: Optional[_Segment] = None
        state = "idle"  # idle | seg | echo | results
        result_lines: list[str] = []
        for i, ln in enumerate(lines):
            if _RESULTS_RE.match(ln):
                state, cur = "results", None
                continue
            if state == "results":
                result_lines.append(ln)
                continue
            kind = request_kind(ln) if not ln.startswith(" ") else None
            if kind is not None and ln.startswith(("You are", "New Scene", "Out of", "Which of", "Your goal")):
                if kind == GOAL:
                    goal_call += 1
                    variant = "partial" if "If an object requested by the user does not exist" in ln else ""
                    cur = _Segment(GOAL, goal_call, 0, variant)
                elif kind == TOOL:
                    cur = _Segment(TOOL, 0, counters.get(TOOL, 0))
                    counters[TOOL] = counters.get(TOOL, 0) + 1
                else:
                    cur = _Segment(kind, counters.get(kind, 0), 0)
                    counters[kind] = counters.get(kind, 0) + 1
                segs.append(cur)
                cur.prompt.append(ln)
                cur.in_prompt = not _prompt_done(kind, ln, lines, i)
                state = "seg"
                continue
            if ln.startswith("Q:") or ln.startswith("A:"):
                state = "echo"
                continue
            if _DASHES_RE.match(ln):
                if state == "echo":
                    state = "idle"
                continue
            if state != "seg" or cur is None:
                continue
            if cur.in_prompt:
                cur.prompt.append(ln)
                cur.in_prompt = not _prompt_done(cur.kind, ln, lines, i)
                continue
            if cur.kind == GOAL and _FEEDBACK_RE.match(ln):
                nxt = _Segment(GOAL, cur.call, cur.round + 1, cur.variant)
                nxt.prompt.append(ln.strip())
                nxt.in_prompt = False
                segs.append(nxt)
                cur = nxt
                continue
            cur.answer.append(ln)
        ex = tuple(s.exchange() for s in segs)
        result = _fields(result_lines)
        first_tool = next((e for e in ex if e.kind == TOOL), None)
        task = result.get("Task", "")
        if not task and first_tool is not None:
            m = re.search(r"^User-Request: (.*)$", first_tool.prompt, re.MULTILINE)
            task = m.group(1).strip() if m else ""
        objs, facts = _memory_signature(first_tool.prompt) if first_tool else (frozenset(), frozenset())
        cases.append(RecordedCase(p.name, idx, task, ex, result, objs, facts))
    return cases


_MISSING_RE = re.compile(r"^Missing: (.*?) - Substitution: (.*?) - Desired: \[(.*)\]\s*$")


def parse_alternative_log(path: Path | str) -> list[RecordedCase]:
    """An alternative-suggestion log (``logs/alternative_suggestion/...``): Q:/A: items,
    each case closed by a ``Missing: m - Substitution: s - Desired: [...]`` line."""
    p = Path(path)
    lines = [ln for ln in p.read_text(errors="replace").split("\n") if not _is_noise(ln)]
    cases: list[RecordedCase] = []
    items: list[_Segment] = []
    counters: dict[str, int] = {}
    cur: Optional[_Segment] = None
    for i, ln in enumerate(lines):
        m = _MISSING_RE.match(ln)
        if m:
            missing, subst, desired = m.groups()
            task = ""
            for s in items:
                e = s.exchange()
                if e.kind == AFFORDANCES:
                    mm = re.search(r'for the request "(.*)"\?', e.prompt)
                    task = mm.group(1) if mm else task
                    break
                if e.kind == OBJECT_DIRECT:
                    parts = e.prompt.split("\n")
                    task = parts[1].strip() if len(parts) > 1 else task
                    break
            result = {"Missing": missing, "Substitution": subst,
                      "Desired": ",".join(x.strip().strip("'\"") for x in desired.split(","))}
            cases.append(RecordedCase(p.name, len(cases), task, tuple(s.exchange() for s in items), result,
                                      missing=missing))
            items, counters, cur = [], {}, None
            continue
        if ln.startswith("Q:"):
            body = ln[2:]
            kind = request_kind(body)
            if kind is None:
                cur = None
                continue
            if cur is not None and items and items[-1] is cur and cur.kind == kind:
                prev = cur.exchange()
                if prev.prompt.startswith(body.strip()):
                    # the same question logged twice in a row (first case of a few logs): keep one
                    cur = _Segment(kind, prev.call, 0)
                    cur.prompt.append(body)
                    cur.in_prompt = not _prompt_done(kind, body, lines, i)
                    items[-1] = cur
                    continue
            cur = _Segment(kind, counters.get(kind, 0), 0)
            counters[kind] = counters.get(kind, 0) + 1
            cur.prompt.append(body)
            cur.in_prompt = not _prompt_done(kind, body, lines, i)
            items.append(cur)
            continue
        if cur is None or _DASHES_RE.match(ln):
            if _DASHES_RE.match(ln):
                cur = None
            continue
        if cur.in_prompt:
            cur.prompt.append(ln)
            cur.in_prompt = not _prompt_done(cur.kind, ln, lines, i)
            continue
        cur.answer.append(ln[2:].lstrip() if ln.startswith("A:") and not cur.answer else ln)
    return cases


# --------------------------------------------------------------------------- sources and files

#: dataset subset -> planning-log stem (SayCan families; the plan-tool sets are "simulation_<set>")
_SAYCAN_FAMILIES = {"saycan_a_nl_primitive": "nl_primitive", "saycan_b_nl_verb": "nl_verb",
                    "saycan_c_nl_noun": "nl_noun", "saycan_d_structured_language": "structured_language",
                    "saycan_e_embodiment": "embodiment", "saycan_f_crowd_sourced": "crowd_sourced",
                    "saycan_g_long_horizon": "long_horizon", "saycan_x_drawer": "drawer"}
MODES = ("plan", "loop", "alternative")


@dataclass(frozen=True)
class ReplaySource:
    """Which recorded run to serve: model ``gpt_3`` / ``gpt_4`` and self-correction on/off."""

    model: str = "gpt_4"
    correction: str = "on"

    @classmethod
    def parse(cls, text: Optional[str]) -> "ReplaySource":
        t = (text or "gpt-4").strip().lower().replace("-", "_")
        m = re.fullmatch(r"(?:autogptp[_:])?gpt_?([34])(?:_(on|off))?", t)
        if not m:
            raise LLMConfigError(f"unknown AutoGPT+P replay source '{text}' (use gpt-4, gpt-4-off, gpt-3 or gpt-3-off)")
        return cls(f"gpt_{m.group(1)}", m.group(2) or "on")

    @property
    def name(self) -> str:
        return f"{self.model.replace('_', '-')}-{self.correction}"


def _rows(path: Path) -> Optional[int]:
    if not path.exists():
        return None
    with path.open(newline="") as fh:
        return max(sum(1 for _ in csv.reader(fh)) - 1, 0)


def dataset_instructions(path: Path) -> list[str]:
    """The ``task`` column of a dataset CSV, in row order (row i is line i + 2)."""
    if not path.exists():
        return []
    with path.open(newline="") as fh:
        return [r.get("task", "") for r in csv.DictReader(fh)]


def log_file(root: Path, source: ReplaySource, mode: str, subset: str, variant: str = "affordance") -> tuple[Path, Path]:
    """(log file, dataset CSV whose row count bounds the paper's run) for a mode and subset."""
    logs = root / "autogpt_p" / "logs"
    ev = root / "autogpt_p" / "data" / "evaluation"
    if mode == "plan":
        if subset in _SAYCAN_FAMILIES:
            stem = f"saycan_saycan_{_SAYCAN_FAMILIES[subset]}"
            csvp = ev / "saycan" / "scenarios" / f"{subset}.csv"
        else:
            stem = f"simulation_{subset}"
            csvp = ev / "scenarios" / f"evaluation_{subset}.csv"
        return logs / "planning" / f"planning_{source.model}_{source.correction}_{stem}.log", csvp
    if mode == "loop":
        return logs / "autogpt_p" / f"autogptp_{source.model}_{subset}.log", ev / "scenarios" / f"autogptp_{subset}.csv"
    if mode == "alternative":
        if variant not in ("affordance", "naive"):
            raise LLMConfigError(f"alternative replay variant must be 'affordance' or 'naive', not '{variant}'")
        return (logs / "alternative_suggestion" / f"alternative_suggestion_{source.model}_{variant}_{subset}.log",
                ev / "scenarios" / f"substitution_{subset}.csv")
    raise LLMConfigError(f"unknown replay mode '{mode}' (one of {', '.join(MODES)})")


_PARSERS = {"plan": parse_planning_log, "loop": parse_loop_log, "alternative": parse_alternative_log}


def load_recorded_run(root: Path, source: ReplaySource, mode: str, subset: str,
                      variant: str = "affordance") -> list[RecordedCase]:
    """The paper's run for one subset: the first N cases of the log (N = dataset rows)."""
    path, csvp = log_file(root, source, mode, subset, variant)
    if not path.exists():
        raise ReplayMissError(f"no recorded log for {mode} '{subset}' ({source.name}): {path} not found")
    # a case without its results block was cut off (the run crashed and the case was run again)
    cases = [c for c in _PARSERS[mode](path) if c.result]
    n = _rows(csvp)
    return cases[:n] if n else cases


# --------------------------------------------------------------------------- the backend


def _norm(text: str) -> str:
    return " ".join(text.strip().lower().split())


def _similarity(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / max(len(a | b), 1)


def _word_similarity(a: str, b: str) -> float:
    wa, wb = set(re.findall(r"\w+", a)), set(re.findall(r"\w+", b))
    return len(wa & wb) / max(len(wa | wb), 1)


def _tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


@dataclass(frozen=True)
class ReplayNote:
    """``divergence``: our run left the recorded path (another decision, fewer or more
    calls); ``info``: a difference that did not change the path (other wording of feedback,
    an instruction worded differently in the dataset than in the log)."""

    kind: str
    call: int
    round: int
    message: str
    severity: str = "divergence"

    def __str__(self) -> str:
        tag = "" if self.severity == "divergence" else f"[{self.severity}] "
        return f"{tag}{self.kind}#{self.call}.{self.round}: {self.message}"


@dataclass(frozen=True)
class CaseReport:
    """How one episode's replay went: ``faithful`` when every request found its recorded
    answer, every recorded answer was used, and our feedback / tool results matched."""

    log: str
    index: int
    task: str
    served: int
    recorded: int
    notes: tuple[ReplayNote, ...]
    recorded_result: Mapping[str, str]

    @property
    def faithful(self) -> bool:
        return not any(n.severity == "divergence" for n in self.notes) and self.served == self.recorded

    def to_dict(self) -> dict:
        return {"log": self.log, "index": self.index, "task": self.task, "served": self.served,
                "recorded": self.recorded, "faithful": self.faithful, "notes": [str(n) for n in self.notes],
                "recorded_result": dict(self.recorded_result)}


class _Session:
    def __init__(self, case: RecordedCase):
        self.case = case
        self.counters: dict[str, int] = {}
        self.goal_call = -1
        self.goal_round = 0
        self.served: set[tuple[str, int, int]] = set()
        self.notes: list[ReplayNote] = []


class AutoGPTPReplayLLM(Backend):
    """Serves the paper's recorded GPT answers to the ``autogpt_p`` method (no model, no network)."""

    backend_name = "autogptp-replay"
    cacheable = False

    def __init__(self, source: str | ReplaySource = "gpt-4", *, root: Path | str | None = None):
        super().__init__()
        self.source = source if isinstance(source, ReplaySource) else ReplaySource.parse(source)
        self._root = Path(root) if root is not None else None
        self._runs: dict[tuple[str, str, str], list[RecordedCase]] = {}
        self._used: dict[tuple[str, int], int] = {}
        self._session: Optional[_Session] = None
        self._lock = threading.RLock()

    @classmethod
    def from_config(cls, config) -> "AutoGPTPReplayLLM":
        return cls(config.model or "gpt-4", root=(config.extra or {}).get("autogpt_p_root"))

    @property
    def model(self) -> str:
        return f"autogptp-{self.source.name}"

    @property
    def root(self) -> Path:
        if self._root is None:
            self._root = autogpt_p_root()
        return self._root

    # ------------------------------------------------------------------ cases

    def recorded_run(self, mode: str, subset: str, variant: str = "affordance") -> list[RecordedCase]:
        key = (mode, subset, variant if mode == "alternative" else "")
        with self._lock:
            if key not in self._runs:
                self._runs[key] = load_recorded_run(self.root, self.source, mode, subset, variant)
            return self._runs[key]

    def begin_case(self, mode: str, subset: str, instruction: str, *, objects: Iterable[str] = (),
                   facts: Iterable[str] = (), missing: Optional[str] = None, variant: str = "affordance",
                   line: Optional[int] = None) -> RecordedCase:
        """Select the recorded case for the coming episode (raises ReplayMissError if the
        recorded run has no case for this instruction). ``line``: the task's line in its
        dataset file; when the instruction occurs several times, the k-th row with it is
        the k-th recorded case with it (the run followed the file's order)."""
        run = self.recorded_run(mode, subset, variant)
        want = _norm(instruction)
        pool = run
        if missing is not None:
            pool = [c for c in run if c.missing is None or _norm(c.missing) == _norm(missing)] or run
        cands = [c for c in pool if _norm(c.task) == want]
        fuzzy = None
        if not cands:  # the dataset's wording drifted after the run (e.g. "from" vs "out of")
            scored = [(_word_similarity(want, _norm(c.task)), c) for c in pool]
            best = max((sc for sc, _ in scored), default=0.0)
            if best >= 0.6:
                cands = [c for sc, c in scored if sc == best]
                fuzzy = cands[0].task
        if not cands:
            raise ReplayMissError(f"recorded {mode} run '{subset}' ({self.source.name}) has no case for "
                                  f"'{instruction}'")
        if len(cands) > 1 and line is not None and fuzzy is None:
            rows = dataset_instructions(log_file(self.root, self.source, mode, subset, variant)[1])
            same = [i for i, r in enumerate(rows) if _norm(r) == want]
            if line - 2 in same and len(same) == len(cands):
                cands = [cands[same.index(line - 2)]]
        objs, fs = frozenset(objects), frozenset(" ".join(f.split()) for f in facts)
        with self._lock:
            def score(c: RecordedCase) -> tuple:
                sim = (_similarity(objs, c.objects) + _similarity(fs, c.facts)) if (objs or fs) else 0.0
                return (round(sim, 6), -self._used.get((c.log, c.index), 0), -c.index)

            case = max(cands, key=score)
            self._used[(case.log, case.index)] = self._used.get((case.log, case.index), 0) + 1
            self._session = _Session(case)
            if fuzzy is not None:
                self._session.notes.append(ReplayNote("case", 0, 0, f"recorded instruction is {case.task!r}", "info"))
        return case

    def end_case(self) -> Optional[CaseReport]:
        with self._lock:
            s, self._session = self._session, None
        if s is None:
            return None
        c = s.case
        notes = list(s.notes)
        unused = [e for e in c.exchanges if (e.kind, e.call, e.round) not in s.served]
        if unused:
            first = unused[0]
            notes.append(ReplayNote(first.kind, first.call, first.round,
                                    f"our run stopped before {len(unused)} recorded answer(s) were used"))
        return CaseReport(c.log, c.index, c.task, len(s.served), len(c.exchanges), tuple(notes), c.result)

    @property
    def active_case(self) -> Optional[RecordedCase]:
        s = self._session
        return s.case if s else None

    # ------------------------------------------------------------------ answering

    def _complete(self, request: ChatRequest) -> Completion:
        t0 = time.perf_counter()
        users = [m for m in request.messages if m.role == "user"]
        if not users:
            raise ReplayMissError("AutoGPT+P replay: request without a user message")
        kind = request_kind(users[0].content)
        if kind is None:
            raise ReplayMissError(f"AutoGPT+P replay: not an AutoGPT+P prompt: {users[0].content[:60]!r}")
        with self._lock:
            s = self._session
            if s is None:
                raise ReplayMissError("AutoGPT+P replay: no case begun (the method calls begin_case per episode)")
            if kind == GOAL:
                if len(request.messages) == 1 or all(m.role != "assistant" for m in request.messages):
                    s.goal_call += 1
                    s.goal_round = 0
                else:
                    s.goal_round += 1
                call, rnd = s.goal_call, s.goal_round
            elif kind == TOOL:
                call, rnd = 0, s.counters.get(TOOL, 0)
                s.counters[TOOL] = rnd + 1
            else:
                call, rnd = s.counters.get(kind, 0), 0
                s.counters[kind] = call + 1
            ex = s.case.find(kind, call, rnd)
            if ex is None:
                msg = (f"ran past the recorded conversation: no recorded {kind} answer for call {call}, round {rnd} "
                       f"of '{s.case.task}' ({s.case.log}#{s.case.index})")
                s.notes.append(ReplayNote(kind, call, rnd, "ran past the recorded conversation"))
                raise ReplayMissError(msg)
            s.served.add((kind, call, rnd))
            self._compare(s, ex, users[-1].content, request)
        prompt_text = "\n".join(m.content for m in request.messages)
        return Completion(ex.answer, "stop", Usage(_tokens(prompt_text), _tokens(ex.answer), time.perf_counter() - t0,
                                                   self.backend_name, self.model, "replay"))

    @staticmethod
    def _compare(s: _Session, ex: RecordedExchange, last_user: str, request: ChatRequest) -> None:
        if ex.kind == GOAL and ex.round > 0:
            ours, theirs = feedback_category(last_user), feedback_category(ex.prompt)
            if ours != theirs:
                s.notes.append(ReplayNote(GOAL, ex.call, ex.round, f"our feedback is {ours} ({last_user[:80]!r}), "
                                                                   f"recorded {theirs} ({ex.prompt[:80]!r})", "info"))
        elif ex.kind == GOAL and ex.round == 0:
            prev = [e for e in s.case.exchanges if e.kind == GOAL and e.call == ex.call - 1]
            _ = prev  # calls are matched by number; nothing to compare in the first prompt
        elif ex.kind == TOOL and ex.round > 0:
            m_ours = _RESULT_RE.search(last_user)
            m_rec = _RESULT_RE.search(ex.prompt)
            if m_ours and m_rec:
                a, b = tool_result_category(m_ours.group(1)), tool_result_category(m_rec.group(1))
                same = {a, b} <= {"explored", "none"}  # the GPT-4 runs printed None after Explore
                if a != b and not same:
                    s.notes.append(ReplayNote(TOOL, ex.call, ex.round, f"tool result differs: ours "
                                                                       f"{m_ours.group(1)[:60]!r}, recorded "
                                                                       f"{m_rec.group(1)[:60]!r}"))


def find_replay(llm: object) -> Optional[AutoGPTPReplayLLM]:
    """The AutoGPT+P replay backend under ``llm`` (through cache / recorder wrappers), if any."""
    seen = 0
    while llm is not None and seen < 8:
        if isinstance(llm, AutoGPTPReplayLLM):
            return llm
        llm = getattr(llm, "inner", None)
        seen += 1
    return None


__all__ = [
    "AutoGPTPReplayLLM", "ReplaySource", "RecordedCase", "RecordedExchange", "CaseReport", "ReplayNote", "request_kind",
    "feedback_category", "tool_result_category", "parse_planning_log", "parse_loop_log", "parse_alternative_log",
    "load_recorded_run", "log_file", "find_replay", "KINDS", "GOAL", "TOOL", "AFFORDANCES", "OBJECT",
    "OBJECT_DIRECT", "SENTIMENT",
]


register_backend(AutoGPTPReplayLLM.backend_name, AutoGPTPReplayLLM.from_config)
