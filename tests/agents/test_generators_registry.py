"""The image-generator registry and its did-you-mean, the spec errors, ImageSolver's contract, image prices."""

from __future__ import annotations

import asyncio
import io
import json
import sys

import pytest
from mcot.agents import (
    GeneratedImage,
    GeneratorError,
    ImageGenerator,
    ImageOptions,
    ImageRequest,
    ImageResponse,
    ImageSolver,
    ModelSpecError,
    Prediction,
    Solver,
    generator_names,
    load_generator,
)
from mcot.agents.generators import parse_size
from mcot.agents.generators.base import as_png
from mcot.agents.pricing import image_cost_usd
from PIL import Image

from mcot import declare_generator
from mcot.core.item import Item
from mcot.core.registry import GENERATORS, RegistryError
from mcot.core.rundir import MemoryBlobs

BUILTIN = ("diffusers", "openai-image", "procedural")


def test_the_builtin_generators_are_declared_once_each():
    assert generator_names() == BUILTIN
    assert GENERATORS.help().startswith("diffusers:PATH (a local diffusers pipeline folder")
    assert "procedural:broken" in GENERATORS.help()
    with pytest.raises(RegistryError, match="already registered"):
        declare_generator("diffusers", lambda argument, options: None, usage="diffusers:PATH", description="again")


@pytest.mark.parametrize(
    ("spec", "suggestion"),
    [
        ("openai_image:gpt-image-1", "openai-image:gpt-image-1"),
        ("openai/gpt-image-1", "openai-image:gpt-image-1"),
        ("openai-images:dall-e-3", "openai-image:dall-e-3"),
        ("openai:gpt-image-1", "openai-image:gpt-image-1"),
        ("difusers:/models/sd-turbo", "diffusers:/models/sd-turbo"),
        ("proceduarl", "procedural"),
        ("procedural-broken", "procedural:broken"),
        ("procedural_broken", "procedural:broken"),
    ],
)
def test_unknown_specs_get_a_did_you_mean_and_the_known_forms(spec, suggestion):
    with pytest.raises(ModelSpecError) as caught:
        load_generator(spec)
    message = str(caught.value)
    assert f"did you mean {suggestion!r}?" in message
    assert "diffusers:PATH, openai-image:MODEL or procedural" in message
    assert "\n" not in message


def test_incomplete_and_wrong_specs_say_what_would_work(tmp_path):
    with pytest.raises(ModelSpecError, match="needs something after the colon: use openai-image:MODEL"):
        load_generator("openai-image")
    with pytest.raises(ModelSpecError, match="'procedural:twisted' names no variant: use procedural"):
        load_generator("procedural:twisted")
    with pytest.raises(ModelSpecError) as caught:
        load_generator("diffusers:stabilityai/sd-turbo")
    message = str(caught.value)
    assert "no local folder 'stabilityai/sd-turbo'" in message and "never from a hub" in message
    assert "\n" not in message
    with pytest.raises(ModelSpecError, match=r"is not a diffusers pipeline folder \(no readable model_index.json"):
        load_generator(f"diffusers:{tmp_path}")


def test_a_missing_gen_extra_is_one_line_naming_what_to_install(tmp_path, monkeypatch):
    (tmp_path / "model_index.json").write_text(json.dumps({"_class_name": "StableDiffusionPipeline"}))
    monkeypatch.setitem(sys.modules, "diffusers", None)  # as if the extra were not installed
    with pytest.raises(ModelSpecError) as caught:
        load_generator(f"diffusers:{tmp_path}")
    message = str(caught.value)
    assert message.startswith(f"diffusers:{tmp_path} needs the gen extra (")
    assert 'pip install "mcot[gen]"' in message and "pip install torch==2.13.0" in message
    assert "\n" not in message


class Stamp:
    """A generator of plain images whose colour encodes the seed: it generates, and refuses to edit."""

    spec = "stamp"
    provider = "stamp"
    model = "stamp"

    def __init__(self) -> None:
        self.requests: list[ImageRequest] = []

    def capabilities(self) -> dict[str, str]:
        return {"generate": "yes", "edit": "no: stamps only", "seed": "sent"}

    async def generate(self, request: ImageRequest) -> ImageResponse:
        self.requests.append(request)
        buffer = io.BytesIO()
        Image.new("RGB", request.size or (16, 16), ((request.seed or 0) % 256, 0, 0)).save(buffer, format="PNG")
        return ImageResponse(
            (GeneratedImage(buffer.getvalue(), {"seed": request.seed}),), {"images": 1, "cost_usd": 0.0}
        )

    async def edit(self, request: ImageRequest) -> ImageResponse:
        raise GeneratorError("stamp cannot edit an image")


def test_a_registered_generator_is_loaded_by_spec_and_solves_as_a_solver(tmp_path):
    declare_generator("stamp", lambda argument, options: Stamp(), usage="stamp", description="plain images")
    try:
        stamp = load_generator("stamp")
        assert isinstance(stamp, ImageGenerator) and "stamp" in generator_names()
    finally:
        GENERATORS.unregister("stamp")
    assert "stamp" not in generator_names()

    solver = ImageSolver(stamp, "stamp", ImageOptions(seed=5, size=(24, 12)))
    assert isinstance(solver, Solver)
    item = Item(
        id="p1~3",
        benchmark="gobench",
        category="refracted_light_images",
        question="Does the straw bend correctly?",
        answer="",
        answer_type="image",
        meta={"prompt": "a straw in a glass of water", "sample": 3, "scene": {"kind": "straw"}},
    )
    prediction, trace = asyncio.run(solver.solve(item, tmp_path, MemoryBlobs()))
    assert prediction.status == "ok" and prediction.steps == 1
    [request] = stamp.requests
    assert request.prompt == "a straw in a glass of water" and request.seed == 8 and request.size == (24, 12)
    assert request.category == "refracted_light_images" and request.scene == {"kind": "straw"}
    assert request.image is None and request.n == 1
    assert prediction.image_meta == [{"seed": 8}] and prediction.usage["cost_usd"] == 0.0
    assert [step.kind for step in trace] == ["model"] and trace.steps[0].sampling == {"seed": 8}
    line = json.loads(trace.to_lines()[0])
    assert line["image"] == prediction.text and line["text"] == "a straw in a glass of water"

    without_prompt = item.model_copy(update={"meta": {}})
    asyncio.run(solver.solve(without_prompt, tmp_path, MemoryBlobs()))
    assert stamp.requests[-1].prompt == "Does the straw bend correctly?" and stamp.requests[-1].seed == 5

    (tmp_path / "in.png").write_bytes(as_png(_png()))
    edit_item = item.model_copy(update={"images": ["in.png"]})
    failed, trace = asyncio.run(solver.solve(edit_item, tmp_path, MemoryBlobs()))
    assert failed.status == "error" and failed.error == "GeneratorError: stamp cannot edit an image"
    assert failed.steps == 1 and trace.steps[0].error == failed.error
    assert trace.steps[0].arguments["operation"] == "edit"


def _png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "white").save(buffer, format="PNG")
    return buffer.getvalue()


def test_a_prediction_without_images_keeps_its_record_and_one_with_images_names_them():
    plain = Prediction("ok", "\\boxed{3}", 2)
    assert set(plain.to_record()) == {"status", "prediction", "steps", "usage", "latency_s", "error"}
    image = Prediction("ok", "blobs/a.png", 1, images=["blobs/a.png", "blobs/b.png"], image_meta=[{"seed": 1}, {}])
    record = image.to_record()
    assert record["image"] == "blobs/a.png" and record["images"] == ["blobs/a.png", "blobs/b.png"]
    assert record["image_meta"] == [{"seed": 1}, {}]


def test_sizes_parse_as_width_by_height():
    assert parse_size("512x768") == (512, 768) and parse_size(" 64X64 ") == (64, 64)
    for bad in ("512", "0x64", "axb", "64x-1"):
        with pytest.raises(ValueError, match="WIDTHxHEIGHT"):
            parse_size(bad)


def test_image_prices_by_model_quality_size_and_tokens():
    assert image_cost_usd("openai-image", "dall-e-2", 3, size="512x512") == pytest.approx(0.054)
    assert image_cost_usd("openai-image", "dall-e-3", 1) == pytest.approx(0.04)  # the defaults: standard, 1024²
    assert image_cost_usd("openai-image", "dall-e-3", 1, quality="hd", size="1024x1792") == pytest.approx(0.12)
    assert image_cost_usd("openai-image", "gpt-image-1", 2, quality="low", size="1536x1024") == pytest.approx(0.032)
    assert image_cost_usd("openai-image", "gpt-image-1", 1) is None  # quality auto and no token usage: unknown
    usage = {"input_tokens": 10, "output_tokens": 100}
    assert image_cost_usd("openai-image", "gpt-image-1-mini", 1, usage=usage) == pytest.approx((10 * 2 + 100 * 8) / 1e6)
    assert image_cost_usd("openai-image", "gpt-image-1-2025-04-15", 1, usage=usage) == pytest.approx(
        (10 * 5 + 100 * 40) / 1e6
    )
    assert image_cost_usd("openai-image", "dall-e-3", 1, size="640x480") is None
    assert image_cost_usd("diffusers", "/models/sd", 4) == 0.0 and image_cost_usd("procedural", "broken", 2) == 0.0
    assert image_cost_usd("someone-else", "x", 1) is None
