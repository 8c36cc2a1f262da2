"""Model backends behind one protocol, declared by provider name; `load_model(spec)` builds one from a spec.

Backends are declared in `mcot.core.registry.BACKENDS` (mcot's own in `mcot.builtin`, others by plugins through
`mcot.declare_backend`), each with a factory imported on first use, so loading this package loads no provider
SDK. A spec is `provider:argument` (`openai:gpt-4o`, `scripted:FILE.json`) or a bare provider that takes none
(`offline`); an unknown one gets a did-you-mean.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mcot.agents.backends.base import ModelBackend, ModelRequest, ModelResponse, ToolSet, Usage
from mcot.agents.endpoints import endpoint_urls
from mcot.agents.retry import RetryPolicy

from mcot.core.registry import BACKENDS


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


def backend_names() -> tuple[str, ...]:
    """Return the declared provider names, in declaration order."""
    return BACKENDS.names()


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

    entry, argument = BACKENDS.parse(spec)
    options = BackendOptions(base_urls=endpoint_urls(base_url), timeout_s=timeout_s, retry=retry)
    return BACKENDS.resolve(entry)(argument, options)


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
]
