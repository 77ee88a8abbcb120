"""Where public datasets are read from: $GROUNDPLAN_DATA, else a ``shared/data`` folder
beside the checkout (../shared/data), else the user cache directory. Never copied into
the repository."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

from groundplan.errors import ConfigError


def cache_home(environ: Mapping[str, str] | None = None) -> Path:
    """groundplan's folder in the user cache directory: ``$XDG_CACHE_HOME/groundplan``, else
    ``~/.cache/groundplan`` (the LLM answers, the sentence vectors and the datasets live under it)."""
    env = os.environ if environ is None else environ
    base = Path(env["XDG_CACHE_HOME"]).expanduser() if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "groundplan"


def data_dir(required: bool = True) -> Path:
    env = os.environ.get("GROUNDPLAN_DATA")
    if env:
        p = Path(env).expanduser()
        if required and not p.is_dir():
            raise ConfigError(f"GROUNDPLAN_DATA points at {p}, which is not a directory")
        return p
    here = Path(__file__).resolve()
    for start in (Path.cwd().resolve(), here):
        for parent in (start, *start.parents):
            cand = parent / "shared" / "data"
            if cand.is_dir():
                return cand
            cand = parent.parent / "shared" / "data"
            if cand.is_dir():
                return cand
    p = cache_home() / "data"
    if required and not p.is_dir():
        raise ConfigError("no data directory: set GROUNDPLAN_DATA or place the datasets in ../shared/data")
    return p


def autogpt_p_root() -> Path:
    return data_dir() / "autogpt-p"
