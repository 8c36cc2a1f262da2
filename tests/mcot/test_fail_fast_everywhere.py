"""Fail fast everywhere a model is called, tested over the LIST of every command that calls one (a new command
belongs in the list): a dead endpoint refuses the command before anything is written, naming the URL; a base URL
that is not http(s) is refused in one line; a permanent answer (401, 403, 404 "model does not exist") stops the
command at once, naming the model and the URL, and it exits 3, never 0."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hostile_servers import free_port, items_dir, mcot

from mcot.testing import Fail, FakeProvider, Reply

pytestmark = pytest.mark.long_running

KEY = {"OPENAI_API_KEY": "sk-FAKE-key-for-tests-000"}


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Items, a finished offline run of them (for the judge), and a canvas run whose model's server is gone (for the
    probes)."""
    root = tmp_path_factory.mktemp("fail-fast")
    items = items_dir(root)
    run = root / "run"
    assert mcot("run", "--data", items, "--model", "offline", "--mode", "text", "--out", run).code == 0
    with FakeProvider(default=_drawer) as server:
        drawn = _canvas_run(items, server, root / "drawn")
        dead = server.openai_url
    return {"items": items, "run": run, "root": root, "drawn": drawn, "dead": dead}


def _drawer(body: dict[str, Any]) -> Reply:
    """Draws a line on its first turn, then answers."""
    if body.get("tools") and not any(message["role"] == "assistant" for message in body["messages"]):
        return Reply("Let me mark it.", tool_calls=[("draw_line", {"start": [4, 4], "end": [40, 30]})])
    return Reply("\\boxed{1}")


def _canvas_run(items: Path, server: FakeProvider, out: Path) -> Path:
    """Return a finished canvas run of `items` made by the server's model (which draws, then answers)."""
    done = mcot("run", "--data", items, "--model", "openai-compatible:m", "--mode", "canvas", "--base-url",
                server.openai_url, "--out", out, "--concurrency", "1", env=KEY)  # fmt: skip
    assert done.code == 0, done.stderr
    return out


def _probed(server: FakeProvider, items: Path, out: Path) -> Path:
    """Return a canvas run made by `server`'s model before it began to refuse (its script answers the run)."""
    server.script[:0] = [_drawer] * 2 * sum(1 for _ in (items / "items.jsonl").open())
    return _canvas_run(items, server, out)


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


CALLERS: dict[str, Callable[[dict[str, Any], str, Path], list[str | Path]]] = {
    "run": lambda m, url, out: ["run", "--data", m["items"], "--model", "openai-compatible:m", "--mode", "text",
                                "--base-url", url, "--out", out],
    "score --judge": lambda m, url, out: ["score", m["run"], "--judge", "openai-compatible:judge", "--base-url", url],
    "imagine --generator openai-image": lambda m, url, out: ["imagine", "--data", m["items"], "--generator",
                                                             "openai-image:gpt-image-1", "--base-url", url,
                                                             "--out", out],
    "study (a model)": lambda m, url, out: ["study", _study(out.parent, m["items"], url, judge=False), "--out", out],
    "study (the judge)": lambda m, url, out: ["study", _study(out.parent, m["items"], url, judge=True), "--out", out],
    "probe": lambda m, url, out: ["probe", m["drawn"], "--arm", "canvas"],
}  # fmt: skip
"""Every command that calls a model endpoint, given the URL to call and the folder it would write (`mcot probe`
calls the URL its run was made with: the fixture's server, gone)."""


@pytest.mark.parametrize("name", CALLERS)
def test_a_dead_endpoint_refuses_the_command_before_anything_is_written(
    name: str, made: dict[str, Any], tmp_path: Path
) -> None:
    url = str(made["dead"]) if name == "probe" else f"http://127.0.0.1:{free_port()}/v1"
    out = tmp_path / "out"
    done = mcot(*CALLERS[name](made, url, out), env=KEY)
    assert done.code == 2, (name, done.stderr)
    assert f"cannot connect to {url}" in done.stderr and "Traceback" not in done.stderr
    assert not out.exists()
    assert not (made["run"] / "scores.jsonl").exists()
    assert not (made["drawn"] / "probes.jsonl").exists()


@pytest.mark.parametrize("name", [name for name in CALLERS if name != "probe"])  # a probe calls its run's URL
def test_a_base_url_that_is_not_http_is_refused_in_one_line(name: str, made: dict[str, Any], tmp_path: Path) -> None:
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


PERMANENT: dict[str, tuple[str, Callable[[Path, FakeProvider, Path], list[str | Path]]]] = {
    "run": ("the model openai-compatible:wrong", lambda items, server, out: [
        "run", "--data", items, "--model", "openai-compatible:wrong", "--mode", "text", "--base-url",
        server.openai_url, "--out", out, "--concurrency", "1"]),
    "score --judge": ("the judge openai-compatible:wrong", lambda items, server, out: [
        "score", _offline_run(items, out), "--judge", "openai-compatible:wrong", "--base-url", server.openai_url]),
    "imagine --generator openai-image": ("the generator openai-image:wrong", lambda items, server, out: [
        "imagine", "--data", _gobench(out.parent / "gobench"), "--generator", "openai-image:wrong", "--base-url",
        server.openai_url, "--n-per-prompt", "6", "--concurrency", "1", "--out", out]),
    "study (a model)": ("the model openai-compatible:m", lambda items, server, out: [
        "study", _study(out.parent, items, server.openai_url, judge=False), "--out", out]),
    "study (the judge)": ("the judge openai-compatible:judge", lambda items, server, out: [
        "study", _study(out.parent, items, server.openai_url, judge=True), "--out", out]),
    "probe": ("the model openai-compatible:m", lambda items, server, out: [
        "probe", _probed(server, items, out), "--arm", "canvas", "--concurrency", "1"]),
}  # fmt: skip
"""Every command that calls a model endpoint: what its stop names, and its command line against `server` (a command
that needs a run first makes it here, before the server is asked anything it refuses)."""


def _offline_run(items: Path, out: Path) -> Path:
    assert mcot("run", "--data", items, "--model", "offline", "--mode", "text", "--out", out).code == 0
    return out


def _gobench(root: Path) -> Path:
    from test_files_and_inputs import _gobench as gobench

    root.mkdir()
    return gobench(root)


@pytest.mark.parametrize("status", [(401, "Incorrect API key provided"), (404, "The model `wrong` does not exist.")])
@pytest.mark.parametrize("name", PERMANENT)
def test_a_permanent_answer_stops_every_caller_at_once_naming_the_model_and_url(
    name: str, status: tuple[int, str], tmp_path: Path
) -> None:
    items = items_dir(tmp_path, 12)
    who, command = PERMANENT[name]
    with FakeProvider(default=Fail(status[0], message=status[1])) as server:
        args = command(items, server, tmp_path / "out")
        before = len(server.requests)
        done = mcot(*args, env=KEY)
        asked = len(server.requests) - before
    assert done.code == 3, (name, done.stdout[-2000:], done.stderr[-2000:])
    assert asked < 12, (name, asked)  # each of the 12 items (and each retry) was asked before: now what was in flight
    said = done.stdout + done.stderr
    assert f"{who} at {server.openai_url} gave a permanent answer (HTTP {status[0]}" in said, (name, said[-2000:])
    assert "Traceback" not in said


def test_a_studys_missing_judgments_exit_3_and_a_rerun_asks_them_again(tmp_path: Path) -> None:
    items = items_dir(tmp_path, 2)
    with FakeProvider(default=Fail(401, message="Incorrect API key provided")) as server:
        study = _study(tmp_path, items, server.openai_url, judge=True)
        first = mcot("study", study, "--out", tmp_path / "S", env=KEY)
        asked = len(server.requests)
        again = mcot("study", study, "--out", tmp_path / "S", env=KEY)
        asked_again = len(server.requests) - asked
    assert first.code == 3 and again.code == 3, (first.stderr, again.stderr)
    assert "judgment(s) are missing" in first.stderr and "judgment(s) are missing" in again.stderr
    assert asked >= 1 and asked_again >= 1  # the second call scores again: its judgments are asked, not skipped
