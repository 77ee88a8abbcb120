"""`groundplan oam build | eval | detect`: object-affordance maps generated with an LLM
(AutoGPT+P Table II) and object-affordance detection (eq. 5)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from groundplan.cli.console import HELP_MARKUP, fail_line, make_console
from groundplan.errors import GroundplanError

oam_app = typer.Typer(rich_markup_mode=HELP_MARKUP, no_args_is_help=True,
                      help="Object-affordance maps: build with an LLM, evaluate, detect, infer for unseen classes.")
out = make_console()
err = make_console(stderr=True)


def _fail(msg: str) -> None:
    err.print(fail_line("error", str(msg)))
    raise typer.Exit(2)


def _root(data: Optional[Path]) -> Path:
    if data is not None:
        return data
    from groundplan.datadir import autogpt_p_root

    return autogpt_p_root()


@oam_app.command("build")
def build_cmd(
    strategy: str = typer.Option(..., "--strategy", "-s", help="list | yes-no | logical"),
    llm: str = typer.Option("embedded", "--llm", "--backend", help="LLM backend: embedded, openai, scripted, ..."),
    model: Optional[str] = typer.Option(None, "--model", help="model id (GGUF path for embedded, name for openai)"),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="OpenAI-compatible base URL"),
    classes: Optional[Path] = typer.Option(None, "--classes", help="object classes (default: the 70 test classes)"),
    affordances: Optional[Path] = typer.Option(None, "--affordances",
                                               help="affordance questions (default: the AutoGPT+P data's, the "
                                                    "logical ones for --strategy logical)"),
    out_file: Path = typer.Option(Path("results") / "oam.json", "--out", "-o", help="where to write the OAM JSON"),
    limit: Optional[int] = typer.Option(None, "--limit", help="only the first K classes"),
    constrained: Optional[bool] = typer.Option(None, "--constrained/--free",
                                               help="grammar-constrained answers (default: on for embedded)"),
    no_cache: bool = typer.Option(False, "--no-cache"),
    data: Optional[Path] = typer.Option(None, "--data", help="AutoGPT+P data root (default: the data directory)"),
    n_ctx: int = typer.Option(4096, "--n-ctx", help="embedded: context window"),
):
    """Ask an LLM for the affordances of each class with one of the three strategies."""
    from groundplan.knowledge.oam_llm import (
        STRATEGIES,
        build_oam,
        data_file,
        load_affordance_specs,
        load_classes,
        write_oam_json,
    )
    from groundplan.llm import LLMConfig, UsageMeter, build_llm

    if strategy not in STRATEGIES:
        _fail(f"--strategy must be one of {', '.join(STRATEGIES)}, not '{strategy}'")
    try:
        root = _root(data) if (classes is None or affordances is None) else Path(".")
        spec_path = affordances or data_file(root, "logical_specs" if strategy == "logical" else "specs")
        specs = load_affordance_specs(spec_path)
        cls = load_classes(classes or data_file(root, "classes"))
        if limit is not None:
            cls = cls[:limit]
        model_ = build_llm(LLMConfig(backend=llm, model=model, base_url=base_url, cache=not no_cache, n_ctx=n_ctx))
        meter = UsageMeter()
        use_grammar = constrained if constrained is not None else llm == "embedded"
        done = {"n": 0}

        def progress(c: str) -> None:
            done["n"] += 1
            err.print(f"  {done['n']}/{len(cls)} {c}", highlight=False)

        t0 = time.perf_counter()
        res = build_oam(model_, cls, strategy, specs, usage=meter, constrained=use_grammar, progress=progress,
                        name=f"{llm}-{strategy}")
        path = write_oam_json(res.oam, out_file)
        s = meter.summary()
        out.print(f"wrote {path}: {len(res.oam.mapping)} classes, {sum(len(a) for a in res.oam.mapping.values())} "
                  f"pairs; {res.llm_calls} LLM calls, {s.prompt_tokens} prompt + {s.completion_tokens} completion "
                  f"tokens, {time.perf_counter() - t0:.1f} s ({res.per_class_seconds:.2f} s per class)",
                  highlight=False)
    except GroundplanError as exc:
        _fail(str(exc))


@oam_app.command("eval")
def eval_cmd(
    predicted: list[Path] = typer.Argument(..., help="OAM file(s) to score (.json/.csv/.yaml)"),
    truth: Optional[Path] = typer.Option(None, "--truth", help="ground truth (default: the 70 test classes' labels)"),
    as_json: bool = typer.Option(False, "--json"),
    data: Optional[Path] = typer.Option(None, "--data", help="AutoGPT+P data root"),
):
    """Precision / recall / F1 over object-affordance pairs against the ground truth (Table II)."""
    from groundplan.knowledge.oam import load_oam
    from groundplan.knowledge.oam_llm import data_file, evaluate_oam

    try:
        gt = load_oam(truth or data_file(_root(data), "truth"))
        rows = [(p, evaluate_oam(load_oam(p), gt)) for p in predicted]
    except GroundplanError as exc:
        _fail(str(exc))
        return
    if as_json:
        sys.stdout.write(json.dumps({str(p): s.to_dict() for p, s in rows}) + "\n")
        return
    t = Table(title=f"OAM vs {gt.source}")
    for c in ("map", "classes", "precision", "recall", "f1", "tp", "fp", "fn"):
        t.add_column(c)
    for p, s in rows:
        t.add_row(p.name, str(s.classes), f"{s.precision:.3f}", f"{s.recall:.3f}", f"{s.f1:.3f}", str(s.tp),
                  str(s.fp), str(s.fn))
    out.print(t)
    for p, s in rows:
        if s.missing_classes:
            out.print(f"{p.name}: classes missing (counted with no affordances): {', '.join(s.missing_classes)}",
                      highlight=False)


@oam_app.command("detect")
def detect_cmd(
    detections: Path = typer.Argument(..., help="detections: JSON [{class, instance, bbox}] or CSV "
                                                "class,instance,x0,y0,x1,y1"),
    oam: Optional[str] = typer.Option(None, "--oam", help="OAM file(s) (default: the project's default OAM)"),
    scene_out: Optional[Path] = typer.Option(None, "--scene", help="also write the scene as groundplan YAML"),
):
    """Object-affordance detection (eq. 5): print the (object, affordance) pairs of a detections file."""
    from groundplan.knowledge.oad import load_detections, object_affordance_detection, scene_from_detections
    from groundplan.sim.pipeline import _oam

    try:
        dets = load_detections(detections)
        m = _oam(oam)
        pairs = sorted(object_affordance_detection(dets, m), key=lambda p: (p.cls, p.instance, p.affordance))
        for p in pairs:
            out.print(f"{p.cls}{p.instance} {p.affordance} {' '.join(f'{v:.3f}' for v in p.bbox)}", highlight=False)
        sc = scene_from_detections(dets, m)
        for w in sc.warnings:
            err.print(fail_line("warning", w))
        if scene_out is not None:
            from groundplan.world import write_yaml_scene

            write_yaml_scene(sc, scene_out)
            out.print(f"wrote {scene_out}", highlight=False)
    except GroundplanError as exc:
        _fail(str(exc))


@oam_app.command("infer")
def infer_cmd(
    scene: Path = typer.Option(..., "--scene", help="scene file (.yaml or AutoGPT+P .txt)"),
    skills: str = typer.Option("household", "--skills", help="skill set name or YAML file"),
    oam: Optional[str] = typer.Option(None, "--oam", help="OAM file(s) extending the default map (os.pathsep-joined)"),
    oam_replace: bool = typer.Option(False, "--oam-replace", help="the --oam files replace the default map"),
    infer: str = typer.Option("default", "--infer",
                              help="offline inference: default (= embedding), embedding, lexical, off"),
    llm: Optional[str] = typer.Option(None, "--llm", "--backend", help="ask this LLM backend instead (embedded, openai, ...)"),
    model: Optional[str] = typer.Option(None, "--model", help="model id for --llm"),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="OpenAI-compatible base URL for --llm"),
    strategy: str = typer.Option("logical", "--strategy", "-s", help="with --llm: list | yes-no | logical"),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir",
                                             help="with --llm: answer cache (default: the LLM cache dir)"),
    data: Optional[Path] = typer.Option(None, "--data", help="AutoGPT+P data root (affordance questions for --llm)"),
    threads: Optional[int] = typer.Option(None, "--threads", help="with --llm embedded: CPU threads (default: all)"),
    lenient: bool = typer.Option(False, "--lenient", help="drop scene facts naming unknown objects (warn)"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
):
    """Show the affordances groundplan infers for the scene's classes its map lacks."""
    from groundplan.sim.pipeline import build

    try:
        inferrer = _llm_inferrer(llm, model, base_url, strategy, cache_dir, data, threads) if llm else infer
        t0 = time.perf_counter()
        task = build(str(scene), skillset=skills, oam_file=oam, strict=not lenient, infer=inferrer,
                     oam_replace=oam_replace)
        secs = time.perf_counter() - t0
    except GroundplanError as exc:
        _fail(str(exc))
        return
    from groundplan.knowledge.infer import get_inferrer

    desc = (inferrer if not isinstance(inferrer, str) else get_inferrer(inferrer))
    details = getattr(task, "inference", {}) or {}
    rows = {c: details[c].to_dict() if c in details else {"class": c, "affordances": list(a)}
            for c, a in task.inferred.items()}
    if as_json:
        sys.stdout.write(json.dumps({"scene": str(scene), "inferrer": desc.describe() if desc else None,
                                     "inferred": rows, "seconds": round(secs, 4)}) + "\n")
        return
    if not rows:
        out.print(f"{scene}: every class is in the map; nothing inferred", highlight=False)
        return
    name = desc.describe()["name"] if desc else "off"
    out.print(f"affordances inferred for {scene.name} ({name}; the map lacks these classes):", highlight=False)
    width = max(len(c) for c in rows)
    for c, r in rows.items():
        why = [r.get("source", "")]
        if r.get("neighbours") and not str(r.get("source", "")).startswith("head"):
            why.append("nearest " + ", ".join(f"{n} {s:.2f}" for n, s in r["neighbours"][:3]))
        if r.get("evidence"):
            why.append("scene facts need " + ", ".join(r["evidence"]))
        out.print(f"  {c:<{width}}  {', '.join(r['affordances']) or '(none)'}  ({'; '.join(w for w in why if w)})",
                  highlight=False)
    out.print(f"{len(rows)} classes inferred in {secs:.2f} s", highlight=False)


def _llm_inferrer(backend: str, model: Optional[str], base_url: Optional[str], strategy: str,
                  cache_dir: Optional[Path], data: Optional[Path], threads: Optional[int] = None):
    """An LLMInferrer on the given backend with AutoGPT+P's affordance questions."""
    from groundplan.llm import LLMConfig, build_llm

    return llm_inferrer(build_llm(LLMConfig(backend=backend, model=model, base_url=base_url, n_threads=threads)),
                        backend, strategy, cache_dir=cache_dir, data=data)


def llm_inferrer(llm, backend: str, strategy: str, *, cache_dir: Optional[Path] = None, data: Optional[Path] = None):
    """The run's LLM asking AutoGPT+P's ``strategy`` for the classes a map lacks, each class
    once per (class, model, strategy): ``<LLM cache dir>/oam_infer`` unless ``cache_dir``."""
    from groundplan.errors import ConfigError
    from groundplan.knowledge.infer import LLMInferrer
    from groundplan.knowledge.oam_llm import STRATEGIES, data_file, load_affordance_specs
    from groundplan.llm import default_cache_dir

    if strategy not in STRATEGIES:
        raise ConfigError(f"affordance inference strategy must be one of {', '.join(STRATEGIES)}, not '{strategy}'")
    specs = load_affordance_specs(data_file(_root(data), "logical_specs" if strategy == "logical" else "specs"))
    model_id = f"{backend}:{getattr(llm, 'model', None) or 'default'}"
    return LLMInferrer(llm, strategy, specs, model_id, cache_dir=cache_dir or default_cache_dir() / "oam_infer",
                       constrained=backend == "embedded")


__all__ = ["oam_app", "llm_inferrer"]
