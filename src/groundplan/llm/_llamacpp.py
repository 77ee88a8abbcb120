"""Import llama-cpp-python with settings that suit a shared machine.

llama.cpp's CPU backend uses OpenMP; with the default (active) wait policy idle worker
threads spin, which makes inference several times slower whenever another process uses a
core (a planner, a test run). A passive wait policy costs little when the machine is idle.
It must be set before the library loads; a value the user set is kept.

Models load without llama.cpp's extra weight buffer types (``use_extra_bufts``: weight
repacking for AMX and the like). On a CPU that reports AMX but whose kernel or hypervisor has
not enabled it ("AMX is not ready to be used!"), the AMX path crashes the process with a
segmentation fault on the first batch of more than one token; SmolLM2-135M gains nothing
measurable from repacking. ``GROUNDPLAN_LLAMA_EXTRA_BUFTS=1`` keeps them."""

from __future__ import annotations

import os
from typing import Any

from groundplan.llm.errors import LLMConfigError


def import_llama_cpp() -> Any:
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import llama_cpp
    except ImportError:
        raise LLMConfigError("the embedded backend needs llama-cpp-python "
                             "(pip install 'groundplan[embedded]')") from None
    if os.environ.get("GROUNDPLAN_LLAMA_EXTRA_BUFTS") != "1":
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
