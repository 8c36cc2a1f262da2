"""Every command's options declared once: each command's parameters are exactly its declaration's fields (no
inline Typer parameter), its function takes those fields, and a bad value is refused the same way from the
command line and from Python."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from mcot.cli import app
from mcot.command_options import GenItemsOptions, PlanOptions
from mcot.errors import UsageError
from mcot.options import cli_fields, flag_of

ROOT_OPTIONS = {"--version", "-V"}
"""The one parameter not declared in a config: the root's eager `--version`, which runs no command."""


def _walk(command: Any, path: tuple[str, ...] = ()):
    yield path, command
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from _walk(sub, (*path, name))


TREE = dict(_walk(typer.main.get_command(app)))
DECLARED = {path: command for path, command in TREE.items() if command.callback is not None and path}


def _spelled(field: dataclasses.Field[Any]) -> str:
    return str(field.metadata.get("metavar")) if field.metadata.get("argument") else flag_of(field)


def _shown(param: Any) -> str:
    return str(param.metavar) if param.param_type_name == "argument" else param.opts[0]


def test_every_command_of_the_tree_is_declared() -> None:
    names = {" ".join(path) for path in DECLARED}
    assert {"run", "imagine", "score", "compare", "gen games", "gen gepbench", "tools", "tools call"} <= names
    assert len(DECLARED) >= 18
    for path, command in DECLARED.items():
        assert hasattr(command.callback, "declaration"), f"`mcot {' '.join(path)}` has inline Typer parameters"


@pytest.mark.parametrize("path", sorted(DECLARED), ids=" ".join)
def test_the_command_has_exactly_the_parameters_its_declaration_has_in_its_order(path: tuple[str, ...]) -> None:
    command = DECLARED[path]
    config = command.callback.declaration
    params = [p for p in command.params if "--help" not in p.opts]
    assert [_shown(p) for p in params] == [_spelled(f) for f in cli_fields(config)]
    for param, field in zip(params, cli_fields(config), strict=True):
        assert param.help.split("{")[0] in str(field.metadata["help"]), (param.help, field.metadata["help"])
        required = field.default is dataclasses.MISSING
        assert param.required == required
        if not required:
            assert param.default == field.default or (param.default, field.default) in {((), None), (None, ())}


def test_the_root_has_no_option_but_version_and_help() -> None:
    root = TREE[()]
    assert {o for p in root.params for o in p.opts} - {"--help", "-h"} == ROOT_OPTIONS


@pytest.mark.parametrize("path", sorted(DECLARED), ids=" ".join)
def test_the_function_a_command_runs_takes_its_declared_fields_with_the_same_defaults(path: tuple[str, ...]) -> None:
    command = DECLARED[path]
    config = command.callback.declaration
    module, function = command.callback.target
    target = getattr(importlib.import_module(f"mcot.commands.{module}"), function)
    parameters = inspect.signature(target).parameters
    if list(parameters) == ["options"]:  # run and imagine: the function builds the config from **options
        assert parameters["options"].kind is inspect.Parameter.VAR_KEYWORD
        return
    assert hasattr(target, "__wrapped__"), f"{module}.{function} is not @validated({config.__name__})"
    for field in cli_fields(config):
        assert field.name in parameters, f"{module}.{function} lacks the declared {field.name}"
        given = parameters[field.name].default
        if given is not inspect.Parameter.empty and field.default is not dataclasses.MISSING:
            assert given == field.default or (given, field.default) in {((), None)}, (field.name, given)


def test_a_declared_item_generator_command_is_built_from_its_declaration() -> None:
    from mcot.cli_help import _generator_command

    command = _generator_command("squares", "Squares")
    sub = command.commands["squares"] if hasattr(command, "commands") else command
    assert [p.opts[0] for p in sub.params if "--help" not in p.opts] == [
        flag_of(f) for f in cli_fields(GenItemsOptions)
    ]


def test_a_bad_value_is_refused_the_same_way_from_the_command_line_and_from_python(tmp_path: Path) -> None:
    from mcot.commands.gen_games import gen_games
    from mcot.commands.plan import run_plan

    message = "--n must be between 1 and 100000 items per task (got 0)"
    done = CliRunner().invoke(app, ["gen", "games", "--n", "0", "--out", str(tmp_path / "g")], prog_name="mcot")
    assert done.exit_code == 2 and f"mcot: {message}" in done.output, done.output
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        gen_games(tmp_path / "g", "maze", 0, 0)
    assert not (tmp_path / "g").exists()
    done = CliRunner().invoke(app, ["plan", "--baseline", "0.5", "--effect", "0.1", "--power", "1.5"])
    assert done.exit_code == 2 and "--power must be between 0 and 1 (both excluded) (got 1.5)" in done.output
    with pytest.raises(UsageError, match="--alpha must be between 0 and 1"):
        run_plan(0.5, 0.1, alpha=0.0)
    assert PlanOptions(baseline=0.5, effect=0.1).power == 0.8


def test_python_callers_get_the_declared_coercions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from mcot.commands.gen_games import gen_games

    assert gen_games(str(tmp_path / "g"), "maze", 2, 1) == 0  # a str path becomes a Path, as on the command line
    assert (tmp_path / "g" / "items.jsonl").is_file()
    assert "wrote 2 items (maze; 2 per task, seed 1)" in capsys.readouterr().out


def test_help_renders_without_rich_and_loads_no_plugin() -> None:
    probe = (
        "import sys\nfrom mcot.cli import app\n"
        "try:\n    app(['--help'], prog_name='mcot')\nexcept SystemExit:\n    pass\n"
        "print('MODULES', ' '.join(sorted(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    help_text, modules = done.stdout.split("MODULES ")
    loaded = set(modules.split())
    assert "Usage: mcot [OPTIONS] COMMAND [ARGS]..." in help_text and "╭" not in help_text
    assert not {m for m in loaded if m == "rich" or m.startswith("rich.")}
    assert not loaded & {"mcot.plugins", "mcot.builtin", "mcot.registry", "pydantic", "numpy"}
    for name in ("run", "score", "compare", "gen", "tools", "select", "env"):
        assert f"\n  {name} " in help_text
