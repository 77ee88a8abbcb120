"""A small GBNF (llama.cpp grammar) reader and matcher, in pure Python.

Used to check, without a model, that an answer fits a grammar: the scripted backend checks
its scripted answers against the request's grammar (so tests behave like a constrained
model), and tests check the grammars the builder writes. Supports what llama.cpp's GBNF
has: rules, literals with escapes, character classes (ranges, negation), ``.``, groups,
alternation, ``* + ?`` and ``{m}``, ``{m,}``, ``{m,n}``, comments."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from groundplan.llm.errors import LLMError


class GrammarSyntaxError(LLMError):
    """A GBNF grammar cannot be read."""


@dataclass(frozen=True)
class Lit:
    text: str


@dataclass(frozen=True)
class Cls:
    negated: bool
    ranges: tuple[tuple[str, str], ...]

    def accepts(self, ch: str) -> bool:
        inside = any(lo <= ch <= hi for lo, hi in self.ranges)
        return inside != self.negated


@dataclass(frozen=True)
class Any_:
    pass


@dataclass(frozen=True)
class Ref:
    name: str


@dataclass(frozen=True)
class Seq:
    items: tuple["Node", ...]


@dataclass(frozen=True)
class Alt:
    options: tuple["Node", ...]


@dataclass(frozen=True)
class Rep:
    item: "Node"
    min: int
    max: int | None


Node = Union[Lit, Cls, Any_, Ref, Seq, Alt, Rep]

_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
_ESC = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "[": "[", "]": "]", "-": "-", "^": "^",
        "/": "/", "b": "\b", "f": "\f"}


class _Parser:
    def __init__(self, text: str):
        self.s = text
        self.i = 0

    def err(self, msg: str) -> GrammarSyntaxError:
        line = self.s.count("\n", 0, self.i) + 1
        return GrammarSyntaxError(f"grammar line {line}: {msg}")

    def space(self, newline_ok: bool) -> None:
        s = self.s
        while self.i < len(s):
            c = s[self.i]
            if c in " \t" or (newline_ok and c in "\r\n"):
                self.i += 1
            elif c == "#":
                while self.i < len(s) and s[self.i] not in "\r\n":
                    self.i += 1
            else:
                break

    def name(self) -> str:
        j = self.i
        while self.i < len(self.s) and self.s[self.i] in _NAME_CHARS:
            self.i += 1
        if j == self.i:
            raise self.err(f"expected a rule name at {self.s[self.i:self.i + 10]!r}")
        return self.s[j:self.i]

    def char(self) -> str:
        s = self.s
        if s[self.i] == "\\":
            self.i += 1
            if self.i >= len(s):
                raise self.err("dangling backslash")
            e = s[self.i]
            if e in "xuU":
                n = {"x": 2, "u": 4, "U": 8}[e]
                h = s[self.i + 1:self.i + 1 + n]
                try:
                    ch = chr(int(h, 16))
                except ValueError:
                    raise self.err(f"bad escape \\{e}{h}") from None
                self.i += 1 + n
                return ch
            self.i += 1
            if e not in _ESC:
                raise self.err(f"unknown escape \\{e}")
            return _ESC[e]
        ch = s[self.i]
        self.i += 1
        return ch

    def grammar(self) -> dict[str, Node]:
        rules: dict[str, Node] = {}
        self.space(True)
        while self.i < len(self.s):
            name = self.name()
            self.space(False)
            if not self.s.startswith("::=", self.i):
                raise self.err(f"expected '::=' after rule name {name}")
            self.i += 3
            self.space(True)
            rules[name] = self.alternates(nested=False)
            self.space(True)
        if "root" not in rules:
            raise GrammarSyntaxError("grammar has no 'root' rule")
        for r in list(rules.values()):
            self._check_refs(r, rules)
        return rules

    def _check_refs(self, n: Node, rules: dict[str, Node]) -> None:
        if isinstance(n, Ref) and n.name not in rules:
            raise GrammarSyntaxError(f"grammar uses undefined rule '{n.name}'")
        for c in _children(n):
            self._check_refs(c, rules)

    def alternates(self, nested: bool) -> Node:
        opts = [self.sequence(nested)]
        while self.i < len(self.s) and self.s[self.i] == "|":
            self.i += 1
            self.space(True)
            opts.append(self.sequence(nested))
        return opts[0] if len(opts) == 1 else Alt(tuple(opts))

    def sequence(self, nested: bool) -> Node:
        items: list[Node] = []
        s = self.s
        while self.i < len(s):
            c = s[self.i]
            if c == '"':
                self.i += 1
                buf = []
                while self.i < len(s) and s[self.i] != '"':
                    if s[self.i] in "\r\n":
                        raise self.err("unterminated string literal")
                    buf.append(self.char())
                if self.i >= len(s):
                    raise self.err("unterminated string literal")
                self.i += 1
                items.append(Lit("".join(buf)))
            elif c == "[":
                self.i += 1
                neg = False
                if self.i < len(s) and s[self.i] == "^":
                    neg = True
                    self.i += 1
                ranges = []
                while self.i < len(s) and s[self.i] != "]":
                    lo = self.char()
                    hi = lo
                    if self.i + 1 < len(s) and s[self.i] == "-" and s[self.i + 1] != "]":
                        self.i += 1
                        hi = self.char()
                    ranges.append((lo, hi))
                if self.i >= len(s):
                    raise self.err("unterminated character class")
                self.i += 1
                items.append(Cls(neg, tuple(ranges)))
            elif c == ".":
                self.i += 1
                items.append(Any_())
            elif c == "(":
                self.i += 1
                self.space(True)
                inner = self.alternates(nested=True)
                self.space(True)
                if self.i >= len(s) or s[self.i] != ")":
                    raise self.err("expected ')'")
                self.i += 1
                items.append(inner)
            elif c in _NAME_CHARS:
                j = self.i
                name = self.name()
                k = self.i
                self.space(False)
                if s.startswith("::=", self.i):  # next rule starts here: this one ended at the newline
                    self.i = j
                    break
                self.i = k
                items.append(Ref(name))
            elif c in "*+?":
                if not items:
                    raise self.err(f"'{c}' without an element before it")
                self.i += 1
                lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
                items[-1] = Rep(items[-1], lo, hi)
            elif c == "{":
                if not items:
                    raise self.err("'{' without an element before it")
                j = s.find("}", self.i)
                if j < 0:
                    raise self.err("unterminated '{'")
                body = s[self.i + 1:j].replace(" ", "")
                self.i = j + 1
                try:
                    if "," in body:
                        a, b = body.split(",", 1)
                        lo, hi = int(a), (int(b) if b else None)
                    else:
                        lo = hi = int(body)
                except ValueError:
                    raise self.err(f"bad repetition {{{body}}}") from None
                items[-1] = Rep(items[-1], lo, hi)
            else:
                break
            self.space(nested)
            if not nested and self.i < len(s) and s[self.i] in "\r\n":
                break
        return items[0] if len(items) == 1 else Seq(tuple(items))


def _children(n: Node) -> tuple[Node, ...]:
    if isinstance(n, Seq):
        return n.items
    if isinstance(n, Alt):
        return n.options
    if isinstance(n, Rep):
        return (n.item,)
    return ()


@dataclass(frozen=True)
class Grammar:
    rules: dict[str, Node]

    def matches(self, text: str, rule: str = "root") -> bool:
        return len(text) in _Matcher(self.rules, text).ends(Ref(rule), 0)


def parse_gbnf(text: str) -> Grammar:
    return Grammar(_Parser(text).grammar())


def gbnf_matches(grammar: str | Grammar, text: str) -> bool:
    g = parse_gbnf(grammar) if isinstance(grammar, str) else grammar
    return g.matches(text)


class _Matcher:
    def __init__(self, rules: dict[str, Node], text: str):
        self.rules = rules
        self.s = text
        self.memo: dict[tuple[str, int], frozenset[int]] = {}
        self.active: set[tuple[str, int]] = set()

    def ends(self, n: Node, pos: int) -> frozenset[int]:
        s = self.s
        if isinstance(n, Lit):
            return frozenset((pos + len(n.text),)) if s.startswith(n.text, pos) else frozenset()
        if isinstance(n, Cls):
            return frozenset((pos + 1,)) if pos < len(s) and n.accepts(s[pos]) else frozenset()
        if isinstance(n, Any_):
            return frozenset((pos + 1,)) if pos < len(s) else frozenset()
        if isinstance(n, Ref):
            k = (n.name, pos)
            if k in self.memo:
                return self.memo[k]
            if k in self.active:  # left recursion: llama.cpp does not allow it either
                return frozenset()
            self.active.add(k)
            try:
                r = self.ends(self.rules[n.name], pos)
            finally:
                self.active.discard(k)
            self.memo[k] = r
            return r
        if isinstance(n, Seq):
            cur = frozenset((pos,))
            for it in n.items:
                nxt: set[int] = set()
                for p in cur:
                    nxt |= self.ends(it, p)
                if not nxt:
                    return frozenset()
                cur = frozenset(nxt)
            return cur
        if isinstance(n, Alt):
            out: set[int] = set()
            for o in n.options:
                out |= self.ends(o, pos)
            return frozenset(out)
        assert isinstance(n, Rep)
        result: set[int] = {pos} if n.min == 0 else set()
        cur = {pos}
        visited = {pos}
        count = 0
        while cur and (n.max is None or count < n.max):
            nxt: set[int] = set()
            for p in cur:
                nxt |= self.ends(n.item, p)
            count += 1
            if count >= n.min:
                result |= nxt
                nxt -= visited
                visited |= nxt
            cur = nxt
        return frozenset(result)


def sample(grammar: Grammar, rng, rule: str = "root", *, max_repeat: int = 3, max_depth: int = 200) -> str:
    """A random sentence of the grammar (unbounded repetitions drawn up to ``max_repeat``
    extra times). For tests: a "model" that only ever says grammatical things."""
    out: list[str] = []

    def gen(n: Node, depth: int) -> None:
        if depth > max_depth:
            raise GrammarSyntaxError("grammar recursion too deep to sample")
        if isinstance(n, Lit):
            out.append(n.text)
        elif isinstance(n, Cls):
            if n.negated:
                ch = next(c for c in "abcdefghijklmnopqrstuvwxyz0123456789 " if n.accepts(c))
            else:
                lo, hi = rng.choice(n.ranges)
                ch = chr(rng.randint(ord(lo), ord(hi)))
            out.append(ch)
        elif isinstance(n, Any_):
            out.append("x")
        elif isinstance(n, Ref):
            gen(grammar.rules[n.name], depth + 1)
        elif isinstance(n, Seq):
            for it in n.items:
                gen(it, depth + 1)
        elif isinstance(n, Alt):
            gen(rng.choice(n.options), depth + 1)
        else:
            hi = n.max if n.max is not None else n.min + max_repeat
            for _ in range(rng.randint(n.min, hi)):
                gen(n.item, depth + 1)

    gen(grammar.rules[rule], 0)
    return "".join(out)
