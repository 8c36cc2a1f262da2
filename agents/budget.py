"""The limits of one solve, and the loop settings that go with them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Budget:
    """Limits of one solve: model turns, output tokens, wall clock; sampling; context and image settings.

    `max_output_tokens` counts over the whole item (None: unlimited); `max_tokens_per_call` is each call's
    own cap. `max_canvas_images` is how many of the latest canvas images stay in the model's context.
    `temperature` and `seed` go into every request of backends that take them (`seed` None: not sent).
    `max_answer_chars` is the most of one model turn's text that is kept (in the answer, the trace and the
    conversation): a longer text keeps its beginning and its end, where a final answer is written, and the
    result says how much was cut. Which tools are offered is the arm's business (`solve(..., tools=...)`).
    """

    max_steps: int = 12
    max_output_tokens: int | None = None
    max_tokens_per_call: int = 4096
    item_timeout_s: float | None = None
    max_canvas_images: int = 3
    temperature: float = 0.0
    seed: int | None = None
    observe_max_side: int = 1024
    observe_format: Literal["png", "jpeg"] = "png"
    max_answer_chars: int = 1_000_000
    unsafe_local_code: bool = False
    """Run the `python` tool's sessions without the OS sandbox (only their limits): `--unsafe-local-code`."""

    def __post_init__(self) -> None:
        if self.max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, got {self.max_steps}")
        if self.max_canvas_images < 1:
            raise ValueError(f"max_canvas_images must be at least 1, got {self.max_canvas_images}")
        if self.max_answer_chars < 1000:
            raise ValueError(f"max_answer_chars must be at least 1000, got {self.max_answer_chars}")

    def recursion_limit(self) -> int:
        """Return LangGraph's recursion limit for this budget: three graph steps per model turn, plus set-up."""
        return 3 * self.max_steps + 4
