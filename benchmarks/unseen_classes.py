"""Open-vocabulary scenes (issue 20, must-show 1 and 2).

1. The unseen-class suite (benchmarks/data/unseen_classes: scenes of ordinary classes the
   default object-affordance map lacks, with gold goals): each gold goal is planned with
   Fast Downward in the household skill set, the plan executed, and the executor must confirm
   the goal held. Configurations: ``default`` (no --oam: the default map plus the offline
   inference), ``no-infer`` (the default map alone: the baseline before the inference).
2. The inferred affordances scored against AutoGPT+P's ground-truth OAM on every class of
   that map absent from groundplan's default map (precision / recall / F1, as a Table II row),
   and the time per unseen class.

    .venv/bin/python benchmarks/unseen_classes.py [--configs default,no-infer] [--table2]
        [--out benchmarks/results/open_vocab]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

SUITE = Path(__file__).resolve().parent / "data" / "unseen_classes"


@dataclass(frozen=True)
class Item:
    id: str
    scene: Path
    instruction: str
    goal: str


def load_suite(root: Path = SUITE) -> tuple[list[Item], str]:
    data = yaml.safe_load((root / "instructions.yaml").read_text())
    scenes = root / data.get("scenes_dir", "scenes")
    items = [Item(d["id"], scenes / f"{d['scene']}.yaml", d["instruction"], d["goal"]) for d in data["instructions"]]
    return items, data.get("skillset", "household")


def _build(scene: Path, skillset: str, config: str):
    from groundplan.sim.pipeline import build

    if config == "default":
        return build(scene, skillset=skillset)
    if config == "embedding-no-evidence":  # ablation: the class name alone, the scene's facts ignored
        from groundplan.knowledge.infer import get_inferrer

        return build(scene, skillset=skillset, infer=_NoEvidence(get_inferrer("embedding")), strict=False)
    if config.startswith("llm-"):  # llm-<strategy>: the embedded model with AutoGPT+P's strategy (cached)
        return build(scene, skillset=skillset, infer=_llm_inferrer(config[4:]))
    if config == "gold-map":  # the suite's own gold map as --oam: checks that the gold goals are right
        return build(scene, skillset=skillset, oam_file=str(SUITE / "gold_oam.yaml"), infer="off")
    if config == "no-infer":
        try:
            return build(scene, skillset=skillset, infer="off")
        except TypeError:  # before the inference existed: the default configuration had none
            return build(scene, skillset=skillset)
    return build(scene, skillset=skillset, infer=config)


@dataclass(frozen=True)
class _NoEvidence:
    inner: object
    name: str = "embedding-no-evidence"

    def explain(self, classes, known, evidence=None):
        return self.inner.explain(classes, known, {})

    def describe(self) -> dict:
        return {**self.inner.describe(), "name": self.name}


_LLM_INFERRERS: dict = {}


def _llm_inferrer(strategy: str):
    """AutoGPT+P's ``strategy`` on the embedded model (grammar-constrained answers), answers
    cached per class under the LLM cache dir, as ``groundplan oam infer --llm embedded``."""
    if strategy not in _LLM_INFERRERS:
        from groundplan.datadir import autogpt_p_root
        from groundplan.knowledge.infer import LLMInferrer
        from groundplan.knowledge.oam_llm import data_file, load_affordance_specs
        from groundplan.llm import LLMConfig, build_llm, default_cache_dir

        specs = load_affordance_specs(data_file(autogpt_p_root(), "logical_specs" if strategy == "logical" else "specs"))
        llm = build_llm(LLMConfig(backend="embedded", n_ctx=4096, n_threads=1))
        _LLM_INFERRERS[strategy] = LLMInferrer(llm, strategy, specs, f"embedded:{getattr(llm, 'model', 'default')}",
                                               cache_dir=default_cache_dir() / "oam_infer", constrained=True)
    return _LLM_INFERRERS[strategy]


def run_suite(config: str, planner, items: list[Item], skillset: str) -> dict:
    from groundplan.sim.pipeline import plan_and_check

    rows, tasks, build_s = [], {}, {}
    for it in items:
        if it.scene not in tasks:
            t0 = time.perf_counter()
            tasks[it.scene] = _build(it.scene, skillset, config)
            build_s[it.scene.stem] = time.perf_counter() - t0
        task = tasks[it.scene]
        out = plan_and_check(task, it.goal, planner, check_text=it.goal)
        ok = out.status == "solved" and bool(out.check)
        rows.append({"id": it.id, "status": out.status, "confirmed": ok, "actions": len(out.plan),
                     "error": None if ok else (out.error or out.status)})
    inferred = {s.stem: {c: list(a) for c, a in getattr(t, "inferred", {}).items()} for s, t in tasks.items()}
    n_ok = sum(r["confirmed"] for r in rows)
    return {"config": config, "confirmed": n_ok, "total": len(rows), "rate": n_ok / max(len(rows), 1),
            "rows": rows, "inferred": inferred, "build_seconds": build_s}


def table2_rows(recorded: Path = Path("benchmarks/results/autogpt_p/oam")) -> dict:
    """Table II on every class of AutoGPT+P's ground-truth OAM that groundplan's default map
    lacks: the offline inference (default = embedding, and the lexical rule alone) beside the
    recorded GPT-4 maps and the embedded model's three strategies (the maps
    benchmarks/autogptp_oam.py wrote), all scored on the same classes against that truth,
    over all affordances and over the planning affordances only."""
    from groundplan.datadir import autogpt_p_root
    from groundplan.knowledge.affordances import catalogue
    from groundplan.knowledge.infer import get_inferrer
    from groundplan.knowledge.oam import OAM, default_oam, load_oam
    from groundplan.knowledge.oam_llm import class_key, data_file, evaluate_oam, normalise

    root = autogpt_p_root()
    truth = normalise(load_oam(data_file(root, "truth")))
    known = default_oam()
    classes = [c for c in truth.classes if c not in known]
    planning = {a.name for a in catalogue() if a.planning}
    prior = json.loads((recorded / "table2.json").read_text()) if (recorded / "table2.json").is_file() else {}

    def score(oam: OAM) -> dict:
        full = evaluate_oam(oam, truth, classes)
        plan = evaluate_oam(oam.restricted(planning), truth.restricted(planning), classes)
        return {"all": full.to_dict(), "planning": plan.to_dict()}

    rows = []
    for key, label in (("gpt4_map", "gpt-4_.json (recorded GPT-4 map)"),
                       ("sim_map", "simulation_classes_2.json (recorded GPT-4 map)")):
        rows.append({"map": label, "s_per_class": None, **score(load_oam(data_file(root, key)))})
    for strategy in ("list", "yes-no", "logical"):
        f = recorded / f"embedded-{strategy}.json"
        if f.is_file():
            old = prior.get(f"embedded {strategy}", {})
            n = old.get("classes") or 69
            rows.append({"map": f"SmolLM2-135M (embedded), {strategy} (recorded run)",
                         "s_per_class": old["seconds"] / n if "seconds" in old else None, **score(load_oam(f))})
    predicted = {}
    for name in ("embedding", "lexical"):
        inferrer = get_inferrer(name)
        inferrer.explain(["warm_up_class"], known)  # model load and the known classes' vectors, once
        t0 = time.perf_counter()
        found = inferrer.explain(classes, known)
        secs = time.perf_counter() - t0
        oam = OAM({class_key(c): frozenset(i.affordances) for c, i in found.items()}, f"inferred-{name}")
        predicted[name] = {c: list(i.affordances) for c, i in found.items()}
        rows.append({"map": f"groundplan offline inference: {name}" + (" (default)" if name == "embedding" else ""),
                     "s_per_class": secs / max(len(classes), 1), "describe": inferrer.describe(), **score(oam)})
    return {"classes": classes, "rows": rows, "predicted": predicted}


def table2_markdown(t2: dict) -> str:
    lines = [f"Classes: the {len(t2['classes'])} classes of AutoGPT+P's ground-truth OAM absent from groundplan's "
             "default map.", "",
             "| map | P (all) | R (all) | F1 (all) | P (planning) | R (planning) | F1 (planning) | s per class |",
             "|---|---|---|---|---|---|---|---|"]
    for r in t2["rows"]:
        a, p = r["all"], r["planning"]
        t = "-" if r["s_per_class"] is None else f"{r['s_per_class']:.4f}"
        lines.append(f"| {r['map']} | {a['precision']:.3f} | {a['recall']:.3f} | {a['f1']:.3f} | "
                     f"{p['precision']:.3f} | {p['recall']:.3f} | {p['f1']:.3f} | {t} |")
    return "\n".join(lines)


def gold_scores(results: dict) -> dict:
    """The inferred affordances of the suite's classes scored against the suite's own gold map
    (planning affordances; evaluation only)."""
    from groundplan.knowledge.oam import OAM, load_oam
    from groundplan.knowledge.oam_llm import evaluate_oam

    gold = load_oam(SUITE / "gold_oam.yaml")
    merged: dict[str, frozenset[str]] = {}
    for per_scene in results.get("inferred", {}).values():
        for c, a in per_scene.items():
            merged[c] = frozenset(a)
    s = evaluate_oam(OAM(merged, "inferred"), gold, [c for c in gold.classes if c in merged])
    return s.to_dict()


def tune(out: Path) -> dict:
    """Leave-one-out on groundplan's default map ONLY (no suite class, no AutoGPT+P class): each
    class is left out, the rest is the known map, and its affordances are inferred from its
    name alone; pairs scored with F1. A grid over the embedding inferrer's parameters."""
    import functools
    import itertools

    from groundplan.knowledge.embedding import shared_minilm
    from groundplan.knowledge.infer import EmbeddingInferrer, LexicalInferrer
    from groundplan.knowledge.oam import OAM, default_oam
    from groundplan.knowledge.oam_llm import evaluate_oam

    known = default_oam()
    enc = shared_minilm()

    def loo(make) -> tuple[float, float, float]:
        pred = {}
        for c in known.classes:
            rest = OAM({k: v for k, v in known.mapping.items() if k != c}, "loo")
            pred[c] = frozenset(make().explain([c], rest)[c].affordances)
        s = evaluate_oam(OAM(pred, "loo-pred"), known)
        return s.precision, s.recall, s.f1

    rows = []
    grid = itertools.product(["{}", "a {}", "a photo of a {}", "a {}, a household object"], [1, 2, 3, 5, 8],
                             [0.3, 0.4, 0.5, 0.6], [1.0, 4.0, 16.0], [True, False])
    cache: dict = {}
    for template, k, th, power, head in grid:
        p, r, f = loo(functools.partial(EmbeddingInferrer, enc, k=k, threshold=th, power=power, template=template,
                                        use_head=head, min_similarity=0.0, _known_cache=cache))
        rows.append({"template": template, "k": k, "threshold": th, "power": power, "use_head": head,
                     "precision": p, "recall": r, "f1": f})
    rows.sort(key=lambda r: -r["f1"])
    # second step (2026-11-24, session 8): at the best setting, a floor on the nearest neighbour's
    # similarity below which the vote is not trusted (the class keeps the scene's evidence only)
    b = rows[0]
    floors = []
    for floor in (0.0, 0.3, 0.35, 0.4, 0.45, 0.5):
        p, r, f = loo(functools.partial(EmbeddingInferrer, enc, k=b["k"], threshold=b["threshold"], power=b["power"],
                                        template=b["template"], use_head=b["use_head"], min_similarity=floor,
                                        _known_cache=cache))
        floors.append({"min_similarity": floor, "precision": p, "recall": r, "f1": f})
    p, r, f = loo(LexicalInferrer)
    res = {"protocol": "leave-one-out on groundplan's default map (64 classes), planning and other affordances of "
                       "the map, name only (no scene evidence)", "lexical": {"precision": p, "recall": r, "f1": f},
           "best": rows[:10], "grid": rows, "floors": floors}
    (out / "tuning_loo_default_map.json").write_text(json.dumps(res, indent=1) + "\n")
    for row in rows[:10]:
        print(row, file=sys.stderr)
    print("lexical only:", res["lexical"], file=sys.stderr)
    for row in floors:
        print("floor", row, file=sys.stderr)
    return res


def _load(out: Path, name: str) -> dict | None:
    f = out / name
    return json.loads(f.read_text()) if f.is_file() else None


def _misses(res: dict, shown: int = 4) -> str:
    bad = [r for r in res["rows"] if not r["confirmed"]]
    if not bad:
        return "none"
    text = "; ".join(f"`{r['id']}`: {r['error']}" for r in bad[:shown])
    return text + (f"; and {len(bad) - shown} more" if len(bad) > shown else "")


def write_readme(out: Path) -> Path:
    """benchmarks/results/open_vocab/README.md from the JSON files the runs wrote to ``out``."""
    L: list[str] = ["# Open-vocabulary scenes (issue 20)", "",
                    "Affordances for object classes the map lacks: `src/groundplan/knowledge/infer.py`, documented in",
                    "[docs/affordances.md](../../../docs/affordances.md). Written by `benchmarks/unseen_classes.py` "
                    "from the JSON files next to it:", "",
                    "    .venv/bin/python benchmarks/unseen_classes.py --configs default,no-infer,gold-map --table2",
                    "    .venv/bin/python benchmarks/unseen_classes.py --configs embedding-no-evidence,lexical  # ablations",
                    "    .venv/bin/python benchmarks/unseen_classes.py --tune          # leave-one-out on the default map",
                    "    .venv/bin/groundplan oam infer --scene benchmarks/data/unseen_classes/scenes/garage.yaml \\",
                    "        --llm embedded --strategy logical --threads 1 --json "
                    "> benchmarks/results/open_vocab/oam-infer-garage-llm-embedded-logical.json",
                    "    .venv/bin/python benchmarks/unseen_classes.py --configs llm-logical --scenes garage",
                    "    .venv/bin/python benchmarks/unseen_classes.py --report     # this README", "",
                    "(one process, Fast Downward, MiniLM on one BLAS thread.)", ""]
    items, _ = load_suite()
    n_scenes = len({it.scene for it in items})
    from groundplan.knowledge.oam import default_oam
    from groundplan.world import load_scene

    classes = {o.cls for sc in {it.scene for it in items} for o in load_scene(sc).objects}
    unseen = classes - set(default_oam().mapping)
    L += ["## The held-out unseen-class suite", "",
          f"`benchmarks/data/unseen_classes/` (written 2026-11-24 before any inference existed, commit 92f657e): "
          f"{n_scenes} scenes, {len(classes)} classes of which {len(unseen)} are absent from groundplan's default map, "
          f"{len(items)} instructions with gold goals. Each gold goal is planned in the household skill set with Fast "
          "Downward, the plan executed, and the executor must confirm the goal held. Never used to tune or seed the "
          "inference (`tests/test_open_vocab.py` asserts its classes are in no default map or package data).", "",
          "| configuration | confirmed | rate | misses |", "|---|---|---|---|"]
    labels = [("suite-baseline-2026-11-24.json", "before the inference existed (measured 2026-11-24 07:40 UTC)"),
              ("suite-no-infer.json", "`no-infer` (`--infer off`: the default map alone)"),
              ("suite-default.json", "**`default`** (no `--oam`: default map + offline inference)"),
              ("suite-lexical.json", "ablation `lexical` (head-noun rule + scene evidence, no embedding)"),
              ("suite-embedding-no-evidence.json", "ablation `embedding-no-evidence` (class name only, lenient build)"),
              ("suite-gold-map.json", "the suite's own gold map as `--oam` (checks the gold goals)")]
    for f, label in labels:
        r = _load(out, f)
        if r:
            L.append(f"| {label} | {r['confirmed']} / {r['total']} | {r['rate']:.2f} | {_misses(r)} |")
    d = _load(out, "suite-default.json")
    if d:
        g = d.get("vs_gold_map") or {}
        secs = d.get("build_seconds", {})
        L += ["", f"The first measurement of `default` is the one reported. The one later change to the inference "
              f"(a map class spelt otherwise or in the plural, `Scissors`, `cups`, is that class; "
              f"2026-11-24, helper H10, written from its own probe scenes, not from this suite) was re-measured: the same "
              f"48 / 50 and the same inferred affordances. The second (session 8: the similarity floor below, "
              f"decided by leave-one-out on the default map) was re-measured too: still 48 / 50 (the same two misses); "
              f"against the gold map P / R / F1 went from 0.679 / 0.865 / 0.761 to the figures that follow, and on "
              f"AutoGPT+P's 34 classes (Table II row, planning) from 0.678 / 0.709 / 0.693 to 0.699 / 0.655 / 0.676. "
              f"The third (2026-11-27, issue 21's session 35: generic head nouns, `role_heads.yaml`, written from "
              f"English usage and from probe scenes of the project's own) took `default` from 48 / 50 to the 50 / 50 "
              f"above and `lexical` from 46 / 50 to 50 / 50. This suite is not blind to that change: its two misses "
              f"(a laundry hamper with no `contain`) were published since session 8, and `hamper` is one of the roles; "
              f"no whole class name of the suite is a role (a test checks). The `embedding-no-evidence` row was last "
              f"measured before session 8's similarity floor (30 / 50); re-measured now it is 25 / 50, every new miss "
              f"a class the floor leaves with nothing (calculator, magazine), none a role. On AutoGPT+P's 34 classes "
              f"the planning F1 went from 0.676 to the row below, all of it from three classes whose whole name is a "
              f"role (bench, bucket, dishwasher); on the other 31 it is unchanged (0.701). "
              f"Its inferred affordances for the suite's {g.get('classes', '?')} classes against the suite's gold map "
              f"(planning affordances, with scene evidence): precision {g.get('precision', 0):.3f}, recall "
              f"{g.get('recall', 0):.3f}, F1 {g.get('f1', 0):.3f}. Inference and build time per scene: "
              + ", ".join(f"{k} {v:.2f} s" for k, v in secs.items()) + " (the first loads MiniLM).", ""]
    t2 = _load(out, "table2_unseen.json")
    if t2:
        L += ["## Table II row: AutoGPT+P's classes the default map lacks", "",
              f"The {len(t2['classes'])} classes of AutoGPT+P's ground-truth OAM absent from groundplan's default map; "
              "every map scored on those classes against that truth. \"all\": every affordance of the catalogue; "
              "\"planning\": the affordances the catalogue marks as used in planning. The offline inference knows only "
              "the default map, which uses almost no non-planning affordance, so it never predicts `rotate`, `push`, "
              "`pull` and the like; it was not fitted to AutoGPT+P's labelling. Name only: no scene, no scene evidence. "
              "The SmolLM2 rows are the maps `benchmarks/autogptp_oam.py` recorded (time per class over all 69 classes "
              "of that run).", "", table2_markdown(t2).split("\n", 2)[2], ""]
    tu = _load(out, "tuning_loo_default_map.json")
    if tu:
        b = tu["best"][0]
        L += ["## Tuning (leave-one-out on the default map only)", "",
              "`tuning_loo_default_map.json`: each class of the default map left out in turn and inferred from its name "
              "and the others; a grid over the template, k, the vote threshold, the similarity power and the head "
              f"rule. Best (and shipped): template `{b['template']}`, k = {b['k']}, threshold {b['threshold']}, power "
              f"{b['power']}, head rule {'on' if b['use_head'] else 'off'}: P {b['precision']:.3f} / R "
              f"{b['recall']:.3f} / F1 {b['f1']:.3f} (head rule alone: F1 {tu['lexical']['f1']:.3f}). Neither the "
              "suite nor AutoGPT+P's classes were used.", ""]
        if tu.get("floors"):
            L += ["Then (session 8), at that setting, a floor on the nearest known class's similarity: below it "
                  "the neighbours' vote is not trusted and the class keeps only the scene's evidence (a \"spark "
                  "plug\" is nearest to stove, juice and coke at 0.32-0.38, and had been inferred drinkable). "
                  "Shipped: the best floor (`min_similarity`), 0.4.", "",
                  "| floor | P | R | F1 |", "|---|---|---|---|"]
            L += [f"| {r['min_similarity']:g} | {r['precision']:.3f} | {r['recall']:.3f} | {r['f1']:.3f} |"
                  for r in tu["floors"]]
            L += [""]
    llm = _load(out, "oam-infer-garage-llm-embedded-logical.json")
    lg = _load(out, "suite-llm-logical-garage.json")
    if llm and lg and d:
        from groundplan.knowledge.affordances import catalogue
        from groundplan.knowledge.oam import OAM, load_oam
        from groundplan.knowledge.oam_llm import evaluate_oam

        planning = {a.name for a in catalogue() if a.planning}
        gold = load_oam(SUITE / "gold_oam.yaml")
        cls = list(llm["inferred"])
        s_llm = evaluate_oam(OAM({c: frozenset(r["affordances"]) for c, r in llm["inferred"].items()})
                             .restricted(planning), gold, cls)
        s_emb = evaluate_oam(OAM({c: frozenset(a) for c, a in d["inferred"]["garage"].items()}).restricted(planning),
                             gold, cls)
        dg = [r for r in d["rows"] if r["id"].startswith("garage")]
        L += ["## With the run's LLM (AutoGPT+P's logical strategy, embedded SmolLM2-135M)", "",
              f"On the garage scene only ({len(cls)} unseen classes; the whole suite would take over an hour on this "
              f"shared machine): {llm['seconds']:.0f} s for the first `oam infer` "
              f"({llm['seconds'] / max(len(cls), 1):.0f} s per class, one thread), then every class from the cache "
              "(`~/.cache/groundplan/llm/oam_infer/logical/<model>/<class>.json`, no LLM call). The garage's gold "
              f"goals: {lg['confirmed']} / {lg['total']} confirmed (the offline default "
              f"{sum(r['confirmed'] for r in dg)} / {len(dg)}). Against the suite's gold map on these classes "
              f"(planning affordances): LLM precision {s_llm.precision:.3f}, recall {s_llm.recall:.3f}, F1 "
              f"{s_llm.f1:.3f}; offline default {s_emb.precision:.3f} / {s_emb.recall:.3f} / {s_emb.f1:.3f}. The small "
              "model says yes to nearly every question.", ""]
    path = out / "README.md"
    path.write_text("\n".join(L))
    return path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--configs", default="default,no-infer")
    ap.add_argument("--table2", action="store_true", help="also score the inference against AutoGPT+P's truth")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/open_vocab"))
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--scenes", help="only these scenes (comma-separated names, e.g. garage)")
    ap.add_argument("--tune", action="store_true", help="leave-one-out tuning on the default map, then stop")
    ap.add_argument("--report", action="store_true", help="only write README.md from the JSON files in --out")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.tune:
        tune(args.out)
        return 0
    if args.report:
        print(write_readme(args.out))
        return 0
    from groundplan.planners import get_planner

    planner = get_planner("fast-downward")
    items, skillset = load_suite()
    if args.scenes:
        items = [it for it in items if it.scene.stem in args.scenes.split(",")]
    results = {}
    for config in args.configs.split(","):
        t0 = time.perf_counter()
        res = run_suite(config, planner, items, skillset)
        res["seconds"] = time.perf_counter() - t0
        results[config] = res
        print(f"{config}: {res['confirmed']}/{res['total']} confirmed ({res['rate']:.3f}) in {res['seconds']:.1f} s",
              file=sys.stderr)
        for r in res["rows"]:
            if not r["confirmed"]:
                print(f"  {r['id']}: {r['error']}", file=sys.stderr)
        suffix = f"-{args.scenes.replace(',', '+')}" if args.scenes else ""
        (args.out / f"suite-{config}{suffix}.json").write_text(json.dumps(res, indent=1) + "\n")
    if "default" in results and not args.scenes:
        g = gold_scores(results["default"])
        results["default"]["vs_gold_map"] = g
        (args.out / "suite-default.json").write_text(json.dumps(results["default"], indent=1) + "\n")
        print(f"inferred vs the suite's gold map (with scene evidence): P/R/F1 {g['precision']:.3f}/{g['recall']:.3f}/"
              f"{g['f1']:.3f} on {g['classes']} classes", file=sys.stderr)
    if args.table2:
        t2 = table2_rows()
        (args.out / "table2_unseen.json").write_text(json.dumps(t2, indent=1) + "\n")
        md = table2_markdown(t2)
        (args.out / "table2_unseen.md").write_text(md + "\n")
        print(md)
    if not args.scenes and args.out == Path("benchmarks/results/open_vocab"):
        write_readme(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
