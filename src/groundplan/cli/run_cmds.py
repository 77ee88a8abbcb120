"""`groundplan run`: one method's whole algorithm on the user's own instruction and scene.

    groundplan run --scene S [--skills K] [--oam F [--oam-replace]] [--infer I] [--lenient] [--method M]
                   [--llm B --model ... --base-url ...] [--check GOAL] [--json] [--record F] "instruction"

In a terminal the trace is shown live (LLM calls with tokens and time, goals and
corrections, tool calls, each executed action with the facts it added and removed,
feedback), then the verdict, plan, cost, calls, tokens and time. When stdout is not a
terminal the same lines are plain text (no color, no wrapping). ``--json`` prints the
episode (with its ``verdict``) instead. ``--record F`` writes the episode JSON to F and the
LLM exchanges to F's ``.llm.jsonl`` sibling (replayable: ``--llm replay --replay F.llm.jsonl``).

Exit codes: 0 success or goal holds (unverified); 1 failure or no plan; 2 bad input or the
method refused the task (one line: why); 3 error (an endpoint error, a crash). With ``--json``
(and ``--record``) a refusal and an error are episode records too (status ``unsupported`` /
``error``); the record's ``status``, ``success`` and ``error`` follow the verdict
(docs/formats.md "Episode record").
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, List, Mapping, Optional

import typer

from groundplan.cli.console import fail_line, make_console, styled
from groundplan.cli.llm_cmds import (
    BackendOpt,
    BaseUrlOpt,
    CacheDirOpt,
    KeyEnvOpt,
    ModelOpt,
    NoCacheOpt,
    ReplayOpt,
    RetriesOpt,
    StyleOpt,
    ThreadsOpt,
    TimeoutOpt,
    TotalTimeoutOpt,
    _LLMOptions,
)
from groundplan.errors import GroundplanError

EXIT_OK, EXIT_FAILED, EXIT_INPUT, EXIT_ERROR = 0, 1, 2, 3
_VERDICT_STYLE = {"success": "bold green", "goal holds (unverified)": "bold yellow", "failure": "bold red",
                  "no plan": "bold red", "error": "bold red"}

#: longest text of one trace line (an LLM answer, a message) before it is cut with "..."
LINE_CHARS = 160


def _short(text: Any, n: int = LINE_CHARS) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= n else s[: n - 3] + "..."


def _facts(facts: Any) -> str:
    return " ".join(str(f) for f in (facts or ()))


# ----------------------------------------------------------------------------- trace lines


def _llm_call(ev: Mapping[str, Any]) -> Any:
    u = ev.get("usage") or {}
    tok = f"{u.get('prompt_tokens', 0)}+{u.get('completion_tokens', 0)} tok" if u else ""
    secs = f"{float(u['latency_s']):.2f} s" if u.get("latency_s") is not None else ""
    head = ", ".join(x for x in (tok, secs, u.get("source") if u.get("source") not in (None, "model") else "") if x)
    if "text" in ev:
        said = _short(ev.get("text") or "")
    elif ev.get("continuations"):
        said = "best: " + _short(ev["continuations"][0], 80) + f" (of {ev.get('candidates', len(ev['continuations']))})"
    else:
        said = ""
    return styled(("LLM ", "bold cyan"), (f"[{ev.get('purpose', '')}]", "cyan"),
                  f" {head}" if head else "", f" -> {said}" if said else "")


def _goal(ev: Mapping[str, Any]) -> Any:
    extra = ", ".join(f"{k} {ev[k]}" for k in ("source", "round", "score") if ev.get(k) is not None)
    return styled(("goal ", "bold"), str(ev.get("text") or ev.get("goal") or ""), f"  ({extra})" if extra else "")


def _check(ev: Mapping[str, Any]) -> Any:
    ok = ev.get("success")
    against = ev.get("against", "goal")
    if against == "safety" and not ok:  # the safety check's refusal, with what it refused
        what = f" {ev['step']}" if ev.get("step") else f" goal {ev['goal']}" if ev.get("goal") else ""
        return styled(("safety check: ", "bold"), (f"refused{what}", "yellow"), f": {ev.get('reason', '')}")
    head = "check" if against in ("gold goal", "check goal") else f"check {against}"
    tail = "" if ok else f"; unsatisfied: {_short(_facts(ev.get('unsatisfied')), 120)}" if ev.get("unsatisfied") else ""
    gcr = f" (gcr {float(ev['gcr']):.2f})" if ev.get("gcr") is not None else ""
    return styled((f"{head}: ", "bold"), ("holds" if ok else "does not hold", "green" if ok else "red"),
                  gcr, tail)


def _plan(ev: Mapping[str, Any]) -> Any:
    steps = ev.get("steps") or []
    cost = f", cost {float(ev['cost']):g}" if ev.get("cost") is not None else ""
    err = f": {_short(ev['error'], 120)}" if ev.get("error") else ""
    how = ev.get("status") or (f"from the {ev['source']}" if ev.get("source") else "")
    return styled(("plan ", "bold"), f"{how + ', ' if how else ''}{len(steps)} steps{cost}{err}")


def _step(ev: Mapping[str, Any]) -> Any:
    action = ev.get("action") or ev.get("command") or ""
    said = f"  [{_short(ev['nl'], 60)}]" if ev.get("nl") else ""  # the natural-language step it came from
    if "ok" in ev and ev["ok"] is None:  # a step with no command (BrainBody's <pass>)
        return styled(("  pass ", "yellow"), str(action), said)
    if ev.get("ok", True):
        changes = " ".join(x for x in ((f"+{_facts(ev.get('added'))}" if ev.get("added") else ""),
                                      (f"-{_facts(ev.get('deleted'))}" if ev.get("deleted") else "")) if x)
        return styled(("  ok   ", "green"), str(action), (f"   {changes}" if changes else "", "dim"), said)
    return styled(("  FAIL ", "bold red"), str(action), f": {_short(ev.get('reason') or '', 140)}", said)


def _feedback(ev: Mapping[str, Any]) -> Any:
    kind = f" ({ev['kind']})" if ev.get("kind") else ""
    return styled(("feedback", "bold magenta"), kind, ": ", _short(ev.get("message") or ev.get("text") or ""))


def _tool(ev: Mapping[str, Any]) -> Any:
    return styled(("tool ", "bold blue"), f"{ev.get('tool', '')} {ev.get('parameter', '') or ''}".rstrip(),
                  "  (fallback)" if ev.get("fallback") else "")


def _note(ev: Mapping[str, Any]) -> Any:
    what = ev.get("what") or ""
    if what == "goal search" and ev.get("clauses"):
        return styled(("goal search ", "bold"), f"({ev.get('structure', '')}): " + " | ".join(map(str, ev["clauses"])))
    if what == "inferred_affordances":
        inf = ev.get("inferred") or {}
        return styled(("inferred affordances ", "bold"), "; ".join(f"{c} ({', '.join(a)})" for c, a in inf.items()))
    return _generic(ev)


def _result(ev: Mapping[str, Any]) -> Any:
    # the method's own success flag is not the verdict (that is printed at the end): left out
    return _generic({k: v for k, v in ev.items() if k != "success"}, label="tool result" if "tool" in ev else "end")


def _generic(ev: Mapping[str, Any], label: Optional[str] = None) -> Any:
    skip = {"type", "t", "prompt"}
    body = ", ".join(f"{k}={_short(json.dumps(v) if not isinstance(v, str) else v, 60)}"
                     for k, v in ev.items() if k not in skip)
    return styled((f"{label or ev.get('type')} ", "bold"), _short(body, 200))


_RENDER = {"llm_call": _llm_call, "goal": _goal, "check": _check, "plan": _plan, "step": _step,
           "feedback": _feedback, "tool_call": _tool, "note": _note, "result": _result}


def trace_line(ev: Mapping[str, Any]) -> Any:
    """One trace event as one line (rich Text; plain when printed to a pipe)."""
    if ev.get("type") == "note" and ev.get("what") in ("autogpt_p", "tool selection"):
        return None  # the method's metrics (in the summary) / the tool chosen (the next line)
    return _RENDER.get(str(ev.get("type")), _generic)(ev)


# ----------------------------------------------------------------------------- the command


def _method_goal(ep, check: Optional[str]) -> Optional[str]:
    """The goal the method wrote last (its trace's last goal event), else the episode's goal
    unless that is only the check goal (a method that writes none, e.g. BrainBody)."""
    goals = [e.get("text") for e in ep.trace if e.get("type") == "goal" and e.get("text")]
    if goals:
        return goals[-1]
    return ep.goal if ep.goal != check else None


def _summary(out, ep, verdict_text: str, check: Optional[str]) -> None:
    kind = verdict_text.split(":", 1)[0]
    out.print(styled(("verdict: ", "bold"), (verdict_text, _VERDICT_STYLE.get(kind, "bold"))))
    goal = _method_goal(ep, check)
    if goal:
        held = (ep.metrics or {}).get("own_goal_held")
        out.print(f"goal: {goal}" + ("" if held is None else f" ({'holds' if held else 'does not hold'} after "
                                                               "execution)"))
    if check:
        out.print(f"check: {check} ({'holds' if ep.success else 'does not hold'} after execution)")
    m = ep.metrics or {}
    cost = m.get("cost")
    out.print(f"plan: {len(ep.plan)} steps" + (f", cost {float(cost):g}" if cost is not None else ""))
    for step in ep.plan:
        out.print(f"  {step}")
    u = ep.usage
    out.print(f"LLM: {u.calls} calls, {u.prompt_tokens}+{u.completion_tokens} tokens; time {ep.wall_time:.1f} s")
    why = ep.reason or ep.error
    if why and kind in ("failure", "no plan"):
        out.print(f"why: {_short(why, 300)}")


def _config_fields(cls: Any) -> frozenset[str]:
    """The setting names of a method's configuration dataclass (none without one)."""
    import dataclasses

    cc = getattr(cls, "config_class", None)
    return frozenset(f.name for f in dataclasses.fields(cc)) if cc is not None and dataclasses.is_dataclass(cc) \
        else frozenset()


def _settings(pairs: List[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise GroundplanError(f"--set {pair!r}: expected KEY=VALUE")
        try:
            out[key.strip()] = json.loads(value)
        except ValueError:
            out[key.strip()] = value
    return out


def run_command(
    instruction: str = typer.Argument(..., help="what the user asks, e.g. 'bring me a coke'"),
    scene: Path = typer.Option(..., "--scene", help="scene file (.yaml groundplan or .txt AutoGPT+P)"),  # noqa: B008
    skills: str = typer.Option("household", "--skills", help="skill set name or YAML file"),
    oam: Optional[str] = typer.Option(None, "--oam", help="object-affordance map(s) extending the default map"),
    oam_replace: bool = typer.Option(False, "--oam-replace", help="the --oam files replace the default map instead "
                                                                  "of extending it"),
    infer: str = typer.Option("default", "--infer", help="affordances for scene classes the map lacks: default "
                                                         "(embedding), embedding, lexical, off (see groundplan oam "
                                                         "infer)"),
    lenient: bool = typer.Option(False, "--lenient", help="drop scene facts naming unknown objects (warn)"),
    method: str = typer.Option("goalsearch", "--method", "-m", help="method name (groundplan bench list)"),
    check: Optional[str] = typer.Option(None, "--check", help="goal the final state must satisfy for 'success'"),
    as_json: bool = typer.Option(False, "--json", help="print the episode as one JSON object (no live trace)"),
    record: Optional[Path] = typer.Option(None, "--record", help="write the episode JSON to this file (and the "  # noqa: B008
                                                                 "LLM exchanges to FILE.llm.jsonl)"),
    seed: int = typer.Option(0, "--seed"),
    settings: List[str] = typer.Option([], "--set", help="a method setting KEY=VALUE (repeatable; VALUE read as "
                                                         "JSON when it parses, e.g. K=2, goal_mode=constrained)"),
    planner_timeout: Optional[float] = typer.Option(None, "--planner-timeout",
                                                    help="planner seconds per plan (default: the limit)"),
    script: List[str] = typer.Option([], "--script", help="answers for --llm scripted, in order"),
    best_effort: bool = typer.Option(False, "--best-effort", help="never abstain: plan the nearest substitute for "
                                                                  "a thing the scene lacks (exit 4 otherwise)"),
    allow_unsafe: bool = typer.Option(False, "--allow-unsafe", help="skip the safety check of goals and steps "
                                                                    "(experiments only; exit 5 otherwise)"),
    backend: str = BackendOpt, model: Optional[str] = ModelOpt, base_url: Optional[str] = BaseUrlOpt,
    no_cache: bool = NoCacheOpt, cache_dir: Optional[Path] = CacheDirOpt,
    replay: Optional[List[Path]] = ReplayOpt, api_key_env: Optional[str] = KeyEnvOpt,
    timeout: float = TimeoutOpt, total_timeout: float = TotalTimeoutOpt, retries: int = RetriesOpt,
    constraint_style: str = StyleOpt, threads: Optional[int] = ThreadsOpt,
):
    """Run METHOD's whole algorithm on INSTRUCTION in SCENE and show what happened: the live
    trace, then the verdict ("success" only when --check holds after execution; "goal holds
    (unverified)" when only the method's own goal was checked), plan, cost, LLM calls, tokens
    and time. Exit 0 success / goal holds, 1 failure / no plan, 2 bad input or refused, 3 error,
    4 abstained (the scene cannot meet the request: the reason and the nearest alternative),
    5 unsafe (the safety check refused a goal or step)."""
    from groundplan import api
    from groundplan.core.episode import EpisodeStatus, failed_episode, settle_episode
    from groundplan.core.verdict import exit_code, verdict
    from groundplan.methods import method_class
    from groundplan.methods.base import MethodRefused

    out, err = make_console(), make_console(stderr=True)

    def fail(msg: str, code: int = EXIT_INPUT) -> None:
        err.print(fail_line("error", msg))
        raise typer.Exit(code)

    def finish(ep, *, summary: bool = True) -> None:
        """Write the record (--record), print the episode (--json) or its summary, exit by its verdict."""
        ep = settle_episode(ep)
        doc = ep.to_json()
        if record is not None:
            try:
                record.parent.mkdir(parents=True, exist_ok=True)
                record.write_text(json.dumps({**doc, "instruction": instruction, "scene": str(scene),
                                              "skills": skills, "check": check, "backend": backend,
                                              "model": (ep.metrics or {}).get("model") or model},
                                             indent=1) + "\n", encoding="utf-8")
            except OSError as exc:
                fail(f"{record}: cannot write: {exc.strerror or exc}")
        if as_json:
            sys.stdout.write(json.dumps(doc) + "\n")
        elif summary:
            _summary(out, ep, verdict(ep), check)
        raise typer.Exit(exit_code(ep.status, ep.success, ep.metrics))

    def refused(why: str) -> None:  # one line on stderr; with --json / --record also the episode record
        err.print(fail_line("error", f"refused: {why}"))
        finish(failed_episode(task, method, EpisodeStatus.UNSUPPORTED, f"refused: {why}", seed=seed), summary=False)

    # --- the task, checked before anything runs (bad input, refusal: exit 2)
    try:
        if not scene.exists():
            fail(f"{scene}: file not found")
        cls = method_class(method)
        if backend != "none":
            from groundplan.llm.factory import BACKENDS

            if backend not in BACKENDS:  # a misspelt backend is bad input, whatever the method
                from groundplan.errors import did_you_mean

                fail(f"unknown LLM backend '{backend}'{did_you_mean(backend, BACKENDS)} (choose from "
                     f"{', '.join(sorted(BACKENDS))}, or none)")
        config = _settings(settings)
        if best_effort and "abstain" in _config_fields(cls):
            config.setdefault("abstain", False)
        configure = getattr(cls, "configure", None)
        if configure is not None:
            configure(config)  # an unknown setting or a bad value: one line, exit 2
        task = api.user_task(instruction, scene, skills=skills, oam=oam, check=check)
        # strict unless --lenient, as `plan`: a bad fact is exit 2
        pt = api.build_task(scene, skills, oam, oam_replace=oam_replace, infer=infer, strict=not lenient)
        if check:
            from groundplan.pddl import check_goal, parse_goal

            check_goal(parse_goal(check), pt.domain, pt.problem, typecheck=False)
        why = cls.supports(task)
    except GroundplanError as exc:
        fail(str(exc))
        return
    if why is not None:
        refused(why)
    show = not as_json
    if show:
        inferred = getattr(pt, "inferred", None) or {}
        for w in pt.warnings:
            if not (inferred and w.startswith("affordances inferred for")):  # said on stdout below
                err.print(fail_line("warning", w))
        if inferred:
            out.print("inferred affordances: " + "; ".join(f"{c} ({', '.join(a)})" for c, a in inferred.items()))
        out.print(styled(("run ", "bold"), f"{method} on {scene} ({skills})",
                         f" with {backend}{':' + model if model else ''}" if backend != "none" else "",
                         f"; check {check}" if check else "; no check goal"))
        out.print(f"instruction: {instruction}")

    # --- the LLM (a method that needs none still gets one to use if it can, e.g. goalsearch's
    # LM scoring; an endpoint that does not answer is then a warning, not an error)
    llm = None
    if backend != "none":
        opts = _LLMOptions(backend, model, base_url, no_cache, cache_dir, None, tuple(replay or ()), api_key_env,
                           timeout, total_timeout, retries, constraint_style, threads)
        cfg = opts.config().with_(script=tuple(script))
        if record is not None:  # F.json -> F.llm.jsonl, written afresh
            transcript = record.with_suffix(".llm.jsonl")
            transcript.unlink(missing_ok=True)
            cfg = cfg.with_(record=transcript)
        from groundplan.llm import build_llm

        try:
            llm = build_llm(cfg)
        except GroundplanError as exc:
            from groundplan.llm.errors import LLMEndpointError

            if not cls.needs_llm:  # the endpoint is only checked for a method that needs it
                err.print(fail_line("warning", f"{exc}; method '{method}' needs no LLM: running without one"))
            elif isinstance(exc, LLMEndpointError):  # an endpoint that does not answer: an error (3)
                err.print(fail_line("error", str(exc)))
                finish(failed_episode(task, method, EpisodeStatus.ERROR, str(exc), seed=seed), summary=False)
            else:
                fail(str(exc))  # a bad setting (no --base-url, no model list, a missing key, ...): bad input
    elif cls.needs_llm:
        fail(f"method '{method}' needs an LLM: pass --llm embedded|openai|replay|scripted")

    def on_event(ev: dict) -> None:
        line = trace_line(ev)
        if line is not None:
            out.print(line)

    try:
        ep = api.run(method, instruction, scene, llm=llm, planner=api.make_planner(timeout=planner_timeout),
                     seed=seed, config=config, task=task, on_event=on_event if show else None,
                     oam_replace=oam_replace, infer=infer, allow_unsafe=allow_unsafe)
    except MethodRefused as exc:  # refused after all
        refused(str(exc))
        return
    except GroundplanError as exc:  # a scene the method cannot read
        fail(str(exc))
        return
    finally:
        if llm is not None:
            llm.close()
    finish(ep)


__all__ = ["run_command", "trace_line", "EXIT_OK", "EXIT_FAILED", "EXIT_INPUT", "EXIT_ERROR"]
