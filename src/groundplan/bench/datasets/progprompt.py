"""Moved to ``groundplan.core.datasets.progprompt`` (methods read it, and methods sit below bench).
This alias keeps ``groundplan.bench.datasets.progprompt`` importable: it is the same module object."""

import sys

from groundplan.core.datasets import progprompt as _moved

sys.modules[__name__] = _moved
