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


def test_goal_takes_the_instruction_as_argument_like_run(monkeypatch, capsys):
    """`groundplan run --scene S "instr"` and `groundplan goal --scene S "instr"` read alike;
    --instruction still works; none or two different ones is one line, exit 2."""
    import sys

    import pytest

    from groundplan.cli.main import main

    def cli(*args):
        monkeypatch.setattr(sys, "argv", ["groundplan", *args])
        with pytest.raises(SystemExit) as ei:
            main()
        cap = capsys.readouterr()
        return ei.value.code or 0, cap.out, cap.err

    kitchen = "examples/scenes/kitchen.yaml"
    monkeypatch.chdir(__import__("pathlib").Path(__file__).resolve().parents[1])
    for args in (["bring me the apple"], ["--instruction", "bring me the apple"]):
        code, out, err = cli("goal", "--scene", kitchen, "--strategy", "prompt", "--llm", "scripted", *args)
        # the instruction was taken: the command went on to ask the (empty) scripted LLM
        assert "no answer left" in err and "instruction" not in err, err
    code, out, err = cli("goal", "--scene", kitchen)
    assert code == 2 and err.strip().startswith("error: no instruction") and len(err.strip().splitlines()) == 1
    code, out, err = cli("goal", "--scene", kitchen, "--instruction", "a", "b")
    assert code == 2 and "once" in err


def test_unknown_inference_name_suggests_one():
    import pytest

    from groundplan.errors import ConfigError
    from groundplan.knowledge.infer import get_inferrer

    with pytest.raises(ConfigError, match=r"unknown affordance inference 'embeding' \(did you mean embedding\?\)"):
        get_inferrer("embeding")
