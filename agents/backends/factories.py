"""The factories of mcot's own model backends, declared by name in `mcot.builtin` and imported on first use.

Each is `factory(argument, options) -> ModelBackend`, `argument` being what follows the colon of the spec (the
model name, a file, a run directory; "" for `offline`). Each imports its backend's module only when called, so
that declaring the backends loads no provider SDK.
"""

from __future__ import annotations

from mcot.agents.backends import BackendOptions
from mcot.agents.backends.base import ModelBackend
from mcot.agents.backends.openai_chat import OpenAIChatBackend
from mcot.agents.backends.replay import ReplayBackend
from mcot.agents.backends.scripted import ScriptedBackend
from mcot.agents.offline import OfflineBackend


def offline(argument: str, options: BackendOptions) -> ModelBackend:
    """Return the deterministic offline policy."""

    return OfflineBackend()


def scripted(argument: str, options: BackendOptions) -> ModelBackend:
    """Return a backend that replays the assistant turns of the JSON file `argument`."""

    return ScriptedBackend(argument)


def _openai(argument: str, options: BackendOptions, *, compatible: bool) -> ModelBackend:
    return OpenAIChatBackend(
        argument,
        base_url=options.base_urls or None,
        compatible=compatible,
        timeout_s=options.timeout_s,
        retry=options.retry,
    )


def openai(argument: str, options: BackendOptions) -> ModelBackend:
    """Return an OpenAI Chat Completions backend for the model `argument`."""
    return _openai(argument, options, compatible=False)


def openai_compatible(argument: str, options: BackendOptions) -> ModelBackend:
    """Return a Chat Completions backend for an OpenAI-compatible server (vLLM, SGLang, Ollama…)."""
    return _openai(argument, options, compatible=True)


def anthropic(argument: str, options: BackendOptions) -> ModelBackend:
    """Return an Anthropic Messages backend for the model `argument`."""
    from mcot.agents.backends.anthropic_messages import AnthropicBackend

    return AnthropicBackend(
        argument, base_url=options.base_urls or None, timeout_s=options.timeout_s, retry=options.retry
    )


def replay(argument: str, options: BackendOptions) -> ModelBackend:
    """Return a backend that replays the model turns of the finished run `argument`."""

    return ReplayBackend(argument)
