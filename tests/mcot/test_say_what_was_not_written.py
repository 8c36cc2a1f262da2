"""Say what was not written (issue 29 part 7): `select hardest` refuses a run given twice and runs over different
items, and leaves NaN scores out with a count; `mcot plan` with an effect too small to plan for is one line; a
--cache that is a file is refused (every command with one, listed); a run folder with no answer takes new settings."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hostile_servers import items_dir
from test_select import _item, _scored_run
from typer.testing import CliRunner

from mcot.cli import app


def _select(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["select", "hardest", *args])
    return result.exit_code, result.output


def test_select_hardest_refuses_a_run_given_twice(tmp_path: Path) -> None:
    run = _scored_run(tmp_path, "a", [_item(f"p{k}") for k in range(3)], {"text": {"p0"}})
    code, output = _select("--runs", str(run), str(run), "--share", "0.5", "--out", str(tmp_path / "out"))
    assert code == 2 and f"{run} is given twice" in output and not (tmp_path / "out").exists()


def test_select_hardest_refuses_runs_over_different_items(tmp_path: Path) -> None:
    first = _scored_run(tmp_path, "a", [_item(f"p{k}") for k in range(3)], {"text": {"p0"}})
    second = _scored_run(tmp_path, "b", [_item(f"p{k}") for k in range(2)], {"text": {"p1"}})
    code, output = _select("--runs", str(first), str(second), "--share", "0.5", "--out", str(tmp_path / "out"))
    assert code == 2 and "are over different items (1 differ, e.g. 'p2')" in output


def test_select_hardest_leaves_nan_scores_out_with_a_count(tmp_path: Path) -> None:
    run = _scored_run(tmp_path, "a", [_item(f"p{k}") for k in range(3)], {"text": {"p0"}})
    lines = [json.loads(line) for line in (run / "scores.jsonl").read_text().splitlines()]
    lines[1]["score"] = float("nan")
    (run / "scores.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, output = _select("--runs", str(run), "--share", "1", "--out", str(tmp_path / "out"))
    assert code == 0, output
    assert "left out 1 pair(s) whose score is NaN (not a verdict)" in output
    assert "chose 2 of 2 items" in output


def test_plan_with_a_vanishing_effect_is_one_line() -> None:
    result = CliRunner().invoke(app, ["plan", "--baseline", "0", "--effect", "1e-300"])
    assert result.exit_code == 2
    assert result.output.strip() == "mcot: an effect of 1e-300 is too small to plan for: no finite number of items " \
                                    "detects it"  # fmt: skip


def _offline_canvas_run(root: Path) -> Path:
    result = CliRunner().invoke(app, ["run", "--data", str(items_dir(root)), "--model", "offline", "--mode", "canvas",
                                      "--out", str(root / "made")])  # fmt: skip
    assert result.exit_code == 0, result.output
    return root / "made"


CACHE_USERS: dict[str, Callable[[Path, Path], list[str]]] = {
    "run": lambda root, cache: ["run", "--data", str(items_dir(root)), "--model", "offline", "--mode", "text",
                                "--cache", str(cache), "--out", str(root / "run")],
    "probe": lambda root, cache: ["probe", str(_offline_canvas_run(root)), "--arm", "canvas", "--cache", str(cache)],
}  # fmt: skip
"""Every command with a --cache (the response cache), given a folder to work in and the --cache to give it."""


@pytest.mark.parametrize("name", CACHE_USERS)
def test_a_cache_that_is_a_file_is_refused_before_anything_is_written(name: str, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.write_text("not a folder")
    args = CACHE_USERS[name](tmp_path, cache)
    before = sorted(path.relative_to(tmp_path) for path in tmp_path.rglob("*"))
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert result.output.strip() == f"mcot: --cache {cache} is not a folder: give the folder the response cache " \
                                    "lives in"  # fmt: skip
    assert sorted(path.relative_to(tmp_path) for path in tmp_path.rglob("*")) == before


def test_a_run_folder_without_an_answer_takes_the_corrected_settings(tmp_path: Path) -> None:
    from hostile_servers import mcot

    from mcot.testing import Fail, FakeProvider

    items, run = items_dir(tmp_path), tmp_path / "run"
    with FakeProvider(default=Fail(404, message="The model `wrong` does not exist.")) as server:
        first = mcot("run", "--data", items, "--model", "openai-compatible:wrong", "--mode", "text",
                     "--base-url", server.openai_url, "--out", run, "--max-tries", "1")  # fmt: skip
    assert first.code == 3, first.stderr
    second = mcot("run", "--data", items, "--model", "offline", "--mode", "text", "--out", run)
    assert second.code == 0, second.stderr
    assert f"mcot: {run} has no answer yet, so it takes the new settings (" in second.stderr
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["model"]["spec"] == "offline"
