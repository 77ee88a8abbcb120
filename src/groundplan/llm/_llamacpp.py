"""Import llama-cpp-python with settings that suit a shared machine.

llama.cpp's CPU backend uses OpenMP; with the default (active) wait policy idle worker
threads spin, which makes inference several times slower whenever another process uses a
core (a planner, a test run). A passive wait policy costs little when the machine is idle.
It must be set before the library loads; a value the user set is kept.

Weight repacking (llama.cpp's extra buffer types, ``use_extra_bufts``: weights laid out for
the CPU's wide instructions, AMX tiles where present) is on where it pays and is safe:
- on a CPU with AMX that this process may use (the ``amx_tile`` flag in /proc/cpuinfo and
  the kernel grants AMX tile data: ``arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)``,
  the request llama.cpp makes), on: llama.cpp's AMX kernels need the repacked weights;
- on a CPU that reports AMX the kernel refuses, off, whatever is asked: the AMX path crashes
  the process with a segmentation fault on the first batch of more than one token ("AMX is
  not ready to be used!");
- elsewhere off: measured on 2 AVX-512 cores without AMX (benchmarks/llm_speed.py,
  docs/models.md "Speed"), repacking slowed prefill, which dominates a method's goal call,
  by 13-38 % on the Qwen2.5-Coder Q4_K_M models and cost load time (SmolLM2's Q4_1 weights
  are not repacked at all).
``GROUNDPLAN_LLAMA_EXTRA_BUFTS`` = 1 / 0 asks for repacking on / off."""

from __future__ import annotations

import os
import platform
from functools import lru_cache
from typing import Any

from groundplan.llm.errors import LLMConfigError

EXTRA_BUFTS_ENV = "GROUNDPLAN_LLAMA_EXTRA_BUFTS"

_SYS_ARCH_PRCTL = 158  # x86_64
_ARCH_REQ_XCOMP_PERM = 0x1023
_XFEATURE_XTILEDATA = 18


def cpu_flags(path: str = "/proc/cpuinfo") -> frozenset[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return frozenset(line.partition(":")[2].split())
    except OSError:
        pass
    return frozenset()


def _amx_permitted() -> bool:
    """Ask the kernel for AMX tile data in this process (what llama.cpp asks before using AMX)."""
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.syscall(_SYS_ARCH_PRCTL, _ARCH_REQ_XCOMP_PERM, _XFEATURE_XTILEDATA) == 0
    except (OSError, AttributeError):
        return False


@lru_cache(maxsize=1)
def amx_state() -> str:
    """``none`` (no AMX reported), ``usable`` (reported and granted) or ``refused``."""
    if "amx_tile" not in cpu_flags():
        return "none"
    return "usable" if _amx_permitted() else "refused"


def extra_bufts_safe() -> bool:
    """False only on a CPU that reports AMX which this process may not use."""
    return amx_state() != "refused"


def extra_bufts_enabled() -> bool:
    """Whether models load with repacked weights (see the module docstring)."""
    if not extra_bufts_safe():
        return False
    forced = os.environ.get(EXTRA_BUFTS_ENV)
    if forced in ("0", "1"):
        return forced == "1"
    return amx_state() == "usable"


def import_llama_cpp() -> Any:
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import llama_cpp
    except ImportError:
        raise LLMConfigError("the embedded backend needs llama-cpp-python "
                             "(pip install 'groundplan[embedded]')") from None
    if not extra_bufts_enabled():
        _without_extra_bufts(llama_cpp)
    return llama_cpp


def _without_extra_bufts(llama_cpp: Any) -> None:
    """Make ``Llama(...)`` load models with ``use_extra_bufts = False`` (once per process)."""
    low = getattr(llama_cpp, "llama_cpp", None)
    default = getattr(low, "llama_model_default_params", None)
    if default is None or getattr(default, "_groundplan_no_extra_bufts", False):
        return

    def params() -> Any:
        p = default()
        if hasattr(p, "use_extra_bufts"):
            p.use_extra_bufts = False
        return p

    params._groundplan_no_extra_bufts = True  # type: ignore[attr-defined]
    low.llama_model_default_params = params
