"""`mcot tools` and `mcot tools call`: the listing, the JSON result, the PNG, and exit code 2 on a tool error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mcot.tools import registry
from PIL import Image

from mcot.commands.tools import call_tool, list_tools
from mcot.core.errors import UsageError


def test_listing_names_every_tool_with_its_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert list_tools(json_out=False) == 0
    text = capsys.readouterr().out
    for name in registry():
        assert f"\n{name}\n" in text
    assert "- origin: list[number]" in text and "- max_events?: integer" in text


def test_json_listing_carries_schemas(capsys: pytest.CaptureFixture[str]) -> None:
    list_tools(json_out=True)
    listing = json.loads(capsys.readouterr().out)
    assert [t["name"] for t in listing] == list(registry())
    maze = next(t for t in listing if t["name"] == "solve_maze")
    assert maze["parameters"]["required"] == ["grid"] and maze["group"] == "graphs"


def test_call_prints_json_and_writes_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ray.png"
    args = json.dumps(
        {"origin": [10, 10], "direction": [1, 0.2], "surfaces": [{"kind": "mirror", "points": [[150, 0], [150, 200]]}]}
    )
    assert call_tool("trace_light_ray", args, image=None, out=out, size="200x100") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["data"]["events"][0]["type"] == "reflect"
    assert report["ops"][0]["op"] == "trace_path" and report["png"] == str(out)
    assert Image.open(out).size == (200, 100)


def test_call_on_an_image_and_zoom_writes_the_view(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.png"
    Image.new("RGB", (80, 60), "white").save(src)
    out = tmp_path / "zoom.png"
    call_tool("zoom", '{"region": [0, 0, 40, 30], "factor": 3}', image=src, out=out, size="640x640")
    assert Image.open(out).size == (120, 90)
    assert json.loads(capsys.readouterr().out)["image_bytes"] > 0


def test_errors_exit_2_with_a_reason(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(UsageError, match="no start cell"):
        call_tool("solve_maze", '{"grid": ["..E"]}', image=None, out=None, size="50x50")
    assert json.loads(capsys.readouterr().out)["ok"] is False
    with pytest.raises(UsageError, match="WIDTHxHEIGHT"):
        call_tool("undo", "{}", image=None, out=None, size="big")
    with pytest.raises(UsageError, match="no such file"):
        call_tool("undo", "{}", image=Path("/nonexistent.png"), out=None, size="10x10")


def test_the_console_command_exits_2_on_a_tool_error() -> None:
    failed = subprocess.run(
        [sys.executable, "-m", "mcot", "tools", "call", "solve_maze", '{"grid": '],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert failed.returncode == 2 and failed.stderr.startswith("mcot: solve_maze: the arguments are not valid JSON")
    assert json.loads(failed.stdout)["ok"] is False
