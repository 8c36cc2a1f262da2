"""`remote_environment(servers)`: TRL's `environment_factory` class over `mcot env serve` servers (the `openenv` extra).

The class has exactly `CanvasEnv`'s shape (mcot.env.trl: a no-argument constructor, `reset(**row)`, one public
method per tool of the toolset with the same signature and docstring, `get_reward()`), but each instance holds an
OpenEnv session (openenv-core's `GenericEnvClient`) on one of the servers, taken in turn, so that the canvases
of a trainer's rollouts live on other machines: many environment servers, one trainer.

A row's images go to the server as PNG data URLs (decoded PIL images, as `datasets` gives them) or as paths the
server reads under its `--images-root` (a jsonl export's). `get_reward()` is the server's drawing reward of the
last step (the trace verifier's verdict, as `CanvasEnv.get_reward`). The class has no other public method (TRL
would offer it as a tool): the session closes with the instance's connection (`env.client.close()`).
"""

from __future__ import annotations

import base64
import io
import itertools
import threading
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from PIL import Image

from mcot.env.trl import CanvasEnvironment, tool_method


def _png_url(image: Any) -> Any:
    """Return a row's image as the server takes it: a PIL image or bytes as a PNG data URL, a path as it is."""
    if isinstance(image, dict):
        image = image.get("bytes") or image.get("path")
    if isinstance(image, Image.Image):
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        image = buffer.getvalue()
    if isinstance(image, bytes | bytearray):
        return "data:image/png;base64," + base64.b64encode(bytes(image)).decode("ascii")
    return str(image)


def _image(data: str) -> Image.Image:
    with Image.open(io.BytesIO(base64.b64decode(data))) as opened:
        opened.load()
        return opened.convert("RGB")


class RemoteCanvasEnvironment(CanvasEnvironment):
    """CanvasEnv's methods over an OpenEnv session on one of `servers` (taken in turn per instance)."""

    servers: ClassVar[tuple[str, ...]] = ()
    _turns: ClassVar[Iterator[str]]
    _lock: ClassVar[threading.Lock]

    def __init__(self) -> None:
        super().__init__()
        from openenv.core.generic_client import GenericEnvClient

        with self._lock:
            self.server = next(self._turns)
        self.client = GenericEnvClient(base_url=self.server).sync()
        self.client.connect()
        self.reward = 0.0

    def reset(self, **row: Any) -> list[dict[str, Any]] | None:
        """Start the server's episode on a `trl` export row; return the opening as CanvasEnv.reset does."""
        images = [_png_url(image) for image in row.get("images") or []][:1]
        result = self.client.reset(item=row.get("item"), images=images)
        observation = result.observation
        if not observation.get("ok", False):
            raise ValueError(f"{self.server}: {observation.get('text')}")
        self.reward = 0.0
        if row.get("prompt"):
            return None
        blocks: list[dict[str, Any]] = [{"type": "text", "text": observation["text"]}]
        if observation.get("canvas"):
            blocks.append({"type": "image", "image": _image(observation["canvas"])})
        if observation.get("task"):
            blocks.append({"type": "text", "text": observation["task"]})
        return blocks

    def get_reward(self) -> float:
        """Return the server's drawing reward after the last step (1.0: the trace verifier finds it valid)."""
        return self.reward

    def _call(self, name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
        result = self.client.step({"tool": name, "arguments": arguments})
        observation = result.observation
        self.reward = float(result.reward or 0.0)
        blocks = [{"type": "image", "image": _image(data)} for data in observation.get("images") or []]
        if observation.get("canvas"):
            blocks.append({"type": "image", "image": _image(observation["canvas"])})
        blocks.append({"type": "text", "text": observation.get("text", "")})
        return blocks


def remote_environment(servers: Sequence[str], toolset: str = "canvas") -> type[RemoteCanvasEnvironment]:
    """Return TRL's environment_factory class over `mcot env serve --toolset TOOLSET` at `servers` (base URLs)."""
    from mcot.tools.toolsets import toolset as toolset_tools

    urls = tuple(url.rstrip("/") for url in servers)
    if not urls:
        raise ValueError("remote_environment needs at least one server URL (http://HOST:PORT of `mcot env serve`)")
    names = toolset_tools(toolset)
    namespace: dict[str, Any] = {name: tool_method(name) for name in names}
    namespace.update(
        toolset=toolset,
        tools=names,
        servers=urls,
        _turns=itertools.cycle(urls),
        _lock=threading.Lock(),
        __doc__=f"mcot's canvas on {len(urls)} OpenEnv server(s) as a TRL environment ({toolset}: {len(names)} tools).",
        __module__=__name__,
    )
    return type("RemoteCanvasEnv", (RemoteCanvasEnvironment,), namespace)
