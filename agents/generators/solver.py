"""`ImageSolver`: an image generator in one arm, as a `Solver` whose prediction is an image.

An item with an input image is an edit (the question is the instruction, the first image the input); any other
item is a generation from `meta.prompt` (else the question). The images go to the run's blob store; the
prediction's text is the first image's run-relative path, and the trace is one "model" step.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcot.agents.backends.base import redactor
from mcot.agents.generators.base import GeneratorError, ImageGenerator, ImageRequest, ImageResponse, size_text
from mcot.agents.solver import Prediction
from mcot.agents.trace import Recorder

from mcot.core.inputs import read_image_file
from mcot.core.item import contained_path  # an input image may not leave the items directory
from mcot.core.rundir.blobs import Blobs, blob_path
from mcot.core.rundir.traces import Trace

if TYPE_CHECKING:
    from mcot.core.item import Item


@dataclass(frozen=True)
class ImageOptions:
    """The settings every request of a run carries: a base seed (plus the item's `meta.sample`), steps, guidance, size."""

    seed: int | None = None
    steps: int | None = None
    guidance: float | None = None
    size: tuple[int, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the options as JSON-ready values (size as `WxH`, None when unset)."""
        return {
            "seed": self.seed,
            "steps": self.steps,
            "guidance": self.guidance,
            "size": size_text(self.size) if self.size is not None else None,
        }


@dataclass
class ImageSolver:
    """An image generator in one arm: generation for items without an image, edits for items with one."""

    generator: ImageGenerator
    arm: str
    options: ImageOptions = field(default_factory=ImageOptions)

    def describe(self) -> dict[str, Any]:
        """Return the solver for the manifest: kind, generator spec, provider, model, arm, capabilities, options."""
        return {
            "kind": "image",
            "generator": self.generator.spec,
            "provider": self.generator.provider,
            "model": self.generator.model,
            "arm": self.arm,
            "capabilities": dict(self.generator.capabilities()),
            **self.options.to_dict(),
        }

    def request(self, item: Item, view_root: Path) -> tuple[str, ImageRequest]:
        """Return ("generate" or "edit", the request) for an item; raise OSError when its input image is missing
        and ItemError when its path leaves the items directory."""
        sample = int(item.meta.get("sample", 0) or 0)
        # sample k of a prompt takes seed + k; without a seed, samples after the first still differ (seed k)
        seed = self.options.seed + sample if self.options.seed is not None else (sample or None)
        common: dict[str, Any] = {
            "seed": seed,
            "size": self.options.size,
            "steps": self.options.steps,
            "guidance": self.options.guidance,
            "category": item.category,
            "scene": item.meta.get("scene"),
        }
        if item.images:

            image = read_image_file(contained_path(Path(view_root), item.images[0], f"item {item.id!r}"))
            return "edit", ImageRequest(prompt=item.question, image=image, **common)
        return "generate", ImageRequest(prompt=item.meta.get("prompt") or item.question, **common)

    async def solve(self, item: Item, view_root: Path, blobs: Blobs) -> tuple[Prediction, Trace]:
        """Return the prediction (the image paths and their meta) and the one-step trace of an item.

        Failures (a missing input image, an edit the generator cannot do, a call that failed for good) come
        back as status "error" with the reason, never raised.
        """
        recorder = Recorder()
        redact = redactor(getattr(self.generator, "_key", None))
        started = time.perf_counter()
        operation, prompt, arguments, called = "generate", item.meta.get("prompt") or item.question, {}, False
        try:
            operation, request = self.request(item, Path(view_root))
            prompt = request.prompt
            arguments = _arguments(operation, request, item)
            call = self.generator.edit if operation == "edit" else self.generator.generate
            called = True
            response = await call(request)
            if not response.images:
                raise GeneratorError(f"{self.generator.spec} returned no image")
        except Exception as exc:
            error = redact(f"{type(exc).__name__}: {exc}")
            retries = list(getattr(exc, "retries", None) or [])
            latency = round(time.perf_counter() - started, 4)
            recorder.add("model", text=prompt, arguments=arguments, error=error, retries=retries, latency_s=latency)
            usage = {"input_tokens": 0, "output_tokens": 0, "cost_usd": None}
            prediction = Prediction("error", "", int(called), usage, latency, error)
            return prediction, Trace(list(recorder.trace.steps))
        latency = round(time.perf_counter() - started, 4)
        return self._done(response, prompt, arguments, request, blobs, recorder, latency)

    def _done(
        self,
        response: ImageResponse,
        prompt: str,
        arguments: dict[str, Any],
        request: ImageRequest,
        blobs: Blobs,
        recorder: Recorder,
        latency: float,
    ) -> tuple[Prediction, Trace]:
        paths = [blob_path(blobs.put(image.data, ".png")) for image in response.images]
        meta = [dict(image.meta) for image in response.images]
        seed_sent = request.seed is not None and self.generator.capabilities().get("seed", "").startswith("sent")
        recorder.add(
            "model",
            text=prompt,
            arguments=arguments,
            image=paths[0],
            usage={"input_tokens": 0, "output_tokens": 0, "images": len(paths)},
            latency_s=latency,
            retries=list(response.retries),
            sampling={"seed": request.seed} if seed_sent else {},
        )
        usage = {
            "input_tokens": 0,
            "output_tokens": 0,
            "cost_usd": response.usage.get("cost_usd"),
            "images": len(paths),
        }
        prediction = Prediction(
            status="ok",
            text=paths[0],
            steps=1,
            usage=usage,
            latency_s=latency,
            images=paths,
            image_meta=meta,
        )
        return prediction, Trace(list(recorder.trace.steps))


def _arguments(operation: str, request: ImageRequest, item: Item) -> dict[str, Any]:
    """Return what the trace step records of a request (None values left out; an edit's input image path)."""
    values: dict[str, Any] = {
        "operation": operation,
        "n": request.n,
        "seed": request.seed,
        "steps": request.steps,
        "guidance": request.guidance,
        "size": size_text(request.size) if request.size is not None else None,
        "input_image": item.images[0] if operation == "edit" else None,
    }
    return {key: value for key, value in values.items() if value is not None}
