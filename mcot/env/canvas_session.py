"""One served canvas: what `mcot mcp serve` keeps per MCP session and `mcot env serve` per OpenEnv session.

A `CanvasSession` is an `Episode` (mcot.env.episode) on a blank canvas or on an image, started again by `start`,
whose calls answer with a `Reply`: the tool's text and the images a remote client receives as PNG bytes (a
tool's own image such as zoom's, then the canvas as a run's observation shows it when the call changed it).
A call never raises: a bad call answers `ok=False` with the reason and leaves the canvas as it was.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcot.core.item import Item
from mcot.env.episode import OBSERVE_MAX_SIDE, Episode, EpisodeError, item_from_row
from mcot.tools.toolsets import toolset as toolset_tools

BLANK = "canvas"
"""The benchmark name of a blank served canvas's item (no question, no verifier)."""

MAX_IMAGE_BYTES = 20 * 1024 * 1024
"""The largest image a client may send to start a canvas from (base64-decoded)."""


@dataclass(frozen=True)
class Reply:
    """What one call gives a remote client: success, the text, a tool's own PNG images (zoom's view), and the
    canvas as PNG when the call changed it (or when asked for)."""

    ok: bool
    text: str
    images: tuple[bytes, ...] = ()
    canvas: bytes | None = None

    def pngs(self) -> tuple[bytes, ...]:
        """Return every image of the reply: the tool's own, then the canvas."""
        return (*self.images, self.canvas) if self.canvas is not None else self.images


def blank_item(size: tuple[int, int] | None = None) -> Item:
    """Return the item of a blank served canvas (of `size`, else a run's blank canvas size)."""
    meta: dict[str, Any] = {"canvas": list(size)} if size else {}
    return Item(
        id="canvas", benchmark="canvas", category="canvas", question="", answer="", answer_type="text", meta=meta
    )


class CanvasSession:
    """A served canvas: an episode offering a toolset's tools, blank until `start` gives it an image or an item."""

    def __init__(self, toolset: str, images_root: Path | None = None) -> None:
        self.toolset = toolset
        self.tools = toolset_tools(toolset)
        self.images_root = images_root
        self.episode = Episode.open(blank_item(), self.tools)
        self._reward: tuple[tuple[int, int, int], float] | None = None

    def start(
        self,
        *,
        path: str | None = None,
        image: str | bytes | None = None,
        size: tuple[int, int] | None = None,
        item: Item | Mapping[str, Any] | str | None = None,
    ) -> Reply:
        """Start the canvas again: from an image file (`path`, read under the images root), image bytes or base64
        text (`image`), an item (an `mcot export --as trl` row's `item`, its image under the images root), else
        blank (of `size`); return the opening note and the canvas image, or the reason it cannot start."""
        try:
            chosen = item_from_row(item) if item is not None else blank_item(size)
            base: Any = None
            root = self.images_root
            if path is not None:
                root = self._root()
                base = str(self._readable(path).relative_to(root))  # Episode.open reads it under its root
            elif image is not None:
                base = _image_bytes(image)
            opened = Episode.open(chosen, self.tools, base, root)
        except (EpisodeError, ValueError, OSError) as exc:
            return Reply(False, f"Error: {exc}")
        self.episode.close()  # the previous canvas's code session ends now, not whenever it is garbage-collected
        self.episode = opened
        return Reply(True, self.episode.steps[0]["text"], canvas=self.png())

    def call(self, name: str, arguments: Mapping[str, Any] | str | None) -> Reply:
        """Run one tool on the canvas; return its text and images (never raises)."""
        episode = self.episode
        version = len(episode.canvas.log)
        steps = len(episode.steps)
        observation = episode.call(name, arguments, images=False)  # the PNG bytes are sent, not images
        images: list[bytes] = []
        tool_step = episode.steps[steps] if len(episode.steps) > steps else {}
        if tool_step.get("image"):
            images.append(episode.blobs[str(tool_step["image"]).removeprefix("blobs/").removesuffix(".png")])
        canvas = self.png() if len(episode.canvas.log) != version else None
        return Reply(observation.ok, observation.text, tuple(images), canvas)

    def close(self) -> None:
        """End what the session holds beyond its objects (the canvas's code session, with `python`); returns None."""
        self.episode.close()

    def png(self) -> bytes:
        """Return the canvas as the model is shown it (scaled past 1024 px a side), as PNG bytes."""
        return bytes(self.episode.canvas.observe(OBSERVE_MAX_SIDE).data)

    def reward(self) -> float:
        """Return the trace verifier's reward of what was drawn (mcot.env.episode.Episode.reward): 0.0 on a blank
        canvas (no item, no verifier); computed again only when the calls changed the trace's canvas."""
        episode = self.episode
        if episode.item.benchmark == BLANK:
            return 0.0
        key = (id(episode), len(episode.canvas.log), len(episode.steps))
        if self._reward is None or self._reward[0] != key:
            self._reward = (key, episode.reward())
        return self._reward[1]

    def _root(self) -> Path:
        """Return the folder this server reads images from (the working folder when none was given), resolved."""
        return (self.images_root or Path.cwd()).resolve()

    def _readable(self, path: str) -> Path:
        """Return the image file `path` names, refusing one outside the images root."""
        root = self._root()
        target = (root / path).resolve()
        if not target.is_relative_to(root):
            raise EpisodeError(f"{path!r} is outside the folder this server reads images from ({root})")
        if not target.is_file():
            raise EpisodeError(f"{path!r} is not an image file under {root}")
        if target.stat().st_size > MAX_IMAGE_BYTES:
            raise EpisodeError(f"{path!r} is over {MAX_IMAGE_BYTES:,} bytes, the largest image taken")
        return target


def _image_bytes(image: str | bytes) -> bytes:
    """Return image bytes given as bytes or base64 text (a `data:` URL too); ValueError when it is neither."""
    if isinstance(image, bytes):
        data = image
    else:
        text = image.split(",", 1)[1] if image.startswith("data:") else image
        try:
            data = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError("the image is not base64 text (send the PNG or JPEG bytes base64-encoded)") from None
    if len(data) > MAX_IMAGE_BYTES:
        raise ValueError(f"the image is {len(data):,} bytes; at most {MAX_IMAGE_BYTES:,} are taken")
    return data
