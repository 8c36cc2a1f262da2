"""The small protocol every image generator implements, and the request/response records it speaks.

An image generator makes PNG images from a text prompt (`generate`) or changes an input image as an
instruction says (`edit`). Images travel as bytes here; a solver puts them in the run's blob store.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from mcot.agents.errors import AgentError

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class GeneratorError(AgentError):
    """An image generator cannot do what was asked (an edit it does not support), or a call failed for good.

    `status` is the HTTP status of a failed API call; `retries` the retry notes taken before it failed.
    """

    def __init__(self, message: str, *, status: int | None = None, retries: list[dict] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retries = list(retries or [])


@dataclass(frozen=True)
class ImageRequest:
    """One generation or edit: the prompt (or edit instruction), how many images, and the settings.

    `size` is (width, height). `image` (PNG or JPEG bytes) and `mask` are the input of an edit. `category`
    (GOBench: direct_light_images, reflect_light_images, refracted_light_images) and `scene` (a structured
    scene description) are hints that only the procedural generator reads.
    """

    prompt: str
    n: int = 1
    seed: int | None = None
    size: tuple[int, int] | None = None
    steps: int | None = None
    guidance: float | None = None
    image: bytes | None = None
    mask: bytes | None = None
    category: str | None = None
    scene: dict[str, Any] | None = None


@dataclass(frozen=True)
class GeneratedImage:
    """One image as PNG bytes, with what is known about it (`seed`, `revised_prompt`, procedural facts…)."""

    data: bytes
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ImageResponse:
    """What a generator returns: the images, usage `{"images": n, "cost_usd": float | None}`, retry notes."""

    images: tuple[GeneratedImage, ...]
    usage: dict[str, Any]
    retries: list[dict[str, Any]] = field(default_factory=list)


@runtime_checkable
class ImageGenerator(Protocol):
    """An image generator behind two async calls; `provider`/`model` name it for pricing, `spec` for manifests."""

    spec: str
    provider: str
    model: str

    def capabilities(self) -> dict[str, str]:
        """Return what the generator does with each part of a request: "yes", "sent", or "no: why"/"ignored: why".

        Keys: `generate`, `edit`, `seed` (and, where they apply, `steps`, `guidance`, `size`).
        """
        ...

    async def generate(self, request: ImageRequest) -> ImageResponse:
        """Return `request.n` images made from `request.prompt`."""
        ...

    async def edit(self, request: ImageRequest) -> ImageResponse:
        """Return `request.n` edits of `request.image`; raise GeneratorError when the generator cannot edit."""
        ...


def parse_size(text: str) -> tuple[int, int]:
    """Return (width, height) from `WxH` (e.g. `512x512`); raise ValueError saying the form otherwise."""
    width, sep, height = text.strip().lower().partition("x")
    try:
        size = (int(width), int(height)) if sep else None
    except ValueError:
        size = None
    if size is None or size[0] <= 0 or size[1] <= 0:
        raise ValueError(f"a size is WIDTHxHEIGHT in pixels, e.g. 512x512; got {text!r}")
    return size


def size_text(size: tuple[int, int]) -> str:
    """Return a size as `WxH`."""
    return f"{size[0]}x{size[1]}"


def as_png(data: bytes) -> bytes:
    """Return image bytes as PNG: PNG bytes as they are, any other format Pillow reads re-encoded."""
    if data.startswith(PNG_SIGNATURE):
        return data
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        buffer = io.BytesIO()
        image.convert("RGBA" if "A" in image.getbands() else "RGB").save(buffer, format="PNG")
    return buffer.getvalue()
