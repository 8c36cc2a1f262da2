"""Model backends behind one protocol, registered by provider name; `load_model(spec)` builds one from a spec.

Each backend is registered once (`register_backend`) with a factory that imports its module on first use, so
loading `mcot.agents.backends` does not load a provider SDK. A spec is `provider:argument` (`openai:gpt-4o`,
`scripted:FILE.json`) or a bare provider that takes none (`offline`); an unknown one gets a did-you-mean.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mcot.agents.backends.base import ModelBackend, ModelRequest, ModelResponse, ToolSet, Usage
from mcot.agents.errors import ModelSpecError
from mcot.agents.registry import Registry
from mcot.agents.retry import RetryPolicy


@dataclass(frozen=True)
class BackendOptions:
    """What `load_model` passes to every backend factory besides the spec's argument.

    `base_urls`: the server base URLs, in order (several: data-parallel replicas the backend spreads over).
    """

    base_urls: tuple[str, ...] = ()
    timeout_s: float = 180.0
    retry: RetryPolicy | None = None

    @property
    def base_url(self) -> str | None:
        """Return the first base URL, or None (for a backend that talks to one server)."""
        return self.base_urls[0] if self.base_urls else None


BackendFactory = Callable[[str, BackendOptions], ModelBackend]
"""Builds a backend from the spec's argument (the model name, a file; "" when the usage shows none)."""

BACKENDS: Registry[BackendFactory] = Registry("model provider", error=ModelSpecError)
"""The model backends by provider name."""


def register_backend(
    name: str, factory: BackendFactory, *, usage: str | None = None, help: str = "", replace: bool = False
) -> None:
    """Register a model backend under a provider name (`usage` e.g. `name:MODEL`; bare `name` takes no argument)."""
    BACKENDS.register(name, factory, usage=usage, help=help, replace=replace)


def unregister_backend(name: str) -> None:
    """Remove a registered model backend (no error when absent)."""
    BACKENDS.unregister(name)


def backend_names() -> tuple[str, ...]:
    """Return the registered provider names, in registration order."""
    return BACKENDS.names()


def spec_help() -> str:
    """Return the accepted model spec forms as one line, with each provider's help."""
    return "; ".join(f"{e.usage} ({e.help})" if e.help else e.usage for e in BACKENDS.entries())


def load_model(
    spec: str,
    *,
    base_url: str | Sequence[str] | None = None,
    timeout_s: float = 180.0,
    retry: RetryPolicy | None = None,
) -> ModelBackend:
    """Return the backend a model spec names; raise ModelSpecError for an unknown or unusable spec.

    `base_url`: one server's base URL, or several (data-parallel replicas: requests are spread over them).
    """
    from mcot.agents.endpoints import endpoint_urls

    entry, argument = BACKENDS.parse(spec)
    options = BackendOptions(base_urls=endpoint_urls(base_url), timeout_s=timeout_s, retry=retry)
    return entry.factory(argument, options)


def _offline(argument: str, options: BackendOptions) -> ModelBackend:
    from mcot.agents.offline import OfflineBackend

    return OfflineBackend()


def _scripted(argument: str, options: BackendOptions) -> ModelBackend:
    from mcot.agents.backends.scripted import ScriptedBackend

    return ScriptedBackend(argument)


def _openai(compatible: bool) -> BackendFactory:
    def build(argument: str, options: BackendOptions) -> ModelBackend:
        from mcot.agents.backends.openai_chat import OpenAIChatBackend

        return OpenAIChatBackend(
            argument,
            base_url=options.base_urls or None,
            compatible=compatible,
            timeout_s=options.timeout_s,
            retry=options.retry,
        )

    return build


def _anthropic(argument: str, options: BackendOptions) -> ModelBackend:
    from mcot.agents.backends.anthropic_messages import AnthropicBackend

    return AnthropicBackend(
        argument, base_url=options.base_urls or None, timeout_s=options.timeout_s, retry=options.retry
    )


def _replay(argument: str, options: BackendOptions) -> ModelBackend:
    from mcot.agents.backends.replay import ReplayBackend

    return ReplayBackend(argument)


register_backend("offline", _offline, usage="offline", help="the deterministic offline policy, no network")
register_backend("scripted", _scripted, usage="scripted:FILE.json", help="replays assistant turns from a file")
register_backend("openai", _openai(False), usage="openai:MODEL", help="OpenAI Chat Completions, OPENAI_API_KEY")
register_backend(
    "openai-compatible",
    _openai(True),
    usage="openai-compatible:MODEL",
    help="vLLM, SGLang, Ollama… with --base-url",
)
register_backend("anthropic", _anthropic, usage="anthropic:MODEL", help="Anthropic Messages API, ANTHROPIC_API_KEY")
register_backend("replay", _replay, usage="replay:RUN", help="replays a finished run's model turns, no network")


__all__ = [
    "BACKENDS",
    "BackendFactory",
    "BackendOptions",
    "ModelBackend",
    "ModelRequest",
    "ModelResponse",
    "ToolSet",
    "Usage",
    "backend_names",
    "load_model",
    "register_backend",
    "spec_help",
    "unregister_backend",
]
