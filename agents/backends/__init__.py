"""Model backends behind one protocol, and `load_model(spec)` that picks one from a spec string."""

from __future__ import annotations

from agents.backends.base import ModelBackend, ModelRequest, ModelResponse, ToolSet, Usage
from agents.errors import ModelSpecError
from agents.retry import RetryPolicy

SPEC_HELP = "offline, scripted:FILE.json, openai:MODEL, anthropic:MODEL or openai-compatible:MODEL (with --base-url)"


def load_model(
    spec: str,
    *,
    base_url: str | None = None,
    timeout_s: float = 180.0,
    retry: RetryPolicy | None = None,
) -> ModelBackend:
    """Return the backend a model spec names; raise ModelSpecError for an unknown or unusable spec."""
    provider, _, name = spec.partition(":")
    provider = provider.strip().lower()
    if provider == "offline":
        from agents.offline import OfflineBackend

        return OfflineBackend()
    if not name:
        raise ModelSpecError(f"model spec {spec!r} names no model; use {SPEC_HELP}")
    if provider == "scripted":
        from agents.backends.scripted import ScriptedBackend

        return ScriptedBackend(name)
    if provider in ("openai", "openai-compatible"):
        from agents.backends.openai_chat import OpenAIChatBackend

        return OpenAIChatBackend(
            name, base_url=base_url, compatible=provider == "openai-compatible", timeout_s=timeout_s, retry=retry
        )
    if provider == "anthropic":
        from agents.backends.anthropic_messages import AnthropicBackend

        return AnthropicBackend(name, base_url=base_url, timeout_s=timeout_s, retry=retry)
    raise ModelSpecError(f"unknown model provider {provider!r} in {spec!r}; use {SPEC_HELP}")


__all__ = ["ModelBackend", "ModelRequest", "ModelResponse", "ToolSet", "Usage", "load_model"]
