"""The factories of mcot's own image generators, declared by name in `mcot.builtin` and imported on first use.

Each is `factory(argument, options) -> ImageGenerator`; each imports its generator's module only when called,
so that declaring the generators loads neither torch nor an SDK.
"""

from __future__ import annotations

from mcot.agents.errors import ModelSpecError
from mcot.agents.generators import GeneratorOptions
from mcot.agents.generators.base import ImageGenerator
from mcot.agents.generators.diffusers_pipeline import DiffusersGenerator


def diffusers(argument: str, options: GeneratorOptions) -> ImageGenerator:
    """Return a generator over the local diffusers pipeline folder `argument` (the gen extra)."""

    return DiffusersGenerator(argument)


def openai_image(argument: str, options: GeneratorOptions) -> ImageGenerator:
    """Return a generator over the OpenAI Images API for the model `argument`."""
    from mcot.agents.generators.openai_images import OpenAIImagesGenerator

    return OpenAIImagesGenerator(argument, base_url=options.base_url, timeout_s=options.timeout_s, retry=options.retry)


def procedural(argument: str, options: GeneratorOptions) -> ImageGenerator:
    """Return the procedural scene generator: correct scenes, or with `broken` each scene's broken twin."""
    from mcot.agents.generators.procedural import ProceduralGenerator

    variant = argument.strip().lower() or "correct"
    if variant == "correct":
        return ProceduralGenerator(variant="correct")
    if variant == "broken":
        return ProceduralGenerator(variant="broken")
    raise ModelSpecError(
        f"'procedural:{argument}' names no variant: use procedural (correct scenes) "
        "or procedural:broken (each scene's broken twin)"
    )

