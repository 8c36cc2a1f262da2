"""A neutral conversation format that every backend translates to its own wire format.

Images are held once as bytes with their sha256; the base64 text a provider needs is computed once per
image and cached, so a long loop never re-encodes an image it has already sent.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True, eq=False)
class ImagePart:
    """An image in a message; `canvas` marks canvas observations that may be dropped from old turns."""

    data: bytes
    media_type: str = "image/png"
    canvas: bool = False

    @cached_property
    def sha256(self) -> str:
        """Return the hex sha256 of the image bytes."""
        return hashlib.sha256(self.data).hexdigest()

    @cached_property
    def b64(self) -> str:
        """Return the base64 text of the image (computed once)."""
        return base64.b64encode(self.data).decode("ascii")

    def data_url(self) -> str:
        """Return the image as a data URL."""
        return f"data:{self.media_type};base64,{self.b64}"


@dataclass(frozen=True)
class TextPart:
    """Plain text in a message."""

    text: str


MAX_ARGUMENT_DEPTH = 32
"""Tool arguments nested deeper than this are refused (the tools' own need three levels at most)."""


@dataclass(frozen=True)
class ToolCall:
    """One tool call as the model wrote it; `arguments` is the raw JSON text (possibly malformed).

    `problem` says why the call came unusable off the wire (arguments sent as an object where the wire wants
    JSON text, say); such a call is answered with a tool error, never run. Build calls from a response with
    `wire_tool_call`, which takes any shape a server sends.
    """

    id: str
    name: str
    arguments: str
    problem: str | None = None

    def argument_problem(self) -> str | None:
        """Return why the arguments cannot be used (for the tool error the model reads), or None when they can."""
        return self._parse()[1]

    def parsed_arguments(self) -> dict[str, Any] | None:
        """Return the arguments as a dict, or None when they are not a usable JSON object."""
        return self._parse()[0]

    def _parse(self) -> tuple[dict[str, Any] | None, str | None]:
        if self.problem is not None:
            return None, self.problem
        if not self.arguments.strip():
            return {}, None
        try:
            value = json.loads(self.arguments)
        except RecursionError:
            return None, f"they are nested too deeply (at most {MAX_ARGUMENT_DEPTH} levels)"
        except ValueError:
            return None, f"they are not a JSON object ({self.arguments[:200]!r})"
        if not isinstance(value, dict):
            return None, f"they are not a JSON object ({self.arguments[:200]!r})"
        if _deeper_than(value, MAX_ARGUMENT_DEPTH):
            return None, f"they are nested too deeply (at most {MAX_ARGUMENT_DEPTH} levels)"
        return value, None

    def arguments_for_trace(self) -> dict[str, Any] | str:
        """Return the parsed arguments where they parse, else the raw text."""
        parsed = self.parsed_arguments()
        return parsed if parsed is not None else self.arguments


def _deeper_than(value: Any, limit: int) -> bool:
    """Return whether a parsed JSON value nests lists and objects more than `limit` levels deep (no recursion)."""
    level: list[Any] = [value]
    for _ in range(limit):
        level = [child for node in level for child in (node.values() if isinstance(node, dict) else node)]
        level = [child for child in level if isinstance(child, dict | list)]
        if not level:
            return False
    return True


def wire_tool_call(call_id: Any, name: Any, arguments: Any, index: int) -> ToolCall:
    """Return a ToolCall from what a response holds, whatever its shapes (`index`: its place, for a missing id).

    Arguments should be JSON text; an object in their place (some servers send one) is kept as text for the
    trace and marked with a problem, as is anything else that is not text. A name that is not text becomes "".
    """
    problem = None
    if isinstance(arguments, str):
        text = arguments
    elif arguments is None:
        text = ""
    else:
        shape = "a JSON object" if isinstance(arguments, dict) else f"a JSON {type(arguments).__name__}"
        problem = f"they came as {shape} where the wire format wants a string of JSON text"
        text = _as_text(arguments)
    return ToolCall(
        id=call_id if isinstance(call_id, str) and call_id else f"call_{index}",
        name=name if isinstance(name, str) else "",
        arguments=text,
        problem=problem,
    )


def _as_text(value: Any) -> str:
    try:
        return json.dumps(value, default=str)[:100_000]
    except (ValueError, RecursionError):
        return repr(type(value))


@dataclass(frozen=True)
class ToolResultPart:
    """The outcome of one tool call, threaded back to the model under the call's id.

    `data` is the tool's structured output; wire formats do not send it, the offline policy may read it.
    """

    call_id: str
    name: str
    text: str
    is_error: bool = False
    images: tuple[ImagePart, ...] = ()
    data: dict[str, Any] = field(default_factory=dict)


Part = TextPart | ImagePart | ToolResultPart


@dataclass
class Message:
    """One conversation turn; tool results travel in a user message, before any other part."""

    role: Role
    parts: list[Part] = field(default_factory=list)
    tool_calls: tuple[ToolCall, ...] = ()
    tool_calls_in_text: bool = False

    @property
    def text(self) -> str:
        """Return the concatenated text parts."""
        return "\n".join(p.text for p in self.parts if isinstance(p, TextPart))


def user(*parts: Part | str) -> Message:
    """Return a user message from parts (strings become text parts)."""
    return Message("user", [TextPart(p) if isinstance(p, str) else p for p in parts])


def system(text: str) -> Message:
    """Return a system message."""
    return Message("system", [TextPart(text)])


def limit_canvas_images(messages: list[Message], keep: int) -> list[Message]:
    """Return the conversation with all but the latest `keep` canvas images replaced by a short note.

    Item images (not marked `canvas`) are always kept. Messages that change are copied; the rest are shared.
    """
    budget = [keep]

    def kept(image: ImagePart) -> bool:
        if not image.canvas:
            return True
        budget[0] -= 1
        return budget[0] >= 0

    out: list[Message] = []
    for message in reversed(messages):
        parts: list[Part] = []
        for part in reversed(message.parts):
            if isinstance(part, ImagePart) and not kept(part):
                part = TextPart(f"[earlier canvas image {part.sha256[:12]} omitted]")
            elif isinstance(part, ToolResultPart) and part.images:
                images = tuple(reversed([i for i in reversed(part.images) if kept(i)]))
                if len(images) != len(part.images):
                    part = ToolResultPart(part.call_id, part.name, part.text, part.is_error, images, part.data)
            parts.append(part)
        parts.reverse()
        if any(new is not old for new, old in zip(parts, message.parts, strict=True)):
            message = Message(message.role, parts, message.tool_calls, message.tool_calls_in_text)
        out.append(message)
    out.reverse()
    return out


def sniff_media_type(data: bytes) -> str:
    """Return the media type of image bytes from their signature (PNG when unknown)."""
    if data[:3] == b"\xff\xd8\xff":
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return "image/png"
