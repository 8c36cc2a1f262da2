"""`ProceduralGenerator` through the generator registry and `ImageSolver`: specs, requests, meta, errors."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
from mcot.agents.errors import ModelSpecError
from mcot.agents.generators import GeneratorError, ImageGenerator, ImageRequest, load_generator
from mcot.agents.generators.procedural import ProceduralGenerator
from mcot.agents.generators.solver import ImageOptions, ImageSolver
from PIL import Image

from mcot.core.item import Item
from mcot.core.rundir import MemoryBlobs


def _generate(generator: ImageGenerator, **request) -> list:
    return list(asyncio.run(generator.generate(ImageRequest(**request))).images)


class TestSpecs:
    def test_specs_name_the_two_variants(self) -> None:
        correct, broken = load_generator("procedural"), load_generator("procedural:broken")
        assert isinstance(correct, ProceduralGenerator) and isinstance(correct, ImageGenerator)
        assert (correct.spec, correct.provider, correct.model, correct.variant) == (
            "procedural",
            "procedural",
            "procedural",
            "correct",
        )
        assert (broken.spec, broken.variant) == ("procedural:broken", "broken")

    def test_capabilities(self) -> None:
        caps = ProceduralGenerator().capabilities()
        assert caps["generate"] == "yes"
        assert caps["edit"].startswith("no:") and caps["seed"].startswith("sent")

    def test_an_unknown_variant_is_refused(self) -> None:
        with pytest.raises(ModelSpecError, match="procedural:broken"):
            load_generator("procedural:wrong")
        with pytest.raises(GeneratorError, match="correct"):
            ProceduralGenerator("wrong")  # type: ignore[arg-type]


class TestGenerate:
    def test_image_and_meta(self) -> None:
        (image,) = _generate(
            ProceduralGenerator(), prompt="a straw in water", seed=7, category="refracted_light_images"
        )
        png = Image.open(io.BytesIO(image.data))
        assert png.format == "PNG" and png.size == (512, 512)
        meta = image.meta
        assert meta["seed"] == 7 and meta["template"] == "straw" and meta["broken"] is False
        assert len(meta["questions"]) == 5 and meta["known_answers"] == ["Yes"] * 5
        assert meta["scene"]["template"] == "straw" and meta["revised_prompt"]

    def test_broken_variant_answers_no_where_it_breaks(self) -> None:
        (image,) = _generate(
            ProceduralGenerator("broken"), prompt="a straw in water", seed=7, category="refracted_light_images"
        )
        assert image.meta["broken"] is True and "No" in image.meta["known_answers"]

    def test_n_images_take_consecutive_seeds(self) -> None:
        images = _generate(ProceduralGenerator(), prompt="sunny meadow", n=3, seed=40, size=(320, 200))
        assert [i.meta["seed"] for i in images] == [40, 41, 42]
        assert len({i.data for i in images}) == 3
        assert all(Image.open(io.BytesIO(i.data)).size == (320, 200) for i in images)

    def test_without_a_seed_the_prompt_fixes_the_scene(self) -> None:
        first = _generate(ProceduralGenerator(), prompt="a concave mirror")[0]
        again = _generate(ProceduralGenerator(), prompt="a concave mirror")[0]
        assert first.data == again.data and isinstance(first.meta["seed"], int)

    def test_the_scene_of_the_request_is_drawn(self) -> None:
        scene = {"template": "plane_mirror", "object_distance": 25.0}
        (image,) = _generate(ProceduralGenerator(), prompt="x", seed=1, scene=scene)
        assert image.meta["template"] == "plane_mirror"
        assert image.meta["truth"]["image_distance"] == -25.0

    def test_usage_costs_nothing(self) -> None:
        response = asyncio.run(ProceduralGenerator().generate(ImageRequest(prompt="lamp", n=2, seed=0)))
        assert response.usage == {"images": 2, "cost_usd": 0.0}

    @pytest.mark.parametrize(
        ("request_fields", "message"),
        [
            ({"size": (10, 10)}, "64"),
            ({"n": 0}, "n must be"),
            ({"scene": {"template": "rainbow"}}, "unknown scene template"),
        ],
    )
    def test_unusable_requests_raise_generator_errors(self, request_fields: dict, message: str) -> None:
        with pytest.raises(GeneratorError, match=message):
            _generate(ProceduralGenerator(), prompt="p", seed=0, **request_fields)

    def test_edit_is_not_supported(self) -> None:
        with pytest.raises(GeneratorError, match="cannot edit"):
            asyncio.run(ProceduralGenerator().edit(ImageRequest(prompt="add a ray", image=b"x")))


class TestThroughTheImageSolver:
    def test_gobench_item_gets_an_image_with_known_answers(self, tmp_path: Path) -> None:
        item = Item(
            id="g1",
            benchmark="gobench",
            category="reflect_light_images",
            question="A cat before a mirror.",
            answer="",
            answer_type="image",
            meta={"prompt": "A cat sits before a bathroom mirror.", "sample": 2},
        )
        blobs = MemoryBlobs()
        solver = ImageSolver(ProceduralGenerator("broken"), "procedural-broken", ImageOptions(seed=10))
        prediction, trace = asyncio.run(solver.solve(item, tmp_path, blobs))
        assert prediction.status == "ok", prediction.error
        assert prediction.text.startswith("blobs/") and prediction.images == [prediction.text]
        (meta,) = prediction.image_meta
        assert meta["seed"] == 12 and meta["template"] == "plane_mirror" and meta["broken"] is True
        assert "No" in meta["known_answers"]
        assert len(blobs.data) == 1 and len(trace.steps) == 1
