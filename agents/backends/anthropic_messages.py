"""Anthropic Messages backend (`anthropic:MODEL`): base64 image blocks, tool use, images in tool results."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
from collections.abc import Awaitable, Callable, Sequence
from functools import cache, partial
from typing import Any

import anthropic
from mcot.agents.backends.base import (
    EmptyAnswers,
    ModelRequest,
    ModelResponse,
    SchemaFlavor,
    UnparsableResponse,
    check_key,
    checked_usage,
    redactor,
    request_url,
    sent_sampling,
)
from mcot.agents.backends.loop_clients import LoopClients
from mcot.agents.backends.sdk_http import sdk_http_client
from mcot.agents.backends.wire_failures import (
    RequestTimedOut,
    classify_response_error,
    connection_failure,
    status_failure,
)
from mcot.agents.backends.wire_limits import WireLimits, wire_limits
from mcot.agents.endpoints import Endpoint, EndpointPool, endpoint_urls, scrub_url_secrets, url_secrets
from mcot.agents.errors import ModelError, ModelSpecError
from mcot.agents.messages import ImagePart, Message, TextPart, ToolCall, ToolResultPart
from mcot.agents.retry import Failure, RetryPolicy, call_with_retries

ANTHROPIC_MAX_TEMPERATURE = 1.0
"""The Messages API takes temperatures from 0 to 1; a judge's raised retry temperature is clamped to it."""

ANTHROPIC_DEFAULT_URL = "https://api.anthropic.com"
"""Where the SDK sends requests when no base URL is given (what the run's check before it starts probes)."""


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
        limits: WireLimits | None = None,
    ) -> None:
        self.model = model
        self.spec = f"anthropic:{model}"
        self.base_urls = endpoint_urls(base_url) or endpoint_urls(os.environ.get("ANTHROPIC_BASE_URL"))
        self.base_url = self.base_urls[0] if self.base_urls else None
        key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise ModelSpecError(f"{self.spec} needs an API key: set ANTHROPIC_API_KEY")
        self._key = check_key(key, "the API key" if api_key else "ANTHROPIC_API_KEY")
        secrets = redactor(key, *url_secrets(self.base_urls))
        self._redact: Callable[[str], str] = lambda text: secrets(scrub_url_secrets(text))
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self.limits = limits or wire_limits()
        self._clients = LoopClients(lambda: self._new_client(self.base_url))
        self._pool: EndpointPool | None = None
        if len(self.base_urls) > 1:
            self._pool = EndpointPool(self.base_urls)
            self._endpoint_clients = {url: LoopClients(partial(self._new_client, url)) for url in self.base_urls}

    def _new_client(self, url: str | None) -> anthropic.AsyncAnthropic:
        http = sdk_http_client(anthropic.DefaultAsyncHttpxClient, self.limits, timeout=self.timeout_s)
        return anthropic.AsyncAnthropic(
            api_key=self._key, base_url=url, max_retries=0, timeout=self.timeout_s, http_client=http
        )

    def _client(self) -> anthropic.AsyncAnthropic:
        return self._clients.get()

    def redact(self, text: str) -> str:
        """Return text without the key, URL credentials or anything shaped like a key."""
        return self._redact(text)

    def endpoints(self) -> tuple[str, ...]:
        """Return the base URLs requests go to (Anthropic's own when none is set), for the check before a run."""
        return self.base_urls or (ANTHROPIC_DEFAULT_URL,)

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
        empty = EmptyAnswers(retry=self.retry.max_tries > 1)

        async def attempt_on(client: anthropic.AsyncAnthropic, url: str | None) -> ModelResponse:
            try:
                async with asyncio.timeout(self.timeout_s):
                    reply = await client.messages.create(**params)
            except TimeoutError:
                raise RequestTimedOut(self.timeout_s, url) from None
            return _parse(reply, empty)

        attempt: Callable[[], Awaitable[ModelResponse]]
        if self._pool is None:

            async def attempt() -> ModelResponse:
                return await attempt_on(self._client(), self.base_url)

        else:

            async def on_endpoint(endpoint: Endpoint) -> ModelResponse:
                return await attempt_on(self._endpoint_clients[endpoint.url].get(), endpoint.public_url)

            attempt = self._pool.attempts(on_endpoint, classify_anthropic_error)

        sampling = sent_sampling(params)
        try:
            response = await call_with_retries(attempt, classify_anthropic_error, self.retry, notes, self._redact)
        except ModelError as exc:
            exc.sampling = sampling
            raise
        return ModelResponse(
            text=response.text,
            tool_calls=response.tool_calls,
            usage=response.usage,
            stop_reason=response.stop_reason,
            retries=tuple(notes),
            sampling=sampling,
        )


@cache
def _accepts_temperature() -> bool:
    """Return whether the installed SDK's `messages.create` takes `temperature` (newer API versions do not)."""
    from anthropic.resources.messages import AsyncMessages

    return "temperature" in inspect.signature(AsyncMessages.create).parameters


def _parse(reply: Any, empty: EmptyAnswers) -> ModelResponse:
    """Return the turn a Messages reply holds; raise UnparsableResponse, EmptyAnswer or UnusableUsage if unusable."""
    content = getattr(reply, "content", None)
    if not isinstance(content, list):
        raise UnparsableResponse("the response has no content")
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in content:
        kind = getattr(block, "type", None)
        if kind == "text" and isinstance(getattr(block, "text", None), str):
            texts.append(block.text)
        elif kind == "tool_use":
            calls.append(_tool_use(block, len(calls) + 1))
    text = "\n".join(t for t in texts if t)
    stop_reason = getattr(reply, "stop_reason", None)
    stop_reason = stop_reason if isinstance(stop_reason, str) and stop_reason else None
    if not text and not calls:
        if stop_reason is None:
            raise UnparsableResponse("the response has neither text nor tool calls nor a stop reason")
        empty.check(stop_reason)
    usage = getattr(reply, "usage", None)
    return ModelResponse(
        text=text,
        tool_calls=tuple(calls),
        usage=checked_usage(
            input_tokens=getattr(usage, "input_tokens", None), output_tokens=getattr(usage, "output_tokens", None)
        ),
        stop_reason=stop_reason,
    )


def _tool_use(block: Any, index: int) -> ToolCall:
    """Return a tool_use block as a ToolCall; an `input` that is not an object is a call answered with an error."""
    call_id = getattr(block, "id", None)
    name = getattr(block, "name", None)
    value = getattr(block, "input", None)
    problem = None
    try:
        arguments = json.dumps(value, default=str)
    except (ValueError, RecursionError):
        arguments, problem = "", "they are nested too deeply to read"
    if problem is None and not isinstance(value, dict):
        problem = f"they came as a JSON {type(value).__name__} where the Messages API wants an object"
    return ToolCall(
        id=call_id if isinstance(call_id, str) and call_id else f"toolu_{index}",
        name=name if isinstance(name, str) else "",
        arguments=arguments,
        problem=problem,
    )


def classify_anthropic_error(exc: BaseException) -> Failure | None:
    """Return how an exception from the Anthropic SDK should be handled (None: not a provider failure)."""
    if isinstance(exc, anthropic.APIStatusError):
        return status_failure(exc, overloaded=_error_type(exc) == "overloaded_error")
    if isinstance(exc, anthropic.APITimeoutError):
        return Failure(True, f"request timed out{request_url(exc)}", unreachable=True)
    if isinstance(exc, anthropic.APIConnectionError):
        return connection_failure(exc)
    if isinstance(exc, anthropic.APIResponseValidationError):
        return Failure(True, f"unparsable response: {exc}")
    return classify_response_error(exc)


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
