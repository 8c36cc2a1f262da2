"""`mcot env serve` driven by openenv-core's own `GenericEnvClient` (its WebSocket protocol): reset with an
`mcot export --as trl` row (or nothing: a blank canvas), steps `{"tool", "arguments"}` observing the text and the
canvas as PNG, the drawing reward of the trace verifier, the final answer's reward from mcot.rewards; two clients
at once keep two canvases, and a bad step answers with its reason without closing the session; a session past
`--max-sessions` is refused, and a client killed mid-session has its session closed, the others untouched."""

from __future__ import annotations

import base64
import io
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from extras import needs
from hostile_servers import free_port
from mcot.canvas import Canvas
from PIL import Image
from served import env_client, serving
from trainer_runs import mcot

from mcot import tools

pytestmark = [needs("openenv"), pytest.mark.long_running]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An `mcot export --as trl` jsonl folder of one maze (records.jsonl, images/)."""
    root = tmp_path_factory.mktemp("openenv")
    mcot("gen", "games", "--task", "maze", "--n", "1", "--seed", "1", "--out", root / "items")
    mcot("export", root / "items", "--format", "jsonl", "--as", "trl", "--out", root / "export")
    return root / "export"


@pytest.fixture(scope="module")
def url(exported: Path) -> Iterator[str]:
    port = free_port()
    argv = [sys.executable, "-m", "mcot", "env", "serve", "--port", str(port), "--images-root", str(exported),
            "--max-sessions", "4"]  # fmt: skip
    with serving(argv, port):
        yield f"http://127.0.0.1:{port}"


def _row(exported: Path) -> dict[str, Any]:
    """Return the export's row as a trainer passes it to reset: the `item` and `images` columns."""
    record = json.loads((exported / "records.jsonl").read_text().splitlines()[0])
    return {"item": record["item"], "images": record["images"]}


def _route(row: dict[str, Any]) -> list[list[float]]:
    meta = json.loads(row["item"])["meta"]
    arguments = {"grid": meta["grid"], "cell": meta["cell"], "origin": meta["origin"], "targets": [meta["target"]]}
    route = tools.call("solve_maze", arguments, Canvas(size=(635, 495)))
    return [list(map(float, point)) for point in route.data["pixels"]]


def _image(data: str) -> Image.Image:
    with Image.open(io.BytesIO(base64.b64decode(data))) as image:
        image.load()
        return image.convert("RGB")


def test_a_trl_style_episode_resets_steps_and_reads_the_rewards(url: str, exported: Path) -> None:
    row = _row(exported)
    item = json.loads(row["item"])
    with env_client(url) as env:
        opened = env.reset(**row)
        assert opened.reward == 0.0 and not opened.done
        assert opened.observation["ok"] and _image(opened.observation["canvas"]).size == (635, 495)
        assert "maze" in opened.observation["task"].lower() and "answer" in opened.observation["tools"]
        drawn = env.step({"tool": "trace_path", "arguments": {"points": _route(row), "color": "blue"}})
        assert drawn.observation["ok"] and "trace_path: created e1" in drawn.observation["text"]
        assert drawn.reward == 1.0  # the trace verifier finds the drawn route valid
        assert _image(drawn.observation["canvas"]).size == (635, 495)
        bad = env.step({"tool": "draw_line", "arguments": {"start": "here"}})
        assert not bad.observation["ok"] and "invalid arguments" in bad.observation["text"]
        assert bad.observation["canvas"] is None and not bad.done  # unchanged canvas, the session goes on
        zoomed = env.step({"tool": "zoom", "arguments": {"region": [0, 0, 100, 100]}})
        assert zoomed.observation["canvas"] is None and _image(zoomed.observation["images"][0]).size == (200, 200)
        state = env.state()
        assert (
            state["step_count"] == 3
            and state["item_id"] == item["id"]
            and (state["width"], state["height"]) == (635, 495)
        )
        answered = env.step({"tool": "answer", "arguments": {"text": f"\\boxed{{{item['answer']}}}"}})
        assert answered.done and answered.reward == 1.0
        again = env.reset(**row)  # a new episode on the same session: a fresh canvas
        wrong = env.step({"tool": "answer", "arguments": {"text": "\\boxed{999}"}})
        assert again.observation["ok"] and wrong.done and wrong.reward == 0.0


def test_two_clients_at_once_keep_two_canvases(url: str, exported: Path) -> None:
    with env_client(url) as first, env_client(url) as second:
        first.reset(**_row(exported))
        second.reset()  # a blank canvas
        first.step({"tool": "draw_circle", "arguments": {"center": [50, 50], "radius": 20, "fill": "red"}})
        second.step({"tool": "draw_circle", "arguments": {"center": [50, 50], "radius": 20, "fill": "blue"}})
        one = first.step({"tool": "mark_point", "arguments": {"at": [300, 300]}})
        two = second.step({"tool": "mark_point", "arguments": {"at": [300, 300]}})
        red, blue = _image(one.observation["canvas"]), _image(two.observation["canvas"])
        assert red.size == (635, 495) and blue.size == (1024, 768)
        assert red.getpixel((50, 50))[0] > 200 and blue.getpixel((50, 50))[2] > 200
        assert "e2" in one.observation["text"] and "e2" in two.observation["text"]
        assert first.state()["step_count"] == 2 and second.state()["item_id"] is None


def test_trls_environment_factory_over_a_list_of_servers(url: str, exported: Path) -> None:
    import inspect

    from mcot.env import CanvasEnv
    from mcot.env.remote import remote_environment

    Remote = remote_environment([url, url + "/"])
    offered = {name for name, _ in inspect.getmembers(Remote, inspect.isfunction) if not name.startswith("_")}
    local = {name for name, _ in inspect.getmembers(CanvasEnv, inspect.isfunction) if not name.startswith("_")}
    assert offered == local  # TRL sees the same tools (and reset, get_reward) as with the in-process CanvasEnv
    assert inspect.signature(Remote.draw_line) == inspect.signature(CanvasEnv.draw_line)
    row = _row(exported)
    env = Remote()  # TRL: a no-argument factory, one instance per rollout
    try:
        opening = env.reset(**row)
        assert opening is not None and [block["type"] for block in opening] == ["text", "image", "text"]
        observed = env.trace_path(points=_route(row), color="blue")
        assert [block["type"] for block in observed] == ["image", "text"]
        assert observed[0]["image"].size == (635, 495) and "created e1" in observed[1]["text"]
        assert env.get_reward() == 1.0
        assert env.reset(**row, prompt=[{"role": "user", "content": "…"}]) is None and env.get_reward() == 0.0
    finally:
        env.client.close()


def test_sessions_past_the_bound_are_refused_and_a_killed_client_frees_its_own_alone() -> None:
    from websockets.exceptions import ConnectionClosed

    port = free_port()
    argv = [sys.executable, "-m", "mcot", "env", "serve", "--port", str(port), "--max-sessions", "2"]
    base = f"http://127.0.0.1:{port}"
    with serving(argv, port):
        # a client process holds the second session and is killed without closing it
        holder = (f"from openenv.core.generic_client import GenericEnvClient\nenv = GenericEnvClient(base_url={base!r})"
                  ".sync()\nenv.connect()\nenv.reset()\nprint('held', flush=True)\nimport time\ntime.sleep(600)\n")  # fmt: skip
        with env_client(base) as kept:
            kept.reset()
            kept.step({"tool": "draw_circle", "arguments": {"center": [50, 50], "radius": 20, "fill": "red"}})
            killed = subprocess.Popen([sys.executable, "-c", holder], stdout=subprocess.PIPE, text=True)
            try:
                assert killed.stdout is not None and killed.stdout.readline().strip() == "held"
                with env_client(base) as third, pytest.raises((ConnectionClosed, RuntimeError)):
                    third.reset()  # two sessions are the bound: OpenEnv refuses a third
            finally:
                killed.kill()
                killed.wait(30)
            after = kept.step({"tool": "mark_point", "arguments": {"at": [300, 300]}})
            assert after.observation["ok"] and "e2" in after.observation["text"]  # the kept canvas is untouched
            assert _image(after.observation["canvas"]).getpixel((50, 50))[0] > 200
            deadline = time.monotonic() + 60
            while True:  # the killed client's session is closed by the server, and its place taken again
                try:
                    with env_client(base) as again:
                        assert again.reset().observation["ok"]
                        break
                except (ConnectionClosed, RuntimeError):
                    assert time.monotonic() < deadline, "the killed client's session was never closed"
                    time.sleep(0.5)
            assert kept.state()["step_count"] == 2
