"""`solve(item, ...)`: one item, one model, one mode → (Prediction, Trace). Async; run many at once."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from langgraph.errors import GraphRecursionError

from agents.backends import load_model
from agents.backends.base import ModelBackend, redactor
from agents.budget import Budget
from agents.graph import initial_state, solver_graph
from agents.pricing import cost_usd
from agents.session import Blobs, MemoryBlobs, Session
from agents.toolbox import RegistryToolbox, Toolbox, toolset
from agents.trace import Trace

Mode = Literal["text", "canvas"]
Status = Literal["ok", "error", "budget"]


@dataclass
class Prediction:
    """The outcome of one solve: status, the final text verbatim, turns, usage, wall time, error."""

    status: Status
    text: str
    steps: int
    usage: dict[str, Any] = field(default_factory=dict)
    latency_s: float = 0.0
    error: str | None = None

    def to_record(self) -> dict[str, Any]:
        """Return the fields of a results.jsonl line that the prediction owns."""
        return {
            "status": self.status,
            "prediction": self.text,
            "steps": self.steps,
            "usage": self.usage,
            "latency_s": self.latency_s,
            "error": self.error,
        }


async def solve(
    item: Any,
    view_root: Path | str,
    model: ModelBackend | str,
    mode: Mode = "text",
    budget: Budget | None = None,
    blobs: Blobs | None = None,
    *,
    toolbox: Toolbox | None = None,
) -> tuple[Prediction, Trace]:
    """Return the prediction and trace of solving `item` with `model` in `mode`.

    Only the item's prompt view (question, images, choices) reaches the model. `view_root` is the items
    directory its image paths are relative to; images go to `blobs` (a canvas.BlobStore; in memory when
    None). Failures never raise: they come back as status "error" (or "budget") with a message.
    """
    from benchmarks.item import prompt_view

    if mode not in ("text", "canvas"):
        raise ValueError(f"mode must be 'text' or 'canvas', got {mode!r}")
    budget = budget or Budget()
    backend = load_model(model) if isinstance(model, str) else model
    box = toolbox or RegistryToolbox()
    session = Session(
        view=prompt_view(item, Path(view_root)),
        mode=mode,
        backend=backend,
        budget=budget,
        blobs=blobs if blobs is not None else MemoryBlobs(),
        toolbox=box,
        redact=redactor(getattr(backend, "_key", None)),
    )
    started = time.perf_counter()
    status: Status
    error: str | None = None
    try:
        if mode == "canvas":
            session.tools = toolset(box, budget.tools)
        async with asyncio.timeout(budget.item_timeout_s):
            final = await solver_graph().ainvoke(
                initial_state(), config={"recursion_limit": budget.recursion_limit()}, context=session
            )
        status, error = final["status"], final["error"]
        if status == "running":
            status, error = "error", "the loop ended without an answer"
    except TimeoutError:
        status, error = "budget", f"wall-clock budget spent: {budget.item_timeout_s} s"
    except GraphRecursionError:
        status, error = "budget", f"graph step limit reached ({budget.recursion_limit()})"
    except Exception as exc:
        status, error = "error", session.redact(f"{type(exc).__name__}: {exc}")
    usage = {
        "input_tokens": session.input_tokens,
        "output_tokens": session.output_tokens,
        "cost_usd": cost_usd(backend.provider, backend.model, session.input_tokens, session.output_tokens),
    }
    prediction = Prediction(
        status=status,
        text=session.answer,
        steps=session.turns,
        usage=usage,
        latency_s=round(time.perf_counter() - started, 4),
        error=error,
    )
    # a copy: after a timeout a tool thread may still be finishing and must not change what is returned
    return prediction, Trace(list(session.recorder.trace.steps))
