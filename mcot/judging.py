"""Adapting a model backend to eval's judge protocol (`spec` and `async ask(prompt, images, temperature=0.0)`).

The judge's calls tell a circuit breaker, as `mcot run`'s model calls do: a permanent answer (401, 403, 404 "model
does not exist") or `BREAKER_THRESHOLD` calls in a row that could not connect open it, and from then on the judge
asks nothing (each judgment fails at once, naming why), so that a wrong judge name or a dead judge stops the
scoring instead of being tried on every judgment.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcot.agents import ask_text, load_model
from mcot.agents.retry import RetryPolicy
from mcot.breaker import CircuitBreaker, guarded
from mcot.eval.judges import JudgeModel


class JudgeStopped(RuntimeError):
    """The judge's circuit breaker is open: the judgment is not asked (the message says why)."""


class BackendJudge:
    """A judge that asks an agents model backend one question, at temperature 0 unless a protocol's retry raises it."""

    def __init__(self, spec: str, backend: Any, breaker: CircuitBreaker | None = None) -> None:
        self.spec = spec
        self._backend = backend
        self.breaker = breaker if breaker is not None else CircuitBreaker()

    def endpoints(self) -> tuple[str, ...]:
        """Return the URLs the judge's backend calls (none for offline or scripted judges): what the pre-flight
        check probes."""
        endpoints = getattr(self._backend, "endpoints", None)
        return tuple(endpoints()) if callable(endpoints) else ()

    def stopped(self) -> str | None:
        """Return why the judge stopped asking (its breaker opened; the reason names the judge and its URLs), or
        None."""
        return self.breaker.opened

    async def ask(self, prompt: str, images: Sequence[bytes] = (), temperature: float = 0.0) -> str:
        """Return the backend's reply text to `prompt` (with `images`), asked at `temperature`; raise JudgeStopped,
        asking nothing, once the judge's breaker is open.

        A backend whose API does not take a temperature (see its `sampling_support()`) asks without one.
        """
        if self.breaker.opened is not None:
            raise JudgeStopped(f"not asked: {self.breaker.opened}")
        return await ask_text(self._backend, prompt, images=tuple(images), temperature=temperature)


def judge_from_spec(spec: str, base_url: str | None = None) -> JudgeModel:
    """Return a judge for a model SPEC (openai:M, anthropic:M, openai-compatible:M, scripted:FILE, offline) whose
    calls tell its circuit breaker."""

    breaker = CircuitBreaker()
    backend = load_model(spec, base_url=base_url, retry=RetryPolicy(observer=breaker))
    breaker.subject = guarded("judge", spec, backend)
    return BackendJudge(spec, backend, breaker)
