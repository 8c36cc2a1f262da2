"""What a local test model sees: the last image of an OpenAI Chat Completions request, and whether it holds a
red drawing — so that a test model can answer from its own drawing (and a probe that removes it flips it)."""

from __future__ import annotations

import base64
from io import BytesIO
from typing import Any

from PIL import Image


def last_image(body: dict[str, Any]) -> Image.Image | None:
    """Return the last `image_url` image of a Chat Completions request body, decoded as RGB (None: no image)."""
    found = None
    for message in body["messages"]:
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            if part.get("type") == "image_url":
                found = part["image_url"]["url"]
    if found is None:
        return None
    return Image.open(BytesIO(base64.b64decode(found.split(",", 1)[1]))).convert("RGB")


def has_red(image: Image.Image | None) -> bool:
    """Return whether an RGB image holds a red pixel (R > 200, G and B < 80) — the canvas's default stroke."""
    if image is None:
        return False
    data = image.tobytes()
    return any(data[i] > 200 and data[i + 1] < 80 and data[i + 2] < 80 for i in range(0, len(data), 3))
