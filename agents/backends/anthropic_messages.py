"""Anthropic Messages backend (`anthropic:MODEL`): base64 image blocks, tool use, images in tool results."""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import Sequence
from functools import cache
from typing import Any

import anthropic
from mcot.agents.backends.base import (
    ModelRequest,
    ModelResponse,
    SchemaFlavor,
    UnparsableResponse,
    Usage,
    redactor,
    request_url,
    sent_sampling,
)
from mcot.agents.backends.loop_clients import LoopClients
from mcot.agents.endpoints import Endpoint, EndpointPool, endpoint_urls, scrub_userinfo, url_secrets
from mcot.agents.errors import ModelError, ModelSpecError
from mcot.agents.messages import ImagePart, Message, TextPart, ToolCall, ToolResultPart
from mcot.agents.retry import Failure, RetryPolicy, call_with_retries, retry_after_seconds, status_is_retryable

ANTHROPIC_MAX_TEMPERATURE = 1.0
"""The Messages API takes temperatures from 0 to 1; a judge's raised retry temperature is clamped to it."""


class AnthropicBackend:
    """The Messages API with mcot's own retries (the SDK's are off); it sends temperature, never a seed.

    Given several base URLs each attempt goes to one picked by an `EndpointPool` (`endpoint_counts()`).
    """

    provider = "anthropic"
    schema_flavor: SchemaFlavor = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | Sequence[str] | None = None,
        api_key: str | None = None,
        timeout_s: float = 180.0,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.model = model
        self.spec = f"anthropic:{model}"
        self.base_urls = endpoint_urls(base_url) or endpoint_urls(os.environ.get("ANTHROPIC_BASE_URL"))
        self.base_url = self.base_urls[0] if self.base_urls else None
        key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise ModelSpecError(f"{self.spec} needs an API key: set ANTHROPIC_API_KEY")
        self._key = key
        secrets = redactor(key, *url_secrets(self.base_urls))
        self._redact = lambda text: secrets(scrub_userinfo(text))
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self._clients = LoopClients(
            lambda: anthropic.AsyncAnthropic(api_key=key, base_url=self.base_url, max_retries=0, timeout=timeout_s)
        )
        self._pool: EndpointPool | None = None
        if len(self.base_urls) > 1:
            self._pool = EndpointPool(self.base_urls)
            self._endpoint_clients = {
                url: LoopClients(
                    lambda url=url: anthropic.AsyncAnthropic(
                        api_key=key, base_url=url, max_retries=0, timeout=timeout_s
                    )
                )
                for url in self.base_urls
            }

    def _client(self) -> anthropic.AsyncAnthropic:
        return self._clients.get()

    def endpoint_counts(self) -> dict[str, dict[str, int]]:
        """Return per base URL (userinfo removed) the requests, ok, failed and rested counts; {} with one URL."""
        return self._pool.counts() if self._pool is not None else {}

    def sampling_support(self) -> dict[str, str]:
        """Return whether temperature and seed are sent: the Messages API has no seed."""
        temperature = (
            "sent"
            if _accepts_temperature()
            else f"not sent: the installed SDK (anthropic {anthropic.__version__}) has no temperature argument"
        )
        return {"temperature": temperature, "seed": "not supported by the Anthropic Messages API"}

    def build_params(self, request: ModelRequest) -> dict[str, Any]:
        """Return the keyword arguments of `messages.create` for a request (a seed is not among them)."""
        system, messages = to_anthropic_messages(request.messages)
        params: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "max_tokens": request.max_tokens,
        }
        if _accepts_temperature():
            params["temperature"] = min(request.temperature, ANTHROPIC_MAX_TEMPERATURE)  # the API refuses more
        if system:
            params["system"] = system
        if request.tools is not None and request.tools.names:
            params["tools"] = request.tools.schemas(self.schema_flavor)
        return params

    async def generate(self, request: ModelRequest) -> ModelResponse:
        """Return the model's next turn; retries are noted in the response."""
        params = self.build_params(request)
        notes: list[dict[str, Any]] = []

        if self._pool is None:

            async def attempt() -> Any:
                return _usable(await self._client().messages.create(**params))

        else:

            async def on_endpoint(endpoint: Endpoint) -> Any:
                return _usable(await self._endpoint_clients[endpoint.url].get().messages.create(**params))

            attempt = self._pool.attempts(on_endpoint, classify_anthropic_error)

        sampling = sent_sampling(params)
        try:
            reply = await call_with_retries(attempt, classify_anthropic_error, self.retry, notes, self._redact)
        except ModelError as exc:
            exc.sampling = sampling
            raise
        texts: list[str] = []
        calls: list[ToolCall] = []
        for block in reply.content or []:
            if block.type == "text":
                texts.append(block.text)
            elif block.type == "tool_use":
                calls.append(ToolCall(id=block.id, name=block.name, arguments=json.dumps(block.input)))
        usage = reply.usage
        return ModelResponse(
            text="\n".join(texts),
            tool_calls=tuple(calls),
            usage=Usage(int(getattr(usage, "input_tokens", 0) or 0), int(getattr(usage, "output_tokens", 0) or 0)),
            stop_reason=reply.stop_reason,
            retries=tuple(notes),
            sampling=sampling,
        )


@cache
def _accepts_temperature() -> bool:
    """Return whether the installed SDK's `messages.create` takes `temperature` (newer API versions do not)."""
    from anthropic.resources.messages import AsyncMessages

    return "temperature" in inspect.signature(AsyncMessages.create).parameters


def _usable(reply: Any) -> Any:
    """Return a reply that holds text or a tool call; raise UnparsableResponse for an empty one."""
    for block in getattr(reply, "content", None) or []:
        if (block.type == "text" and block.text) or block.type == "tool_use":
            return reply
    raise UnparsableResponse("the response has neither text nor tool calls")


def classify_anthropic_error(exc: BaseException) -> Failure | None:
    """Return how an exception from the Anthropic SDK should be handled (None: not a provider failure)."""
    if isinstance(exc, anthropic.APIStatusError):
        status = exc.status_code
        headers = getattr(getattr(exc, "response", None), "headers", None)
        message = " ".join(str(exc.message).split())[:300]
        return Failure(
            status_is_retryable(status),
            f"HTTP {status}: {message}",
            status,
            retry_after_seconds(headers),
            overloaded=_error_type(exc) == "overloaded_error",
        )
    if isinstance(exc, anthropic.APITimeoutError):
        return Failure(True, f"request timed out{request_url(exc)}", unreachable=True)
    if isinstance(exc, anthropic.APIConnectionError):
        return Failure(True, f"connection error{request_url(exc)}", unreachable=True)
    if isinstance(exc, anthropic.APIResponseValidationError | UnparsableResponse | json.JSONDecodeError):
        return Failure(True, f"unparsable response: {str(exc)[:200]}")
    return None


def _error_type(exc: Any) -> str | None:
    """Return the `error.type` of an Anthropic error body (`overloaded_error`, `rate_limit_error`…), if any."""
    body = getattr(exc, "body", None)
    error = body.get("error") if isinstance(body, dict) else None
    return error.get("type") if isinstance(error, dict) else None


def _image_block(image: ImagePart) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": image.media_type, "data": image.b64}}


def to_anthropic_messages(messages: Sequence[Message]) -> tuple[str, list[dict[str, Any]]]:
    """Return (system text, messages) in the Messages wire format; tool_result blocks lead each user turn."""
    system: list[str] = []
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            system.append(message.text)
            continue
        content: list[dict[str, Any]] = []
        if message.role == "assistant":
            if message.text:
                content.append({"type": "text", "text": message.text})
            for call in message.tool_calls:
                content.append(
                    {"type": "tool_use", "id": call.id, "name": call.name, "input": call.parsed_arguments() or {}}
                )
        else:
            for part in message.parts:
                if isinstance(part, ToolResultPart):
                    inner: list[dict[str, Any]] = [{"type": "text", "text": part.text or "(no output)"}]
                    inner.extend(_image_block(image) for image in part.images)
                    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": part.call_id, "content": inner}
                    if part.is_error:
                        block["is_error"] = True
                    content.append(block)
                elif isinstance(part, TextPart):
                    if part.text:
                        content.append({"type": "text", "text": part.text})
                else:
                    content.append(_image_block(part))
        if not content:
            content.append({"type": "text", "text": "(empty)"})
        out.append({"role": message.role, "content": content})
    return "\n\n".join(system), out
