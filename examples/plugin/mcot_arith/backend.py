"""`calculator:exact`: a model backend that adds the two numbers of an arith question.

With the `add` tool on offer (the `tools` arm) it calls `add` once with the two numbers and then answers
`\\boxed{sum}` from the tool's result; without tools (the `text` arm) it answers `\\boxed{sum}` at once. It
reads the question from the conversation, as a model would, and never sees the answer.
"""

import json
import re
from typing import Any

from mcot.agents.backends import BackendOptions
from mcot.agents.backends.base import DETERMINISTIC, ModelRequest, ModelResponse, Usage
from mcot.agents.errors import ModelSpecError
from mcot.agents.messages import ToolCall, ToolResultPart

_QUESTION = re.compile(r"What is (-?\d+) \+ (-?\d+)\?")


class CalculatorBackend:
    """Adds the two numbers of "What is A + B?", with the `add` tool when the request offers it."""

    provider = "calculator"
    model = "exact"
    spec = "calculator:exact"

    def sampling_support(self) -> dict[str, str]:
        """Return that temperature and seed are ignored: the calculator is deterministic."""
        return dict(DETERMINISTIC)

    async def generate(self, request: ModelRequest) -> ModelResponse:
        """Return a call of `add` (first turn, tool on offer), else the final answer."""
        text = "\n".join(message.text for message in request.messages if message.role == "user")
        found = _QUESTION.search(text)
        if found is None:
            return ModelResponse(text="This is not an arith question. \\boxed{0}", usage=Usage(0, 0), stop_reason="end")
        a, b = int(found.group(1)), int(found.group(2))
        results = [p for m in request.messages for p in m.parts if isinstance(p, ToolResultPart) and p.name == "add"]
        offered = request.tools.names if request.tools is not None else ()
        if "add" in offered and not results:
            call = ToolCall(id="add_1", name="add", arguments=json.dumps({"a": a, "b": b}))
            return ModelResponse(text="", tool_calls=(call,), usage=Usage(0, 0), stop_reason="tool_use")
        total = results[-1].text.strip() if results else str(a + b)
        return ModelResponse(text=f"{a} + {b} = {total}. \\boxed{{{total}}}", usage=Usage(0, 0), stop_reason="end")


def build(argument: str, options: BackendOptions) -> Any:
    """Return the calculator for `calculator:exact` (the only variant)."""
    if argument != "exact":
        raise ModelSpecError(f"calculator:{argument} names no calculator; use calculator:exact")
    return CalculatorBackend()
