"""The `openai-image:MODEL` generator against a local Images API server, driven by the real OpenAI SDK."""

from __future__ import annotations

import asyncio
import io
import json

import pytest
from mcot.agents import GeneratorError, ImageOptions, ImageRequest, ImageSolver, ModelSpecError, load_generator
from PIL import Image

from mcot.core.item import Item
from mcot.core.rundir import MemoryBlobs
from mcot.testing.fake_provider import Fail, FakeProvider, ImageReply, solid_png

GPT_IMAGE_USAGE = {
    "input_tokens": 60,
    "input_tokens_details": {"text_tokens": 20, "image_tokens": 40},
    "output_tokens": 1056,
    "total_tokens": 1116,
}


def _headers(request) -> dict[str, str]:
    return {name.lower(): value for name, value in request.headers.items()}


def _size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(io.BytesIO(data)) as image:
        return image.size


def test_generation_sends_the_request_and_returns_pngs_with_their_cost(keys):
    script = [ImageReply(2, revised_prompt="a torch lighting a cube", size="1792x1024")]
    with FakeProvider(script) as server:
        generator = load_generator("openai-image:dall-e-3", base_url=server.openai_url)
        response = asyncio.run(generator.generate(ImageRequest(prompt="a torch and a cube", n=2, size=(1792, 1024))))
        sent = server.requests

    assert [r.path for r in sent] == ["/v1/images/generations"]
    assert sent[0].body == {
        "model": "dall-e-3",
        "prompt": "a torch and a cube",
        "n": 2,
        "size": "1792x1024",
        "response_format": "b64_json",
    }
    assert [image.data for image in response.images] == [solid_png(0), solid_png(1)]
    assert response.images[0].meta == {"revised_prompt": "a torch lighting a cube"}
    assert response.usage == {"images": 2, "cost_usd": pytest.approx(0.16)}  # 2 × $0.08 (standard, 1792x1024)
    assert response.retries == []
    caps = generator.capabilities()
    assert caps["seed"].startswith("not supported") and caps["edit"].startswith("yes")


def test_gpt_image_models_are_not_asked_for_a_format_and_cost_by_tokens(keys):
    with FakeProvider([ImageReply(1, usage=GPT_IMAGE_USAGE, quality="medium", size="1024x1024")]) as server:
        generator = load_generator("openai-image:gpt-image-1", base_url=server.openai_url)
        response = asyncio.run(generator.generate(ImageRequest(prompt="a straw in water", seed=5, steps=9)))
        body = server.requests[0].body

    assert body == {"model": "gpt-image-1", "prompt": "a straw in water", "n": 1}  # no seed, steps or format
    expected = (20 * 5.0 + 40 * 10.0 + 1056 * 40.0) / 1e6
    assert response.usage["cost_usd"] == pytest.approx(expected)
    assert response.usage["tokens"]["output_tokens"] == 1056


def test_an_unpriced_model_costs_none(keys):
    with FakeProvider([ImageReply(1)]) as server:
        generator = load_generator("openai-image:imagine-9000", base_url=server.openai_url)
        response = asyncio.run(generator.generate(ImageRequest(prompt="a rainbow")))
    assert response.usage == {"images": 1, "cost_usd": None}


def test_edit_uploads_the_image_and_mask_as_multipart(keys):
    source = solid_png(5, (48, 40))
    mask = solid_png(6, (48, 40))
    with FakeProvider([ImageReply(1)]) as server:
        generator = load_generator("openai-image:gpt-image-1", base_url=server.openai_url)
        response = asyncio.run(
            generator.edit(ImageRequest(prompt="draw the normal", image=source, mask=mask, size=(1024, 1024)))
        )
        request = server.requests[0]

    assert request.path == "/v1/images/edits"
    assert _headers(request)["content-type"].startswith("multipart/form-data")
    body = request.body
    assert body["prompt"] == "draw the normal" and body["model"] == "gpt-image-1"
    assert body["n"] == "1" and body["size"] == "1024x1024" and "response_format" not in body
    assert body["image"] == {"filename": "image.png", "content_type": "image/png", "data": source}
    assert body["mask"]["data"] == mask
    assert _size(response.images[0].data) == (32, 32)


def test_a_jpeg_input_is_sent_as_jpeg_and_a_jpeg_answer_comes_back_as_png(keys):
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), "orange").save(buffer, format="JPEG")
    jpeg = buffer.getvalue()
    with FakeProvider([ImageReply([jpeg])]) as server:
        generator = load_generator("openai-image:gpt-image-1", base_url=server.openai_url)
        response = asyncio.run(generator.edit(ImageRequest(prompt="add a mirror", image=jpeg)))
        body = server.requests[0].body
    assert body["image"]["content_type"] == "image/jpeg" and body["image"]["filename"] == "image.jpg"
    assert _size(response.images[0].data) == (40, 30)


def test_a_429_with_retry_after_is_waited_out_once_then_succeeds(keys, quick_retry, fake_sleep):
    script = [Fail(429, headers={"Retry-After": "2"}, message="slow down"), ImageReply(1)]
    with FakeProvider(script) as server:
        generator = load_generator("openai-image:gpt-image-1", base_url=server.openai_url, retry=quick_retry)
        response = asyncio.run(generator.generate(ImageRequest(prompt="a periscope")))
        count = len(server.requests)

    assert count == 2 and fake_sleep.waits == [2.0]
    assert len(response.images) == 1
    [note] = response.retries
    assert note["attempt"] == 1 and note["status"] == 429 and note["wait_s"] == 2.0
    assert note["error"].startswith("HTTP 429") and "slow down" in note["error"]


def test_a_400_fails_at_once_and_the_tries_are_bounded(keys, quick_retry, fake_sleep):
    with FakeProvider([Fail(400, message="size not supported")]) as server:
        generator = load_generator("openai-image:dall-e-2", base_url=server.openai_url, retry=quick_retry)
        with pytest.raises(GeneratorError, match=r"HTTP 400: .*size not supported") as caught:
            asyncio.run(generator.generate(ImageRequest(prompt="x", size=(100, 100))))
        assert len(server.requests) == 1 and caught.value.status == 400

    with FakeProvider([], default=Fail(503)) as server:
        generator = load_generator("openai-image:dall-e-2", base_url=server.openai_url, retry=quick_retry)
        with pytest.raises(GeneratorError, match="after 4 tries") as caught:
            asyncio.run(generator.generate(ImageRequest(prompt="x")))
        assert len(server.requests) == 4 and len(caught.value.retries) == 3


def test_an_answer_with_urls_is_refused_without_downloading(keys):
    with FakeProvider([ImageReply(1, as_url=True)]) as server:
        generator = load_generator("openai-image:dall-e-3", base_url=server.openai_url)
        with pytest.raises(GeneratorError, match="image URL, not base64"):
            asyncio.run(generator.generate(ImageRequest(prompt="x")))
        assert len(server.requests) == 1


def test_the_key_comes_from_the_environment_and_openai_base_url_is_honoured(keys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ModelSpecError, match="needs an API key: set OPENAI_API_KEY"):
        load_generator("openai-image:gpt-image-1")
    monkeypatch.setenv("OPENAI_API_KEY", keys["OPENAI_API_KEY"])
    with FakeProvider([ImageReply(1)]) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_url)
        generator = load_generator("openai-image:gpt-image-1")
        asyncio.run(generator.generate(ImageRequest(prompt="x")))
        assert _headers(server.requests[0])["authorization"] == f"Bearer {keys['OPENAI_API_KEY']}"


def _items(tmp_path) -> tuple[list[Item], object]:
    root = tmp_path / "items"
    (root / "images").mkdir(parents=True)
    (root / "images" / "diagram.png").write_bytes(solid_png(9, (64, 48)))
    generate = Item(
        id="s1",
        benchmark="gobench",
        category="reflect_light_images",
        question="Is the reflection consistent?",
        answer="",
        answer_type="image",
        meta={"prompt": "a cup in front of a plane mirror", "sample": 2},
    )
    edit = Item(
        id="d1",
        benchmark="omniphys",
        category="optics",
        question="Draw the ray reflected by the mirror.",
        images=["images/diagram.png"],
        answer="",
        answer_type="image",
    )
    return [generate, edit], root


def test_the_image_solver_generates_and_edits_and_the_key_stays_in_the_header(keys, tmp_path, quick_retry):
    (generate_item, edit_item), root = _items(tmp_path)
    key = keys["OPENAI_API_KEY"]
    script = [Fail(429, headers={"Retry-After": "1"}, message=f"bad key {key}"), ImageReply(1), ImageReply(1)]
    blobs = MemoryBlobs()
    with FakeProvider(script) as server:
        generator = load_generator("openai-image:gpt-image-1", base_url=server.openai_url, retry=quick_retry)
        solver = ImageSolver(generator, "openai-image", ImageOptions(seed=10, size=(1024, 1024)))
        generated, generated_trace = asyncio.run(solver.solve(generate_item, root, blobs))
        edited, edited_trace = asyncio.run(solver.solve(edit_item, root, blobs))
        requests = server.requests

    assert generated.status == "ok" and edited.status == "ok"
    assert [r.path for r in requests] == ["/v1/images/generations"] * 2 + ["/v1/images/edits"]
    assert requests[1].body["prompt"] == "a cup in front of a plane mirror"
    assert requests[2].body["prompt"] == "Draw the ray reflected by the mirror."
    assert requests[2].body["image"]["data"] == (root / "images" / "diagram.png").read_bytes()

    record = generated.to_record()
    assert record["prediction"] == record["image"] == record["images"][0]
    assert record["image"].startswith("blobs/") and record["image"].endswith(".png")
    assert blobs.data[record["image"].removeprefix("blobs/")] == solid_png(0)
    assert record["usage"]["input_tokens"] == 0 and record["usage"]["cost_usd"] is None  # no usage, no quality
    step = generated_trace.steps[0]
    assert step.kind == "model" and step.image == record["image"]
    assert step.sampling == {}  # the Images API takes no seed
    assert step.retries and step.retries[0]["status"] == 429

    described = json.dumps(solver.describe())
    lines = "\n".join(generated_trace.to_lines() + edited_trace.to_lines())
    records = json.dumps([generated.to_record(), edited.to_record()])
    for text in (described, lines, records):
        assert key not in text
    assert "bad key ***" in lines
    for request in requests:
        assert key.encode() not in request.raw
        others = {name: value for name, value in request.headers.items() if name.lower() != "authorization"}
        assert key not in json.dumps(others)
        assert _headers(request)["authorization"] == f"Bearer {key}"


def test_failures_come_back_as_an_error_status_never_raised(keys, tmp_path, quick_retry):
    (generate_item, edit_item), root = _items(tmp_path)
    (root / "images" / "diagram.png").unlink()
    with FakeProvider([Fail(401, message="invalid api key")]) as server:
        generator = load_generator("openai-image:gpt-image-1", base_url=server.openai_url, retry=quick_retry)
        solver = ImageSolver(generator, "openai-image")
        failed, trace = asyncio.run(solver.solve(generate_item, root, MemoryBlobs()))
        missing, _ = asyncio.run(solver.solve(edit_item, root, MemoryBlobs()))
        assert len(server.requests) == 1

    assert failed.status == "error" and "HTTP 401" in failed.error and "invalid api key" in failed.error
    assert failed.text == "" and failed.images == [] and "image" not in failed.to_record()
    assert trace.steps[0].error == failed.error
    assert missing.status == "error" and "FileNotFoundError" in missing.error and missing.steps == 0
