"""How AutoGPT+P's tools talk to the LLM: one ``Dialogue`` per episode holds the LLM, the
usage meter and the trace; ``ask`` sends a conversation (free text or constrained by a
grammar), trims it to the model's context window and records the exchange. Also the small
grammars the tools use with constrained (local) models."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Sequence

from groundplan.llm.types import Message, UsageMeter

if TYPE_CHECKING:  # pragma: no cover
    from groundplan.llm import LLM
    from groundplan.methods.base import TraceRecorder

_CHARS_PER_TOKEN = 3.0


def estimate_tokens(text: str) -> int:
    return int(len(text) / _CHARS_PER_TOKEN) + 1


def backend_context(llm: "LLM") -> Optional[int]:
    """The context window of the model under ``llm`` (through wrappers), when it has one."""
    seen = 0
    cur: object = llm
    while cur is not None and seen < 8:
        n = getattr(cur, "n_ctx", None)
        if isinstance(n, int) and n > 0:
            return n
        cur = getattr(cur, "inner", None)
        seen += 1
    return None


def backend_name(llm: "LLM") -> str:
    return str(getattr(llm, "backend_name", ""))


def trim(messages: Sequence[Message], budget: Optional[int]) -> list[Message]:
    """Keep the first message (the task prompt) and as many of the latest messages as fit
    ``budget`` tokens; the dropped middle is replaced by nothing (a correction round only
    needs the prompt and the last answer and feedback)."""
    msgs = list(messages)
    if budget is None or sum(estimate_tokens(m.content) for m in msgs) <= budget or len(msgs) <= 2:
        return msgs
    head, tail = msgs[0], msgs[1:]
    used = estimate_tokens(head.content)
    kept: list[Message] = []
    for m in reversed(tail):
        t = estimate_tokens(m.content)
        if used + t > budget and kept:
            break
        kept.append(m)
        used += t
    kept.reverse()
    if kept and kept[0].role == "assistant":  # a conversation continues with the user after the prompt
        kept = kept[1:] if len(kept) > 1 else kept
    return [head, *kept]


@dataclass
class Dialogue:
    llm: "LLM"
    meter: UsageMeter
    recorder: Optional["TraceRecorder"] = None
    constrained: bool = False
    context_tokens: Optional[int] = None
    max_tokens: int = 700
    seed: Optional[int] = 0

    def ask(self, purpose: str, messages: Sequence[Message], *, grammar: Optional[str] = None,
            max_tokens: Optional[int] = None) -> str:
        """Send ``messages``; with ``grammar`` and a constrained dialogue the answer follows
        the grammar. Returns the answer text (LLM errors propagate)."""
        limit = max_tokens or self.max_tokens
        budget = None if self.context_tokens is None else max(self.context_tokens - limit - 64, 256)
        msgs = trim(messages, budget)
        if self.constrained and grammar is not None:
            c = self.llm.constrained(msgs, grammar=grammar, max_tokens=limit, seed=self.seed, usage=self.meter)
        else:
            c = self.llm.chat(msgs, max_tokens=limit, seed=self.seed, usage=self.meter)
        if self.recorder is not None:
            self.recorder.llm_call(purpose, msgs[-1].content if len(msgs) > 1 else msgs[0].content, c)
        return c.text


# --------------------------------------------------------------------------- grammars


def _lit(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _alts(items: Sequence[str]) -> str:
    return " | ".join(_lit(i) for i in dict.fromkeys(items)) if items else '"none"'


def tool_grammar(unexplored: Sequence[str]) -> str:
    """``SELECTED TOOL: PLAN`` | ``... INCOMPLETE_PLAN`` | ``... EXPLORE <location>`` |
    ``... SUGGEST_ALTERNATIVE <class>`` | ``FAILURE``."""
    tools = ['"PLAN"', '"INCOMPLETE_PLAN"', '"SUGGEST_ALTERNATIVE " word']
    rules = ['word ::= [a-z] [a-z_]{0,24}']
    if unexplored:
        tools.insert(2, '"EXPLORE " loc')
        rules.append(f"loc ::= {_alts(unexplored)}")
    return "\n".join(['root ::= "SELECTED TOOL: " tool | "FAILURE"', f"tool ::= {' | '.join(tools)}", *rules])


def affordance_list_grammar(affordances: Sequence[str]) -> str:
    return "\n".join([
        'root ::= "[" item ("," " " item){0,7} "]"',
        "item ::= \"'\" aff \"'\"",
        f"aff ::= {_alts(affordances)}",
    ])


def object_grammar(objects: Sequence[str]) -> str:
    return f'root ::= "OBJECT:" obj\nobj ::= {_alts(objects)}'


YES_NO_GRAMMAR = 'root ::= "Yes" | "No"'


# --------------------------------------------------------------------------- answer parsing

_LIST_RE = re.compile(r"\[([^\[\]]*)\]")
_OBJECT_RE = re.compile(r"OBJECT:\s*([^\s,]+)", re.IGNORECASE)


def parse_list(answer: str) -> list[str]:
    """The last Python-style list of strings in an answer (``['grasp', 'carry']``)."""
    found = _LIST_RE.findall(answer or "")
    if not found:
        return []
    items = [x.strip().strip("'\"").strip() for x in found[-1].split(",")]
    return [x for x in items if x]


def parse_object(answer: str) -> Optional[str]:
    """The object named after the last ``OBJECT:`` (punctuation and quotes stripped)."""
    found = _OBJECT_RE.findall(answer or "")
    if not found:
        return None
    return found[-1].strip().strip(".,;:!'\"*`<>").lower() or None


def parse_yes(answer: str) -> bool:
    t = (answer or "").strip().lower()
    return t.startswith("yes") or bool(re.match(r"^\W*yes\b", t))


__all__ = ["Dialogue", "trim", "estimate_tokens", "backend_context", "backend_name", "tool_grammar",
           "affordance_list_grammar", "object_grammar", "YES_NO_GRAMMAR", "parse_list", "parse_object", "parse_yes"]
