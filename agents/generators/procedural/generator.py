"""`ProceduralGenerator`: GOBench-style optical scenes drawn so their optics are right by construction (or, as
`procedural:broken`, each scene's twin with one law violated), each with its five questions and known answers."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, Literal

from mcot.agents.generators.base import GeneratedImage, GeneratorError, ImageRequest, ImageResponse
from mcot.agents.generators.procedural.render import RenderedScene, render_scene
from mcot.agents.generators.procedural.scenes import SceneError, build_scene, load_scene

Variant = Literal["correct", "broken"]


def default_seed(prompt: str, category: str | None) -> int:
    """Return the seed used when a request gives none: a stable hash of the prompt and category."""
    digest = hashlib.sha256(f"{category or ''}\n{prompt}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def draw(
    prompt: str,
    *,
    seed: int,
    category: str | None = None,
    scene: Mapping[str, Any] | str | None = None,
    size: tuple[int, int] | None = None,
    broken: bool = False,
) -> RenderedScene:
    """Return one scene built from the prompt/category/scene and ``seed``, drawn (or its broken twin) as a PNG.

    Raises SceneError when the scene or size cannot be used.
    """
    given = load_scene(scene) if scene is not None else None
    full = build_scene(prompt, category, seed, given)
    return render_scene(full, size, broken=broken)


class ProceduralGenerator:
    """Schematic optical scenes (shadows, mirrors, refraction) from prompts or scene descriptions; no model, no cost.

    ``variant`` "correct" draws each scene as the laws say; "broken" draws its twin with one law violated, whose
    known answers are "No" where the violation breaks a question (the judge-calibration set).
    """

    provider = "procedural"
    model = "procedural"

    def __init__(self, variant: Variant = "correct") -> None:
        if variant not in ("correct", "broken"):
            raise GeneratorError(f"procedural variant must be 'correct' or 'broken', got {variant!r}")
        self.variant: Variant = variant
        self.spec = "procedural" if variant == "correct" else "procedural:broken"

    def capabilities(self) -> dict[str, str]:
        """Return what the generator does with each part of a request."""
        return {
            "generate": "yes",
            "edit": "no: the procedural generator draws scenes from descriptions; use diffusers:PATH or "
            "openai-image:MODEL to edit an image",
            "seed": "sent: it draws the scene's free parameters (same seed, same bytes)",
            "size": "yes",
            "steps": "ignored: a drawn scene has no sampling steps",
            "guidance": "ignored: a drawn scene has no guidance scale",
        }

    async def generate(self, request: ImageRequest) -> ImageResponse:
        """Return ``request.n`` scenes (seeds seed, seed+1, …, each mixed with the prompt) as PNGs with their answers."""
        if not isinstance(request.n, int) or request.n < 1:
            raise GeneratorError(f"n must be a whole number ≥ 1, got {request.n!r}")
        # the prompt always enters the scene's seed, so that one --seed gives each prompt its own scene
        prompt_seed = default_seed(request.prompt, request.category)
        base = request.seed if request.seed is not None else 0
        images = []
        for k in range(request.n):
            seed = base + k
            try:
                drawn = draw(
                    request.prompt,
                    seed=(prompt_seed + seed) & 0x7FFFFFFF,
                    category=request.category,
                    scene=request.scene,
                    size=request.size,
                    broken=self.variant == "broken",
                )
            except SceneError as exc:
                raise GeneratorError(f"procedural: {exc}") from exc
            images.append(GeneratedImage(data=drawn.png, meta={"seed": seed, **drawn.meta}))
        return ImageResponse(images=tuple(images), usage={"images": len(images), "cost_usd": 0.0})

    async def edit(self, request: ImageRequest) -> ImageResponse:
        """Raise GeneratorError: the procedural generator cannot edit an input image."""
        raise GeneratorError(
            "the procedural generator cannot edit images; use an edit-capable generator "
            "(diffusers:PATH with an image-to-image or inpainting pipeline, or openai-image:MODEL)"
        )
