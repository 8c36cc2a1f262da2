"""OpenAI Chat Completions backend: `openai:MODEL` and `openai-compatible:MODEL` (vLLM, SGLang, Ollama…)."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from mcot.agents.backends._textcalls import parse_text_tool_calls
from mcot.agents.backends.base import (
    PLACEHOLDER_KEY,
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
from mcot.agents.backends.plain_http import (
    HeaderError,
    JSONRecord,
    PlainHTTPClient,
    classify_plain_http_error,
    plain_http_usable,
)
from mcot.agents.backends.sdk_http import sdk_http_client
from mcot.agents.backends.wire_failures import (
    RequestTimedOut,
    classify_response_error,
    connection_failure,
    status_failure,
)
from mcot.agents.backends.wire_limits import WireLimits, wire_limits
from mcot.agents.endpoints import (
    Endpoint,
    EndpointPool,
    endpoint_urls,
    scrub_url_secrets,
    url_secrets,
)
from mcot.agents.errors import ModelError, ModelSpecError
from mcot.agents.messages import ImagePart, Message, TextPart, ToolResultPart, wire_tool_call
from mcot.agents.retry import Failure, RetryPolicy, call_with_retries

if TYPE_CHECKING:
    import openai

_REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5", "gpt-6")
OPENAI_DEFAULT_URL = "https://api.openai.com/v1"
"""Where the SDK sends requests when no base URL is given (what the run's check before it starts probes)."""


class OpenAIChatBackend:
    """Chat Completions with data-URL images and function tools; parallel tool calls are handled.

    With `compatible=True` the backend sends the schema flavour without `strict`, uses `max_tokens`,
    needs no real key, and reads tool calls that a model wrote as text. Both send `temperature` (not to
    OpenAI's reasoning models, which take only the default) and `seed` when one is set. Given several base
    URLs (data-parallel replicas) each attempt goes to one picked by an `EndpointPool`; `endpoint_counts()`
    says what each did.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | Sequence[str] | None = None,
        api_key: str | None = None,
        compatible: bool = False,
        timeout_s: float = 180.0,
        retry: RetryPolicy | None = None,
        limits: WireLimits | None = None,
    ) -> None:
        self.model = model
        self.compatible = compatible
        self.provider = "openai-compatible" if compatible else "openai"
        self.schema_flavor: SchemaFlavor = "compatible" if compatible else "openai"
        self.spec = f"{self.provider}:{model}"
        self.base_urls = endpoint_urls(base_url) or endpoint_urls(os.environ.get("OPENAI_BASE_URL"))
        self.base_url = self.base_urls[0] if self.base_urls else None
        if compatible and not self.base_url:
            raise ModelSpecError(
                f"{self.spec} needs a server: pass --base-url (e.g. http://localhost:8000/v1 for vLLM, "
                "http://localhost:11434/v1 for Ollama) or set OPENAI_BASE_URL"
            )
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            if not compatible:
                raise ModelSpecError(f"{self.spec} needs an API key: set OPENAI_API_KEY")
            key = PLACEHOLDER_KEY
        self._key = check_key(key, "the API key" if api_key else "OPENAI_API_KEY")
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

    def _new_client(self, url: str | None) -> PlainHTTPClient | openai.AsyncOpenAI:
        # an OpenAI-compatible server over plain http gets the lean client (no SDK: a few ms less CPU per call,
        # half a second less start-up); HTTPS, proxies and OpenAI itself get the SDK, with its retries off
        if self.compatible and url and plain_http_usable(url):
            headers = {"Authorization": f"Bearer {self._key}"}
            try:
                return PlainHTTPClient(url, headers=headers, timeout_s=self.timeout_s, limits=self.limits)
            except HeaderError as exc:
                raise ModelSpecError(f"{self.spec}: {exc}") from None
        import openai

        http = sdk_http_client(openai.DefaultAsyncHttpxClient, self.limits, timeout=self.timeout_s)
        return openai.AsyncOpenAI(
            api_key=self._key, base_url=url, max_retries=0, timeout=self.timeout_s, http_client=http
        )

    def _client(self) -> PlainHTTPClient | openai.AsyncOpenAI:
        return self._clients.get()

    def redact(self, text: str) -> str:
        """Return text without the key, URL credentials or anything shaped like a key."""
        return self._redact(text)

    def endpoints(self) -> tuple[str, ...]:
        """Return the base URLs requests go to (OpenAI's own when none is set), for the check before a run."""
        return self.base_urls or (OPENAI_DEFAULT_URL,)

    def endpoint_counts(self) -> dict[str, dict[str, int]]:
        """Return per base URL (userinfo removed) the requests, ok, failed and rested counts; {} with one URL."""
        return self._pool.counts() if self._pool is not None else {}

    def _sends_temperature(self) -> bool:
        return self.compatible or not self.model.startswith(_REASONING_PREFIXES)

    def sampling_support(self) -> dict[str, str]:
        """Return whether temperature and seed are sent (seed: when set; determinism is the server's affair)."""
        if self.compatible:
            temperature = "sent"
            seed = "sent when set; honoured if the server supports it (vLLM and SGLang do)"
        else:
            temperature = (
                "sent" if self._sends_temperature() else "not sent: OpenAI reasoning models take only the default"
            )
            seed = "sent when set; OpenAI samples deterministically on a best-effort basis only"
        return {"temperature": temperature, "seed": seed}

    def build_params(self, request: ModelRequest) -> dict[str, Any]:
        """Return the keyword arguments of `chat.completions.create` for a request."""
        params: dict[str, Any] = {"model": self.model, "messages": to_chat_messages(request.messages)}
        if self.compatible:
            params["max_tokens"] = request.max_tokens
        else:
            params["max_completion_tokens"] = request.max_tokens
        if self._sends_temperature():
            params["temperature"] = request.temperature
        if request.seed is not None:
            params["seed"] = request.seed
        if request.tools is not None and request.tools.names:
            params["tools"] = request.tools.schemas(self.schema_flavor)
        return params

    async def generate(self, request: ModelRequest) -> ModelResponse:
        """Return the model's next turn; retries are noted in the response."""
        params = self.build_params(request)
        notes: list[dict[str, Any]] = []
        empty = EmptyAnswers(retry=self.retry.max_tries > 1)

        # The SDK walks typed parameters through its transform layer (about 10 ms for 36 tool schemas and
        # a conversation); ours are plain JSON already, so the large ones travel in `extra_body`, which the
        # SDK documents as taking precedence and sends as it is.
        bulky = {key: params[key] for key in ("messages", "tools") if key in params}
        light = {key: value for key, value in params.items() if key not in bulky}

        async def attempt_on(client: PlainHTTPClient | openai.AsyncOpenAI, url: str | None) -> ModelResponse:
            if isinstance(client, PlainHTTPClient):  # its time-out covers the whole exchange already
                completion = await client.post_json("/chat/completions", params)
            else:
                try:
                    async with asyncio.timeout(self.timeout_s):
                        completion = await client.chat.completions.create(**light, messages=[], extra_body=bulky)
                except TimeoutError:
                    raise RequestTimedOut(self.timeout_s, url) from None
            return self._parse(completion, request, empty)

        attempt: Callable[[], Awaitable[ModelResponse]]
        if self._pool is None:

            async def attempt() -> ModelResponse:
                return await attempt_on(self._client(), self.base_url)

        else:

            async def on_endpoint(endpoint: Endpoint) -> ModelResponse:
                return await attempt_on(self._endpoint_clients[endpoint.url].get(), endpoint.public_url)

            attempt = self._pool.attempts(on_endpoint, classify_openai_error)

        sampling = sent_sampling(params)
        try:
            response: ModelResponse = await call_with_retries(
                attempt, classify_openai_error, self.retry, notes, self._redact
            )
        except ModelError as exc:
            exc.sampling = sampling
            raise
        return ModelResponse(
            text=response.text,
            tool_calls=response.tool_calls,
            usage=response.usage,
            stop_reason=response.stop_reason,
            retries=tuple(notes),
            tool_calls_in_text=response.tool_calls_in_text,
            sampling=sampling,
        )

    def _parse(self, completion: Any, request: ModelRequest, empty: EmptyAnswers) -> ModelResponse:
        """Return the turn a completion holds; raise UnparsableResponse, EmptyAnswer or UnusableUsage when unusable."""
        choices = getattr(completion, "choices", None)
        if not choices or not isinstance(choices, list):
            raise UnparsableResponse("the response has no choices")
        choice = choices[0]
        message = getattr(choice, "message", None)
        if message is None:
            raise UnparsableResponse("the response's choice has no message")
        text = message.content if isinstance(getattr(message, "content", None), str) else ""
        raw_calls = getattr(message, "tool_calls", None)
        raw_calls = raw_calls if isinstance(raw_calls, list) else []
        calls = tuple(
            wire_tool_call(
                getattr(c, "id", None), getattr(function, "name", None), _plain(getattr(function, "arguments", None)), i
            )
            for i, c in enumerate(raw_calls, start=1)
            if (function := getattr(c, "function", None)) is not None
        )
        stop_reason = getattr(choice, "finish_reason", None)
        stop_reason = stop_reason if isinstance(stop_reason, str) and stop_reason else None
        if not text and not calls:
            if stop_reason is None:
                raise UnparsableResponse("the response has neither text nor tool calls nor a finish reason")
            empty.check(stop_reason)
        in_text = False
        if not calls and self.compatible and request.tools is not None and text:
            calls = parse_text_tool_calls(text, request.tools.names)
            in_text = bool(calls)
        usage = getattr(completion, "usage", None)
        return ModelResponse(
            text=text,
            tool_calls=calls,
            usage=checked_usage(
                prompt_tokens=getattr(usage, "prompt_tokens", None),
                completion_tokens=getattr(usage, "completion_tokens", None),
            ),
            stop_reason=stop_reason,
            tool_calls_in_text=in_text,
        )


def classify_openai_error(exc: BaseException) -> Failure | None:
    """Return how an exception from the OpenAI SDK should be handled (None: not a provider failure)."""
    plain = classify_plain_http_error(exc) or classify_response_error(exc)
    if plain is not None:
        return plain
    if "openai" not in sys.modules:  # no SDK client was ever made, so this is none of its errors
        return None
    import openai

    if isinstance(exc, openai.APIStatusError):
        return status_failure(exc)
    if isinstance(exc, openai.APITimeoutError):
        return Failure(True, f"request timed out{request_url(exc)}", unreachable=True)
    if isinstance(exc, openai.APIConnectionError):
        return connection_failure(exc)
    if isinstance(exc, openai.APIResponseValidationError):
        return Failure(True, f"unparsable response: {exc}")
    return None


def _plain(value: Any) -> Any:
    """Return a value of the plain client's answer as plain JSON (a JSONRecord's dict), anything else as it is."""
    return value.data if isinstance(value, JSONRecord) else value


def _image_block(image: ImagePart) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": image.data_url()}}


def to_chat_messages(messages: list[Message] | Any) -> list[dict[str, Any]]:
    """Return the conversation in the Chat Completions wire format.

    Tool results become one `tool` message per call id right after the assistant turn; images (the canvas,
    images returned by tools) follow in one user message. Calls a model wrote as text get their results
    back as text in a user message.
    """
    out: list[dict[str, Any]] = []
    calls_in_text = False
    for message in messages:
        if message.role == "system":
            out.append({"role": "system", "content": message.text})
        elif message.role == "assistant":
            calls_in_text = message.tool_calls_in_text
            entry: dict[str, Any] = {"role": "assistant", "content": message.text or None}
            if message.tool_calls and not calls_in_text:
                entry["tool_calls"] = [
                    {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                    for c in message.tool_calls
                ]
            elif not message.text:
                entry["content"] = ""
            out.append(entry)
        else:
            content: list[dict[str, Any]] = []
            for part in message.parts:
                if isinstance(part, ToolResultPart):
                    label = "error" if part.is_error else "result"
                    if calls_in_text:
                        content.append({"type": "text", "text": f"Tool {part.name} {label}: {part.text}"})
                    else:
                        out.append({"role": "tool", "tool_call_id": part.call_id, "content": part.text})
                    content.extend(_image_block(image) for image in part.images)
                elif isinstance(part, TextPart):
                    content.append({"type": "text", "text": part.text})
                else:
                    content.append(_image_block(part))
            if not content:
                continue
            if all(block["type"] == "text" for block in content):
                out.append({"role": "user", "content": "\n\n".join(block["text"] for block in content)})
            else:
                out.append({"role": "user", "content": content})
    return out
