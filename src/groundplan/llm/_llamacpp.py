"""Import llama-cpp-python with settings that suit a shared machine.

llama.cpp's CPU backend uses OpenMP; with the default (active) wait policy idle worker
threads spin, which makes inference several times slower whenever another process uses a
core (a planner, a test run). A passive wait policy costs little when the machine is idle.
It must be set before the library loads; a value the user set is kept."""

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
    return llama_cpp
