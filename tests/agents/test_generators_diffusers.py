"""The `diffusers:PATH` route on a tiny Stable Diffusion pipeline built here, saved and loaded from disk, on the CPU.

The pipeline's weights are random (a small UNet, VAE and CLIP text encoder; a tokenizer read from a vocab.json
and merges.txt written by the test): the images are noise, but every byte of them goes through the real
loading path (`AutoPipelineForText2Image.from_pretrained(FOLDER)`) and the real pipeline call.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
from extras import needs
from mcot.agents import GeneratorError, ImageOptions, ImageRequest, ImageSolver, load_generator
from mcot.agents.generators.diffusers_pipeline import DiffusersGenerator, pick_device
from PIL import Image

from mcot.core.item import Item
from mcot.core.rundir import BlobStore
from mcot.testing.tiny_pipeline import build_tiny_pipeline

pytestmark = needs("torch", "diffusers", "transformers")


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("pipelines")
    return {
        "text2img": build_tiny_pipeline(root / "tiny-sd"),
        "img2img": build_tiny_pipeline(root / "tiny-sd-img2img", "StableDiffusionImg2ImgPipeline"),
    }


@pytest.fixture(scope="module")
def generator(folders: dict[str, Path]) -> DiffusersGenerator:
    made = load_generator("diffusers:" + str(folders["text2img"]))
    assert isinstance(made, DiffusersGenerator)
    return made


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(io.BytesIO(data)) as image:
        return image.size


def _generate(generator: DiffusersGenerator, **fields) -> list[bytes]:
    request = ImageRequest(prompt="a red ball and its light", steps=2, size=(64, 64), **fields)
    response = asyncio.run(generator.generate(request))
    return [image.data for image in response.images]


def test_the_folder_loads_through_the_spec_and_makes_64px_pngs_on_the_cpu(generator):
    import torch

    assert generator.spec.startswith("diffusers:") and generator.provider == "diffusers"
    assert generator.kind == "text2img" and generator.pipeline_class == "StableDiffusionPipeline"
    assert generator.device == pick_device(torch)
    caps = generator.capabilities()
    assert caps["generate"] == "yes" and caps["edit"].startswith("yes") and caps["seed"].startswith("sent")
    response = asyncio.run(
        generator.generate(ImageRequest(prompt="a lamp casts a shadow", n=2, seed=7, steps=2, size=(64, 64)))
    )
    assert len(response.images) == 2
    assert [_png_size(image.data) for image in response.images] == [(64, 64), (64, 64)]
    assert [image.meta["seed"] for image in response.images] == [7, 8]
    assert response.usage["images"] == 2 and response.usage["cost_usd"] == 0.0
    assert response.usage["pipeline_s"] > 0
    assert response.images[0].data != response.images[1].data


def test_the_same_seed_gives_the_same_bytes_and_a_batch_matches_single_calls(generator):
    first = _generate(generator, seed=11)
    again = _generate(generator, seed=11)
    other = _generate(generator, seed=12)
    assert first == again
    assert first != other
    batch = _generate(generator, seed=11, n=2)  # image i of a batch is seeded seed + i, like a call of its own
    assert _max_difference(batch[0], first[0]) <= 2 and _max_difference(batch[1], other[0]) <= 2
    assert _max_difference(first[0], other[0]) > 50  # (a batch's arithmetic may differ in the last bit)


def _max_difference(a: bytes, b: bytes) -> int:
    with Image.open(io.BytesIO(a)) as first, Image.open(io.BytesIO(b)) as second:
        pixels = zip(first.convert("RGB").tobytes(), second.convert("RGB").tobytes(), strict=True)
        return max(abs(x - y) for x, y in pixels)


def test_concurrent_calls_run_one_at_a_time_and_match_sequential_ones(generator):
    async def three() -> list[list[bytes]]:
        requests = [ImageRequest(prompt="a prism", seed=s, steps=2, size=(64, 64)) for s in (1, 2, 3)]
        responses = await asyncio.gather(*(generator.generate(r) for r in requests))
        return [[image.data for image in r.images] for r in responses]

    together = asyncio.run(three())
    alone = [
        [
            i.data
            for i in asyncio.run(
                generator.generate(ImageRequest(prompt="a prism", seed=s, steps=2, size=(64, 64)))
            ).images
        ]
        for s in (1, 2, 3)
    ]
    assert together == alone


def _input_png(size: tuple[int, int] = (64, 64)) -> bytes:
    image = Image.new("RGB", size, "white")
    for x in range(8, 40):
        for y in range(20, 28):
            image.putpixel((x, y), (20, 20, 200))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def test_a_text_to_image_folder_also_edits_from_the_same_weights(generator):
    request = ImageRequest(prompt="draw the reflected ray", image=_input_png(), seed=3, steps=2)
    first = asyncio.run(generator.edit(request))
    again = asyncio.run(generator.edit(request))
    assert [_png_size(i.data) for i in first.images] == [(64, 64)]
    assert first.images[0].data == again.images[0].data
    assert type(generator._pipes["img2img"]).__name__ == "StableDiffusionImg2ImgPipeline"
    assert generator._pipes["img2img"].unet is generator._pipes["text2img"].unet  # nothing loaded twice

    mask = Image.new("L", (64, 64), 0)
    mask.paste(255, (0, 0, 32, 64))
    buffer = io.BytesIO()
    mask.save(buffer, format="PNG")
    inpainted = asyncio.run(
        generator.edit(ImageRequest(prompt="a mirror", image=_input_png(), mask=buffer.getvalue(), seed=3, steps=2))
    )
    assert _png_size(inpainted.images[0].data) == (64, 64)
    assert type(generator._pipes["inpaint"]).__name__ == "StableDiffusionInpaintPipeline"


def test_an_image_to_image_folder_edits_and_refuses_to_generate(folders):
    editor = load_generator("diffusers:" + str(folders["img2img"]))
    caps = editor.capabilities()
    assert caps["generate"].startswith("no: ") and caps["edit"] == "yes: image-to-image"
    with pytest.raises(GeneratorError, match="cannot generate from a prompt alone"):
        asyncio.run(editor.generate(ImageRequest(prompt="a lens")))
    response = asyncio.run(
        editor.edit(ImageRequest(prompt="bend the straw", image=_input_png((80, 48)), size=(64, 64), seed=1, steps=2))
    )
    assert _png_size(response.images[0].data) == (64, 64)


def test_the_image_solver_generates_for_prompts_and_edits_items_with_an_image(generator, tmp_path):
    items = tmp_path / "items"
    (items / "images").mkdir(parents=True)
    (items / "images" / "diagram.png").write_bytes(_input_png())
    prompt_item = Item(
        id="g1~1",
        benchmark="gobench",
        category="direct_light_images",
        question="Is the shadow consistent with the light?",
        answer="",
        answer_type="image",
        meta={"prompt": "a lamp and a cube casting a shadow", "sample": 1},
    )
    edit_item = Item(
        id="o1",
        benchmark="omniphys",
        category="optics",
        question="Draw the refracted ray.",
        images=["images/diagram.png"],
        answer="",
        answer_type="image",
        meta={},
    )
    solver = ImageSolver(generator, "diffusers", ImageOptions(seed=40, steps=2, size=(64, 64)))
    described = solver.describe()
    assert described["kind"] == "image" and described["generator"] == generator.spec
    assert described["seed"] == 40 and described["size"] == "64x64"
    blobs = BlobStore(tmp_path / "run" / "blobs")

    generated, trace = asyncio.run(solver.solve(prompt_item, items, blobs))
    assert generated.status == "ok", generated.error
    assert generated.image_meta[0]["seed"] == 41  # options.seed + meta.sample
    path = tmp_path / "run" / generated.text
    assert _png_size(path.read_bytes()) == (64, 64)
    assert trace.steps[0].text == "a lamp and a cube casting a shadow" and trace.steps[0].sampling == {"seed": 41}
    assert trace.steps[0].arguments["operation"] == "generate"
    direct = asyncio.run(generator.generate(ImageRequest(prompt=trace.steps[0].text, seed=41, steps=2, size=(64, 64))))
    assert direct.images[0].data == path.read_bytes()

    edited, trace = asyncio.run(solver.solve(edit_item, items, blobs))
    assert edited.status == "ok", edited.error
    assert trace.steps[0].text == "Draw the refracted ray."
    assert trace.steps[0].arguments == {
        "operation": "edit",
        "n": 1,
        "seed": 40,
        "steps": 2,
        "size": "64x64",
        "input_image": "images/diagram.png",
    }
    record = edited.to_record()
    assert record["image"] == edited.text == record["images"][0] and record["image_meta"][0]["seed"] == 40
