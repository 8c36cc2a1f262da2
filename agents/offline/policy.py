"""The offline backend: plays the first strategy that recognises the item, else a fixed guess."""

from __future__ import annotations

import json

from agents.backends.base import ModelRequest, ModelResponse, Usage
from agents.messages import ImagePart, ToolCall, ToolResultPart
from agents.offline.strategies import Move, OfflineView, strategies
from agents.prompts import format_final_answer


def fixed_guess(view: OfflineView) -> str:
    """Return the policy's fixed guess in the benchmark's answer format (first option, 0, yes, 3, …)."""
    value = {"choice": "A", "number": "0", "yesno": "Yes", "rating": "3"}.get(view.answer_type, "unknown")
    if view.answer_type != "choice" and view.choices:
        value = "A"
    return format_final_answer(view.benchmark, value)


def offline_view(request: ModelRequest) -> OfflineView:
    """Return the offline policy's view of a model request (prompt-view hints, images, tool results)."""
    hints = request.hints
    canvas: bytes | None = None
    images: list[bytes] = []
    results: list[ToolResultPart] = []
    for message in request.messages:
        for part in message.parts:
            if isinstance(part, ImagePart):
                if part.canvas:
                    canvas = part.data
                else:
                    images.append(part.data)
            elif isinstance(part, ToolResultPart):
                results.append(part)
    choices = hints.get("choices")
    return OfflineView(
        question=str(hints.get("question", "")),
        choices=tuple(choices) if choices else None,
        benchmark=str(hints.get("benchmark", "")),
        category=str(hints.get("category", "")),
        answer_type=str(hints.get("answer_type", "text")),
        mode=str(hints.get("mode", "text")),
        turn=sum(1 for m in request.messages if m.role == "assistant"),
        tools=request.tools.names if request.tools is not None else (),
        canvas=canvas,
        images=tuple(images),
        tool_results=tuple(results),
    )


class OfflineBackend:
    """A deterministic policy behind the backend protocol (spec `offline`); built-in strategies load on creation."""

    provider = "offline"
    model = "offline"
    spec = "offline"

    def __init__(self) -> None:
        from agents.offline.builtin import register_builtin_strategies  # they import tools: load on first use

        register_builtin_strategies()

    async def generate(self, request: ModelRequest) -> ModelResponse:
        """Return the next move of the first strategy that recognises the item, else the fixed guess."""
        view = offline_view(request)
        move: Move | None = None
        if view.mode == "canvas" and view.tools:
            for strategy in strategies().values():
                move = strategy(view)
                if move is not None:
                    break
        if move is None:
            return ModelResponse(text=fixed_guess(view), usage=Usage(0, 0), stop_reason="end")
        calls = tuple(
            ToolCall(id=f"offline_{view.turn}_{n}", name=name, arguments=json.dumps(arguments))
            for n, (name, arguments) in enumerate(move.tool_calls, start=1)
            if name in view.tools
        )
        return ModelResponse(
            text=move.text, tool_calls=calls, usage=Usage(0, 0), stop_reason="tool_use" if calls else "end"
        )
