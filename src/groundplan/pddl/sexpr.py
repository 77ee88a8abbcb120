"""S-expression reader for PDDL text with line-accurate errors."""

from __future__ import annotations

from dataclasses import dataclass

from groundplan.errors import PDDLSyntaxError


@dataclass(frozen=True)
class Token:
    text: str
    line: int


SExpr = "str | list[SExpr]"


class SList(list):
    """A parsed ``( ... )``: a plain list that also knows the line its '(' is on, so
    checks run after parsing can still name ``file:line``."""

    __slots__ = ("line",)

    def __init__(self, items=(), line: int | None = None):
        super().__init__(items)
        self.line = line


def line_of(expr) -> int | None:
    """The line an expression starts on (None for bare tokens and plain lists)."""
    return getattr(expr, "line", None)


def tokenize(text: str, *, file: str | None = None, first_line: int = 1) -> list[Token]:
    tokens: list[Token] = []
    line = first_line
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif c == ";":
            while i < n and text[i] != "\n":
                i += 1
        elif c in "()":
            tokens.append(Token(c, line))
            i += 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in "();":
                j += 1
            tokens.append(Token(text[i:j].lower(), line))
            i = j
    return tokens


def parse_sexprs(text: str, *, file: str | None = None, first_line: int = 1,
                 max_depth: int = 200) -> list:
    """Parse all top-level expressions. Raises PDDLSyntaxError naming the line of an
    unbalanced parenthesis."""
    tokens = tokenize(text, file=file, first_line=first_line)
    stack: list[list] = [[]]
    open_lines: list[int] = []
    for tok in tokens:
        if tok.text == "(":
            if len(stack) > max_depth:
                raise PDDLSyntaxError(f"nesting deeper than {max_depth} levels", file=file, line=tok.line)
            stack.append(SList(line=tok.line))
            open_lines.append(tok.line)
        elif tok.text == ")":
            if len(stack) == 1:
                raise PDDLSyntaxError("unbalanced parentheses: ')' without matching '('",
                                      file=file, line=tok.line)
            done = stack.pop()
            open_lines.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok.text)
    if len(stack) > 1:
        raise PDDLSyntaxError(f"unbalanced parentheses: {len(stack) - 1} '(' not closed "
                              f"(first opened on line {open_lines[0]})", file=file, line=open_lines[0])
    return stack[0]


def parse_one(text: str, *, file: str | None = None) -> list | str:
    exprs = parse_sexprs(text, file=file)
    if len(exprs) != 1:
        raise PDDLSyntaxError(f"expected one expression, found {len(exprs)}", file=file)
    return exprs[0]


def to_text(expr) -> str:
    if isinstance(expr, str):
        return expr
    return "(" + " ".join(to_text(e) for e in expr) + ")"
