"""What a server may send back: the size of a response body on the wire and after decompression.

A response larger than `WireLimits.max_body_bytes` (64 MiB unless `MCOT_MAX_BODY_MB` says otherwise) is refused
as it arrives, before more of it is read: a gzip body of 1 MB that would inflate to 1 GiB stops at the limit,
having held at most the limit and one chunk in memory. Both HTTP paths use it: the plain client
(`plain_http.py`) and the SDKs' httpx clients (`sdk_http.py`). What a solve keeps of a model's text is the
solve's own limit (`mcot.agents.budget.Budget.max_answer_chars`).
"""

from __future__ import annotations

import os
import zlib
from dataclasses import dataclass

from mcot.agents.errors import ModelSpecError

MAX_BODY_ENV = "MCOT_MAX_BODY_MB"
"""The environment variable that sets the body limit, in MiB (default DEFAULT_MAX_BODY_MB)."""

DEFAULT_MAX_BODY_MB = 64
DECODED_ENCODINGS = ("gzip", "x-gzip", "deflate")
"""The content encodings mcot reads (and asks for); any other is refused."""


class ResponseTooLarge(Exception):
    """A response body passed the body limit, on the wire or after decompression."""


class UnreadableEncoding(Exception):
    """A response came in a content encoding mcot does not read (it asks for gzip or deflate only)."""


@dataclass(frozen=True)
class WireLimits:
    """The largest response body accepted, in bytes, counted on the wire and again after decompression."""

    max_body_bytes: int = DEFAULT_MAX_BODY_MB << 20

    def too_large(self, size: int, where: str = "") -> ResponseTooLarge:
        """Return the error for a body of `size` bytes or more (`where`: "after decompression", or "")."""
        shown = f"{self.max_body_bytes / (1 << 20):g} MiB"
        place = f" {where}" if where else ""
        return ResponseTooLarge(
            f"the response body is larger than the limit of {shown}{place} (at least {size:,} bytes); "
            f"raise {MAX_BODY_ENV} if a server really sends that much"
        )


def wire_limits() -> WireLimits:
    """Return the limits in force: `MCOT_MAX_BODY_MB` when set (a positive number of MiB), else the default."""
    value = os.environ.get(MAX_BODY_ENV, "").strip()
    if not value:
        return WireLimits()
    try:
        mb = float(value)
    except ValueError:
        mb = -1.0
    if not 0 < mb < 1 << 20:
        raise ModelSpecError(f"{MAX_BODY_ENV}={value!r}: give the largest response body in MiB, e.g. 64")
    return WireLimits(int(mb * (1 << 20)))


class BodyDecoder:
    """Decodes a body chunk by chunk (identity, gzip, deflate), refusing to produce more than the limit.

    Each `feed` inflates at most what is left under the limit plus one byte, so a bomb never takes more
    memory than the limit; `feed` and `finish` raise ResponseTooLarge past it, zlib.error on a corrupt stream.
    """

    def __init__(self, encoding: str | None, limits: WireLimits) -> None:
        name = (encoding or "identity").strip().lower()
        self.limits = limits
        self.size = 0
        self.wire = 0
        self._inflate = None
        if name in ("gzip", "x-gzip"):
            self._inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif name == "deflate":
            self._inflate = zlib.decompressobj()
        elif name not in ("identity", ""):
            raise UnreadableEncoding(f"the response is {name}-encoded, which mcot does not read")

    @property
    def decodes(self) -> bool:
        """Return whether the body is compressed (its decoded size differs from its size on the wire)."""
        return self._inflate is not None

    def feed(self, chunk: bytes) -> bytes:
        """Return the decoded bytes of the next chunk of the body as it came on the wire."""
        limit = self.limits.max_body_bytes
        self.wire += len(chunk)
        if self.wire > limit:
            raise self.limits.too_large(self.wire)
        if self._inflate is None:
            self.size = self.wire
            return chunk
        out = self._inflate.decompress(chunk, limit - self.size + 1)
        self.size += len(out)
        if self.size > limit:
            raise self.limits.too_large(self.size, "after decompression")
        return out

    def finish(self) -> bytes:
        """Return what the decompressor still holds at the end of the body."""
        if self._inflate is None:
            return b""
        out = self._inflate.flush(self.limits.max_body_bytes - self.size + 1)
        self.size += len(out)
        if self.size > self.limits.max_body_bytes:
            raise self.limits.too_large(self.size, "after decompression")
        return out
