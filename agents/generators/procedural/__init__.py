"""The `procedural` image generator: schematic optical scenes whose optics are right by construction.

A scene (a small dict, or YAML/JSON) names a template — shadows from the sun or a lamp, a plane or spherical
mirror, a straw in a glass, a coin's apparent depth, total internal reflection — and its parameters; missing
parameters are drawn from the seed. It is drawn as SVG and rasterised with cairosvg; its meta carries the
template, the full scene, five authenticity questions and their known answers. `procedural:broken` draws each
scene's twin with one law violated, its answers flipped where the violation breaks a question.
"""

from mcot.agents.generators.procedural.generator import ProceduralGenerator, default_seed, draw
from mcot.agents.generators.procedural.render import RenderedScene, rasterise, render_scene
from mcot.agents.generators.procedural.scenes import (
    CATEGORIES,
    TEMPLATES,
    SceneError,
    build_scene,
    choose_template,
    load_scene,
    template_names,
)

__all__ = [
    "CATEGORIES",
    "TEMPLATES",
    "ProceduralGenerator",
    "RenderedScene",
    "SceneError",
    "build_scene",
    "choose_template",
    "default_seed",
    "draw",
    "load_scene",
    "rasterise",
    "render_scene",
    "template_names",
]
