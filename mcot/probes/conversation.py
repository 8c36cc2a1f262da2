"""The final model request of a finished pair, rebuilt from its trace, with the images after the drawing marked.

The solver (agents/session.py) sends, in an arm with tools: the system prompt, a first user turn (the canvas
note, the canvas image the model saw, the item's other images, the task), then per round the assistant's text
and tool calls and a user turn with one tool result per call (the images tools returned inside it) and the
updated canvas (or "The canvas is unchanged."). The system prompt and task are the trace's record (`sent`); the
images are the run's blobs. Every image from the model's first drawing on (the first canvas operation the model
issued itself; for a code cell, the first image a cell showed) is a `Slot` a probe may replace or remove.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from mcot.agents.messages import ImagePart, Message, TextPart, ToolCall, ToolResultPart, sniff_media_type, system
from mcot.agents.session import image_part
from mcot.core.errors import UsageError

UNCHANGED = "The canvas is unchanged."
CODE_TOOL = "python"
NOT_SHOWN = " (not shown: this arm shows no image after the first observation)"


@dataclass(frozen=True)
class Slot:
    """An image the model saw after its first drawing: its place among them, where it came from, its blob.

    `source` is "observation" (the canvas after a round), "tool" (an image a tool returned, e.g. a zoom) or
    "cell" (an image a `python` cell showed); `step` is the trace line it belongs to.
    """

    index: int
    source: Literal["observation", "tool", "cell"]
    step: int
    blob: str


@dataclass
class FinalRequest:
    """A pair's conversation up to its final answer; `messages(replace)` gives it with the slots' images replaced.

    `before` is the blob of the canvas the model saw last before its first drawing (None: it never drew);
    `final_step` the trace line of the final answer; `output_tokens` those spent before it.
    """

    rows: list[dict[str, Any]]
    root: Path
    item_images: list[Path]
    sees_canvas: bool = True
    slots: list[Slot] = field(default_factory=list)
    before: str | None = None
    final_step: int = -1
    output_tokens: int = 0

    @property
    def first_drawing(self) -> int | None:
        """Return the trace line of the model's first drawing (or first cell image), None when there is none."""
        for number, row in enumerate(self.rows[: self.final_step]):
            if _draws(row) or (row.get("tool") == CODE_TOOL and _shown(row)):
                return number
        return None

    def image(self, blob: str, *, canvas: bool = True) -> ImagePart:
        """Return a run blob as the image part the model was sent; raise UsageError when it is missing."""
        path = self.root / blob
        try:
            data = path.read_bytes()
        except OSError:
            raise UsageError(f"{path}: an image of the trace is missing from the run's blobs") from None
        return ImagePart(data, sniff_media_type(data), canvas=canvas)

    def messages(self, replace: Callable[[Slot], ImagePart | None] | None = None) -> list[Message]:
        """Return the conversation sent for the final answer; each slot's image is `replace(slot)` (None: left
        out), or as it was when `replace` is None."""
        slots = {(slot.step, slot.blob): slot for slot in self.slots}

        def shown(step: int, blob: str) -> list[ImagePart]:
            slot = slots.get((step, blob))
            if slot is None or replace is None:
                return [self.image(blob)]
            new = replace(slot)
            return [] if new is None else [new]

        sent = _sent(self.rows)
        steps = self.rows[: self.final_step]
        first = steps[0] if steps and steps[0].get("kind") == "observation" else None
        opening: list[Any] = []
        if first is not None:
            opening = [TextPart(str(first.get("text") or "")), *shown(0, _seen(first))]
            opening += [image_part(path) for path in self.item_images[1:]]
        else:
            opening = [image_part(path) for path in self.item_images]
        out = [
            system(str(sent.get("system") or "")),
            Message("user", [*opening, TextPart(str(sent.get("task") or ""))]),
        ]
        pending: list[ToolCall] = []
        current: Message | None = None
        observed = False
        for number, row in enumerate(steps):
            kind = row.get("kind")
            if kind == "model" and _is_reply(row):
                calls = tuple(_call(call, number, k) for k, call in enumerate(row.get("tool_calls") or []))
                text = str(row.get("text") or "")
                if current is not None and not observed:
                    current.parts.append(TextPart(UNCHANGED))
                observed = False
                out.append(Message("assistant", [TextPart(text)] if text else [], calls,
                                   bool(row.get("tool_calls_in_text"))))  # fmt: skip
                pending = list(calls)
                current = Message("user", [])
                out.append(current)
            elif kind == "tool" and current is not None:
                call = _match(pending, str(row.get("tool")))
                images: list[ImagePart] = []
                text = str(row.get("result") if row.get("result") is not None else row.get("error") or "")
                if self.sees_canvas:
                    for blob in _shown(row):
                        images += shown(number, blob)
                elif _shown(row):
                    text += NOT_SHOWN
                current.parts.append(
                    ToolResultPart(
                        call.id if call else f"call_{number}",
                        str(row.get("tool")),
                        text,
                        row.get("error") is not None,
                        tuple(images),
                        dict(row.get("data") or {}),
                    )
                )
            elif kind == "observation" and current is not None and number > 0:
                observed = True
                current.parts.append(TextPart(str(row.get("text") or "")))
                if self.sees_canvas:
                    current.parts += shown(number, _seen(row))
        if current is not None and not observed:
            current.parts.append(TextPart(UNCHANGED))
        return [message for message in out if message.parts or message.tool_calls]


def final_request(
    rows: Sequence[dict[str, Any]], root: Path, item_images: list[Path], *, sees_canvas: bool = True
) -> FinalRequest:
    """Return the final request of a trace that ended with an answer; raise UsageError for one that did not."""
    rows = list(rows)
    final = next(
        (n for n in range(len(rows) - 1, -1, -1) if rows[n].get("kind") == "model" and _is_reply(rows[n])), None
    )
    if final is None or rows[final].get("tool_calls"):
        raise UsageError("the trace does not end with a final answer")
    if _sent(rows).get("system") is None:
        raise UsageError("the trace records no system prompt (`sent`): a text arm, or a run made before it was kept")
    request = FinalRequest(rows, root, item_images, sees_canvas, final_step=final)
    request.output_tokens = sum(int((row.get("usage") or {}).get("output_tokens") or 0) for row in rows[:final])
    start = request.first_drawing
    if start is None:
        return request
    seen_before = [_seen(row) for row in rows[:start] if row.get("kind") == "observation" and _seen(row)]
    request.before = seen_before[-1] if seen_before else None
    for number, row in enumerate(rows[start:final], start):
        kind = row.get("kind")
        if kind == "observation" and sees_canvas:  # a blind arm was never shown its drawing: nothing to change
            request.slots.append(Slot(len(request.slots), "observation", number, _seen(row)))
        elif kind == "tool" and sees_canvas:
            source: Literal["tool", "cell"] = "cell" if row.get("tool") == CODE_TOOL else "tool"
            for blob in _shown(row):
                request.slots.append(Slot(len(request.slots), source, number, blob))
    return request


def _draws(row: dict[str, Any]) -> bool:
    """Return whether a trace line is a canvas operation the model issued itself that changed the canvas."""
    return row.get("kind") == "tool" and row.get("drawn_by") == "model" and bool(row.get("ops"))


def _shown(row: dict[str, Any]) -> list[str]:
    """Return the blobs of the images a tool step returned, in order."""
    images = row.get("images") or ([row["image"]] if isinstance(row.get("image"), str) else [])
    return [str(blob) for blob in images]


def _seen(row: dict[str, Any]) -> str:
    """Return the blob of the image the model saw at an observation (`seen`, else the full canvas)."""
    return str(row.get("seen") or row.get("image") or "")


def _sent(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    for row in rows:
        if row.get("kind") == "model" and isinstance(row.get("sent"), dict):
            return dict(row["sent"])
    return {}


def _is_reply(row: dict[str, Any]) -> bool:
    """Return whether a model line is a reply (a failed call said nothing)."""
    return not (row.get("error") and not row.get("text") and not row.get("tool_calls"))


def _call(call: dict[str, Any], step: int, k: int) -> ToolCall:
    arguments = call.get("arguments")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)
    return ToolCall(str(call.get("id") or f"call_{step}_{k}"), str(call.get("name") or ""), arguments)


def _match(pending: list[ToolCall], name: str) -> ToolCall | None:
    """Remove and return the first pending call to `name` (else the first pending call), or None."""
    for index, call in enumerate(pending):
        if call.name == name:
            return pending.pop(index)
    return pending.pop(0) if pending else None
