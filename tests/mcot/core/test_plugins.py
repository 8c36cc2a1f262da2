"""Plugins from outside the tree: examples/plugin installed into a temporary target, end to end through the CLI,
and a broken plugin that is named in one line and stops nothing else."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.long_running

REPO = Path(__file__).resolve().parents[3]
PLUGIN = REPO / "examples" / "plugin"


def _install(source: Path, target: Path) -> None:
    """Install a package into `target` the way a user would (pip), offline: no build isolation, no dependencies.

    pip builds from a copy, so that the build leaves nothing in the repository.
    """
    copy = target.parent / f"{source.name}-source"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    source = copy
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
         "--target", str(target), str(source)],
        capture_output=True, text=True, timeout=300, env={**os.environ, "PIP_NO_INPUT": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]


def _mcot(target: Path, *args: object, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(target)}  # where `pip install --target` puts a package for Python to find
    return subprocess.run([sys.executable, "-m", "mcot", *map(str, args)], capture_output=True, text=True,
                          timeout=300, env=env, cwd=cwd)  # fmt: skip


@pytest.fixture(scope="module")
def plugin_target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("site")
    _install(PLUGIN, target)
    return target


def test_the_example_plugin_runs_gen_run_score_report_view_export(plugin_target: Path, tmp_path: Path) -> None:
    items, run, export = tmp_path / "items", tmp_path / "run", tmp_path / "export"
    made = _mcot(plugin_target, "gen", "arith", "--n", "6", "--seed", "3", "--out", items)
    assert made.returncode == 0, made.stderr
    lines = [json.loads(line) for line in (items / "items.jsonl").read_text().splitlines()]
    assert len(lines) == 6 and all(line["benchmark"] == "arith" and line["images"] for line in lines)

    solved = _mcot(plugin_target, "run", "--data", items, "--model", "calculator:exact", "--mode", "text,tools",
                   "--out", run)  # fmt: skip
    assert solved.returncode == 0, solved.stderr
    results = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    assert {r["status"] for r in results} == {"ok"} and len(results) == 12
    manifest = json.loads((run / "manifest.json").read_text())
    tools_arm = next(arm for arm in manifest["arms"] if arm["name"] == "tools")
    assert "add" in tools_arm["tools"] and "mcot_arith:task.txt" in manifest["prompts"]
    traces = {r["mode"]: [json.loads(s) for s in (run / r["trace"]).read_text().splitlines()] for r in results}
    assert [s["tool"] for s in traces["tools"] if s["kind"] == "tool"] == ["add"]
    assert not [s for s in traces["text"] if s["kind"] == "tool"]

    assert _mcot(plugin_target, "score", run).returncode == 0
    scores = [json.loads(line) for line in (run / "scores.jsonl").read_text().splitlines()]
    assert len(scores) == 12 and all(s["correct"] is True for s in scores)
    report = (run / "report.md").read_text()
    assert "arith — exact sums" in report and "| tools | 100.0 | 6 | 0 |" in report

    assert _mcot(plugin_target, "view", run).returncode == 0
    assert (run / "index.html").is_file()
    exported = _mcot(plugin_target, "export", run, "--format", "jsonl", "--as", "messages", "--out", export)
    assert exported.returncode == 0, exported.stderr
    records = [json.loads(line) for line in (export / "records.jsonl").read_text().splitlines()]
    assert len(records) == 12


def test_the_plugin_shows_in_help_and_in_the_tool_list(plugin_target: Path) -> None:
    helped = _mcot(plugin_target, "run", "--help")
    assert helped.returncode == 0 and "calculator:exact" in helped.stdout
    listed = _mcot(plugin_target, "tools", "--json")
    tools = {tool["name"]: tool for tool in json.loads(listed.stdout)}
    assert tools["add"]["group"] == "arith" and tools["add"]["parameters"]["required"] == ["a", "b"]
    assert "arith" in _mcot(plugin_target, "gen", "--help").stdout
    called = _mcot(plugin_target, "tools", "call", "add", '{"a": 2, "b": 40}')
    assert json.loads(called.stdout)["data"] == {"result": 42}
    listed_plugins = _mcot(plugin_target, "plugins", "--all")
    assert listed_plugins.returncode == 0 and "arith: mcot_arith.declare (mcot-arith)" in listed_plugins.stdout
    assert "calculator:exact  [arith]" in listed_plugins.stdout


def test_the_plugins_loader_converts_its_native_files(plugin_target: Path, tmp_path: Path) -> None:
    source = tmp_path / "sums.csv"
    source.write_text("a,b\n1,2\n3,x\n")
    converted = _mcot(plugin_target, "convert", "arith", source, "--out", tmp_path / "items")
    assert converted.returncode == 0, converted.stderr
    assert "read 2 records, wrote 1 items" in converted.stdout and "skipped 1: not two integers" in converted.stdout


def _broken_plugin(target: Path) -> None:
    """Write an installed distribution whose `mcot.plugins` entry point raises on import."""
    (target / "broken_plugin.py").write_text("raise RuntimeError('this plugin is broken on purpose')\n")
    info = target / "broken_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[mcot.plugins]\nbroken = broken_plugin\n")
    (info / "RECORD").write_text("")


def test_a_broken_plugin_is_named_in_one_line_and_stops_nothing(tmp_path: Path) -> None:
    target = tmp_path / "site"
    target.mkdir()
    _broken_plugin(target)
    helped = _mcot(target, "--help")
    assert helped.returncode == 0 and "run" in helped.stdout and "broken" not in helped.stderr  # loads no plugin
    items, run = tmp_path / "items", tmp_path / "run"
    assert _mcot(target, "gen", "games", "--task", "maze", "--n", "2", "--seed", "1", "--out", items).returncode == 0
    solved = _mcot(target, "run", "--data", items, "--model", "offline", "--mode", "text", "--out", run)
    assert solved.returncode == 0, solved.stderr
    named = [line for line in solved.stderr.splitlines() if "broken" in line]
    assert named == [
        "mcot: plugin 'broken' (broken_plugin) was not loaded: RuntimeError: this plugin is broken on purpose"
    ]
    assert _mcot(target, "run", "--help").returncode == 0
    assert "was not loaded" in _mcot(target, "plugins").stdout
