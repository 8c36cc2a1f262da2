"""`diffusers:PATH`: any local diffusers pipeline folder, on cuda, mps or the CPU (the `gen` extra).

The folder's `model_index.json` says what it holds. A text-to-image pipeline generates
(`AutoPipelineForText2Image`) and also edits: image-to-image, or inpainting when a mask is given, from the same
weights (`AutoPipelineFor…from_pipe`, nothing loaded twice). An image-to-image or inpainting folder edits only.
Files are read from the folder alone, never fetched from a hub. The pipeline is loaded on first use; each call
runs in a worker thread, one at a time per generator. Image i of a call is seeded with `seed + i` through its
own `torch.Generator`, so an image depends on its seed and the settings, not on the batch it came in.
"""

from __future__ import annotations

import asyncio
import inspect
import io
import json
import secrets
import threading
import time
import weakref
from pathlib import Path
from typing import Any

from mcot.agents.errors import ModelSpecError
from mcot.agents.generators.base import GeneratedImage, GeneratorError, ImageRequest, ImageResponse
from mcot.agents.pricing import image_cost_usd

EXTRA_ADVICE = 'pip install "mcot[gen]" (without a GPU, first pip install torch==2.13.0: the CPU build)'
"""What to install for this generator, as said in the one-line error when the extra is missing."""

_EDIT_MARKERS = ("Img2Img", "ImageToImage", "Image2Image", "InstructPix2Pix", "Edit", "Kontext")


def pipeline_kind(class_name: str) -> str:
    """Return `inpaint`, `img2img` or `text2img` for a pipeline class name from `model_index.json`."""
    if "Inpaint" in class_name:
        return "inpaint"
    if any(marker in class_name for marker in _EDIT_MARKERS):
        return "img2img"
    return "text2img"


def pick_device(torch: Any) -> str:
    """Return the best device torch offers here: `cuda`, then `mps`, else `cpu`."""
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def pick_dtype(torch: Any, device: str) -> Any:
    """Return the weights' dtype for a device: bfloat16 on cuda (float16 where unsupported), float16 on mps."""
    if device.startswith("cuda"):
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    if device == "mps":
        return torch.float16
    return torch.float32


def import_extra(spec: str) -> Any:
    """Return the torch module after importing the gen extra; raise ModelSpecError (one line) when it is missing."""
    try:
        import diffusers  # noqa: F401  (the extra is whole only with both)
        import torch
        import transformers  # noqa: F401
    except ImportError as exc:
        missing = (exc.name or "diffusers").split(".")[0]
        raise ModelSpecError(f"{spec} needs the gen extra ({missing} is not installed): {EXTRA_ADVICE}") from None
    return torch


class DiffusersGenerator:
    """A local diffusers pipeline folder as an ImageGenerator; `device`/`dtype` default to the best available."""

    provider = "diffusers"

    def __init__(self, path: str, *, device: str | None = None, dtype: Any = None) -> None:
        self.model = path
        self.spec = f"diffusers:{path}"
        folder = Path(path).expanduser()
        if not folder.is_dir():
            raise ModelSpecError(
                f"{self.spec}: no local folder {path!r}; mcot loads pipelines from disk only, never from a hub: "
                "download the pipeline first and pass diffusers:FOLDER"
            )
        index = folder / "model_index.json"
        try:
            self.pipeline_class = str(json.loads(index.read_text(encoding="utf-8"))["_class_name"])
        except (OSError, ValueError, KeyError, TypeError):
            raise ModelSpecError(
                f"{self.spec}: {path!r} is not a diffusers pipeline folder (no readable model_index.json "
                "naming its _class_name); save one with pipeline.save_pretrained(FOLDER)"
            ) from None
        self.folder = folder.resolve()
        self.kind = pipeline_kind(self.pipeline_class)
        self._torch = import_extra(self.spec)
        self.device = device or pick_device(self._torch)
        self.dtype = dtype if dtype is not None else pick_dtype(self._torch, self.device)
        self._pipes: dict[str, Any] = {}
        self._failed: dict[str, str] = {}
        self._thread_lock = threading.Lock()
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()

    def capabilities(self) -> dict[str, str]:
        """Return what this folder's pipeline does with each part of a request."""
        what = f"{self.pipeline_class} on {self.device} ({str(self.dtype).removeprefix('torch.')})"
        if self.kind == "text2img":
            generate, edit = "yes", "yes: image-to-image from the same weights; inpainting when a mask is given"
        else:
            generate = (
                f"no: the folder holds an {'inpainting' if self.kind == 'inpaint' else 'image-to-image'} pipeline"
            )
            edit = "yes: inpainting (needs a mask)" if self.kind == "inpaint" else "yes: image-to-image"
        return {
            "generate": generate,
            "edit": edit,
            "seed": "sent: image i of a call gets seed + i (a random seed, recorded, when none is given)",
            "steps": "sent",
            "guidance": "sent",
            "size": "sent (multiples of 8); an edit resizes its input image",
            "pipeline": what,
        }

    def load(self) -> None:
        """Load the folder's pipeline now (otherwise it is loaded on first use); raise GeneratorError on failure."""
        with self._thread_lock:
            self._pipe(self.kind)

    async def generate(self, request: ImageRequest) -> ImageResponse:
        """Return `request.n` images of the prompt, made in one pipeline call."""
        if self.kind != "text2img":
            raise GeneratorError(
                f"{self.spec} holds a {self.pipeline_class}: it edits an input image and cannot generate "
                "from a prompt alone; use a text-to-image pipeline folder"
            )
        return await self._call("text2img", request)

    async def edit(self, request: ImageRequest) -> ImageResponse:
        """Return `request.n` edits of `request.image`: image-to-image, or inpainting when a mask is given."""
        if request.image is None:
            raise GeneratorError(f"{self.spec}: an edit needs an input image")
        if request.mask is not None:
            role = "inpaint"
        elif self.kind == "inpaint":
            raise GeneratorError(f"{self.spec} holds an inpainting pipeline: an edit needs a mask")
        else:
            role = "img2img"
        return await self._call(role, request)

    async def _call(self, role: str, request: ImageRequest) -> ImageResponse:
        loop = asyncio.get_running_loop()
        lock = self._locks.get(loop)
        if lock is None:
            lock = self._locks[loop] = asyncio.Lock()
        async with lock:
            return await asyncio.to_thread(self._run, role, request)

    def _run(self, role: str, request: ImageRequest) -> ImageResponse:
        n = max(int(request.n), 1)
        first = request.seed if request.seed is not None else secrets.randbelow(2**31)
        seeds = [first + i for i in range(n)]
        with self._thread_lock:
            pipe = self._pipe(role)
            kwargs, ignored = _accepted(pipe, self._arguments(role, request, n, seeds))
            started = time.perf_counter()
            try:
                output = pipe(**kwargs)
            except Exception as exc:
                raise GeneratorError(f"{self.spec}: the pipeline failed: {_one_line(exc)}") from exc
            pipeline_s = time.perf_counter() - started
        images = []
        for seed, image in zip(seeds, output.images, strict=False):
            buffer = io.BytesIO()
            image.save(buffer, format="PNG")
            meta: dict[str, Any] = {"seed": seed, "size": list(image.size)}
            if ignored:
                meta["ignored"] = ignored
            images.append(GeneratedImage(buffer.getvalue(), meta))
        usage = {
            "images": len(images),
            "cost_usd": image_cost_usd(self.provider, self.model, len(images)),
            "pipeline_s": round(pipeline_s, 6),
        }
        return ImageResponse(tuple(images), usage)

    def _arguments(self, role: str, request: ImageRequest, n: int, seeds: list[int]) -> dict[str, Any]:
        torch = self._torch
        kwargs: dict[str, Any] = {
            "prompt": request.prompt,
            "num_images_per_prompt": n,
            "generator": [torch.Generator(device="cpu").manual_seed(seed) for seed in seeds],
            "output_type": "pil",
        }
        if request.steps is not None:
            kwargs["num_inference_steps"] = int(request.steps)
        if request.guidance is not None:
            kwargs["guidance_scale"] = float(request.guidance)
        if role != "img2img" and request.size is not None:
            kwargs["width"], kwargs["height"] = request.size
        if role != "text2img":
            kwargs["image"] = _pil(request.image, request.size, "RGB")
        if role == "inpaint":
            kwargs["mask_image"] = _pil(request.mask, request.size or kwargs["image"].size, "L")
        return kwargs

    def _pipe(self, role: str) -> Any:
        """Return the pipeline for a role, loading it once (callers hold the thread lock)."""
        pipe = self._pipes.get(role)
        if pipe is not None:
            return pipe
        if role in self._failed:
            raise GeneratorError(self._failed[role])
        import diffusers
        auto = {
            "text2img": diffusers.AutoPipelineForText2Image,
            "img2img": diffusers.AutoPipelineForImage2Image,
            "inpaint": diffusers.AutoPipelineForInpainting,
        }[role]
        try:
            if role == self.kind:
                pipe = self._from_folder(auto, diffusers)
            else:
                pipe = auto.from_pipe(self._pipe(self.kind))
        except GeneratorError:
            raise
        except Exception as exc:
            what = "load" if role == self.kind else f"make a {role} pipeline from"
            self._failed[role] = f"{self.spec}: could not {what} {self.folder}: {_one_line(exc)}"
            raise GeneratorError(self._failed[role]) from exc
        if hasattr(pipe, "set_progress_bar_config"):
            pipe.set_progress_bar_config(disable=True)
        self._pipes[role] = pipe
        return pipe

    def _from_folder(self, auto: Any, diffusers: Any) -> Any:
        # diffusers renamed `torch_dtype` to `dtype` (the old name warns); pass whichever this version takes
        from diffusers.pipelines import pipeline_utils as utils
        dtype_key = "dtype" if hasattr(utils, "_resolve_dtype") else "torch_dtype"
        options = {"local_files_only": True, dtype_key: self.dtype}
        try:
            pipe = auto.from_pretrained(str(self.folder), **options)
        except ValueError as exc:
            if "AutoPipeline" not in str(exc):
                raise
            pipe = diffusers.DiffusionPipeline.from_pretrained(str(self.folder), **options)
        return pipe.to(self.device)


def _accepted(pipe: Any, kwargs: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Return the arguments the pipeline's call takes, and the names of those it does not (ignored)."""
    parameters = inspect.signature(pipe.__call__).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return kwargs, []
    ignored = sorted(name for name in kwargs if name not in parameters)
    return {k: v for k, v in kwargs.items() if k in parameters}, ignored


def _pil(data: bytes | None, size: tuple[int, int] | None, mode: str) -> Any:
    from PIL import Image

    if data is None:
        raise GeneratorError("an edit needs an input image")
    try:
        with Image.open(io.BytesIO(data)) as opened:
            image = opened.convert(mode)
    except Exception as exc:
        raise GeneratorError(f"the input image cannot be read: {_one_line(exc)}") from None
    if size is not None and image.size != tuple(size):
        image = image.resize((size[0], size[1]), Image.Resampling.LANCZOS)
    return image


def _one_line(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
