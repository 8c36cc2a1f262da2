"""Fail fast everywhere a model is called, tested over the LIST of every command that calls one (a new command
belongs in the list): a dead endpoint refuses the command before anything is written, naming the URL; a base URL
that is not http(s) is refused in one line; judgments that are missing make `mcot score` exit 3, never 0."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hostile_servers import free_port, items_dir, mcot

KEY = {"OPENAI_API_KEY": "sk-FAKE-key-for-tests-000"}


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Items, and a finished offline run of them (for the judge)."""
    root = tmp_path_factory.mktemp("fail-fast")
    items = items_dir(root)
    run = root / "run"
    assert mcot("run", "--data", items, "--model", "offline", "--mode", "text", "--out", run).code == 0
    return {"items": items, "run": run, "root": root}


def _study(root: Path, items: Path, url: str, *, judge: bool) -> Path:
    path = root / f"STUDY-{'judge' if judge else 'model'}.toml"
    if judge:
        models = '[[model]]\nspec = "offline"\n'
        top = f'judge = "openai-compatible:judge"\njudge_base_url = "{url}"\n'
    else:
        models = f'[[model]]\nspec = "openai-compatible:m"\nbase_url = "{url}"\nkey_env = "OPENAI_API_KEY"\n'
        top = ""
    path.write_text(f'data = ["{items}"]\narms = ["text"]\n{top}{models}')
    return path


CALLERS: dict[str, Callable[[dict[str, Path], str, Path], list[str | Path]]] = {
    "run": lambda m, url, out: ["run", "--data", m["items"], "--model", "openai-compatible:m", "--mode", "text",
                                "--base-url", url, "--out", out],
    "score --judge": lambda m, url, out: ["score", m["run"], "--judge", "openai-compatible:judge", "--base-url", url],
    "imagine --generator openai-image": lambda m, url, out: ["imagine", "--data", m["items"], "--generator",
                                                             "openai-image:gpt-image-1", "--base-url", url,
                                                             "--out", out],
    "study (a model)": lambda m, url, out: ["study", _study(out.parent, m["items"], url, judge=False), "--out", out],
    "study (the judge)": lambda m, url, out: ["study", _study(out.parent, m["items"], url, judge=True), "--out", out],
}  # fmt: skip
"""Every command that calls a model endpoint, given the URL to call and the folder it would write."""


@pytest.mark.parametrize("name", CALLERS)
def test_a_dead_endpoint_refuses_the_command_before_anything_is_written(
    name: str, made: dict[str, Path], tmp_path: Path
) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    out = tmp_path / "out"
    done = mcot(*CALLERS[name](made, url, out), env=KEY)
    assert done.code == 2, (name, done.stderr)
    assert f"cannot connect to {url}" in done.stderr and "Traceback" not in done.stderr
    assert not out.exists()
    assert not (made["run"] / "scores.jsonl").exists()


@pytest.mark.parametrize("name", ["run", "score --judge", "imagine --generator openai-image"])
def test_a_base_url_that_is_not_http_is_refused_in_one_line(name: str, made: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = mcot(*CALLERS[name](made, "file:///etc/passwd", out), env=KEY)
    assert done.code == 2, (name, done.stderr)
    assert "only http:// and https:// URLs are accepted" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.parametrize(
    "fail",
    [(404, "The model `wrong` does not exist."), (401, "Incorrect API key provided"), (403, "Forbidden")],
)
def test_a_permanent_answer_stops_the_run_at_once(fail: tuple[int, str], tmp_path: Path) -> None:
    from mcot.testing import Fail, FakeProvider

    items = items_dir(tmp_path, 12)
    with FakeProvider(default=Fail(fail[0], message=fail[1])) as server:
        done = mcot("run", "--data", items, "--model", "openai-compatible:wrong", "--mode", "text", "--base-url",
                    server.openai_url, "--out", tmp_path / "run", "--concurrency", "1", env=KEY)  # fmt: skip
        asked = len(server.requests)
    assert done.code == 3, done.stderr
    assert asked < 12  # not every pair is tried: the first permanent answer stops the run
    assert f"HTTP {fail[0]}" in done.stderr or f"HTTP {fail[0]}" in done.stdout
