"""AutoGPT+P Table II: object-affordance maps from an LLM, precision / recall / F1 against
the ground-truth labels of the test classes.

1. the recorded GPT-4 maps of the AutoGPT+P data, scored (no LLM);
2. the three strategies (list, yes-no, logical) with the embedded model, on the same classes,
   with the affordance descriptions and yes/no questions of the AutoGPT+P data.

    .venv/bin/python benchmarks/autogptp_oam.py [--strategies list,yes-no,logical] [--limit N]
        [--out benchmarks/results/autogpt_p/oam] [--free] [--reuse]

``--reuse`` scores the maps an earlier run wrote to ``--out`` (``embedded-S.json``, with the
calls / tokens / time it recorded in ``table2.json``) instead of asking the model again.

Each strategy run is also ``groundplan oam build --strategy S --llm embedded`` followed by
``groundplan oam eval results/oam/embedded-S.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from groundplan.core.metrics import oam_prf
from groundplan.datadir import autogpt_p_root
from groundplan.knowledge.oam import load_oam
from groundplan.knowledge.oam_llm import (
    build_oam,
    data_file,
    load_affordance_specs,
    load_classes,
    write_oam_json,
)

PAPER = {"list": (0.59, 0.67, 0.62), "yes-no": (0.78, 0.95, 0.86), "logical": (0.87, 0.91, 0.89)}  # GPT-4 row


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--strategies", default="list,yes-no,logical")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/autogpt_p/oam"))
    ap.add_argument("--reuse", action="store_true", help="score the maps of an earlier run in --out")
    ap.add_argument("--free", action="store_true", help="free-text answers instead of grammar-constrained ones")
    ap.add_argument("--n-ctx", type=int, default=4096)
    args = ap.parse_args()
    root = autogpt_p_root()
    truth = load_oam(data_file(root, "truth"))
    classes = load_classes(data_file(root, "classes"))
    if args.limit:
        classes = classes[: args.limit]
    lines = ["| map | strategy | classes | precision | recall | F1 | paper GPT-4 (P/R/F1) | LLM calls | tokens | "
             "s per class |", "|---|---|---|---|---|---|---|---|---|---|"]
    results = {}
    for key, label in (("gpt4_map", "gpt-4_.json (recorded)"), ("sim_map", "simulation_classes_2.json (recorded)")):
        s = oam_prf(load_oam(data_file(root, key)), truth, classes)
        results[label] = s.to_dict()
        lines.append(f"| {label} | (GPT-4) | {s.classes} | {s.precision:.3f} | {s.recall:.3f} | {s.f1:.3f} | "
                     f"{'/'.join(f'{x:.2f}' for x in PAPER['logical'])} (logical) | - | - | - |")
    from groundplan.llm import LLMConfig, UsageMeter, build_llm

    earlier = json.loads((args.out / "table2.json").read_text()) if args.reuse else {}
    llm = None if args.reuse else build_llm(LLMConfig(backend="embedded", n_ctx=args.n_ctx))
    args.out.mkdir(parents=True, exist_ok=True)
    for strategy in args.strategies.split(","):
        if args.reuse:
            old = earlier[f"embedded {strategy}"]
            s = oam_prf(load_oam(args.out / f"embedded-{strategy}.json"), truth, classes)
            results[f"embedded {strategy}"] = {**s.to_dict(), **{k: old[k] for k in (
                "llm_calls", "seconds", "prompt_tokens", "completion_tokens")}}
            lines.append(f"| SmolLM2-135M (embedded) | {strategy} | {s.classes} | {s.precision:.3f} | {s.recall:.3f} | "
                         f"{s.f1:.3f} | {'/'.join(f'{x:.2f}' for x in PAPER[strategy])} | {old['llm_calls']} | "
                         f"{old['prompt_tokens'] + old['completion_tokens']} | "
                         f"{old['seconds'] / max(len(classes), 1):.2f} |")
            continue
        specs = load_affordance_specs(data_file(root, "logical_specs" if strategy == "logical" else "specs"))
        meter = UsageMeter()
        t0 = time.perf_counter()
        res = build_oam(llm, classes, strategy, specs, usage=meter, constrained=not args.free,
                        name=f"embedded-{strategy}")
        secs = time.perf_counter() - t0
        write_oam_json(res.oam, args.out / f"embedded-{strategy}.json")
        s = oam_prf(res.oam, truth, classes)
        u = meter.summary()
        results[f"embedded {strategy}"] = {**s.to_dict(), "llm_calls": res.llm_calls, "seconds": secs,
                                           "prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens}
        lines.append(f"| SmolLM2-135M (embedded) | {strategy} | {s.classes} | {s.precision:.3f} | {s.recall:.3f} | "
                     f"{s.f1:.3f} | {'/'.join(f'{x:.2f}' for x in PAPER[strategy])} | {res.llm_calls} | "
                     f"{u.prompt_tokens + u.completion_tokens} | {secs / max(len(classes), 1):.2f} |")
        print(lines[-1], file=sys.stderr)
    text = "\n".join(lines)
    print(text)
    (args.out / "table2.md").write_text(text + "\n")
    (args.out / "table2.json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
