"""Image generators behind one protocol, registered by provider name; `load_generator(spec)` builds one.

Specs: `diffusers:PATH` (a local diffusers pipeline folder), `openai-image:MODEL` (the OpenAI Images API),
`procedural` (physically exact schematic scenes) and `procedural:broken` (each scene's broken twin). Each
factory imports its module on first use, so loading this package loads neither torch nor an SDK. An unknown
spec gets a did-you-mean (`openai_image:gpt-image-1` → `openai-image:gpt-image-1`). `ImageSolver` (in
`mcot.agents.generators.solver`) drives a generator as a `Solver`. See docs/agent.md, "Generators".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any

from mcot.agents.errors import ModelSpecError
from mcot.agents.generators.base import (
    GeneratedImage,
    GeneratorError,
    ImageGenerator,
    ImageRequest,
    ImageResponse,
    parse_size,
)
from mcot.agents.registry import Registry
from mcot.agents.retry import RetryPolicy

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

GENERATORS: Registry[GeneratorFactory] = Registry("image generator", error=ModelSpecError)
"""The image generators by provider name."""

_NEAR_MISSES = {"procedural-broken": "procedural:broken", "procedural_broken": "procedural:broken"}


def register_generator(
    name: str, factory: GeneratorFactory, *, usage: str | None = None, help: str = "", replace: bool = False
) -> None:
    """Register an image generator under a provider name (`usage` e.g. `name:MODEL`; bare `name` takes none)."""
    GENERATORS.register(name, factory, usage=usage, help=help, replace=replace)


def unregister_generator(name: str) -> None:
    """Remove a registered image generator (no error when absent)."""
    GENERATORS.unregister(name)


def generator_names() -> tuple[str, ...]:
    """Return the registered generator names, in registration order."""
    return GENERATORS.names()


def generator_spec_help() -> str:
    """Return the accepted generator spec forms as one line, with each generator's help."""
    return "; ".join(f"{e.usage} ({e.help})" if e.help else e.usage for e in GENERATORS.entries())


def load_generator(
    spec: str,
    *,
    base_url: str | None = None,
    timeout_s: float = 600.0,
    retry: RetryPolicy | None = None,
) -> ImageGenerator:
    """Return the image generator a spec names; raise ModelSpecError for an unknown or unusable spec."""
    near = _NEAR_MISSES.get(spec.strip().lower())
    if near is not None and near.partition(":")[0] in GENERATORS.names():
        raise ModelSpecError(
            f"{spec!r} names no known image generator; did you mean {near!r}? Use one of: {GENERATORS.usage()}."
        )
    entry, argument = GENERATORS.parse(spec)
    return entry.factory(argument, GeneratorOptions(base_url=base_url, timeout_s=timeout_s, retry=retry))


def _diffusers(argument: str, options: GeneratorOptions) -> ImageGenerator:
    from mcot.agents.generators.diffusers_pipeline import DiffusersGenerator

    return DiffusersGenerator(argument)


def _openai_image(argument: str, options: GeneratorOptions) -> ImageGenerator:
    from mcot.agents.generators.openai_images import OpenAIImagesGenerator

    return OpenAIImagesGenerator(argument, base_url=options.base_url, timeout_s=options.timeout_s, retry=options.retry)


def _procedural(argument: str, options: GeneratorOptions) -> ImageGenerator:
    variant = argument.strip().lower() or "correct"
    if variant not in ("correct", "broken"):
        raise ModelSpecError(
            f"'procedural:{argument}' names no variant: use procedural (correct scenes) "
            "or procedural:broken (each scene's broken twin)"
        )
    from mcot.agents.generators.procedural import ProceduralGenerator

    return ProceduralGenerator(variant=variant)


register_generator(
    "diffusers",
    _diffusers,
    usage="diffusers:PATH",
    help="a local diffusers pipeline folder (text-to-image; image-to-image or inpainting for edits), the gen extra",
)
register_generator(
    "openai-image", _openai_image, usage="openai-image:MODEL", help="the OpenAI Images API, OPENAI_API_KEY"
)
register_generator(
    "procedural",
    _procedural,
    usage="procedural",
    help="physically exact schematic scenes; procedural:broken for each scene's broken twin",
)

_LAZY = {"ImageSolver": "mcot.agents.generators.solver", "ImageOptions": "mcot.agents.generators.solver"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mcot.agents.generators' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


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
    "generator_spec_help",
    "load_generator",
    "parse_size",
    "register_generator",
    "unregister_generator",
]
