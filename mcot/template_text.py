"""The text of a template file: its source header (lines starting with `## `) and the body that is sent.

A template that quotes a benchmark's published prompt names the file it quotes in a header at its top; the
header is never sent, so the body stays byte for byte the published text. The sha256 a manifest records is the
whole file's (header included), so a changed source note is a changed template.
"""

from __future__ import annotations

HEADER_MARK = "## "


def split_header(text: str) -> tuple[str, str]:
    """Return (header, body): the leading lines of `text` that start with `## `, and everything after them."""
    position = 0
    while text.startswith(HEADER_MARK, position):
        end = text.find("\n", position)
        position = len(text) if end < 0 else end + 1
    return text[:position], text[position:]


def template_body(text: str) -> str:
    """Return the part of a template file that is rendered and sent: the text without its source header."""
    return split_header(text)[1]
