"""A goal adapter for goalsearch : SmolLM2-135M, the embedded model, with
a small LoRA adapter trained on (scene, instruction, goal) text, generates a PDDL goal for an
instruction directly (the fine-tuning direction of the issue; RobLM's training path).

The text a model reads is the scene, written compactly (where each object is, what is open or
closed, which liquid is in what, where the human is), the request, and ``Goal:``; it answers
one PDDL goal over the scene's object names and stops. ``benchmarks/small_model_adapter.py``
writes the training text and trains the adapter; goalsearch uses it when its ``adapter``
option names a mode (``SearchOptions.adapter``).

The adapter is low-rank (LoRA) matrices on the attention and MLP projections of the top
layers, saved as safetensors in float16 (a few MB). torch, transformers and safetensors are
imported lazily (the ``embedded`` extra)."""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from groundplan.errors import ConfigError
from groundplan.pddl.model import Problem

#: where the adapter this package ships lies (absent until one is trained and committed)
SHIPPED = Path(__file__).resolve().parent / "data" / "goal_adapter"
#: the relations a scene text lists, in this order
_PLACED = ("on", "in", "liquid_in")
_STATES = ("opened", "closed", "chopped", "clean", "wet", "liquid_warm")
TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def scene_text(problem: Problem) -> str:
    """The scene as the adapter reads it: one line per support or container with what is on
    or in it, the objects' states, where the human is, and the objects named nowhere else."""
    placed: dict[tuple[str, str], list[str]] = defaultdict(list)
    states: dict[str, list[str]] = defaultdict(list)
    human = []
    named: set[str] = set()
    for a in sorted(problem.init, key=str):
        if a.predicate in _PLACED and len(a.args) == 2:
            placed[(a.predicate, a.args[1])].append(a.args[0])
            named.update(a.args)
        elif a.predicate in _STATES and len(a.args) == 1:
            states[a.predicate].append(a.args[0])
        elif a.predicate == "at" and len(a.args) == 2 and problem.objects.get(a.args[0]) == "human":
            human.append(f"{a.args[0]} is at {a.args[1]}")
            named.update(a.args)
    lines = [f"{'liquid in' if rel == 'liquid_in' else rel} {place}: {' '.join(things)}"
             for (rel, place), things in sorted(placed.items(), key=lambda kv: (kv[0][1], _PLACED.index(kv[0][0])))]
    lines += [f"{s}: {' '.join(states[s])}" for s in _STATES if states.get(s)]
    lines += human
    rest = [o for o, t in problem.objects.items() if o not in named and t not in ("robot_profile", "human")]
    if rest:
        lines.append("also: " + " ".join(rest))
    return "\n".join(lines)


def prompt_text(scene: str, instruction: str) -> str:
    return f"Scene:\n{scene}\nRequest: {instruction.strip()}\nGoal:"


def completion_text(goal: str, eos: str) -> str:
    """What follows the prompt: the goal and the end token (trained on, and scored by ``logprobs``)."""
    return f" {goal}{eos}"


@dataclass(frozen=True)
class LoraConfig:
    rank: int = 8
    alpha: float = 16.0
    #: LoRA on the top N transformer layers (the layers below run without gradients)
    top_layers: int = 12
    targets: tuple[str, ...] = TARGETS


def _torch() -> Any:
    try:
        import torch
    except ImportError as exc:  # pragma: no cover
        raise ConfigError(f"the goal adapter needs torch and transformers (pip install 'groundplan[embedded]'): {exc}") \
            from None
    return torch


def add_lora(model: Any, cfg: LoraConfig) -> list[Any]:
    """Wrap the target projections of the top ``cfg.top_layers`` layers with LoRA; freeze all
    other weights. Returns the trainable parameters."""
    torch = _torch()
    nn = torch.nn

    class LoraLinear(nn.Module):
        def __init__(self, base: Any) -> None:
            super().__init__()
            self.base = base
            self.lora_a = nn.Parameter(torch.randn(cfg.rank, base.in_features) / base.in_features ** 0.5)
            self.lora_b = nn.Parameter(torch.zeros(base.out_features, cfg.rank))
            self.scale = cfg.alpha / cfg.rank

        def forward(self, x: Any) -> Any:
            return self.base(x) + (x @ self.lora_a.t() @ self.lora_b.t()) * self.scale

    for p in model.parameters():
        p.requires_grad = False
    params = []
    layers = model.model.layers
    for layer in layers[len(layers) - cfg.top_layers:]:
        for parent in (layer.self_attn, layer.mlp):
            for name in cfg.targets:
                base = getattr(parent, name, None)
                if base is None:
                    continue
                wrapped = LoraLinear(base)
                setattr(parent, name, wrapped)
                params += [wrapped.lora_a, wrapped.lora_b]
    return params


def lora_state(model: Any) -> dict[str, Any]:
    return {k: v.detach().to(dtype=_torch().float16).contiguous() for k, v in model.state_dict().items()
            if k.endswith((".lora_a", ".lora_b"))}


def save_adapter(model: Any, path: Path, cfg: LoraConfig, meta: dict[str, Any]) -> None:
    from safetensors.torch import save_file

    path.mkdir(parents=True, exist_ok=True)
    save_file(lora_state(model), str(path / "adapter.safetensors"))
    (path / "adapter.json").write_text(json.dumps({"lora": {"rank": cfg.rank, "alpha": cfg.alpha,
                                                            "top_layers": cfg.top_layers,
                                                            "targets": list(cfg.targets)}, **meta}, indent=1))


def load_base() -> tuple[Any, Any]:
    """SmolLM2-135M (the GGUF the embedded default ships, dequantised once and cached)."""
    from groundplan.methods.roblm.lm import load_base_smollm2

    return load_base_smollm2()


class GoalAdapter:
    """The base model with a trained adapter: ``goal(problem, instruction)`` -> goal text."""

    def __init__(self, path: Path | str | None = None, *, threads: int = 1, max_new_tokens: int = 160) -> None:
        self.path = Path(path) if path else SHIPPED
        meta_file = self.path / "adapter.json"
        if not meta_file.is_file():
            raise ConfigError(f"{meta_file}: no goal adapter there (train one: benchmarks/small_model_adapter.py train)")
        self.meta = json.loads(meta_file.read_text())
        self.threads = threads
        self.max_new_tokens = max_new_tokens
        self._model: Any = None
        self._tok: Any = None
        self._lock = threading.Lock()

    def load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            torch = _torch()
            from safetensors.torch import load_file

            torch.set_num_threads(self.threads)
            model, tok = load_base()
            lc = self.meta["lora"]
            add_lora(model, LoraConfig(rank=lc["rank"], alpha=lc["alpha"], top_layers=lc["top_layers"],
                                       targets=tuple(lc["targets"])))
            state = {k: v.float() for k, v in load_file(str(self.path / "adapter.safetensors")).items()}
            missing = set(lora_state(model)) - set(state)
            if missing:
                raise ConfigError(f"{self.path}: adapter lacks {sorted(missing)[0]}")
            model.load_state_dict(state, strict=False)
            model.eval()
            self._model, self._tok = model, tok

    def generate(self, prompt: str) -> tuple[str, float]:
        """The greedy goal for a prompt and its mean log-probability per token (a confidence)."""
        self.load()
        torch = _torch()
        tok, model = self._tok, self._model
        with torch.no_grad():
            enc = tok(prompt, return_tensors="pt", add_special_tokens=False)
            gen = model.generate(**enc, max_new_tokens=self.max_new_tokens, do_sample=False,
                                 eos_token_id=tok.eos_token_id, pad_token_id=tok.eos_token_id,
                                 output_scores=True, return_dict_in_generate=True)
            new = gen.sequences[0, enc["input_ids"].shape[1]:]
            lps = [float(torch.log_softmax(sc[0].float(), dim=-1)[t]) for sc, t in zip(gen.scores, new)]
        text = tok.decode(new, skip_special_tokens=True)
        return text.strip().split("\n")[0].strip(), (sum(lps) / len(lps) if lps else float("-inf"))

    def goal(self, problem: Problem, instruction: str) -> str:
        return self.generate(prompt_text(scene_text(problem), instruction))[0]

    def logprobs(self, problem: Problem, instruction: str, goals: Sequence[str]) -> list[float]:
        """log P(goal and the end token | scene, request) under the adapter for each goal text
        (the prompt is read once; each goal continues from its cached state)."""
        import copy

        self.load()
        torch = _torch()
        tok, model = self._tok, self._model
        prompt = tok(prompt_text(scene_text(problem), instruction), return_tensors="pt",
                     add_special_tokens=False)["input_ids"]
        out = []
        with torch.no_grad():
            first = model(input_ids=prompt, use_cache=True)
            for g in goals:
                ids = tok(completion_text(g, tok.eos_token), return_tensors="pt", add_special_tokens=False)["input_ids"]
                cont = model(input_ids=ids, past_key_values=copy.deepcopy(first.past_key_values), use_cache=True)
                logits = torch.cat([first.logits[:, -1:], cont.logits[:, :-1]], dim=1)
                lp = torch.log_softmax(logits.float(), dim=-1).gather(-1, ids.unsqueeze(-1)).sum()
                out.append(float(lp))
        return out


_SHARED: dict[str, GoalAdapter] = {}
_SHARED_LOCK = threading.Lock()


def shared_adapter(path: Path | str | None = None) -> GoalAdapter:
    key = str(Path(path) if path else SHIPPED)
    with _SHARED_LOCK:
        if key not in _SHARED:
            _SHARED[key] = GoalAdapter(key)
        return _SHARED[key]
