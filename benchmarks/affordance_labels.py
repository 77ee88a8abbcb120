"""The inferred affordances measured against a labelled class list (issue 50).

The list (benchmarks/data/affordance_labels/labels_<date>.yaml) holds ordinary classes the
default object-affordance map lacks, each with the affordances a person expects, written
before the inference was changed. Each class is given to the affordance inference by its
name alone (no scene facts), with the default map as the known classes, exactly as the
builder does for a class a scene names and the map lacks (``knowledge.infer.extend_for``);
what lands in the extended map is what planning and goal search use, and that is scored:

- precision of ``drink``, ``drinkable`` and ``consumable`` (eat): of the classes given the
  affordance, the share labelled with it (a wrong one can hand a person ethanol);
- recall of ``contain``, ``support`` and ``carry``: of the classes labelled with it, the
  share given it (a missed one leaves a box or a desk unusable).

The bar (issue 50): precision >= 0.97, recall >= 0.90. Recall of the consumption
affordances and precision of the placing ones are printed too, so that a veto that removes
everything cannot pass unseen; and the labelled hazards given a consumption affordance.

    .venv/bin/python benchmarks/affordance_labels.py [--labels FILE] [--infer default|lexical|...]
        [--json OUT.json] [--markdown OUT.md]
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
LABELS = HERE / "data" / "affordance_labels" / "labels_2026-11-29.yaml"
PRECISION = ("drink", "drinkable", "consumable")
RECALL = ("contain", "support", "carry")
CONSUMPTION = ("drink", "drinkable", "consumable")
BAR_PRECISION, BAR_RECALL = 0.97, 0.90


@dataclass(frozen=True)
class Labelled:
    cls: str
    area: str
    affordances: frozenset[str]
    hazard: bool


def load_labels(path: Path = LABELS) -> tuple[list[Labelled], frozenset[str], str]:
    """(classes, the affordances labelled for every class, date). Exits 2 naming the file on a
    malformed list."""
    try:
        data = yaml.safe_load(path.read_text())
        items = [Labelled(str(d["class"]), str(d.get("area", "")), frozenset(d["affordances"]),
                          bool(d.get("hazard", False))) for d in data["classes"]]
        return items, frozenset(data["exhaustive"]), str(data.get("date", ""))
    except (OSError, yaml.YAMLError, KeyError, TypeError) as exc:
        print(f"{path}: not a labelled class list ({type(exc).__name__}: {exc})", file=sys.stderr)
        raise SystemExit(2) from None


def infer_all(classes: list[str], infer: str) -> dict[str, frozenset[str]]:
    """The affordances each class gets in the map the builder would use (default map +
    inference, no scene evidence)."""
    from groundplan.knowledge.infer import extend_for, get_inferrer
    from groundplan.knowledge.oam import default_oam

    known = default_oam()
    extended, _ = extend_for(known, classes, get_inferrer(infer), {})
    return {c: frozenset(extended.affordances(c)) for c in classes}


def score(items: list[Labelled], got: dict[str, frozenset[str]]) -> dict:
    rows = {}
    for aff in (*PRECISION, *RECALL):
        labelled = {i.cls for i in items if aff in i.affordances}
        given = {c for c, a in got.items() if aff in a}
        tp = labelled & given
        rows[aff] = {"labelled": len(labelled), "given": len(given), "correct": len(tp),
                     "precision": round(len(tp) / len(given), 4) if given else None,
                     "recall": round(len(tp) / len(labelled), 4) if labelled else None,
                     "wrongly_given": sorted(given - labelled), "missed": sorted(labelled - given)}
    hazards_consumed = sorted(i.cls for i in items if i.hazard and got.get(i.cls, frozenset()) & set(CONSUMPTION))
    bar = {**{f"precision {a}": rows[a]["precision"] is None or rows[a]["precision"] >= BAR_PRECISION
              for a in PRECISION},
           **{f"recall {a}": (rows[a]["recall"] or 0.0) >= BAR_RECALL for a in RECALL}}
    return {"classes": len(items), "affordances": rows, "hazards_given_consumption": hazards_consumed,
            "bar": bar, "bar_met": all(bar.values())}


def markdown(result: dict, labels: Path, infer: str, date: str) -> str:
    out = [f"Labelled list: `{labels.relative_to(HERE.parent) if labels.is_relative_to(HERE.parent) else labels}` "
           f"({result['classes']} classes, written {date}); inference `{infer}` over the default map, "
           "class names alone.", "",
           "| affordance | measured | labelled | given | correct | precision | recall | bar |",
           "|---|---|---|---|---|---|---|---|"]
    rows = result["affordances"]

    def f(x):
        return "n/a" if x is None else f"{x:.3f}"
    for a in (*PRECISION, *RECALL):
        r = rows[a]
        kind = "precision" if a in PRECISION else "recall"
        ok = result["bar"][f"{kind} {a}"]
        out.append(f"| {a} | {kind} | {r['labelled']} | {r['given']} | {r['correct']} | {f(r['precision'])} | "
                   f"{f(r['recall'])} | {'met' if ok else 'NOT met'} |")
    out += ["", "Wrongly given (precision affordances):", ""]
    out += [f"- {a}: {', '.join(rows[a]['wrongly_given']) or '(none)'}" for a in PRECISION]
    out += ["", "Missed (recall affordances):", ""]
    out += [f"- {a}: {', '.join(rows[a]['missed']) or '(none)'}" for a in RECALL]
    out += ["", f"Labelled hazards given a consumption affordance (drink, drinkable, consumable): "
            f"{', '.join(result['hazards_given_consumption']) or '(none)'}", "",
            f"Bar (precision >= {BAR_PRECISION}, recall >= {BAR_RECALL}): "
            f"{'met' if result['bar_met'] else 'NOT met'}."]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--labels", type=Path, default=LABELS)
    ap.add_argument("--infer", default="default", help="an inferrer of knowledge/infer.py (default: embedding)")
    ap.add_argument("--json", type=Path, help="write the full result here")
    ap.add_argument("--markdown", type=Path, help="write the table here")
    args = ap.parse_args(argv)
    items, exhaustive, date = load_labels(args.labels)
    missing = [a for a in (*PRECISION, *RECALL) if a not in exhaustive]
    if missing:
        print(f"{args.labels}: '{missing[0]}' is not labelled for every class (exhaustive: {sorted(exhaustive)})",
              file=sys.stderr)
        return 2
    try:
        got = infer_all([i.cls for i in items], args.infer)
    except Exception as exc:  # a ConfigError names a bad --infer
        from groundplan.errors import GroundplanError

        if isinstance(exc, GroundplanError):
            print(str(exc), file=sys.stderr)
            return 2
        raise
    result = score(items, got)
    result.update({"labels": str(args.labels), "date": date, "infer": args.infer,
                   "given": {c: sorted(a) for c, a in got.items()}})
    text = markdown(result, args.labels, args.infer, date)
    print(text, end="")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
