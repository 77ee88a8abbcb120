"""`groundplan chat`: interactive task planning with Wake et al.'s prompts (Sec. III-B).

Type an instruction and see the plan the model writes (each action with its step
instruction), whether the executor can run it, and how the environment changes. Then type
a correction in plain words ("insert another move_object() to move the juice upward") to
get a revised plan, or press Enter to accept it: the plan's environment_after becomes the
environment of the next instruction. A question the model asks is shown to you.

Commands: /ok (accept), /auto (let the automatic feedback system correct the plan),
/env (show the current environment), /history, /reset, /help, /quit.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console
from rich.table import Table

from groundplan.cli.console import fail_line, make_console, styled
from groundplan.cli.llm_cmds import CacheDirOpt
from groundplan.errors import GroundplanError

_out = make_console()
_err = make_console(stderr=True)

HELP = ("Type an instruction. After a plan: type a correction to revise it, or press Enter (/ok) to accept it.\n"
        "Commands: /ok  /auto  /env  /history  /reset  /help  /quit")


def _fail(msg: str, code: int = 2) -> None:
    _err.print(fail_line("error", str(msg)))
    raise typer.Exit(code)


def _script(path: Path) -> tuple[str, ...]:
    """Answers for the scripted backend: a JSON list of strings or answer dictionaries."""
    from groundplan.methods.wake_prompts.schema import format_answer

    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        _fail(f"{path}: cannot read the script ({exc})")
    if not isinstance(data, list):
        _fail(f"{path}: the script must be a JSON list of answers")
    return tuple(x if isinstance(x, str) else format_answer(x) for x in data)


class ChatSession:
    """The conversation state behind the prompt: a Wake et al. session, the executor's
    state and the answer waiting for a correction or acceptance."""

    def __init__(self, llm, task, prompts_source: str, options, *, env_source: str = "llm",
                 execute: bool = True, console: Console = _out):
        from groundplan.methods.wake_prompts import make_world
        from groundplan.methods.wake_prompts.actions import action_set
        from groundplan.methods.wake_prompts.feedback import AutoFeedback
        from groundplan.methods.wake_prompts.prompts import load_prompts
        from groundplan.methods.wake_prompts.session import WakeSession

        self.actions = action_set(task.skillset)
        self.prompts = load_prompts(self.actions.name, prompts_source)
        self.world, aff = make_world(task)
        self.session = WakeSession(llm, self.prompts, self.actions, self.world.environment(), options=options)
        self.auto = AutoFeedback(self.world, self.actions, aff)
        self.facts = self.world.initial_facts
        self.pending = None  # (answer, judgement)
        self.env_source = env_source
        self.execute = execute
        self.console = console
        self.accepted: list[str] = []

    # ------------------------------------------------------------------ display

    def show(self, answer, judgement) -> None:
        c = self.console
        if answer.data is None:
            c.print(styled(("The answer is not a readable plan:", "red"), " ",
                           answer.problems[0] if answer.problems else ""))
            c.print(answer.text[:400])
            return
        view = answer.view
        t = Table(title=view.summary or None, show_lines=False)
        t.add_column("#", justify="right")
        t.add_column("action")
        t.add_column("step instruction")
        steps = view.step_instructions
        for i, item in enumerate(judgement.items):
            t.add_row(str(i + 1), item, steps[i] if i < len(steps) else "")
        c.print(t)
        if view.object_name:
            c.print(f"object: {view.object_name}")
        if answer.question:
            c.print(styled(("The robot asks:", "bold yellow"), " ", answer.question))
        for p in answer.problems:
            c.print(fail_line("note", p))
        if self.execute:
            f = judgement.failed
            if f is None and judgement.executable:
                c.print(styled(("executor: every step runs", "green")))
            elif f is not None:
                c.print(styled((f"executor: step {f.index + 1} fails:", "red"), " ", str(f.reason)))
            if judgement.env_match is False:
                c.print(styled(("the plan's environment_after differs from the executor's state", "yellow")))
        before = self.session.current.environment if self.session.current else self.session.environment
        after = view.environment_after
        if after is not None:
            from groundplan.world.wake_env import environment_diff

            changes = [d for d in environment_diff(before, after, style=self.actions.style)
                       if d.startswith(("missing state", "unexpected"))]
            moved = [d.replace("unexpected state ", "") for d in changes if d.startswith("unexpected")]
            c.print("environment after: " + ("; ".join(moved) if moved else "unchanged"))
        c.print(styled(("(Enter to accept, or type a correction)", "dim")))

    def show_env(self) -> None:
        self.console.print(json.dumps(self.session.environment, indent=1))

    # ------------------------------------------------------------------ turns

    def _judge(self, answer):
        from groundplan.methods.wake_prompts.judge import execute_answer

        return execute_answer(self.world, self.actions, answer, self.facts, argless=self.prompts.argless)

    def _ask(self, fn, *args):
        if self.console.is_terminal:
            with self.console.status("thinking..."):
                answer = fn(*args)
        else:
            answer = fn(*args)
        j = self._judge(answer)
        self.pending = (answer, j)
        self.show(answer, j)

    def instruct(self, text: str) -> None:
        self._ask(self.session.instruct, text)

    def correct(self, text: str) -> None:
        self._ask(self.session.correct, text)

    def auto_feedback(self) -> bool:
        """One round of the automatic feedback system; False when it has nothing to say."""
        if self.pending is None:
            return False
        fb = self.auto.check(*self.pending)
        if fb is None:
            self.console.print(styled(("automatic feedback: nothing to correct", "green")))
            return False
        self.console.print(f"automatic feedback: {fb.text}")
        self.correct(fb.text)
        return True

    def accept(self) -> None:
        if self.pending is None:
            return
        answer, j = self.pending
        self.facts = j.facts
        env = j.env_after if (self.env_source == "executor" or answer.view.environment_after is None) else None
        self.session.accept(env)
        self.accepted.append(self.session.history[-1].instruction)
        self.pending = None
        self.console.print(styled(("accepted", "green"), "; the next instruction starts from its environment_after"))

    def reset(self) -> None:
        self.facts = self.world.initial_facts
        self.session.reset(self.world.environment())
        self.pending = None
        self.accepted.clear()

    def handle(self, line: str) -> bool:
        """One line typed by the user; False to quit."""
        text = line.strip()
        if text.startswith("/"):
            cmd = text.split()[0].lower()
            if cmd in ("/quit", "/exit", "/q"):
                return False
            if cmd == "/ok":
                self.accept()
            elif cmd == "/auto":
                self.auto_feedback()
            elif cmd == "/env":
                self.show_env()
            elif cmd == "/history":
                for i, ins in enumerate(self.accepted, 1):
                    self.console.print(f"{i}. {ins}")
            elif cmd == "/reset":
                self.reset()
                self.console.print("reset to the initial environment")
            else:
                self.console.print(HELP)
            return True
        if self.pending is not None:
            if not text:
                self.accept()
            else:
                self.correct(text)
        elif text:
            self.instruct(text)
        return True


def chat_command(
    scene: Path = typer.Option(..., "--scene", help="an lfo scene (examples/scenes/lfo_*.yaml) or a VirtualHome graph (.json)"),
    skills: Optional[str] = typer.Option(None, "--skills", help="lfo or virtualhome (default: virtualhome for .json)"),
    keep: Optional[List[str]] = typer.Option(None, "--keep", help="entities the environment shows (VirtualHome: "
                                                                  "node names such as pie_320; default: all)"),
    prompts: str = typer.Option("project", "--prompts", help="project (groundplan's templates) or original "
                                                             "(the repository's files, from the data directory)"),
    backend: str = typer.Option("embedded", "--llm", "--backend",
                                help="LLM backend: embedded | openai | replay | scripted"),
    model: Optional[str] = typer.Option(None, "--model", help="model name (openai) or GGUF path (embedded)"),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="OpenAI-compatible base URL"),
    api_key_env: Optional[str] = typer.Option(None, "--api-key-env", help="environment variable with the API key"),
    script_file: Optional[Path] = typer.Option(None, "--script-file", help="scripted backend: JSON list of answers"),
    replay: Optional[List[Path]] = typer.Option(None, "--replay", help="transcript(s) for the replay backend"),
    record: Optional[Path] = typer.Option(None, "--record", help="append every exchange to this JSONL transcript"),
    no_cache: bool = typer.Option(False, "--no-cache", help="bypass the LLM disk cache"),
    cache_dir: Optional[Path] = CacheDirOpt,
    n_ctx: int = typer.Option(8192, "--n-ctx", help="embedded: context window (tokens)"),
    threads: Optional[int] = typer.Option(None, "--threads", help="embedded: CPU threads"),
    temperature: float = typer.Option(0.0, "--temperature"),
    max_tokens: int = typer.Option(1200, "--max-tokens"),
    constrained: bool = typer.Option(True, "--constrained/--free", help="decode under the answer's grammar / JSON schema"),
    units: bool = typer.Option(False, "--units", help="lfo: decode the task sequence as grasp-manipulation-release units"),
    env_source: str = typer.Option("llm", "--env-source", help="llm: chain the plan's environment_after (the paper); "
                                                               "executor: chain the executor's state"),
    execute: bool = typer.Option(True, "--execute/--no-execute", help="run each plan in the executor and show the verdict"),
):
    """Plan instructions one after another with Wake et al.'s prompts; correct a plan in words."""
    from groundplan.core.task import Task
    from groundplan.llm import LLMConfig, build_llm
    from groundplan.llm.config import DEFAULT_KEY_ENV
    from groundplan.methods.wake_prompts.session import WakeOptions

    if not scene.is_file():
        _fail(f"{scene}: scene file not found")
    skillset = skills or ("virtualhome" if scene.suffix == ".json" else "lfo")
    if env_source not in ("llm", "executor"):
        _fail("--env-source must be llm or executor")
    script = _script(script_file) if script_file is not None else ()
    if backend == "scripted" and not script:
        _fail("the scripted backend needs --script-file")
    cfg = LLMConfig(backend=backend, model=model, base_url=base_url,
                    api_key_env=(api_key_env,) if api_key_env else DEFAULT_KEY_ENV, n_ctx=n_ctx, n_threads=threads,
                    cache=not no_cache, cache_dir=cache_dir, record=record, replay=tuple(replay or ()), script=script)
    options = WakeOptions(constrained=constrained, temperature=temperature, max_tokens=max_tokens, context_tokens=n_ctx,
                          units=units)
    task = Task("chat", "chat", "", str(scene), None, skillset=skillset, extras={"keep": list(keep) if keep else None})
    try:
        llm = build_llm(cfg)
        chat = ChatSession(llm, task, prompts, options, env_source=env_source, execute=execute)
    except GroundplanError as exc:
        _fail(str(exc))
        return
    _out.print(f"groundplan chat - {scene.name} ({skillset} actions, {prompts} prompts, {llm.backend_name} "
               f"{llm.model})")
    _out.print(HELP)
    try:
        while True:
            try:
                line = input("feedback> " if chat.pending is not None else "instruction> ")
            except EOFError:
                break
            try:
                if not chat.handle(line):
                    break
            except GroundplanError as exc:
                _err.print(fail_line("error", str(exc)))
    except KeyboardInterrupt:
        _out.print("")
    finally:
        llm.close()
    sys.stdout.flush()


__all__ = ["chat_command", "ChatSession"]
