"""What the console serves and to whom: bind address, token, the folders it may read
scenes from, the results file, where uploaded scenes and console episodes go."""

from __future__ import annotations

import ipaddress
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from groundplan.errors import ConfigError

TOKEN_ENV = "GROUNDPLAN_SERVE_TOKEN"
#: the backends the page offers (the embedded model, an OpenAI-compatible URL, typed answers)
PAGE_BACKENDS = ("embedded", "openai", "scripted")


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 and localhost; anything else (0.0.0.0, a LAN address, a name) is not."""
    h = host.strip().strip("[]").lower()
    if h == "localhost":
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False


def bundled_scene_dirs() -> tuple[Path, ...]:
    """``examples/scenes`` of the checkout the package runs from, when there is one."""
    root = Path(__file__).resolve().parents[3] / "examples" / "scenes"
    return (root,) if root.is_dir() else ()


@dataclass(frozen=True)
class ServeConfig:
    host: str = "127.0.0.1"
    port: int = 8765
    #: required when ``host`` is not loopback; optional (then enforced) on loopback
    token: Optional[str] = None
    #: folders whose .yaml/.txt/.json files the page lists as bundled scenes
    scene_dirs: tuple[Path, ...] = field(default_factory=bundled_scene_dirs)
    #: uploaded scenes are parsed and written back (canonical YAML) here
    upload_dir: Path = Path("results") / "console" / "uploads"
    #: the results file the page browses (``groundplan bench report``'s)
    results: Optional[Path] = None
    #: console episodes are stored here (a results file too); None: not stored
    console_results: Optional[Path] = Path("results") / "console" / "console.sqlite"
    #: the data directory dataset tasks come from (None: ``groundplan.datadir``'s default)
    data_dir: Optional[Path] = None
    planner_timeout: float = 60.0
    #: largest uploaded scene, bytes
    max_upload: int = 2_000_000
    #: LLM options for the embedded backend
    n_ctx: int = 8192
    n_threads: Optional[int] = None
    llm_cache: bool = True

    def checked(self) -> "ServeConfig":
        """Refuse a non-loopback bind without a token; an empty token is no token."""
        if self.token is not None and len(self.token) < 8:
            raise ConfigError("the console token must have at least 8 characters (or use --token auto)")
        if not is_loopback(self.host) and not self.token:
            raise ConfigError(f"binding to {self.host} (not loopback) needs a token: pass --token SECRET, "
                              f"--token auto, or set {TOKEN_ENV}")
        if not 0 < self.port < 65536:
            raise ConfigError(f"port {self.port} is not a TCP port")
        return self


def resolve_token(value: Optional[str], environ: Optional[dict] = None) -> Optional[str]:
    """``auto``: a fresh random token; None: ``$GROUNDPLAN_SERVE_TOKEN`` if set."""
    env = os.environ if environ is None else environ
    if value is None:
        value = env.get(TOKEN_ENV) or None
    if value == "auto":
        return secrets.token_urlsafe(24)
    return value


__all__ = ["ServeConfig", "is_loopback", "resolve_token", "bundled_scene_dirs", "TOKEN_ENV", "PAGE_BACKENDS"]
