"""Object-affordance maps generated with an LLM (AutoGPT+P Sec. III-A, Table II).

Three strategies:
- ``list`` (List-Affordances): per object, the LLM gets every affordance with its short
  description and names the ones the object has (few tokens, least accurate);
- ``yes-no`` (Yes/No questions): per object and affordance one yes/no question (the
  affordance's ``prompt`` in the AutoGPT+P data, e.g. "Can a typical {} be grasped with one
  hand?");
- ``logical`` (Yes/No + logical combinations): the affordance is a logical combination of
  atomic yes/no questions (``(q1)&(q2)&!(q3)``, ``(q1)|(q2)&(q3)``: ``!`` binds tightest,
  then ``&``, then ``|``); each atomic question is asked once per object.

Evaluation (eqs. 11-13): precision / recall / F1 over object-affordance pairs against a
ground-truth map, on the classes of the ground truth.

This module is in the knowledge layer and does not import the LLM layer: any object with the
LLM interface's ``chat(messages, *, max_tokens, temperature, seed, usage)`` (and, for a
grammar, ``constrained(...)``) works."""

from __future__ import annotations

import csv
import json
import re
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any, Callable, Iterable, Mapping, Optional, Protocol, Sequence

from groundplan.errors import ConfigError, InputError
from groundplan.knowledge.oam import OAM

STRATEGIES = ("list", "yes-no", "logical")
_YES_NO_GRAMMAR = 'root ::= "Yes" | "No"'


class ChatLLM(Protocol):  # the part of groundplan.llm.LLM this module uses
    def chat(self, messages: Any, *, max_tokens: int = ..., temperature: float = ..., seed: Optional[int] = ...,
             usage: Any = ...) -> Any: ...


@dataclass(frozen=True)
class AffordanceSpec:
    """One affordance as the AutoGPT+P data defines it: ``question`` is a yes/no question
    with ``{}`` for the object, or (logical strategy) a logical combination of them."""

    name: str
    description: str
    question: str


def load_affordance_specs(path: str | Path) -> tuple[AffordanceSpec, ...]:
    """``{"affordance_types": [{"name", "prompt", "description"}]}`` (JSON) or the same
    columns in CSV. Header rows copied into the data (``name == "id"``) are skipped."""
    p = Path(path)
    if not p.exists():
        raise InputError("affordance file not found", file=str(p))
    try:
        if p.suffix.lower() == ".json":
            rows = json.loads(p.read_text())["affordance_types"]
        else:
            with p.open(newline="") as fh:
                rows = list(csv.DictReader(fh))
    except (KeyError, ValueError) as exc:
        raise InputError(f"malformed affordance file: {exc}", file=str(p)) from None
    out = []
    for i, r in enumerate(rows):
        name = str(r.get("name", "")).strip()
        if not name or name in ("id", "name") or not r.get("prompt"):
            continue
        q = str(r["prompt"]).strip()
        if "{}" not in q:
            raise InputError(f"affordance '{name}': prompt has no '{{}}' for the object", file=str(p), line=i + 2)
        out.append(AffordanceSpec(name, " ".join(str(r.get("description", "")).split()), q))
    if not out:
        raise InputError("no affordances in file", file=str(p))
    return tuple(out)


def load_classes(path: str | Path) -> list[str]:
    """Object classes: ``{"object_classes": [{"name"}]}`` (JSON), ``id,name`` rows (CSV),
    or an OAM (its classes). Duplicates are dropped, order kept."""
    p = Path(path)
    if not p.exists():
        raise InputError("class file not found", file=str(p))
    if p.suffix.lower() == ".json":
        data = json.loads(p.read_text())
        if isinstance(data, dict) and "object_classes" in data:
            names = [str(c["name"]) for c in data["object_classes"]]
        elif isinstance(data, dict) and "oams" in data:
            names = [str(o["object"]) for o in data["oams"]]
        else:
            raise InputError("expected {'object_classes': [...]} or {'oams': [...]}", file=str(p))
    else:
        with p.open(newline="") as fh:
            names = [row[-1] for row in csv.reader(fh) if row]
    names = [n for n in names if n.strip() and n.strip().lower() not in ("object", "name")]
    return list(dict.fromkeys(names))


def class_key(name: str) -> str:
    """``Coffee Table`` and ``coffee_table`` are the same class."""
    return "_".join(name.strip().lower().replace("-", " ").split())


def spoken(name: str) -> str:
    return " ".join(name.replace("_", " ").split())


def normalise(oam: OAM) -> OAM:
    """Class names as keys (``coffee_table``); a header entry ``object`` is dropped."""
    m: dict[str, frozenset[str]] = {}
    for c, affs in oam.mapping.items():
        k = class_key(c)
        if k == "object" and affs <= {"affordances"}:
            continue
        m[k] = frozenset(m.get(k, frozenset()) | affs)
    return OAM(m, oam.name, oam.source)


# --------------------------------------------------------------------------- logical expressions


@dataclass(frozen=True)
class Question:
    text: str


@dataclass(frozen=True)
class NotQ:
    arg: "Expr"


@dataclass(frozen=True)
class AndQ:
    args: tuple["Expr", ...]


@dataclass(frozen=True)
class OrQ:
    args: tuple["Expr", ...]


Expr = Question | NotQ | AndQ | OrQ


def parse_logic(text: str) -> Expr:
    """``(q1)&!(q2)|(q3)`` -> expression; a question is any text in balanced parentheses
    (questions contain no parentheses); ``!`` > ``&`` > ``|``."""
    if not text.strip().startswith(("(", "!")):  # a plain yes/no question
        return Question(text.strip())
    toks: list[str | Question] = []
    i, s = 0, text.strip()
    while i < len(s):
        ch = s[i]
        if ch.isspace():
            i += 1
        elif ch in "&|!":
            toks.append(ch)
            i += 1
        elif ch == "(":
            j = s.find(")", i)
            if j < 0:
                raise ConfigError(f"logical affordance prompt: unbalanced '(' in {text!r}")
            toks.append(Question(s[i + 1:j].strip()))
            i = j + 1
        else:
            raise ConfigError(f"logical affordance prompt: unexpected {ch!r} in {text!r}")
    pos = 0

    def atom() -> Expr:
        nonlocal pos
        if pos >= len(toks):
            raise ConfigError(f"logical affordance prompt ends early: {text!r}")
        t = toks[pos]
        pos += 1
        if t == "!":
            return NotQ(atom())
        if isinstance(t, Question):
            return t
        raise ConfigError(f"logical affordance prompt: unexpected {t!r} in {text!r}")

    def conj() -> Expr:
        nonlocal pos
        parts = [atom()]
        while pos < len(toks) and toks[pos] == "&":
            pos += 1
            parts.append(atom())
        return parts[0] if len(parts) == 1 else AndQ(tuple(parts))

    def disj() -> Expr:
        nonlocal pos
        parts = [conj()]
        while pos < len(toks) and toks[pos] == "|":
            pos += 1
            parts.append(conj())
        return parts[0] if len(parts) == 1 else OrQ(tuple(parts))

    e = disj()
    if pos != len(toks):
        raise ConfigError(f"logical affordance prompt: trailing tokens in {text!r}")
    return e


def questions(e: Expr) -> list[str]:
    if isinstance(e, Question):
        return [e.text]
    if isinstance(e, NotQ):
        return questions(e.arg)
    return [q for a in e.args for q in questions(a)]


def evaluate_logic(e: Expr, answer: Callable[[str], bool]) -> bool:
    if isinstance(e, Question):
        return answer(e.text)
    if isinstance(e, NotQ):
        return not evaluate_logic(e.arg, answer)
    if isinstance(e, AndQ):
        return all(evaluate_logic(a, answer) for a in e.args)
    return any(evaluate_logic(a, answer) for a in e.args)


# --------------------------------------------------------------------------- asking


def _template(name: str) -> Template:
    text = resources.files("groundplan.knowledge").joinpath(f"data/oam_prompts/{name}").read_text(encoding="utf-8")
    return Template(text[:-1] if text.endswith("\n") else text)


def _is_yes(text: str) -> bool:
    return bool(re.match(r"^\W*yes\b", (text or "").strip().lower()))


@dataclass
class OAMAsker:
    """Asks one LLM the questions of the strategies; caches answers per (object, question)."""

    llm: Any
    usage: Any = None
    constrained: bool = False
    seed: Optional[int] = 0
    calls: int = 0
    _cache: dict[tuple[str, str], bool] = field(default_factory=dict)

    def _ask(self, prompt: str, *, max_tokens: int, grammar: Optional[str] = None) -> str:
        self.calls += 1
        if self.constrained and grammar is not None:
            c = self.llm.constrained(prompt, grammar=grammar, max_tokens=max_tokens, temperature=0.0, seed=self.seed,
                                     usage=self.usage)
        else:
            c = self.llm.chat(prompt, max_tokens=max_tokens, temperature=0.0, seed=self.seed, usage=self.usage)
        return c.text

    def yes(self, obj: str, question_template: str) -> bool:
        key = (obj, question_template)
        if key not in self._cache:
            q = question_template.replace("{}", spoken(obj))
            self._cache[key] = _is_yes(self._ask(_template("yes_no.txt").substitute(question=q), max_tokens=4,
                                                 grammar=_YES_NO_GRAMMAR))
        return self._cache[key]

    def listed(self, obj: str, specs: Sequence[AffordanceSpec]) -> set[str]:
        lines = "\n".join(f"{s.name}: {s.description}" for s in specs)
        names = [s.name for s in specs]
        grammar = None
        if self.constrained:
            alts = " | ".join(f'"{n}"' for n in names)
            grammar = f'root ::= aff (", " aff){{0,{len(names) - 1}}}\naff ::= {alts}'
        # a bound no answer of the grammar exceeds (len(names) items, one token per character)
        limit = (max(map(len, names)) + 2) * len(names) + 8 if grammar is not None else 200
        text = self._ask(_template("list_affordances.txt").substitute(affordances=lines, object=spoken(obj)),
                         max_tokens=limit, grammar=grammar)
        return parse_listed(text, names)


def parse_listed(text: str, names: Sequence[str]) -> set[str]:
    """Affordance names in a free answer (``grasp, carry`` / ``- grasp`` / ``'grasp'``);
    ``assisted-carry`` does not also count as ``carry``."""
    found = set()
    for tok in re.split(r"[,\n;]|\band\b", (text or "").lower()):
        t = tok.strip().strip("-*•.'\"[]` ").split(":")[0].strip()
        if t in names:
            found.add(t)
    if len(found) < len(names):  # names inside sentences: whole-word matches, longest names first
        low = (text or "").lower()
        for n in sorted(names, key=len, reverse=True):
            if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", low):
                found.add(n)
                low = low.replace(n, " ")
    return found


@dataclass(frozen=True)
class OAMBuild:
    oam: OAM
    strategy: str
    llm_calls: int
    seconds: float
    per_class_seconds: float


def build_oam(llm: Any, classes: Iterable[str], strategy: str, specs: Sequence[AffordanceSpec], *, usage: Any = None,
              constrained: bool = False, progress: Optional[Callable[[str], None]] = None,
              name: Optional[str] = None) -> OAMBuild:
    """Ask ``llm`` for the affordances of each class with ``strategy`` (list | yes-no | logical).
    For ``logical`` the specs' questions are logical combinations."""
    if strategy not in STRATEGIES:
        raise ConfigError(f"unknown OAM strategy '{strategy}' (choose from {', '.join(STRATEGIES)})")
    asker = OAMAsker(llm, usage, constrained)
    exprs = {s.name: parse_logic(s.question) for s in specs} if strategy == "logical" else {}
    mapping: dict[str, frozenset[str]] = {}
    cls_list = list(classes)
    t0 = time.perf_counter()
    for c in cls_list:
        key = class_key(c)
        if strategy == "list":
            affs = asker.listed(key, specs)
        elif strategy == "yes-no":
            affs = {s.name for s in specs if asker.yes(key, s.question)}
        else:
            affs = {s.name for s in specs if evaluate_logic(exprs[s.name], lambda q, k=key: asker.yes(k, f"{q}"))}
        mapping[key] = frozenset(affs)
        if progress is not None:
            progress(key)
    secs = time.perf_counter() - t0
    return OAMBuild(OAM(mapping, name or f"llm-{strategy}"), strategy, asker.calls, secs,
                    secs / max(len(cls_list), 1))


# --------------------------------------------------------------------------- evaluation


@dataclass(frozen=True)
class OAMScores:
    precision: float
    recall: float
    f1: float
    tp: int
    fp: int
    fn: int
    classes: int
    missing_classes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1, "tp": self.tp, "fp": self.fp,
                "fn": self.fn, "classes": self.classes, "missing_classes": list(self.missing_classes)}


def evaluate_oam(predicted: OAM, truth: OAM, classes: Optional[Iterable[str]] = None) -> OAMScores:
    """Precision, recall and F1 over object-affordance pairs (eqs. 11-13) on ``classes``
    (default: the ground truth's). A class the prediction lacks counts with no affordances."""
    pred, gt = normalise(predicted), normalise(truth)
    keys = [class_key(c) for c in classes] if classes is not None else list(gt.mapping)
    keys = [k for k in dict.fromkeys(keys) if k in gt.mapping]
    tp = fp = fn = 0
    for k in keys:
        p, t = pred.affordances(k), gt.affordances(k)
        tp += len(p & t)
        fp += len(p - t)
        fn += len(t - p)
    prec = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    missing = tuple(k for k in keys if k not in pred.mapping)
    return OAMScores(prec, rec, f1, tp, fp, fn, len(keys), missing)


def write_oam_json(oam: OAM, path: str | Path) -> Path:
    """AutoGPT+P's OAM JSON (``{"oams": [{"object", "affordances": [{"name"}]}]}``)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    data = {"oams": [{"object": c, "affordances": [{"name": a} for a in sorted(oam.mapping[c])]}
                     for c in oam.mapping]}
    p.write_text(json.dumps(data, indent=1) + "\n")
    return p


#: where the AutoGPT+P data keeps the inputs of Table II (relative to the autogpt-p data root)
DATA_FILES: Mapping[str, str] = {
    "specs": "chat_gpt_oam/data/affordances/proposed_affordances.json",
    "logical_specs": "chat_gpt_oam/data/affordances/proposed_affordances_alternative.json",
    "classes": "chat_gpt_oam/data/classes/simulation_classes.json",
    "truth": "chat_gpt_oam/ground_truth/simulation_classes_ground_truth_.json",
    "gpt4_map": "object_affordance_mapping/data/oam/gpt-4_.json",
    "sim_map": "object_affordance_mapping/data/oam/simulation_classes_2.json",
}


def data_file(root: Path, key: str) -> Path:
    return root / DATA_FILES[key]


__all__ = ["STRATEGIES", "AffordanceSpec", "load_affordance_specs", "load_classes", "class_key", "normalise",
           "parse_logic", "evaluate_logic", "questions", "OAMAsker", "parse_listed", "build_oam", "OAMBuild",
           "OAMScores", "evaluate_oam", "write_oam_json", "DATA_FILES", "data_file"]
