"""Image generators behind one protocol, declared by provider name; `load_generator(spec)` builds one.

Specs: `diffusers:PATH` (a local diffusers pipeline folder), `openai-image:MODEL` (the OpenAI Images API),
`procedural` (physically exact schematic scenes) and `procedural:broken` (each scene's broken twin), declared in
`mcot.core.registry.GENERATORS` by `mcot.builtin` (plugins add theirs with `mcot.declare_generator`). Each factory
(`mcot.agents.generators.factories`) imports its module on first use, so loading this package loads neither
torch nor an SDK. An unknown spec gets a did-you-mean (`openai_image:gpt-image-1` → `openai-image:gpt-image-1`). `ImageSolver` (in
`mcot.agents.generators.solver`) drives a generator as a `Solver`. See docs/agent.md, "Generators".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mcot.agents.generators.base import (
    GeneratedImage,
    GeneratorError,
    ImageGenerator,
    ImageRequest,
    ImageResponse,
    parse_size,
)
from mcot.agents.retry import RetryPolicy

from mcot.core.lazy import lazy_exports
from mcot.core.registry import GENERATORS

if TYPE_CHECKING:
    from mcot.agents.generators.solver import ImageOptions, ImageSolver


@dataclass(frozen=True)
class GeneratorOptions:
    """What `load_generator` passes to every generator factory besides the spec's argument."""

    base_url: str | None = None
    timeout_s: float = 600.0
    retry: RetryPolicy | None = None


GeneratorFactory = Callable[[str, GeneratorOptions], ImageGenerator]
"""Builds a generator from the spec's argument (a folder, a model name, a variant; "" when none is given)."""


def generator_names() -> tuple[str, ...]:
    """Return the declared generator names, in declaration order."""
    return GENERATORS.names()


def load_generator(
    spec: str,
    *,
    base_url: str | None = None,
    timeout_s: float = 600.0,
    retry: RetryPolicy | None = None,
) -> ImageGenerator:
    """Return the image generator a spec names; raise ModelSpecError for an unknown or unusable spec."""
    entry, argument = GENERATORS.parse(spec)
    factory = GENERATORS.resolve(entry)
    return factory(argument, GeneratorOptions(base_url=base_url, timeout_s=timeout_s, retry=retry))


_LAZY = {"ImageSolver": "mcot.agents.generators.solver", "ImageOptions": "mcot.agents.generators.solver"}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())


__all__ = [
    "GENERATORS",
    "GeneratedImage",
    "GeneratorError",
    "GeneratorFactory",
    "GeneratorOptions",
    "ImageGenerator",
    "ImageOptions",
    "ImageRequest",
    "ImageResponse",
    "ImageSolver",
    "generator_names",
    "load_generator",
    "parse_size",
]
