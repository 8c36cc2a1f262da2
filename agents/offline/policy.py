"""The offline backend: plays the first strategy that recognises the item, if the request offers its tools.

What the policy may do comes from the request alone: with no tools offered (the text arm) it gives its fixed
guess; with tools offered, a recognised item is played by the first recognising strategy whose every needed
tool is among them (the domain tools' strategy in the tools arm, the Python one in the code arms), and otherwise
answered with what the first would need and the fixed guess. It never calls a tool the request
does not offer, whatever the arm is called.
"""

from __future__ import annotations

import json

from mcot.agents.backends.base import DETERMINISTIC, ModelRequest, ModelResponse, Usage
from mcot.agents.messages import ImagePart, ToolCall, ToolResultPart
from mcot.agents.offline.guess import cannot_solve, fixed_guess
from mcot.agents.offline.strategies import Move, OfflineView, strategies


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
        answer_type=str(hints.get("answer_type", "text")),
        turn=sum(1 for m in request.messages if m.role == "assistant"),
        tools=request.tools.names if request.tools is not None else (),
        canvas=canvas,
        images=tuple(images),
        tool_results=tuple(results),
    )


def next_move(view: OfflineView) -> Move:
    """Return the policy's move: the recognising strategy's, what it lacks and the fixed guess, or the guess."""
    if not view.tools or view.canvas is None:
        return Move(text=fixed_guess(view))
    recognising = [strategy for strategy in strategies().values() if strategy.recognises(view)]
    # the first strategy whose tools are all offered plays (the code arms' strategies stand beside the games')
    playable = [strategy for strategy in recognising if not strategy.missing(view.tools)]
    for strategy in playable[:1] or recognising[:1]:
        missing = strategy.missing(view.tools)
        if missing:
            return Move(text=cannot_solve(view, strategy.kind, missing))
        move = strategy.play(view)
        unoffered = tuple(dict.fromkeys(name for name, _ in move.tool_calls if name not in view.tools))
        return Move(text=cannot_solve(view, strategy.kind, unoffered)) if unoffered else move
    return Move(text=fixed_guess(view))


class OfflineBackend:
    """A deterministic policy behind the backend protocol (spec `offline`); it plays the declared strategies."""

    provider = "offline"
    model = "offline"
    spec = "offline"

    def sampling_support(self) -> dict[str, str]:
        """Return how this backend treats temperature and seed: ignored, it is deterministic."""
        return dict(DETERMINISTIC)

    async def generate(self, request: ModelRequest) -> ModelResponse:
        """Return the policy's next move for the request as a model response (tool calls, or the answer)."""
        view = offline_view(request)
        move = next_move(view)
        calls = tuple(
            ToolCall(id=f"offline_{view.turn}_{n}", name=name, arguments=json.dumps(arguments))
            for n, (name, arguments) in enumerate(move.tool_calls, start=1)
        )
        return ModelResponse(
            text=move.text, tool_calls=calls, usage=Usage(0, 0), stop_reason="tool_use" if calls else "end"
        )
