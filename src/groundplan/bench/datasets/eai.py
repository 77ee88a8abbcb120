"""Moved to ``groundplan.core.datasets.eai`` (methods read it, and methods sit below bench).
This alias keeps ``groundplan.bench.datasets.eai`` importable: it is the same module object."""

import sys

from groundplan.core.datasets import eai as _moved

sys.modules[__name__] = _moved
