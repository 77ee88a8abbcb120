"""CLI conventions a new user relies on (helper H10, issue 19 item 6): one backend flag name
in every command, the old name kept as an alias."""

from __future__ import annotations

import typer.main

from groundplan.cli.main import app


def _commands(group, prefix=()):
    for name, cmd in getattr(group, "commands", {}).items():
        yield (*prefix, name), cmd
        yield from _commands(cmd, (*prefix, name))


def test_every_llm_option_also_answers_to_backend():
    root = typer.main.get_command(app)
    seen = 0
    for path, cmd in _commands(root):
        for p in getattr(cmd, "params", []):
            opts = set(p.opts) | set(p.secondary_opts)
            if "--llm" in opts or "--backend" in opts:
                seen += 1
                assert {"--llm", "--backend"} <= opts, f"groundplan {' '.join(path)}: {sorted(opts)}"
    assert seen >= 5  # run, goal, chat, bench run, oam build, oam infer, ...
