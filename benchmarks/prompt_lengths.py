"""How long are the prompts each method sends? (issue 19: the embedded backend must open a
context long enough for every method's prompts.)

Every method runs on a few tasks of each dataset it serves, with a stand-in LLM that answers
with a random sentence of the request's grammar (so tool loops, corrections and conversations
go on as with a model) and counts each prompt in SmolLM2's own tokens: the bundled GGUF's
tokenizer (vocab only) over the model's chat template, exactly as the embedded backend's
llama.cpp sees it. Prints one row per method x dataset (calls, the longest prompt in tokens)
and the longest overall; the embedded context (``LLMConfig.n_ctx``) must exceed it plus the
answer budget.

    .venv/bin/python benchmarks/prompt_lengths.py [--tasks 4] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any

from groundplan.llm.base import Backend
from groundplan.llm.types import ChatRequest, Completion, ScoreRequest, ScoreResult, Usage

#: (method, dataset) pairs: every LLM method on the datasets it serves
PAIRS = [
    ("autogpt_p", "autogptp-plan-tool"), ("autogpt_p", "autogptp-scenarios"),
    ("autogpt_p", "autogptp-substitution"), ("autogpt_p", "autogptp-saycan"),
    ("autogpt_p_naive_alternative", "autogptp-substitution"), ("goalsearch", "autogptp-saycan"),
    ("saycan", "saycan-101"),
    ("cowp", "cowp"), ("cowp_im", "cowp"), ("cowp_lmzsp", "cowp"), ("cowp_progprompt", "cowp"),
    ("progprompt", "progprompt-test_unseen"), ("base_llm", "progprompt-test_unseen"),
    ("brainbody", "progprompt-test_unseen"), ("brainbody_gbnf", "progprompt-test_unseen"),
    ("brainbody", "franka-tabletop"), ("inner_monologue", "progprompt-test_unseen"),
    ("llm_p", "llmp"), ("llm_p_gbnf", "llmp"), ("llm_p_noctx", "llmp"),
    ("wake_prompts", "wake-lfo"), ("wake_prompts", "wake-vh"), ("wake_prompts", "wake-vh-highlevel"),
]


class SmolLM2Tokens:
    """Prompt length in the embedded model's tokens, chat template applied."""

    def __init__(self) -> None:
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        from groundplan.llm.embedded import bundled_model_path

        self.llama = Llama(model_path=str(bundled_model_path()), vocab_only=True, verbose=False)
        self.fmt = Jinja2ChatFormatter(template=self.llama.metadata["tokenizer.chat_template"],
                                       eos_token="<|im_end|>", bos_token="<|im_start|>")

    def chat(self, messages: list[dict[str, Any]]) -> int:
        text = self.fmt(messages=messages).prompt
        return len(self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def text(self, text: str) -> int:
        return len(self.llama.tokenize(text.encode("utf-8"), add_bos=True, special=False))


class MeasuringLLM(Backend):
    """Answers with a random sentence of the request's grammar (or a short text); records
    every prompt's length in tokens and the answer budget it asked for."""

    backend_name = "measure"

    def __init__(self, tokens: SmolLM2Tokens, seed: int = 0):
        super().__init__()
        self.tokens = tokens
        self.rng = random.Random(seed)
        self.lengths: list[tuple[int, int]] = []  # (prompt tokens, max_tokens)

    @property
    def model(self) -> str:
        return "measure"

    @property
    def supports_scoring(self) -> bool:
        return True

    def _complete(self, request: ChatRequest) -> Completion:
        from groundplan.llm.gbnf import parse_gbnf, sample
        from groundplan.llm.grammar import json_schema_grammar

        msgs = [m.to_dict() for m in request.messages]
        n = self.tokens.chat(msgs)
        self.lengths.append((n, request.params.max_tokens))
        text = "1"
        c = request.constraint
        if c is not None:
            g = c.text if c.kind == "gbnf" else json_schema_grammar(c.text)
            try:
                text = sample(parse_gbnf(g), self.rng)[: 4 * request.params.max_tokens]
            except Exception:  # noqa: BLE001 - a grammar the sampler cannot walk: a plain answer
                text = "1"
        return Completion(text, "stop", Usage(n, len(text.split()), 0.0, "measure", "measure", "model"))

    def _score(self, request: ScoreRequest) -> ScoreResult:
        n = max(self.tokens.text(request.prompt + c) for c in request.continuations)
        self.lengths.append((n, 0))
        lps = tuple(-float(len(c)) for c in request.continuations)
        return ScoreResult(request.continuations, lps, tuple(1 for _ in request.continuations),
                           Usage(n, 0, 0.0, "measure", "measure", "model"))


def spread(tasks: list, k: int) -> list:
    if len(tasks) <= k:
        return tasks
    step = len(tasks) / k
    return [tasks[int(i * step)] for i in range(k)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", type=int, default=4, help="tasks per dataset, spread over it")
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--only", help="only this method")
    args = ap.parse_args()

    from groundplan.bench.datasets import get_dataset
    from groundplan.methods.base import RunContext, get_method
    from groundplan.planners import PlannerLimits, get_planner

    tokens = SmolLM2Tokens()
    planner = get_planner("fast-downward", limits=PlannerLimits(timeout=20))
    rows = []
    for method_name, ds in PAIRS:
        if args.only and method_name != args.only:
            continue
        t0 = time.perf_counter()
        llm = MeasuringLLM(tokens)
        method = get_method(method_name)
        tasks = spread(get_dataset(ds).loader(), args.tasks)
        statuses = []
        for i, task in enumerate(tasks):
            try:
                ep = method.run(task, RunContext(llm=llm, planner=planner, seed=i, planner_timeout=20))
                statuses.append(ep.status)
            except Exception as exc:  # noqa: BLE001 - measured up to the failure
                statuses.append(f"raised {type(exc).__name__}")
        longest = max((n for n, _ in llm.lengths), default=0)
        need = max((n + m for n, m in llm.lengths), default=0)
        row = {"method": method_name, "dataset": ds, "tasks": len(tasks), "calls": len(llm.lengths),
               "longest_prompt": longest, "longest_prompt_plus_answer": need,
               "statuses": sorted(set(statuses)), "seconds": round(time.perf_counter() - t0, 1)}
        rows.append(row)
        print(f"{method_name:28s} {ds:24s} calls {row['calls']:4d}  longest prompt {longest:5d} tokens  "
              f"(+answer budget {need:5d})  {', '.join(row['statuses'])}  {row['seconds']} s", flush=True)
    worst = max(rows, key=lambda r: r["longest_prompt_plus_answer"]) if rows else None
    if worst:
        print(f"longest: {worst['longest_prompt']} tokens ({worst['longest_prompt_plus_answer']} with the answer "
              f"budget), {worst['method']} on {worst['dataset']}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
