"""A fast PNG writer for the canvas's renderings: RGB, 8 bits a channel, unfiltered rows, zlib in row bands.

Pillow's writer tries every PNG row filter on every row (adaptive filtering): 2–5 ms for a 640 × 640 diagram,
and the canvas writes one PNG per observation, on the path of every tool turn. Diagrams are mostly flat
colour, which unfiltered rows compress about as well, in a third of the time. Other modes go through Pillow.

The rows are compressed in bands of `BAND_ROWS`, each band on its own (a fresh deflate stream ended by a full
flush, so a band's bytes depend on its pixels alone) and the bands joined into one zlib stream. A `PngWriter`
keeps the last image's bands: a drawing step changes a few bands, and only those are compressed again. The
bytes are the same whether a band was compressed now or kept, so one image always has one PNG.

The pixels come as a Pillow RGB image (`encode`) or as the canvas's cairo buffer (`encode_cairo`), which is read
in place: a rendering is never copied into a Pillow image to be written. A kept band remembers its pixels in
the layout they came in; `rekey` tells the writer that a cairo buffer holds the image it wrote last, so that
the first drawing step after the opening observation compresses only the bands it changed.
"""

from __future__ import annotations

import io
import struct
import zlib
from dataclasses import dataclass, field, replace

import numpy as np
from mcot.canvas._pixels import cairo_pixels, image_pixels, png_rows
from PIL import Image

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
BAND_ROWS = 16
"""Rows per independently compressed band: small enough that a step recompresses little, large enough that
the deflate window (32 KiB) and the flush markers cost next to nothing in size."""
_ADLER_BASE = 65521
_FINAL_BLOCK = b"\x03\x00"
"""An empty final deflate block (fixed Huffman codes): ends the stream after the last band's full flush."""


def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(tag)))


def _adler32_combine(first: int, second: int, second_length: int) -> int:
    """Return the Adler-32 of two byte strings joined, from each one's checksum (zlib's adler32_combine)."""
    rem = second_length % _ADLER_BASE
    sum1 = first & 0xFFFF
    sum2 = (rem * sum1) % _ADLER_BASE
    sum1 += (second & 0xFFFF) + _ADLER_BASE - 1
    sum2 += (first >> 16) + (second >> 16) + _ADLER_BASE - rem
    sum1 %= _ADLER_BASE
    sum2 %= _ADLER_BASE
    return sum1 | (sum2 << 16)


@dataclass
class _Band:
    pixels: bytes
    """The band's pixels in the layout they came in (RGB or cairo's): what the next image's band is compared with."""
    deflated: bytes
    adler: int
    length: int


@dataclass
class PngWriter:
    """Encodes RGB images as PNG at zlib `level`, recompressing only the row bands that differ from the last image."""

    level: int = 1
    _layout: tuple[int, int, int] | None = None
    """(width, height, bytes a pixel) of the kept bands' pixels."""
    _bands: list[_Band] = field(default_factory=list)

    def encode(self, image: Image.Image) -> bytes:
        """Return `image` as PNG bytes; RGB images are written by this module, other modes by Pillow."""
        if image.mode != "RGB":
            buffer = io.BytesIO()
            image.save(buffer, format="PNG", compress_level=self.level)
            return buffer.getvalue()
        return self._encode(image_pixels(image))

    def encode_cairo(self, buffer: bytes | bytearray, width: int, height: int) -> bytes:
        """Return the pixels of a cairo RGB24 buffer (stride `width` * 4) as the PNG bytes `encode` gives their
        RGB image."""
        return self._encode(cairo_pixels(buffer, width, height))

    def copy(self) -> PngWriter:
        """Return a writer at the same level keeping the same bands (bands are never changed, only replaced)."""
        return PngWriter(self.level, self._layout, list(self._bands))

    def rekey(self, buffer: bytes | bytearray, width: int, height: int) -> None:
        """Take a cairo RGB24 buffer holding the pixels of the image encoded last as the kept bands' pixels (the
        caller vouches for that); a writer that kept no bands of an image that size is left as it is."""
        if self._layout != (width, height, 3):
            return
        pixels = cairo_pixels(buffer, width, height)
        self._bands = [
            replace(band, pixels=pixels[index * BAND_ROWS : (index + 1) * BAND_ROWS].tobytes())
            for index, band in enumerate(self._bands)
        ]
        self._layout = (width, height, 4)

    def _encode(self, pixels: np.ndarray) -> bytes:
        height, width, depth = pixels.shape
        if self._layout != (width, height, depth):
            self._layout, self._bands = (width, height, depth), []
        # with nothing kept every band is compressed: its rows are made in one pass over the whole image
        rows = png_rows(pixels) if not self._bands else None
        line = width * 3 + 1
        bands: list[_Band] = []
        for index, top in enumerate(range(0, height, BAND_ROWS)):
            part = pixels[top : top + BAND_ROWS]
            key = part.tobytes()
            kept = self._bands[index] if index < len(self._bands) else None
            if kept is not None and kept.pixels == key:
                bands.append(kept)
            else:
                raw = png_rows(part) if rows is None else rows[top * line : (top + BAND_ROWS) * line]
                bands.append(self._band(raw, key))
        self._bands = bands
        adler = 1
        for band in bands:
            adler = _adler32_combine(adler, band.adler, band.length)
        stream = b"".join([_zlib_header(self.level), *(band.deflated for band in bands), _FINAL_BLOCK])
        header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8 bits, truecolour, no interlace
        idat = stream + struct.pack(">I", adler)
        return _SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")

    def _band(self, raw: bytes, key: bytes) -> _Band:
        deflate = zlib.compressobj(self.level, zlib.DEFLATED, -zlib.MAX_WBITS)
        deflated = deflate.compress(raw) + deflate.flush(zlib.Z_FULL_FLUSH)
        return _Band(key, deflated, zlib.adler32(raw), len(raw))


def _zlib_header(level: int) -> bytes:
    """Return the two-byte zlib header for a 32 KiB window at `level` (FLEVEL as zlib itself sets it)."""
    flevel = 0 if level < 2 else 1 if level < 6 else 2 if level == 6 or level == -1 else 3
    cmf = 0x78
    flg = flevel << 6
    flg += 31 - ((cmf << 8) + flg) % 31
    return bytes((cmf, flg))


def encode_png(image: Image.Image, level: int = 1) -> bytes:
    """Return `image` as PNG bytes (zlib `level`); RGB images unfiltered by this module, others by Pillow."""
    return PngWriter(level).encode(image)
