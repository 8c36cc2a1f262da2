"""Scene templates: which template a prompt gets, its free parameters drawn from a seed, and scenes from YAML/JSON.

A scene is a small dict: {"template": NAME, <the template's parameters>, "twin": {"violation", "factor"}}.
Parameters the scene leaves out are drawn from the seed (same seed, same scene); the ones it sets are kept and
checked. GOBench categories map to templates: direct_light_images → shadow_sun, shadow_lamp;
reflect_light_images → plane_mirror, spherical_mirror; refracted_light_images → straw, apparent_depth,
total_internal_reflection.
"""

from __future__ import annotations

import difflib
import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from mcot.agents.generators.procedural import mirrors, refraction, shadows
from mcot.agents.generators.procedural.broken import choose_twin
from mcot.agents.generators.procedural.questions import template_spec
from mcot.agents.generators.procedural.svg import Svg

from mcot.core.inputs import InputFileError, UnsafeYaml, excerpt, load_yaml, read_yaml_file

Params = Callable[[random.Random, Mapping[str, Any], str], dict[str, Any]]
Draw = Callable[[Svg, Mapping[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Template:
    """The code half of a scene template: draw parameters, check a scene, compute its truth, draw it as SVG."""

    name: str
    params: Params
    check: Callable[[Mapping[str, Any]], None]
    truth: Callable[[Mapping[str, Any]], dict[str, Any]]
    draw: Draw

    @property
    def category(self) -> str:
        """Return the GOBench category the template belongs to."""
        return template_spec(self.name).category


TEMPLATES: dict[str, Template] = {
    t.name: t
    for t in (
        Template("shadow_sun", shadows.sun_params, shadows.sun_check, shadows.sun_truth, shadows.sun_draw),
        Template("shadow_lamp", shadows.lamp_params, shadows.lamp_check, shadows.lamp_truth, shadows.lamp_draw),
        Template("plane_mirror", mirrors.plane_params, mirrors.plane_check, mirrors.plane_truth, mirrors.plane_draw),
        Template(
            "spherical_mirror",
            mirrors.spherical_params,
            mirrors.spherical_check,
            mirrors.spherical_truth,
            mirrors.spherical_draw,
        ),
        Template(
            "straw", refraction.straw_params, refraction.straw_check, refraction.straw_truth, refraction.straw_draw
        ),
        Template(
            "apparent_depth",
            refraction.depth_params,
            refraction.depth_check,
            refraction.depth_truth,
            refraction.depth_draw,
        ),
        Template(
            "total_internal_reflection",
            refraction.tir_params,
            refraction.tir_check,
            refraction.tir_truth,
            refraction.tir_draw,
        ),
    )
}
"""Template name → template, in a fixed order."""

CATEGORIES: dict[str, tuple[str, ...]] = {
    "direct_light_images": ("shadow_sun", "shadow_lamp"),
    "reflect_light_images": ("plane_mirror", "spherical_mirror"),
    "refracted_light_images": ("straw", "apparent_depth", "total_internal_reflection"),
}
"""GOBench category → the templates that draw it."""


RESAMPLES = 32
"""How many fresh draws of a scene's free parameters follow a first draw that cannot be placed."""


class SceneError(ValueError):
    """A scene description cannot be used; the message names the field and what would work."""


def template_names() -> tuple[str, ...]:
    """Return the template names."""
    return tuple(TEMPLATES)


def _keyword_score(prompt: str, keywords: tuple[str, ...]) -> int:
    """Return how strongly ``prompt`` matches ``keywords`` (each hit weighs its number of words)."""
    return sum(len(k.split()) for k in keywords if re.search(rf"\b{re.escape(k)}\b", prompt))


def choose_template(prompt: str, category: str | None, rng: random.Random) -> str:
    """Return the template for a prompt: the best keyword match among the category's templates, else a seeded pick."""
    candidates = CATEGORIES.get(category or "", tuple(TEMPLATES))
    text = prompt.lower()
    scores = {name: _keyword_score(text, template_spec(name).keywords) for name in candidates}
    best = max(scores.values())
    pick = rng.choice(candidates)  # drawn either way, so the stream of draws does not depend on the prompt
    if best == 0:
        return pick
    return next(name for name in candidates if scores[name] == best)


def _kind(value: Any) -> str:
    """Return what kind of value a scene field holds: a number, a text, a list or a mapping."""
    if isinstance(value, bool):
        return "a yes/no value"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a text"
    if isinstance(value, list):
        return "a list"
    return "a mapping" if isinstance(value, Mapping) else type(value).__name__


def _template_of(scene: Mapping[str, Any]) -> Template:
    name = scene.get("template")
    if name not in TEMPLATES:
        close = difflib.get_close_matches(str(name), TEMPLATES, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise SceneError(f"unknown scene template {name!r}{hint} Known: {', '.join(TEMPLATES)}")
    return TEMPLATES[name]


def build_scene(prompt: str, category: str | None, seed: int, given: Mapping[str, Any] | None = None) -> dict:
    """Return the full scene: ``given``'s fields kept, the rest drawn from ``seed`` (the template from the prompt)."""
    given = dict(given or {})
    rng = random.Random(f"procedural-scene:{seed}")
    name = given.get("template") or choose_template(prompt, category, rng)
    template = _template_of({"template": name})
    defaults = template.params(random.Random(0), {}, "")
    known = set(defaults) | {"template", "twin"}
    unknown = sorted(set(given) - known)
    if unknown:
        raise SceneError(
            f"scene field(s) {', '.join(map(repr, unknown))} are not parameters of {name}; "
            f"it takes {', '.join(sorted(known - {'template'}))}"
        )
    for key, value in given.items():
        if key in defaults and _kind(value) != _kind(defaults[key]):
            raise SceneError(f"{name} scene: field {key!r} must be {_kind(defaults[key])}, got {value!r}")
    scene: dict[str, Any] = {"template": name, **template.params(rng, given, prompt.lower())}
    refused: ValueError | None = None
    for attempt in range(1, RESAMPLES + 2):
        try:
            template.check(scene)
        except ValueError as exc:
            # a dead end of this draw (an eye drawn onto the object's top): draw the free parameters again, from
            # the seed, so the same seed always gives the same scene; fields the scene sets are kept as they are
            refused = refused or exc
            redraw = random.Random(f"procedural-scene:{seed}:resample:{attempt}")
            scene = {"template": name, **template.params(redraw, given, prompt.lower())}
        else:
            break
    else:  # no draw could be placed: the fields the scene sets are the dead end
        raise SceneError(f"{name} scene: {refused}") from refused
    try:
        scene["twin"] = choose_twin(name, seed, given.get("twin"))
    except ValueError as exc:
        raise SceneError(f"{name} scene: {exc}") from exc
    return scene


def load_scene(source: str | Path | Mapping[str, Any]) -> dict[str, Any]:
    """Return a scene dict from a mapping, a YAML/JSON file path, or YAML/JSON text."""
    if isinstance(source, Mapping):
        return dict(source)
    text = str(source)
    path = Path(text) if isinstance(source, Path) or ("\n" not in text and len(text) < 4096) else None
    try:
        if path is not None and path.suffix.lower() in (".yaml", ".yml", ".json"):
            if not path.exists():
                raise SceneError(f"scene file {excerpt(str(path))} not found")
            data = read_yaml_file(path, what="scene file")  # JSON is YAML too
        else:
            data = load_yaml(text)
    except (InputFileError, UnsafeYaml, UnicodeDecodeError) as exc:
        raise SceneError(f"scene: {excerpt(str(exc))}") from exc
    except yaml.YAMLError as exc:
        raise SceneError(f"scene text is neither YAML nor JSON: {excerpt(' '.join(str(exc).split()))}") from exc
    if not isinstance(data, Mapping):
        raise SceneError(f"a scene must be a mapping with a 'template' field, got {type(data).__name__}")
    return dict(data)
