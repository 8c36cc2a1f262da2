"""A scene → SVG → PNG (cairosvg), with its known answers: the procedural generator's whole drawing path."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import cairosvg
from mcot.agents.generators.procedural.broken import apply_violation
from mcot.agents.generators.procedural.questions import describe, known_answers, questions_for, violation_text
from mcot.agents.generators.procedural.scenes import TEMPLATES, SceneError
from mcot.agents.generators.procedural.svg import Svg

DEFAULT_SIZE = (512, 512)
MIN_SIDE, MAX_SIDE = 64, 4096


@dataclass(frozen=True)
class RenderedScene:
    """One drawn scene: PNG bytes, the SVG they were rasterised from, and the image's meta (answers included)."""

    png: bytes
    svg: str
    meta: dict[str, Any]


def rasterise(svg: str, size: tuple[int, int]) -> bytes:
    """Return the PNG bytes of an SVG document rendered by cairosvg at ``size`` (width, height)."""
    return cairosvg.svg2png(bytestring=svg.encode("utf-8"), output_width=size[0], output_height=size[1])


def _rounded(value: Any) -> Any:
    """Return a JSON copy of ``value`` with floats rounded to 6 decimals."""
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, Mapping):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_rounded(v) for v in value]
    return value


def _fields(scene: Mapping[str, Any], truth: Mapping[str, Any]) -> dict[str, Any]:
    """Return the values the question and description templates may name."""
    fields = {k: v for k, v in scene.items() if not isinstance(v, Mapping | list)}
    if isinstance(scene.get("objects"), list):
        fields["count"] = len(scene["objects"])
    n1, n2 = truth.get("n1"), truth.get("n2")
    if n1 and n2:
        fields["ratio"] = n2 / n1
        if n1 > n2:
            fields["critical"] = math.degrees(math.asin(n2 / n1))
    return fields


def check_size(size: tuple[int, int] | None) -> tuple[int, int]:
    """Return ``size`` (or the default 512×512) after checking both sides are whole pixels in [64, 4096]."""
    if size is None:
        return DEFAULT_SIZE
    if (
        not isinstance(size, tuple | list)
        or len(size) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and MIN_SIDE <= v <= MAX_SIDE for v in size)
    ):
        raise SceneError(f"size must be (width, height) in whole pixels, each {MIN_SIDE}–{MAX_SIDE}; got {size!r}")
    return int(size[0]), int(size[1])


def render_scene(
    scene: Mapping[str, Any], size: tuple[int, int] | None = None, *, broken: bool = False
) -> RenderedScene:
    """Return the scene (a full scene from ``build_scene``) drawn as a PNG, or its broken twin, with its meta."""
    width, height = check_size(size)
    name = scene["template"]
    template = TEMPLATES[name]
    try:
        truth = template.truth(scene)
    except ValueError as exc:
        raise SceneError(f"{name} scene: {exc}") from exc
    twin = scene["twin"]
    twin_shows = apply_violation(name, scene, truth, twin)
    shown = twin_shows if broken else truth
    svg = Svg(width, height)
    layout = template.draw(svg, scene, truth, shown, twin_shows)
    document = svg.document()
    fields = _fields(scene, truth)
    violation = twin["violation"] if broken else None
    meta = {
        "template": name,
        "category": template.category,
        "scene": _rounded(dict(scene)),
        "questions": questions_for(name, fields),
        "known_answers": known_answers(name, violation),
        "broken": broken,
        "violation": violation,
        "violation_text": violation_text(name, violation, twin["factor"]) if violation else None,
        "revised_prompt": describe(name, fields),
        "truth": _rounded(truth),
        "shown": _rounded(shown),
        "layout": _rounded(layout),
        "size": [width, height],
    }
    return RenderedScene(png=rasterise(document, (width, height)), svg=document, meta=meta)
