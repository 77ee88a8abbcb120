"""`groundplan serve`: the web console (watch a plan being made and executed, browse the
results store). Loopback by default; any other address needs a token."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import List, Optional

import typer

from groundplan.cli.console import make_console
from groundplan.errors import ConfigError, GroundplanError

_out = make_console()
_err = make_console(stderr=True)


def serve_command(
    host: str = typer.Option("127.0.0.1", "--host", help="address to bind (not loopback: needs --token)"),
    port: int = typer.Option(8765, "--port"),
    token: Optional[str] = typer.Option(None, "--token", help="required on every request; 'auto' makes one "
                                                              "(default $GROUNDPLAN_SERVE_TOKEN)"),
    results: Optional[Path] = typer.Option(None, "--results", help="results file to browse (default "
                                                                   "$GROUNDPLAN_BENCH_DB or results/bench.sqlite)"),
    console_results: Path = typer.Option(Path("results") / "console" / "console.sqlite", "--console-results",
                                         help="where console episodes are stored"),
    no_store: bool = typer.Option(False, "--no-store", help="do not store console episodes"),
    scenes: Optional[List[Path]] = typer.Option(None, "--scenes", help="folder of bundled scenes (repeatable; "
                                                                       "default examples/scenes)"),
    upload_dir: Path = typer.Option(Path("results") / "console" / "uploads", "--upload-dir",
                                    help="uploaded scenes, parsed and rewritten as YAML"),
    planner_timeout: float = typer.Option(60.0, "--planner-timeout"),
    threads: Optional[int] = typer.Option(None, "--threads", help="embedded model: CPU threads"),
    log_level: str = typer.Option("info", "--log-level"),
):
    """Serve the web console at http://HOST:PORT/."""
    try:  # the web extra (fastapi, uvicorn): optional, imported where used
        import uvicorn

        from groundplan.web.app import create_app
    except ImportError as exc:
        raise ConfigError(f"the web console needs the web extra: pip install 'groundplan[web]' ({exc})") from None
    from groundplan.cli.bench_cmds import DB_ENV, DEFAULT_DB
    from groundplan.web.config import ServeConfig, bundled_scene_dirs, is_loopback, resolve_token

    tok = resolve_token(token)
    cfg = ServeConfig(host=host, port=port, token=tok,
                      scene_dirs=tuple(scenes) if scenes else bundled_scene_dirs(), upload_dir=upload_dir,
                      results=results or Path(os.environ.get(DB_ENV) or DEFAULT_DB),
                      console_results=None if no_store else console_results, planner_timeout=planner_timeout,
                      n_threads=threads)
    try:
        app = create_app(cfg)
    except GroundplanError as exc:
        _err.print(f"error: {exc}")
        raise typer.Exit(2) from None
    logging.basicConfig(level=getattr(logging, log_level.upper(), logging.INFO),
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/" + (f"?token={tok}" if tok else "")
    _out.print(f"groundplan console: {url}" + ("" if is_loopback(host) else "  (reachable from other machines)"))
    # uvicorn's access log would print request URLs (and a ?token=); the app logs them redacted
    uvicorn.run(app, host=host, port=port, access_log=False, log_level=log_level, ws="none")


__all__ = ["serve_command"]
