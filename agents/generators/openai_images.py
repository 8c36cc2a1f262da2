"""`openai-image:MODEL`: the OpenAI Images API (generations and edits), images returned as base64 PNG.

Retries, Retry-After, key hygiene and the wire's limits are those of the chat backends: the SDK's own retries
are off and every retry goes through `mcot.agents.retry.call_with_retries` with the OpenAI failure
classification, noted for the trace; the key comes from OPENAI_API_KEY only (one with a control character is
refused) and is scrubbed from every error; each request has one whole-request time-out; redirects are not
followed and bodies are bounded (`mcot.agents.backends.sdk_http`). `--base-url` (or OPENAI_BASE_URL, with /v1)
points the client at another server. The cost comes from prices.json's image table.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import os
from typing import Any

import openai
from mcot.agents.backends.base import UnusableUsage, check_key, checked_usage, redactor
from mcot.agents.backends.loop_clients import LoopClients
from mcot.agents.backends.openai_chat import UnparsableResponse, classify_openai_error
from mcot.agents.backends.sdk_http import sdk_http_client
from mcot.agents.backends.wire_failures import RequestTimedOut
from mcot.agents.backends.wire_limits import WireLimits, wire_limits
from mcot.agents.endpoints import scrub_url_secrets, url_secrets
from mcot.agents.errors import ModelError, ModelSpecError
from mcot.agents.generators.base import (
    GeneratedImage,
    GeneratorError,
    ImageRequest,
    ImageResponse,
    as_png,
    size_text,
)
from mcot.agents.messages import sniff_media_type
from mcot.agents.pricing import image_cost_usd
from mcot.agents.retry import RetryPolicy, call_with_retries

_ALWAYS_BASE64 = ("gpt-image", "chatgpt-image")
"""Models that always answer base64 and refuse `response_format`; every other model is asked for b64_json."""

_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


class OpenAIImagesGenerator:
    """The Images API as an ImageGenerator: `images.generate` for prompts, `images.edit` for input images."""

    provider = "openai-image"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 600.0,
        retry: RetryPolicy | None = None,
        limits: WireLimits | None = None,
    ) -> None:
        self.model = model
        self.spec = f"{self.provider}:{model}"
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL")
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            raise ModelSpecError(f"{self.spec} needs an API key: set OPENAI_API_KEY")
        self._key = check_key(key, "the API key" if api_key else "OPENAI_API_KEY")
        secrets = redactor(key, *url_secrets([self.base_url] if self.base_url else []))
        self._redact = lambda text: secrets(scrub_url_secrets(text))
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self.limits = limits or wire_limits()
        self._clients = LoopClients(self._new_client)

    def _new_client(self) -> openai.AsyncOpenAI:
        http = sdk_http_client(openai.DefaultAsyncHttpxClient, self.limits, timeout=self.timeout_s)
        return openai.AsyncOpenAI(
            api_key=self._key, base_url=self.base_url, max_retries=0, timeout=self.timeout_s, http_client=http
        )

    def endpoints(self) -> tuple[str, ...]:
        """Return the URL this generator calls (the pre-flight check probes it before a command writes anything)."""
        return (self.base_url or "https://api.openai.com/v1",)

    def redact(self, text: str) -> str:
        """Return text without the key, URL credentials or anything shaped like a key."""
        return self._redact(text)

    def _client(self) -> openai.AsyncOpenAI:
        return self._clients.get()

    def capabilities(self) -> dict[str, str]:
        """Return what the Images API does with each part of a request."""
        return {
            "generate": "yes",
            "edit": "yes: the edits endpoint (a mask when given)",
            "seed": "not supported: the Images API takes no seed",
            "steps": "ignored: the Images API takes no step count",
            "guidance": "ignored: the Images API takes no guidance scale",
            "size": "sent as WxH (the model decides which sizes it accepts)",
        }

    def build_params(self, request: ImageRequest) -> dict[str, Any]:
        """Return the keyword arguments of `images.generate` (and, with the files, `images.edit`)."""
        params: dict[str, Any] = {"model": self.model, "prompt": request.prompt, "n": max(int(request.n), 1)}
        if request.size is not None:
            params["size"] = size_text(request.size)
        if not self.model.startswith(_ALWAYS_BASE64):
            params["response_format"] = "b64_json"
        return params

    async def generate(self, request: ImageRequest) -> ImageResponse:
        """Return the images the generations endpoint makes from the prompt."""
        params = self.build_params(request)
        return await self._call(lambda client: client.images.generate(**params), params)

    async def edit(self, request: ImageRequest) -> ImageResponse:
        """Return the edits endpoint's changes of the input image (multipart upload, a mask when given)."""
        if request.image is None:
            raise GeneratorError(f"{self.spec}: an edit needs an input image")
        params = self.build_params(request)
        files: dict[str, Any] = {"image": _upload("image", request.image)}
        if request.mask is not None:
            files["mask"] = _upload("mask", request.mask)
        return await self._call(lambda client: client.images.edit(**params, **files), params)

    async def _call(self, send: Any, params: dict[str, Any]) -> ImageResponse:
        notes: list[dict[str, Any]] = []

        async def attempt() -> Any:
            try:
                async with asyncio.timeout(self.timeout_s):
                    response = await send(self._client())
            except TimeoutError:
                raise RequestTimedOut(self.timeout_s, self.base_url) from None
            if not getattr(response, "data", None):
                raise UnparsableResponse("the response has no images")
            return response

        try:
            response = await call_with_retries(attempt, classify_openai_error, self.retry, notes, self._redact)
        except ModelError as exc:
            raise GeneratorError(self._redact(str(exc)), status=exc.status, retries=exc.retries) from None
        return self._parse(response, params, notes)

    def _parse(self, response: Any, params: dict[str, Any], notes: list[dict[str, Any]]) -> ImageResponse:
        images = []
        for entry in response.data:
            encoded = getattr(entry, "b64_json", None)
            if not encoded:
                raise GeneratorError(
                    f"{self.spec}: the server answered with an image URL, not base64 data; "
                    "mcot asks for b64_json and downloads nothing"
                )
            try:
                data = as_png(base64.b64decode(encoded, validate=True))
            except (binascii.Error, ValueError, OSError) as exc:
                raise GeneratorError(f"{self.spec}: an image in the response cannot be decoded: {exc}") from None
            meta: dict[str, Any] = {}
            if getattr(entry, "revised_prompt", None):
                meta["revised_prompt"] = entry.revised_prompt
            images.append(GeneratedImage(data, meta))
        usage_tokens = _dump(getattr(response, "usage", None))
        if usage_tokens:
            try:
                checked_usage(
                    input_tokens=usage_tokens.get("input_tokens"), output_tokens=usage_tokens.get("output_tokens")
                )
            except UnusableUsage as exc:
                raise GeneratorError(f"{self.spec}: {exc}") from None
        cost = image_cost_usd(
            self.provider,
            self.model,
            len(images),
            size=getattr(response, "size", None) or params.get("size"),
            quality=getattr(response, "quality", None),
            usage=usage_tokens,
        )
        usage: dict[str, Any] = {"images": len(images), "cost_usd": cost}
        if usage_tokens:
            usage["tokens"] = usage_tokens
        return ImageResponse(tuple(images), usage, notes)


def _upload(name: str, data: bytes) -> tuple[str, bytes, str]:
    """Return an SDK file tuple (file name, bytes, media type) for a multipart upload."""
    media = sniff_media_type(data)
    return (f"{name}.{_EXTENSIONS.get(media, 'png')}", data, media)


def _dump(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if hasattr(value, "model_dump"):
        return value.model_dump(exclude_none=True)
    return dict(value) if isinstance(value, dict) else None
