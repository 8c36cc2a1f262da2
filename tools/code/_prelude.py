"""What a code session has before its first cell (run inside the kernel, in the user's namespace).

numpy and PIL are imported; matplotlib, pyplot, shapely, sympy, networkx and pymunk are bound as modules that
import themselves on first use (an idle session stays small and starts fast). matplotlib draws with IPython's
inline backend (Agg, each cell's figures shown as PNG and closed): the kernel's MPLBACKEND names it, and the
backend hooks itself into the shell when pyplot first loads it, as in any Jupyter kernel. `image`
and `images` are filled by `_mcot_load_images` when the session is given to an item. A PIL image shown as a
cell's last value, or with `display(...)`, comes back to the model reduced to the session's size limits.
"""

import importlib as _mcot_importlib
import os as _mcot_os
import types as _mcot_types

import numpy as np
import PIL
from PIL import Image, ImageChops, ImageDraw, ImageEnhance, ImageFilter, ImageFont, ImageOps

__all__ = [  # what a cell finds: `image`, `images` and the libraries (named here so that no linter drops them)
    "PIL", "Image", "ImageChops", "ImageDraw", "ImageEnhance", "ImageFilter", "ImageFont", "ImageOps", "image",
    "images", "matplotlib", "networkx", "np", "nx", "plt", "pymunk", "shapely", "sympy",
]  # fmt: skip


class _MCotLazyModule(_mcot_types.ModuleType):
    """A module that imports itself on first attribute access."""

    def __getattr__(self, name):
        module = _mcot_importlib.import_module(self.__name__)
        self.__dict__.update(module.__dict__)
        return getattr(module, name)


matplotlib = _MCotLazyModule("matplotlib")
plt = _MCotLazyModule("matplotlib.pyplot")
shapely = _MCotLazyModule("shapely")
sympy = _MCotLazyModule("sympy")
networkx = nx = _MCotLazyModule("networkx")
pymunk = _MCotLazyModule("pymunk")

image = None
images: list[Image.Image] = []
_MCOT_MAX_SIDE = int(_mcot_os.environ.get("MCOT_IMAGE_MAX_SIDE", "2048"))


def _mcot_png(img):
    """Return a PIL image as PNG bytes, reduced to the session's largest side."""
    import io

    if max(img.size) > _MCOT_MAX_SIDE:
        img = img.copy()
        img.thumbnail((_MCOT_MAX_SIDE, _MCOT_MAX_SIDE))
    if img.mode not in ("RGB", "RGBA", "L", "LA", "P", "1"):
        img = img.convert("RGBA")
    buffer = io.BytesIO()
    img.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


def _mcot_load_images(paths):
    """Open the item's images (read-only copies in the session folder) as `image` and `images`."""
    global image, images
    images = [Image.open(path).convert("RGB") for path in paths]
    for img in images:
        img.load()
    image = images[0] if images else None


def _mcot_setup_display():
    """Show PIL images as PNG (reduced) and matplotlib figures as PNG, without an interactive backend."""
    from IPython import get_ipython

    shell = get_ipython()
    shell.display_formatter.formatters["image/png"].for_type(Image.Image, _mcot_png)
    # PIL images also have _repr_jpeg_: a second encoding of every image shown, sent and then dropped by the parent
    shell.display_formatter.formatters["image/jpeg"].for_type(Image.Image, lambda img: None)
    shell.run_line_magic("xmode", "Plain")  # the verbose mode reads the sources of every frame: slow and long


_mcot_setup_display()
