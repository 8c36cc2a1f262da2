"""The training environment is as hard as the run: rows' image paths stay under images_root, an image's size is
read from its header before anything is decoded, and every bad row raises EpisodeError (the one exception a trainer
skips) with a one-line reason — through CanvasEnv.reset (TRL) and the verl tool alike."""

from __future__ import annotations

import asyncio
import json
import os
import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from mcot.env import EpisodeError
from mcot.env.episode import Episode, open_base
from mcot.env.trl import environment_class

ITEM = {"id": "i1", "benchmark": "games", "category": "maze", "question": "?", "answer": "A",
        "answer_type": "choice", "images": ["img.png"]}  # fmt: skip


def _huge_png(width: int, height: int) -> bytes:
    """Return a PNG whose header says `width` × `height` (its data is a few bytes: decoding it would take ~GB)."""
    head = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))  # noqa: E731
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(b"\x00")) + chunk(b"IEND", b"")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    images = tmp_path / "images"
    images.mkdir()
    Image.new("RGB", (40, 30), "white").save(images / "img.png")
    (images / "huge.png").write_bytes(_huge_png(8000, 7000))  # 56 megapixels
    (images / "not.png").write_bytes(b"not an image at all")
    (tmp_path / "outside.png").write_bytes((images / "img.png").read_bytes())
    (images / "link.png").symlink_to(tmp_path / "outside.png")
    os.mkfifo(images / "pipe.png")
    (images / "folder.png").mkdir()
    return images


def _row(**changes: Any) -> dict[str, Any]:
    return {"item": json.dumps({**ITEM, **changes})}


BAD_ROWS: dict[str, tuple[Callable[[Path], dict[str, Any]], str]] = {
    "dotdot": (lambda root: {**_row(), "images": ["../outside.png"]}, "leaves images_root"),
    "absolute": (lambda root: {**_row(), "images": [str(root / "img.png")]}, "leaves images_root"),
    "etc": (lambda root: {**_row(), "images": ["/etc/hostname"]}, "leaves images_root"),
    "symlink out": (lambda root: {**_row(), "images": ["link.png"]}, "symlink"),
    "fifo": (lambda root: {**_row(), "images": ["pipe.png"]}, "not a regular file"),
    "folder": (lambda root: {**_row(), "images": ["folder.png"]}, "not a regular file"),
    "missing": (lambda root: {**_row(), "images": ["gone.png"]}, "not a regular file"),
    "huge": (lambda root: {**_row(), "images": ["huge.png"]}, "8000 × 7000 pixels, over the limit"),
    "huge bytes": (lambda root: {**_row(), "images": [{"bytes": _huge_png(8000, 7000)}]}, "over the limit"),
    "not an image": (lambda root: {**_row(), "images": ["not.png"]}, "not an image mcot can read"),
    "bad json": (lambda root: {"item": "{not json"}, "not an item's JSON object"),
    "json list": (lambda root: {"item": "[1, 2]"}, "a JSON list, not an object"),
    "missing field": (lambda root: {"item": json.dumps({"id": "x"})}, "not a valid item"),
    "wrong type": (lambda root: {"item": json.dumps({**ITEM, "images": 5})}, "not a valid item: images"),
    "images a string": (lambda root: {**_row(), "images": "img.png"}, "not a list of images"),
    "canvas size": (lambda root: {"item": json.dumps({**ITEM, "images": [], "meta": {"canvas": 7}})}, "item i1"),
}
"""Every kind of bad row, and what its one-line reason says."""


@pytest.mark.parametrize("name", BAD_ROWS)
def test_a_bad_row_is_an_episode_error_with_a_one_line_reason(name: str, root: Path) -> None:
    make, says = BAD_ROWS[name]
    env = environment_class("canvas", str(root))()
    with pytest.raises(EpisodeError) as raised:
        env.reset(**make(root))
    assert says in str(raised.value) and "\n" not in str(raised.value)


def test_a_good_row_opens_its_image_under_images_root(root: Path) -> None:
    env = environment_class("canvas", str(root))()
    env.reset(**_row(), images=["img.png"])
    assert env.episode is not None and env.episode.canvas.width == 40


def test_the_size_is_checked_before_decoding(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    decoded: list[Any] = []
    monkeypatch.setattr(Image.Image, "load", lambda self: decoded.append(self))
    with pytest.raises(EpisodeError, match="over the limit"):
        open_base("huge.png", root)
    assert decoded == []


def test_a_path_without_images_root_is_refused(root: Path) -> None:
    with pytest.raises(EpisodeError, match="give images_root"):
        open_base(str(root / "img.png"))


@pytest.mark.parametrize("name", ["dotdot", "etc", "huge", "bad json", "fifo"])
def test_the_verl_tool_answers_a_bad_row_in_words(name: str, root: Path) -> None:
    verl = pytest.importorskip("mcot.env.verl")
    make, says = BAD_ROWS[name]
    row = make(root)
    tool = verl.CanvasTool({"tool": "draw_line", "toolset": "canvas", "images_root": str(root)}, None)
    image = (row.get("images") or [None])[0]

    async def go() -> str:
        instance, _ = await tool.create(create_kwargs={"item": row["item"], "image": image})
        response, _, metrics = await tool.execute(instance, {"start": [0, 0], "end": [5, 5]})
        assert metrics == {"ok": False}
        return str(response.text)

    text = asyncio.run(go())
    assert text.startswith("Error: ") and says in text and "\n" not in text


def test_episode_open_refuses_a_traversing_item_image(root: Path) -> None:
    from mcot.env.episode import item_from_row

    item = item_from_row({**ITEM, "images": ["../outside.png"]})
    with pytest.raises(EpisodeError, match="leaves images_root"):
        Episode.open(item, ("draw_line",), None, root)


# the servers (OpenEnv, MCP) take an absolute path that lies inside their images root; every other bad row is refused
@pytest.mark.parametrize("name", [name for name in BAD_ROWS if name != "absolute"])
def test_the_openenv_environment_answers_a_bad_row_in_words(name: str, root: Path) -> None:
    served = pytest.importorskip("mcot.env.openenv_server")  # the MCP server's canvases are the same CanvasSession
    make, _ = BAD_ROWS[name]
    env = served.environment_factory("canvas", root)()
    observation = env.reset(**make(root))
    assert not observation.ok and observation.done, (name, observation.text)
    assert observation.text.startswith("Error: ") and "\n" not in observation.text, (name, observation.text)
