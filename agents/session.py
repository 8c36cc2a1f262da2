"""The per-item working state of a solve: conversation, canvas, recorder. Graph nodes call into it.

Nothing here enters LangGraph's state: the graph carries counters, the pending tool calls and the last
answer; images live as bytes in the conversation (encoded once) and in the BlobStore, by hash.
"""

from __future__ import annotations

import asyncio
import copy
import io
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcot.agents.backends.base import ModelBackend, ModelRequest, SchemaFlavor, ToolSet
from mcot.agents.budget import Budget
from mcot.agents.cache import digest_request
from mcot.agents.errors import AgentError, ModelError
from mcot.agents.image_cache import ImagePartCache
from mcot.agents.messages import (
    ImagePart,
    Message,
    TextPart,
    ToolCall,
    ToolResultPart,
    limit_canvas_images,
    system,
    user,
)
from mcot.agents.prompts import GENERATED_SYSTEM_PROMPT, load_prompt, load_template, render_task, tool_summaries
from mcot.agents.toolbox import Toolbox, ToolOutcome, outcome
from mcot.agents.trace import Recorder
from mcot.canvas import MAX_PIXELS, Canvas, CanvasError
from mcot.tools.canvas_ops import canvas_tools
from mcot.tools.code.binding import release, reserve

from mcot.core.declare import DEFAULT_SYSTEM_PROMPT
from mcot.core.inputs import check_regular, read_image_file
from mcot.core.rundir.blobs import Blobs, blob_path
from mcot.core.rundir.traces import DrawnBy

BLANK_CANVAS = (1024, 768)
_MEDIA_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}


_ITEM_IMAGES = ImagePartCache()


def image_part(path: Path, *, canvas: bool = False) -> ImagePart:
    """Return an image file as an ImagePart: PNG, JPEG, GIF and WEBP as they are, other formats as PNG; a file
    this process has read and checked before, unchanged since, is not read again."""
    return _ITEM_IMAGES.get(Path(path), canvas, _read_image_part)


def kept_image_parts(paths: Iterable[Path]) -> list[ImagePart] | None:
    """Return the parts `image_part` would return for `paths` when this process has read each of them before and
    none changed since (an `os.stat` each, nothing read); None when any of them must be read."""
    parts = []
    for path in paths:
        part = _ITEM_IMAGES.kept(Path(path), False)
        if part is None:
            return None
        parts.append(part)
    return parts


def _read_image_part(path: Path, canvas: bool) -> ImagePart:
    from PIL import Image

    data = read_image_file(path)  # a regular file, opened without blocking: a named pipe would hang the thread
    with Image.open(io.BytesIO(data)) as image:
        if image.width * image.height > MAX_PIXELS:  # checked before decoding: a decompression bomb stops here
            raise CanvasError(
                f"image {Path(path).name!r} is {image.width}x{image.height} pixels; at most {MAX_PIXELS:,} are allowed"
            )
        # a truncated or corrupt file fails here, not at the provider; a PNG's chunks and checksums are checked
        # without decoding it (verify: microseconds, where decoding a 640 x 480 diagram takes 2-3 ms)
        if image.format == "PNG":
            image.verify()
        else:
            if image.format == "JPEG":  # every byte is still read and entropy-decoded, at an eighth of the size
                image.draft(image.mode, (max(1, image.width // 8), max(1, image.height // 8)))
            image.load()
        media = _MEDIA_TYPES.get(image.format or "")
        if media is None:
            buffer = io.BytesIO()
            image.convert("RGBA" if "A" in image.getbands() else "RGB").save(buffer, format="PNG")
            data, media = buffer.getvalue(), "image/png"
    return ImagePart(data, media, canvas)


def arm_system_prompt(
    template: str | None,
    names: tuple[str, ...],
    schemas: list[dict[str, Any]],
    *,
    width: int,
    height: int,
    max_steps: int,
    sees_canvas: bool = True,
) -> str:
    """Return the system prompt of an arm with tools: its toolset's `template` filled (plus the domain-tools and
    canvas-blind notes where they apply), or, with no template, `system.generated.txt` listing the arm's own tools
    (`schemas`, Chat Completions entries), so that no arm is told of a tool it does not offer."""
    sizes = {"width": width, "height": height, "max_steps": max_steps}
    if template is None:
        listing = "\n".join(f"- {name}: {summary}" for name, summary in tool_summaries(schemas))
        return load_prompt(GENERATED_SYSTEM_PROMPT).render(tool_listing=listing, **sizes)
    prompt = load_template(template).render(**sizes)
    if any(drawn_by(name) == "tool" and name != "python" for name in names):
        # only an arm that offers domain tools is told about them: the canvas and code arms' prompts name none
        prompt += "\n\n" + load_prompt("system.domain-tools.txt").render()
    if not sees_canvas:
        prompt += "\n\n" + load_prompt("system.canvas-blind.txt").render()
    return prompt


@dataclass
class Session:
    """Everything one solve works on; `answer` mirrors the last non-empty model text.

    `mode` is the arm's name (a label for hints and prompts); `tools` the tools the arm offers. None means
    the text loop: one answer in words, no canvas, no tools. `sees_canvas` False (the `canvas-blind` arm): the
    canvas image is shown in the first observation only; later observations say in words what changed, and
    tool results carry no image (the trace still keeps every image). `system_prompt` is the template of the
    system prompt of the loop with tools (the arm's toolset names it: `look` has its own). `max_new_tokens` caps
    each answer of the text loop (a benchmark's official generation limit); the loops with tools are not capped.
    """

    view: Any
    mode: str
    backend: ModelBackend
    budget: Budget
    blobs: Blobs
    toolbox: Toolbox
    tools: ToolSet | None = None
    canvas: Any = None
    messages: list[Message] = field(default_factory=list)
    recorder: Recorder = field(default_factory=Recorder)
    input_tokens: int = 0
    output_tokens: int = 0
    paid_input_tokens: int = 0
    paid_output_tokens: int = 0
    cached_calls: int = 0
    """Model turns served by the response cache: their tokens count in input/output_tokens, not in paid_*."""
    turns: int = 0
    answer: str = ""
    observed_version: int = 0
    canvas_sha: str | None = None
    output_image: str | None = None
    """For an item whose answer is an image: the run-relative blob path of the final canvas (set by `finish`)."""
    redact: Callable[[str], str] = lambda s: s
    empty_answer: bool = False
    """The model's last turn was a well-formed empty answer (no text, no tool calls, a stop reason)."""
    cut_chars: int = 0
    """Characters of model text left out because a turn passed `Budget.max_answer_chars`."""
    sees_canvas: bool = True
    system_prompt: str | None = DEFAULT_SYSTEM_PROMPT
    """The template of the arm's system prompt; None: one generated from the tools it offers (`system.generated.txt`)."""
    max_new_tokens: int | None = None
    sent: dict[str, Any] | None = None
    """What the model was given before its first turn (system prompt, task text, tool schemas): recorded once, on
    the first model step of the trace (`sent`), so that exports and the viewer show it as it was sent."""
    _next_view: tuple[list[str], tuple[str, ImagePart | None] | None] | None = field(default=None, repr=False)
    """The observation `run_tools` rendered for the `observe` step that follows (with the changed ids it is for)."""

    @property
    def hints(self) -> dict[str, Any]:
        """Return prompt-view facts for non-LLM policies and replay (never the answer or meta)."""
        v = self.view
        return {
            "id": v.id,
            "benchmark": v.benchmark,
            "category": v.category,
            "question": v.question,
            "choices": list(v.choices) if v.choices else None,
            "answer_type": v.answer_type,
            "mode": self.mode,
        }

    # --- prepare -------------------------------------------------------------------------------------
    async def prepare(self) -> None:
        """Build the opening messages; with tools on offer open the canvas and record its first observation."""
        v = self.view
        task = render_task(v.benchmark, v.question, v.choices, v.answer_type, has_image=bool(v.images))
        if self.tools is None:
            images = kept_image_parts(v.images)  # a figure asked about before costs no trip to a thread
            if images is None:
                images = await asyncio.to_thread(lambda: [image_part(p) for p in v.images])
            self.messages = [user(*images, task)]
            self.sent = {"system": None, "task": task, "tools": []}
            return
        first, rest = (v.images[0], v.images[1:]) if v.images else (None, ())
        runs_code = "python" in self.tools.names

        def opening() -> tuple[list[ImagePart], str, ImagePart]:
            # one trip to a worker thread (each trip waits for a free thread and for the loop): open the canvas,
            # read the other images, render the first observation
            self.canvas = self._open_canvas(first)
            if runs_code:  # the pair's own code session, taken from the pool at its first cell

                reserve(self.canvas, list(v.images), isolated=not self.budget.unsafe_local_code)
            extra = [image_part(p) for p in rest]
            return (extra, *self._observe("observation.initial.txt", []))

        extra, note, image = await asyncio.to_thread(opening)
        prompt = self._system_text()
        self.messages = [system(prompt), user(note, image, *extra, task)]
        flavor: SchemaFlavor = getattr(self.backend, "schema_flavor", "compatible")
        self.sent = {"system": prompt, "task": task, "tools": self.tools.schemas(flavor), "schema_flavor": flavor}

    def _system_text(self) -> str:
        """Return the system prompt of an arm with tools: its toolset's template, else one made from its tools."""
        assert self.tools is not None
        return arm_system_prompt(
            self.system_prompt,
            self.tools.names,
            self.tools.schemas("openai"),
            width=self.canvas.width,
            height=self.canvas.height,
            max_steps=self.budget.max_steps,
            sees_canvas=self.sees_canvas,
        )

    def _sent_once(self) -> dict[str, Any]:
        """Return `{"sent": ...}` for the first model step of the trace, `{}` after it."""
        sent, self.sent = self.sent, None
        return {"sent": sent} if sent is not None else {}

    def _open_canvas(self, path: Path | None) -> Any:
        if path is None:
            return Canvas(size=BLANK_CANVAS)
        check_regular(path, what="image")  # the canvas opens the path itself: a named pipe would hang it
        return Canvas.from_path(path)

    def _observe(self, template: str, changed: list[str]) -> tuple[str, ImagePart]:
        c = self.canvas
        elements = _in_words(c, changed) if not self.sees_canvas else ""
        snap = c.snapshot()
        seen = c.observe(max_side=self.budget.observe_max_side, format=self.budget.observe_format)
        suffix = ".png" if seen.media_type == "image/png" else ".jpg"
        self.blobs.put(snap.png, ".png")
        self.blobs.put(seen.data, suffix)
        scaled = f", shown at {seen.width} × {seen.height}" if (seen.width, seen.height) != (c.width, c.height) else ""
        note = load_prompt(template).render(
            width=c.width, height=c.height, scaled=scaled, changed=", ".join(changed) or "none", elements=elements
        )
        self.recorder.add(
            "observation",
            text=note,
            image=blob_path(snap.sha256),
            seen=blob_path(seen.sha256, suffix),
            svg=c.svg(),
            changed=list(changed),
        )
        self.observed_version = len(c.log)
        self.canvas_sha = snap.sha256
        return note, _hashed(ImagePart(seen.data, seen.media_type, canvas=True), seen.sha256)

    # --- model -----------------------------------------------------------------------------------------
    async def call_model(self) -> tuple[str, str | None, tuple[ToolCall, ...]]:
        """Run one model turn; return (status, error, tool calls to run). Status "running" means: run tools."""
        b = self.budget
        max_tokens = b.max_tokens_per_call
        if self.tools is None and self.max_new_tokens is not None:
            max_tokens = min(max_tokens, self.max_new_tokens)
        if b.max_output_tokens is not None:
            max_tokens = max(1, min(max_tokens, b.max_output_tokens - self.output_tokens))
        request = ModelRequest(
            messages=limit_canvas_images(self.messages, b.max_canvas_images),
            tools=self.tools,
            max_tokens=max_tokens,
            temperature=b.temperature,
            seed=b.seed,
            hints=self.hints,
        )
        digest = digest_request(getattr(self.backend, "key_spec", None) or self.backend.spec, request)
        keyed = {"request_key": digest.key, "request_parts": digest.parts, **self._sent_once()}
        started = time.perf_counter()
        try:
            response = await self.backend.generate(request)
        except ModelError as exc:
            message = self.redact(str(exc))
            self.recorder.add(
                "model", error=message, retries=exc.retries, latency_s=_secs(started), sampling=exc.sampling, **keyed
            )
            return "error", message, ()
        except AgentError as exc:
            message = self.redact(str(exc))
            self.recorder.add("model", error=message, latency_s=_secs(started), **keyed)
            return "error", message, ()
        self.turns += 1
        text = self._kept(response.text)
        usage = response.usage
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        if response.cached:
            self.cached_calls += 1
        else:
            self.paid_input_tokens += usage.input_tokens
            self.paid_output_tokens += usage.output_tokens
        calls = response.tool_calls if self.tools is not None else ()
        self.recorder.add(
            "model",
            text=text,
            tool_calls=[self._traced_call(c) for c in calls],
            usage={"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
            latency_s=_secs(started),
            retries=list(response.retries),
            sampling=dict(response.sampling),
            cached=response.cached,
            tool_calls_in_text=response.tool_calls_in_text,
            **keyed,
        )
        parts: list[Any] = [TextPart(text)] if text else []
        self.messages.append(Message("assistant", parts, calls, response.tool_calls_in_text))
        if text.strip():
            self.answer = text
        if not calls:
            self.empty_answer = not text.strip()
            return "ok", None, ()
        if self.turns >= b.max_steps:
            return "budget", f"step budget spent: {b.max_steps} model turns, tool calls still pending", ()
        if b.max_output_tokens is not None and self.output_tokens >= b.max_output_tokens:
            return "budget", f"output-token budget spent: {self.output_tokens} of {b.max_output_tokens}", ()
        return "running", None, calls

    def _kept(self, text: str) -> str:
        """Return a turn's text within `Budget.max_answer_chars`: its beginning and its end, the middle noted."""
        limit = self.budget.max_answer_chars
        if len(text) <= limit:
            return text
        cut = len(text) - limit
        self.cut_chars += cut
        head = limit // 2
        return f"{text[:head]}\n[… {cut:,} characters left out: the answer is longer than mcot keeps …]\n{text[-(limit - head) :]}"

    def _traced_arguments(self, call: ToolCall) -> tuple[Any, int]:
        """Return a call's arguments as a trace keeps them, and how many characters were left out: capped like
        answer text (`Budget.max_answer_chars`: the beginning and the end kept, the middle noted)."""
        raw = call.arguments if isinstance(call.arguments, str) else ""
        limit = self.budget.max_answer_chars
        if len(raw) <= limit:
            return call.arguments_for_trace(), 0
        cut = len(raw) - limit
        head = limit // 2
        note = f"\n[… {cut:,} characters of the arguments left out: longer than mcot keeps …]\n"
        return f"{raw[:head]}{note}{raw[-(limit - head) :]}", cut

    def _traced_call(self, call: ToolCall) -> dict[str, Any]:
        """Return a tool call as the model step of a trace records it (arguments capped, `cut_chars` when cut)."""
        arguments, cut = self._traced_arguments(call)
        entry: dict[str, Any] = {"id": call.id, "name": call.name, "arguments": arguments}
        if cut:
            entry["cut_chars"] = cut
        return entry

    # --- tools -----------------------------------------------------------------------------------------
    async def run_tools(self, calls: tuple[ToolCall, ...]) -> list[str]:
        """Run a turn's tool calls in order (off the event loop); thread results back; return changed ids.

        The observation that follows (`observe`) is rendered in the same trip to a worker thread: each trip waits
        for a free thread and then for the event loop, and at dozens of items in flight those waits add up.
        """
        results, changed = await asyncio.to_thread(self._tools_then_view, calls)
        self.messages.append(Message("user", list(results)))
        return changed

    def _tools_then_view(self, calls: tuple[ToolCall, ...]) -> tuple[list[ToolResultPart], list[str]]:
        results, changed = self._run_tools(calls)
        self._next_view = (list(changed), self._view(changed))
        return results, changed

    def _run_tools(self, calls: tuple[ToolCall, ...]) -> tuple[list[ToolResultPart], list[str]]:
        results: list[ToolResultPart] = []
        changed: list[str] = []
        offered = self.tools.names if self.tools is not None else ()
        for call in calls:
            before = len(self.canvas.log)
            result = self._one_tool(call, offered)
            ops = copy.deepcopy(self.canvas.log[before:])
            image_path = None
            images: tuple[ImagePart, ...] = ()
            shown = result.text
            paths: list[str] = []
            for data in (result.image, *result.more_images) if result.image else ():
                sha = self.blobs.put(data, ".png")
                paths.append(blob_path(sha))
                if self.sees_canvas:  # a blind arm keeps the image in the trace, never in the conversation
                    images = (*images, _hashed(ImagePart(data, "image/png", canvas=True), sha))
            if paths:
                image_path = paths[0]
                if not self.sees_canvas:
                    shown = f"{result.text} (not shown: this arm shows no image after the first observation)"
            self.recorder.add(
                "tool",
                tool=call.name,
                arguments=self._traced_arguments(call)[0],
                result=result.text,
                error=result.error,
                image=image_path,
                images=paths if len(paths) > 1 else None,
                changed=list(result.drawn),
                drawn_by=drawn_by(call.name),
                ops=ops,
                data=result.data,
            )
            changed.extend(i for i in result.drawn if i not in changed)
            results.append(ToolResultPart(call.id, call.name, shown, not result.ok, images, result.data))
        return results, changed

    def _one_tool(self, call: ToolCall, offered: tuple[str, ...]) -> ToolOutcome:
        if call.name not in offered:
            why = f"is not offered in this arm ({self.mode})" if call.name in self.toolbox.names() else "is unknown"
            message = f"tool {call.name!r} {why}; the available tools are: {', '.join(offered)}"
            return ToolOutcome(ok=False, text=message, error=message)
        arguments = call.parsed_arguments()
        if arguments is None:
            message = (
                f"the arguments of {call.name} cannot be used: {call.argument_problem()}; "
                "send one JSON object that matches the tool's schema"
            )
            return ToolOutcome(ok=False, text=message, error=message)
        try:
            return outcome(self.toolbox.call(call.name, arguments, self.canvas))
        except Exception as exc:  # a tool bug must never end the item
            message = f"tool {call.name} failed: {type(exc).__name__}: {exc}"
            return ToolOutcome(ok=False, text=message, error=message)

    # --- finish ----------------------------------------------------------------------------------------
    def finish(self, *, settled: bool = True) -> str | None:
        """Keep the final canvas as the output of an item whose answer is an image; return its blob path or None.

        `settled` False (the wall-clock budget ran out, a tool thread may still be drawing): the last observed
        canvas is kept instead of a fresh snapshot. Items of other answer types, and solves without a canvas,
        keep nothing.
        """
        if self.view.answer_type != "image" or self.canvas is None:
            return None
        if settled:
            snap = self.canvas.snapshot()
            self.blobs.put(snap.png, ".png")
            self.output_image = blob_path(snap.sha256)
        elif self.canvas_sha is not None:
            self.output_image = blob_path(self.canvas_sha)
        return self.output_image

    @property
    def holds_code_session(self) -> bool:
        """Return whether the solve may hold a code session (an arm offering `python`, its canvas open)."""
        return self.canvas is not None and self.tools is not None and "python" in self.tools.names

    def close(self) -> None:
        """End what the solve held open beyond its own objects (the pair's code session); returns nothing."""
        if self.holds_code_session:
            release(self.canvas)

    # --- observe ---------------------------------------------------------------------------------------
    async def observe(self, changed: list[str]) -> None:
        """Show the model the canvas after a tool round: a new observation when it changed, else a note."""
        ready, self._next_view = self._next_view, None
        view = ready[1] if ready is not None and ready[0] == changed else await asyncio.to_thread(self._view, changed)
        last = self.messages[-1]
        if view is None:
            last.parts.append(TextPart("The canvas is unchanged."))
            return
        note, image = view
        last.parts.extend([TextPart(note)] if image is None else [TextPart(note), image])

    def _view(self, changed: list[str]) -> tuple[str, ImagePart | None] | None:
        """Return the observation of the canvas after a tool round (recorded in the trace): its note and the image
        shown (None for an arm that does not see the canvas); None when the round left the canvas unchanged."""
        if len(self.canvas.log) == self.observed_version:
            return None
        if not self.sees_canvas:
            note, _ = self._observe("observation.blind.txt", changed)
            return note, None
        return self._observe("observation.txt", changed)


def drawn_by(tool: str) -> DrawnBy:
    """Return who drew a tool step's geometry: "model" for a canvas operation, "tool" for any other tool."""

    return "model" if tool in canvas_tools() else "tool"


def _in_words(canvas: Any, changed: list[str]) -> str:
    """Return one line per changed element: its id, kind and properties, or that it was removed."""
    lines = []
    for element_id in changed:
        element = canvas.elements.get(element_id)
        if element is None:
            lines.append(f"- {element_id}: removed")
            continue
        props = ", ".join(
            f"{name} {json.dumps(value, ensure_ascii=False)}"
            for name, value in element.props.items()
            if value is not None
        )
        lines.append(f"- {element_id}: {element.kind}; {props}")
    return "\n".join(lines) or "- no element was added, changed or removed (only the view, e.g. the grid)"


def _hashed(image: ImagePart, sha256: str) -> ImagePart:
    """Return the image with its sha256 (`ImagePart.sha256`, a cached property) already known: not hashed twice."""
    image.__dict__["sha256"] = sha256
    return image


def _secs(started: float) -> float:
    return round(time.perf_counter() - started, 4)
