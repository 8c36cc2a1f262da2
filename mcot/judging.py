"""Adapting a model backend to eval's judge protocol (`spec` and `async ask(prompt, images, temperature=0.0)`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcot.eval.judges import JudgeModel


class BackendJudge:
    """A judge that asks an agents model backend one question, at temperature 0 unless a protocol's retry raises it."""

    def __init__(self, spec: str, backend: Any) -> None:
        self.spec = spec
        self._backend = backend

    def endpoints(self) -> tuple[str, ...]:
        """Return the URLs the judge's backend calls (none for offline or scripted judges): what the pre-flight
        check probes."""
        endpoints = getattr(self._backend, "endpoints", None)
        return tuple(endpoints()) if callable(endpoints) else ()

    async def ask(self, prompt: str, images: Sequence[bytes] = (), temperature: float = 0.0) -> str:
        """Return the backend's reply text to `prompt` (with `images`), asked at `temperature`.

        A backend whose API does not take a temperature (see its `sampling_support()`) asks without one.
        """
        from mcot.agents import ask_text

        return await ask_text(self._backend, prompt, images=tuple(images), temperature=temperature)


def judge_from_spec(spec: str, base_url: str | None = None) -> JudgeModel:
    """Return a judge for a model SPEC (openai:M, anthropic:M, openai-compatible:M, scripted:FILE, offline)."""
    from mcot.agents import load_model

    return BackendJudge(spec, load_model(spec, base_url=base_url))
