"""`groundplan` command line (typer + rich). Errors print one line and exit with code 2;
no traceback unless GROUNDPLAN_DEBUG=1."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import Optional

import typer

from groundplan.cli.console import HELP_MARKUP, fail_line, make_console
from groundplan.errors import GroundplanError

app = typer.Typer(rich_markup_mode=HELP_MARKUP, add_completion=False, no_args_is_help=True,
                  help="groundplan: grounded LLM task planning for robots.")
scene_app = typer.Typer(rich_markup_mode=HELP_MARKUP, no_args_is_help=True,
                        help="Inspect and convert scenes.")
app.add_typer(scene_app, name="scene")
out = make_console()
err = make_console(stderr=True)


def _fail(msg: str, code: int = 2) -> None:
    err.print(fail_line("error", str(msg)))
    raise typer.Exit(code)


@app.callback()
def _root(limits_file: Optional[Path] = typer.Option(
        None, "--limits", help="TOML file whose [limits] table sets the resource bounds "
                               "(default: $GROUNDPLAN_CONFIG, else ./groundplan.toml; see `groundplan limits`)")):
    """groundplan: grounded LLM task planning for robots."""
    from groundplan.limits import load, set_current

    if limits_file is not None:
        set_current(load(limits_file), source=f"{limits_file} (--limits)")


@app.command("limits")
def limits_command(as_json: bool = typer.Option(False, "--json", help="print one JSON object")):
    """Show the resource bounds in force and where they come from."""
    from rich.table import Table
    from rich.text import Text

    from groundplan.limits import Limits, current, source

    lim, default = current(), Limits()
    if as_json:
        sys.stdout.write(json.dumps(dataclasses.asdict(lim)) + "\n")
        return
    t = Table(title="resource bounds ([limits] in --limits FILE, $GROUNDPLAN_CONFIG or ./groundplan.toml)")
    for col in ("limit", "value", "default", "what it bounds"):
        t.add_column(col)
    docs = _limit_docs()
    for f in dataclasses.fields(Limits):
        v, d = getattr(lim, f.name), getattr(default, f.name)
        t.add_row(f.name, f"{v:g}" if v == d else Text(f"{v:g}", style="bold"), f"{d:g}", docs.get(f.name, ""))
    out.print(t)
    out.print(f"source: {source()}", highlight=False)


def _limit_docs() -> dict[str, str]:
    """The ``#:`` comments above each field of groundplan.limits.Limits."""
    import inspect

    import groundplan.limits as mod

    docs, pending = {}, []
    for line in inspect.getsource(mod.Limits).splitlines():
        line = line.strip()
        if line.startswith("#:"):
            pending.append(line[2:].strip())
        elif ":" in line and pending and not line.startswith(("def", "@", "class")):
            for name in line.split(":")[0].split(","):
                docs[name.strip()] = " ".join(pending)
            pending = []
    return docs


def _planner(name: str, timeout: Optional[float]):
    from groundplan.planners import PlannerLimits, get_planner

    if name == "fast-downward":
        limits = PlannerLimits.configured()
        return get_planner(name, limits=limits if timeout is None else dataclasses.replace(limits, timeout=timeout))
    return get_planner(name)


def _plan_one(scene: str, goal: str, check: Optional[str], skills: str, oam: Optional[str], planner,
              timeout: Optional[float],
              lenient: bool, oam_replace: bool = False, infer: str = "default"):
    from groundplan.sim.pipeline import build, plan_and_check

    task = build(scene, skillset=skills, oam_file=oam, strict=not lenient, oam_replace=oam_replace, infer=infer)
    return plan_and_check(task, goal, planner, check_text=check, timeout=timeout)


#: shared by the commands that build a planning task (plan, pddl, goal)
OamReplaceOpt = typer.Option(False, "--oam-replace", help="the --oam files replace the default map instead of "
                                                          "extending it")
InferOpt = typer.Option("default", "--infer", help="affordances for scene classes the map lacks: default "
                                                   "(embedding), embedding, lexical, off (see groundplan oam infer)")


@app.command()
def plan(scene: Optional[Path] = typer.Option(None, "--scene", help="scene file (.txt AutoGPT+P or .yaml)"),
         goal: Optional[str] = typer.Option(None, "--goal", help="goal, e.g. 'and (inhand apple0 human0)'"),
         skills: str = typer.Option("household", "--skills", help="skill set name or YAML file"),
         oam: Optional[str] = typer.Option(None, "--oam", help="object-affordance map(s) (.json/.csv/.yaml, "
                                           "os.pathsep-joined) extending the default map"),
         oam_replace: bool = OamReplaceOpt, infer: str = InferOpt,
         check: Optional[str] = typer.Option(None, "--check", help="a second goal the final state must satisfy"),
         as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
         jsonl: Optional[Path] = typer.Option(None, "--jsonl", help="batch: one {scene, goal, check} per line"),
         planner_name: str = typer.Option("fast-downward", "--planner"),
         timeout: Optional[float] = typer.Option(None, "--timeout",
                                                 help="seconds per plan (default: the limit planner_timeout)"),
         lenient: bool = typer.Option(False, "--lenient", help="drop scene facts naming unknown objects (warn)"),
         domain: Optional[Path] = typer.Option(None, "--domain", help="PDDL domain file (with --problem)"),
         problem: Optional[Path] = typer.Option(None, "--problem", help="PDDL problem file (with --domain)")):
    """Plan GOAL in SCENE, or a PDDL --domain and --problem; print the plan (one action per
    line), its cost and time."""
    if domain is not None or problem is not None:
        from groundplan.cli.plan_files_cmd import plan_files_command

        plan_files_command(domain, problem, as_json=as_json, planner_name=planner_name, timeout=timeout,
                           other=scene or goal or jsonl or check)
        return
    planner = _planner(planner_name, timeout)
    if jsonl is not None:
        if not jsonl.exists():
            _fail(f"{jsonl}: file not found")
        with jsonl.open() as fh:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    req = json.loads(line)
                    if not isinstance(req, dict) or "scene" not in req or "goal" not in req:
                        raise ValueError("needs keys scene and goal")
                    res = _plan_one(req["scene"], req["goal"], req.get("check"), req.get("skills", skills),
                                    req.get("oam", oam), planner, timeout, lenient,
                                    bool(req.get("oam_replace", oam_replace)), infer).to_json()
                except (ValueError, json.JSONDecodeError) as exc:
                    res = {"status": "invalid", "plan": [], "cost": None, "seconds": 0, "check": None,
                           "error": f"{jsonl}:{lineno}: {exc}"}
                except GroundplanError as exc:
                    res = {"status": "invalid", "plan": [], "cost": None, "seconds": 0, "check": None,
                           "error": str(exc)}
                res["line"] = lineno  # which request this answers (blank lines are skipped)
                sys.stdout.write(json.dumps(res) + "\n")
                sys.stdout.flush()
        return
    if scene is None or goal is None:
        _fail("give --scene and --goal (or --jsonl FILE)")
    result = _plan_one(str(scene), goal, check, skills, oam, planner, timeout, lenient, oam_replace, infer)
    if as_json:
        sys.stdout.write(json.dumps(result.to_json()) + "\n")
        raise typer.Exit(0 if result.status == "solved" else (2 if result.status == "invalid" else 1))
    if result.status == "invalid":
        _fail(result.error or "invalid goal")
    for w in result.warnings:
        err.print(fail_line("warning", w))
    if result.status != "solved":
        err.print(f"{result.status}: {result.error or ''}", highlight=False)
        raise typer.Exit(1)
    for step in result.plan:
        out.print(step, highlight=False)
    out.print(f"; cost {result.cost:g}, {len(result.plan)} actions, {result.seconds * 1000:.0f} ms", highlight=False)
    if check is not None:
        out.print(f"; check: {'satisfied' if result.check else 'NOT satisfied'} (goal-condition recall "
                  f"{result.check_gcr:.2f})", highlight=False)


@scene_app.command("show")
def scene_show(path: Path, lenient: bool = typer.Option(False, "--lenient")):
    """Print a scene as groundplan YAML (loads back as the same scene: `scene show S > s.yaml`)."""
    from groundplan.world import load_scene, write_yaml_scene

    _write_data(write_yaml_scene(load_scene(path, strict=not lenient)))


@scene_app.command("convert")
def scene_convert(src: Path, dst: Path, lenient: bool = typer.Option(False, "--lenient")):
    """Convert a scene (e.g. AutoGPT+P .txt) to groundplan YAML."""
    from groundplan.world import load_scene, write_yaml_scene

    write_yaml_scene(load_scene(src, strict=not lenient), dst)
    out.print(f"wrote {dst}")


@app.command()
def pddl(scene: Path = typer.Option(..., "--scene"), skills: str = typer.Option("household", "--skills"),
         oam: Optional[str] = typer.Option(None, "--oam"), goal: Optional[str] = typer.Option(None, "--goal"),
         lenient: bool = typer.Option(False, "--lenient"), oam_replace: bool = OamReplaceOpt,
         infer: str = InferOpt,
         out_dir: Optional[Path] = typer.Option(None, "--out", help="write DIR/domain.pddl and DIR/problem.pddl "
                                                                   "instead of printing both")):
    """Print the PDDL domain and problem built from a skill set and a scene (or write them
    to --out DIR, which needs --goal); with --goal the problem has that goal, ready for a planner."""
    from groundplan.pddl import check_goal, parse_goal, write_domain, write_problem
    from groundplan.sim.pipeline import build

    if out_dir is not None and not goal:  # a PDDL problem without (:goal ...) is not valid PDDL
        _fail("--out writes a problem for a planner, and a PDDL problem needs a goal: give --goal, e.g. "
              "--goal 'and (inhand apple0 human0)' (without --out, the domain and the goal-less problem are "
              "printed for reading)")
    task = build(scene, skillset=skills, oam_file=oam, strict=not lenient, oam_replace=oam_replace, infer=infer)
    problem = task.problem
    if goal:
        g = parse_goal(goal)
        check_goal(g, task.domain, problem)
        problem = problem.with_goal(g)
    domain_text, problem_text = write_domain(task.domain), write_problem(problem, with_goal=goal is not None)
    if out_dir is None:
        _write_data(domain_text)
        _write_data(problem_text)
        return
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        for name, text in (("domain.pddl", domain_text), ("problem.pddl", problem_text)):
            (out_dir / name).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    except OSError as exc:
        _fail(f"{out_dir}: cannot write: {exc.strerror or exc}")
    out.print(f"wrote {out_dir / 'domain.pddl'} and {out_dir / 'problem.pddl'}")


def _write_data(text: str) -> None:
    """Data (PDDL, YAML) goes to stdout byte for byte: no console layout, markup or wrapping."""
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


@app.command("formats")
def formats_command(schema: Optional[str] = typer.Option(
        None, "--schema", help="print one JSON Schema: scene, skillset, oam or oam_json"),
        markdown: bool = typer.Option(True, "--markdown/--no-markdown",
                                      help="print docs/formats.md, generated from the schemas")):
    """The documented file formats (scene, skill set, object-affordance map)."""
    import groundplan.schemas as schemas

    if schema is not None:
        from groundplan.errors import did_you_mean

        if schema not in schemas.SCHEMAS:
            _fail(f"no format '{schema}'{did_you_mean(schema, schemas.SCHEMAS)} (known: {', '.join(schemas.SCHEMAS)})")
        sys.stdout.write(json.dumps(schemas.load_schema(schema), indent=2) + "\n")
        return
    if markdown:
        from groundplan.schemas.docs import render_markdown

        sys.stdout.write(render_markdown())

def _register_optional() -> None:
    """Commands of the other command modules. An import error here is a broken command and
    fails loudly (it is never swallowed: a command must not silently disappear)."""
    from groundplan.cli import chat_cmds, llm_cmds, oam_cmds

    app.command("chat")(chat_cmds.chat_command)
    app.add_typer(oam_cmds.oam_app, name="oam")
    app.add_typer(llm_cmds.llm_app, name="llm")
    app.command("goal")(llm_cmds.goal_command)
    from groundplan.cli import run_cmds

    app.command("run")(run_cmds.run_command)


def _register_serve() -> None:
    from groundplan.cli import serve_cmds

    app.command("serve")(serve_cmds.serve_command)


def _register_bench() -> None:
    from groundplan.cli import bench_cmds, experiment_cmds

    bench_cmds.bench_app.command("experiment")(experiment_cmds.experiment_command)
    app.add_typer(bench_cmds.bench_app, name="bench")


_register_optional()
_register_bench()
_register_serve()


def main() -> None:
    try:
        rc = app(standalone_mode=False)
        sys.exit(rc if isinstance(rc, int) else 0)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except GroundplanError as exc:
        if os.environ.get("GROUNDPLAN_DEBUG"):
            raise
        err.print(fail_line("error", str(exc)))
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)
    except Exception as exc:  # click usage errors and anything unexpected: one line, no traceback
        if hasattr(exc, "show") and hasattr(exc, "exit_code"):  # click/typer usage errors
            exc.show()
            sys.exit(2)
        if type(exc).__name__ == "Abort":
            sys.exit(1)
        if os.environ.get("GROUNDPLAN_DEBUG"):
            raise
        err.print(fail_line("internal error", f"{type(exc).__name__}: {exc} (set GROUNDPLAN_DEBUG=1 for a traceback)"))
        sys.exit(1)


if __name__ == "__main__":
    main()
