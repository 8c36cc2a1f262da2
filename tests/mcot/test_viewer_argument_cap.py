"""The viewer does not copy a model's huge tool arguments again (issue 29 part 7): the trace keeps up to
`Budget.max_answer_chars` of them, the viewer's data shows at most `SHOWN_ARGUMENT_CHARS` per call."""

from __future__ import annotations

from pathlib import Path

from hostile_servers import items_dir
from typer.testing import CliRunner

from mcot.cli import app
from mcot.testing import FakeProvider, Reply
from mcot.viewer import SHOWN_ARGUMENT_CHARS, shard_dir, shown_arguments

HUGE = 30_000_000


def test_a_30_mb_tool_argument_leaves_the_viewer_small(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-FAKE-key-for-tests-000")
    argument = '{"start": [0, 0], "end": "' + "x" * HUGE + '"}'
    script = [Reply("drawing", tool_calls=[("draw_line", argument)]), Reply("\\boxed{1}")]
    run = tmp_path / "run"
    with FakeProvider(script=script) as server:
        result = CliRunner().invoke(app, [
            "run", "--data", str(items_dir(tmp_path, 1)), "--model", "openai-compatible:m", "--mode", "canvas",
            "--base-url", server.openai_url, "--out", str(run), "--max-steps", "3",
        ])  # fmt: skip
    assert result.exit_code == 0, result.output
    viewed = CliRunner().invoke(app, ["view", str(run)])
    assert viewed.exit_code == 0, viewed.output
    page = run / "index.html"
    files = [page, *(path for path in shard_dir(page).rglob("*") if path.is_file())]
    size = sum(path.stat().st_size for path in files)
    assert size < 20 * SHOWN_ARGUMENT_CHARS  # two shown copies of 20,000 characters and the page, not 2 × 1 MB
    shards = "".join(path.read_text(encoding="utf-8") for path in files[1:])
    assert "characters of the arguments left out of the viewer" in shards


def test_short_arguments_are_shown_as_they_are() -> None:
    assert shown_arguments({"start": [0, 0]}) == {"start": [0, 0]}
    long = "a" * (SHOWN_ARGUMENT_CHARS + 5) + "END"
    shown = shown_arguments(long)
    assert shown.startswith("a" * 1000) and shown.endswith("aEND") and "8 characters of the arguments" in shown
