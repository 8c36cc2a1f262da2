"""Each option declared once: `mcot run` and `mcot imagine` are generated from RunConfig and ImagineConfig, their
rules are the configs' own, and the manifest records exactly the settings that change results."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from mcot.cli import app
from mcot.core.errors import UsageError
from mcot.core.options import cli_fields, flag_of, rule
from mcot.runconfig import ImagineConfig, RunConfig

COMMANDS = [("run", RunConfig), ("imagine", ImagineConfig)]


def _help(command: str) -> str:
    done = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "300", "NO_COLOR": "1", "TERM": "dumb"})
    assert done.exit_code == 0, done.output
    return " ".join(done.output.replace("│", " ").split())


@pytest.mark.parametrize(("command", "config"), COMMANDS)
def test_every_option_of_the_config_is_on_the_command_line_with_its_help_and_default(command: str, config: Any):
    shown = _help(command)
    for field in cli_fields(config):
        flag = flag_of(field)
        assert re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", shown), f"{flag} missing from mcot {command} --help"
        first_words = " ".join(str(field.metadata["help"]).split()[:3]).split("{")[0].strip()
        assert first_words in shown, f"the help of {flag} is not shown"
        if field.default not in (dataclasses.MISSING, None, False):
            assert f"[default: {field.default}]" in shown, f"the default of {flag} is not shown"


@pytest.mark.parametrize(("command", "config"), COMMANDS)
def test_the_command_has_exactly_the_options_the_config_declares(command: str, config: Any):
    click_command = typer.main.get_command(app).commands[command]  # type: ignore[attr-defined]
    options = {opt for param in click_command.params for opt in param.opts if opt.startswith("--")} - {"--help"}
    assert options == {flag_of(field) for field in cli_fields(config)}


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"concurrency": 0}, "--concurrency must be between 1 and 1024 (got 0)"),
        ({"workers": 300}, "--workers must be between 1 and 256 (got 300)"),
        ({"temperature": float("nan")}, "--temperature must be between 0.0 and 2.0 (got nan)"),
        ({"item_timeout": -1.0}, "--item-timeout must be a positive number of seconds"),
        ({"log_every": -1.0}, "--log-every must be 0 (off) or a number of seconds"),
        ({"max_rpm": 0.0}, "--max-rpm must be a positive number"),
        ({"executor": "slurm"}, "--executor 'slurm' is no executor; choose local or ray"),
        ({"cache": "/tmp/c", "temperature": 0.7}, "--cache works at temperature 0 only"),
        ({"ray_address": "auto"}, "--ray-address goes with --executor ray"),
    ],
)
def test_a_bad_value_is_refused_naming_the_flag_and_its_rule(values: dict[str, Any], message: str):
    with pytest.raises(UsageError) as caught:
        RunConfig(data="d", model="offline", out="o", **values)  # type: ignore[arg-type]
    assert message in str(caught.value)


def test_a_bad_value_on_the_command_line_is_one_line_and_exit_2(tmp_path):
    done = CliRunner().invoke(app, ["run", "--data", str(tmp_path), "--model", "offline", "--out", str(tmp_path / "r"),
                                    "--concurrency", "5000"])  # fmt: skip
    assert done.exit_code == 2
    assert "mcot: --concurrency must be between 1 and 1024 (got 5000)" in done.output


def test_rules_are_said_from_the_bounds():
    fields = {field.name: field for field in dataclasses.fields(RunConfig)}
    assert rule(fields["max_steps"]) == "must be between 1 and 200"
    assert rule(fields["limit"]) == "must be at least 1"


def test_the_manifest_records_the_settings_that_change_results_under_their_old_names():
    config = RunConfig(data="d", model="offline", out="o", seed=7, limit=3, base_url="http://a")  # type: ignore[arg-type]
    assert config.result_settings() == {
        "limit": 3,
        "sample": None,
        "max_steps": 12,
        "seed": 7,
        "temperature": 0.0,
        "item_timeout_s": 600.0,
        "max_canvas_images": 3,
        "max_output_tokens": None,
    }
    assert [arm.name for arm in config.arms] == ["text", "canvas"] and config.base_urls() == ("http://a",)
    imagine = ImagineConfig(data="d", generator="procedural", out="o", size="64X48")  # type: ignore[arg-type]
    assert imagine.size_pixels() == (64, 48) and imagine.result_settings()["size"] == [64, 48]
