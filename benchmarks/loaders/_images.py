"""Safe image decoding: check the pixel limit before decoding, decode fully, keep PNG/JPEG bytes as they are."""

from __future__ import annotations

import base64
import binascii
import io
import re
import warnings
from dataclasses import dataclass

from mcot.benchmarks.loaders._types import SkipItem
from PIL import Image

DEFAULT_MAX_PIXELS = 40_000_000
_KEPT_FORMATS = {"PNG": ".png", "JPEG": ".jpg"}
_PNG_MODES = {"1", "L", "LA", "I", "I;16", "P", "RGB", "RGBA"}
_DATA_URI = re.compile(r"^data:image/[\w.+-]+;base64,", re.IGNORECASE)


@dataclass(frozen=True)
class CheckedImage:
    """Image bytes that decoded completely: the bytes to store, their file suffix, size and mode."""

    data: bytes
    suffix: str
    width: int
    height: int
    mode: str


def check_image(data: bytes, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> CheckedImage:
    """Return the image as it should be stored (PNG and JPEG unchanged, anything else as lossless PNG).

    Raises SkipItem when the bytes are empty, not an image, truncated, or over `max_pixels`.
    """
    if not data:
        raise SkipItem("invalid image", "image data is empty")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image: Image.Image = Image.open(io.BytesIO(data))
            width, height = image.size
            if width * height > max_pixels:
                raise SkipItem(
                    "image too large",
                    f"image is {width}x{height} = {width * height} pixels, over the limit of {max_pixels}",
                )
            image.load()
    except SkipItem:
        raise
    except Image.DecompressionBombError as exc:
        raise SkipItem("image too large", f"image is over the pixel limit ({exc})") from exc
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise SkipItem("invalid image", f"image cannot be decoded (not an image, truncated or corrupt: {exc})") from exc
    suffix = _KEPT_FORMATS.get(image.format or "")
    if suffix is not None:
        return CheckedImage(data, suffix, width, height, image.mode)
    if image.mode not in _PNG_MODES:
        image = image.convert("RGBA" if "A" in image.getbands() else "RGB")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return CheckedImage(buffer.getvalue(), ".png", width, height, image.mode)


def decode_base64(text: str) -> bytes:
    """Return the bytes of a base64 string (a `data:image/...;base64,` prefix is allowed); SkipItem if invalid."""
    payload = _DATA_URI.sub("", text.strip(), count=1)
    payload = "".join(payload.split())
    try:
        return base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise SkipItem("invalid base64", f"image field is not valid base64 ({exc})") from exc


def is_data_uri(text: str) -> bool:
    """Return True when `text` is a `data:image/...;base64,` URI."""
    return bool(_DATA_URI.match(text.strip()))
