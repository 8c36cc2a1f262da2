"""Solvers: `solve(item, ...)` runs one item in one arm → (Prediction, Trace); `ChatSolver` wraps it for runners.

A `Solver` is what a runner drives: an arm label, a `describe()` for the run manifest and an async `solve`.
`ChatSolver` is a chat model in one arm (text, canvas, tools or a custom tool list); an image generator is a
Solver too (`mcot.agents.generators.solver.ImageSolver`), so the runner never needs to know which kind it runs.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast, runtime_checkable

from mcot.agents.backends import load_model
from mcot.agents.backends.base import ModelBackend, redactor, sampling_support
from mcot.agents.budget import Budget
from mcot.agents.graph import StepLimitError, run_loop, run_text_loop
from mcot.agents.pricing import cost_usd
from mcot.agents.session import Session
from mcot.agents.toolbox import RegistryToolbox, Toolbox, toolset
from mcot.tools.errors import ToolError
from mcot.tools.toolsets import toolset as named_toolset

from mcot.core.item import prompt_view
from mcot.core.registry import BENCHMARKS, TOOLSETS
from mcot.core.rundir.blobs import Blobs, MemoryBlobs
from mcot.core.rundir.traces import Trace

if TYPE_CHECKING:
    from mcot.core.item import Item

Status = Literal["ok", "error", "budget"]


@dataclass
class Prediction:
    """The outcome of one solve: status, the final text verbatim, turns, usage, wall time, error.

    `usage` holds all tokens of the solve (`input_tokens`, `output_tokens`), the cost of those paid for
    (`cost_usd`: a turn served by the response cache costs nothing; None when the price is unknown) and
    `cached_calls`, the number of model turns the cache served.

    A prediction that is an image (a generator's, or an edited diagram's final canvas) also carries `images`
    (run-relative blob paths, `blobs/<sha>.png`, the first being the answer) and `image_meta` (one dict per image).

    `empty`: the model's final turn was a well-formed empty answer (a stop reason, no text, no tool call): an
    answer (status ok) that the record flags (`"empty": true`) so that a report can count it. `cut_chars`: how
    many characters of the model's text were left out under `Budget.max_answer_chars` (`"cut_chars"` when any).
    """

    status: Status
    text: str
    steps: int
    usage: dict[str, Any] = field(default_factory=dict)
    latency_s: float = 0.0
    error: str | None = None
    images: list[str] = field(default_factory=list)
    image_meta: list[dict[str, Any]] = field(default_factory=list)
    empty: bool = False
    cut_chars: int = 0

    def to_record(self) -> dict[str, Any]:
        """Return the fields of a results.jsonl line the prediction owns (with `images`, `image`, `image_meta` if any)."""
        record = {
            "status": self.status,
            "prediction": self.text,
            "steps": self.steps,
            "usage": self.usage,
            "latency_s": self.latency_s,
            "error": self.error,
        }
        if self.images:
            record["images"] = list(self.images)
            record["image"] = self.images[0]
            record["image_meta"] = list(self.image_meta)
        if self.empty:
            record["empty"] = True
        if self.cut_chars:
            record["cut_chars"] = self.cut_chars
        return record


async def solve(
    item: Any,
    view_root: Path | str,
    model: ModelBackend | str,
    mode: str = "text",
    budget: Budget | None = None,
    blobs: Blobs | None = None,
    *,
    toolbox: Toolbox | None = None,
    tools: tuple[str, ...] | None = None,
    sees_canvas: bool | None = None,
) -> tuple[Prediction, Trace]:
    """Return the prediction and trace of solving `item` with `model` in the arm `mode`.

    `mode` is the arm's name; `tools` the exact tool names it offers (None: the named toolset of
    `mcot.tools.toolsets.toolset(mode)`, so "text", "canvas" and "tools" need no list). No tools means the text
    loop (one answer in words); any tools, the canvas loop offering exactly those. Only the item's prompt
    view (question, images, choices) reaches the model. `view_root` is the items directory its image paths
    are relative to; images go to `blobs` (a mcot.canvas.BlobStore; in memory when None). `sees_canvas` False
    shows the canvas image only in the first observation (None: as the toolset named `mode` declares, else
    True). The text loop's answers are capped at the benchmark's declared `max_new_tokens`. An unknown arm, or a
    tool the toolbox lacks, raises ValueError; failures of the item never raise: they come back as status
    "error" (or "budget") with a message.
    """


    offered = _arm_tools(mode) if tools is None else tuple(tools)
    declared_arm = TOOLSETS.find(mode)
    if sees_canvas is None:
        sees_canvas = declared_arm.sees_canvas if declared_arm is not None else True
    view = prompt_view(item, Path(view_root))
    declared_benchmark = BENCHMARKS.find(view.benchmark)
    budget = budget or Budget()
    backend = load_model(model) if isinstance(model, str) else model
    box = toolbox or RegistryToolbox()
    session = Session(
        view=view,
        mode=mode,
        backend=backend,
        budget=budget,
        blobs=blobs if blobs is not None else MemoryBlobs(),
        toolbox=box,
        tools=toolset(box, offered) if offered else None,
        redact=_redactor_of(backend),
        sees_canvas=sees_canvas,
        system_prompt=declared_arm.system_prompt if declared_arm is not None else None,
        max_new_tokens=declared_benchmark.max_new_tokens if declared_benchmark is not None else None,
    )
    started = time.perf_counter()
    status: Status
    error: str | None = None
    timed_out = False
    try:
        async with asyncio.timeout(budget.item_timeout_s):
            if session.tools is None:  # one model turn: prepare and model, no branch
                final = await run_text_loop(session)
            else:
                final = await run_loop(session, budget.recursion_limit())
        ended, error = final["status"], final["error"]
        if ended in ("ok", "error", "budget"):
            status = cast(Status, ended)
        else:  # still "running": the graph stopped without an answer
            status, error = "error", "the loop ended without an answer"
    except TimeoutError:
        # an error, not a budget stop: a provider that hung is no property of the item, so a resume retries it
        timed_out = True
        status, error = "error", f"item time-out: the wall-clock budget of {budget.item_timeout_s} s was spent"
    except StepLimitError:
        status, error = "budget", f"graph step limit reached ({budget.recursion_limit()})"
    except Exception as exc:
        status, error = "error", session.redact(f"{type(exc).__name__}: {exc}")
    try:  # an item whose answer is an image: the final canvas is the output
        keeps_image = session.canvas is not None and session.view.answer_type == "image"
        output = await asyncio.to_thread(session.finish, settled=not timed_out) if keeps_image else None
    except Exception as exc:
        output = None
        if status == "ok":
            status, error = "error", session.redact(f"the final canvas could not be kept: {type(exc).__name__}: {exc}")
    if session.holds_code_session:  # its kernel is shut down off the loop; nothing else needs a thread's trip
        await asyncio.to_thread(session.close)
    usage = {
        "input_tokens": session.input_tokens,
        "output_tokens": session.output_tokens,
        "cost_usd": _paid_cost(backend, session),
        "cached_calls": session.cached_calls,
    }
    prediction = Prediction(
        status=status,
        text=session.answer,
        steps=session.turns,
        usage=usage,
        latency_s=round(time.perf_counter() - started, 4),
        error=error,
        images=[output] if output else [],
        image_meta=[{"source": "canvas", **_size(session.canvas)}] if output else [],
        empty=status == "ok" and session.empty_answer,
        cut_chars=session.cut_chars,
    )
    # a copy: after a timeout a tool thread may still be finishing and must not change what is returned
    return prediction, Trace(list(session.recorder.trace.steps))


def _redactor_of(backend: ModelBackend) -> Callable[[str], str]:
    """Return the backend's own redaction (its key and URL credentials) when it has one, else one for its key."""
    own = getattr(backend, "redact", None)
    if callable(own):
        return own
    return redactor(getattr(backend, "_key", None))


def _paid_cost(backend: ModelBackend, session: Session) -> float | None:
    """Return the USD cost of the tokens paid for (cached turns cost 0); None when the model's price is unknown."""
    paid_in, paid_out = session.paid_input_tokens, session.paid_output_tokens
    if paid_in == paid_out == 0 and session.cached_calls:
        return 0.0
    return cost_usd(backend.provider, backend.model, paid_in, paid_out)


def _size(canvas: Any) -> dict[str, int]:
    """Return a canvas's {"width", "height"} in pixels."""
    return {"width": canvas.width, "height": canvas.height}


def _arm_tools(arm: str) -> tuple[str, ...]:
    """Return the tools of a named arm ("text", "canvas", "tools"); raise ValueError for another name."""

    try:
        return named_toolset(arm)
    except ToolError as exc:
        raise ValueError(f"{exc}; pass tools=(...) to solve in an arm of your own") from None


@runtime_checkable
class Solver(Protocol):
    """What a runner drives: one arm of an experiment, described for the manifest, solving one item at a time."""

    arm: str

    def describe(self) -> dict[str, Any]:
        """Return a JSON-ready description for the run manifest (never a key)."""
        ...

    async def solve(self, item: Item, view_root: Path, blobs: Blobs) -> tuple[Prediction, Trace]:
        """Return the prediction and trace of one item; failures come back as a status, never raised."""
        ...


@dataclass
class ChatSolver:
    """A chat model in one arm: `tools` empty → the text loop, else the canvas loop offering exactly them."""

    backend: ModelBackend
    arm: str
    tools: tuple[str, ...]
    budget: Budget = field(default_factory=Budget)
    toolbox: Toolbox = field(default_factory=RegistryToolbox)
    sees_canvas: bool = True

    def describe(self) -> dict[str, Any]:
        """Return the solver for the manifest: kind, model spec, provider, arm, tools, sampling, limits."""
        return {
            "kind": "chat",
            "model": self.backend.spec,
            "provider": self.backend.provider,
            "arm": self.arm,
            "tools": list(self.tools),
            "sampling": sampling_support(self.backend),
            "temperature": self.budget.temperature,
            "seed": self.budget.seed,
            "max_steps": self.budget.max_steps,
        }

    async def solve(self, item: Item, view_root: Path, blobs: Blobs) -> tuple[Prediction, Trace]:
        """Return the prediction and trace of `item` in this solver's arm."""
        return await solve(
            item,
            view_root,
            self.backend,
            self.arm,
            self.budget,
            blobs,
            toolbox=self.toolbox,
            tools=self.tools,
            sees_canvas=self.sees_canvas,
        )
