"""Opening and checking base images: size limits and decompression-bomb protection."""

from __future__ import annotations

import warnings
from pathlib import Path

from mcot.canvas._errors import CanvasError
from mcot.canvas._limits import MAX_PIXELS, MAX_SIDE
from PIL import Image


def check_size(width: int, height: int, what: str, *, pixel_limit: bool = True) -> None:
    """Raise CanvasError unless 1 <= side <= MAX_SIDE and (for images) width*height <= MAX_PIXELS."""
    if width < 1 or height < 1:
        raise CanvasError(f"{what} is {width}x{height}; both sides must be at least 1 px")
    if width > MAX_SIDE or height > MAX_SIDE:
        raise CanvasError(f"{what} is {width}x{height} px; each side may be at most {MAX_SIDE} px")
    if pixel_limit and width * height > MAX_PIXELS:
        raise CanvasError(f"{what} has {width * height} pixels; at most {MAX_PIXELS} are allowed")


def flatten(image: Image.Image) -> Image.Image:
    """Return an RGB copy of ``image``; transparent parts are composited over white."""
    check_size(*image.size, what="the base image")
    if image.mode == "RGB":
        return image.copy()
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(white, rgba).convert("RGB")
    return image.convert("RGB")


def open_image(path: str | Path) -> Image.Image:
    """Return the image at ``path`` as RGB, refusing files over the size limits before decoding them."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as image:
                check_size(*image.size, what=f"image {str(path)!r}")
                image.load()
                # a freshly decoded RGB image is nobody else's: taken as it is, without flatten's copy
                return image if image.mode == "RGB" else flatten(image)
    except CanvasError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise CanvasError(
            f"image {str(path)!r} is too large to open safely ({exc}); at most {MAX_PIXELS} pixels"
        ) from exc
    except FileNotFoundError as exc:
        raise CanvasError(f"no image file at {str(path)!r}") from exc
    except (OSError, ValueError, SyntaxError) as exc:
        raise CanvasError(f"cannot read {str(path)!r} as an image: {exc}") from exc
