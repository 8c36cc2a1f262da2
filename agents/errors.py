"""Errors of the solver package: each message says what went wrong and what to do about it."""

from __future__ import annotations


class AgentError(Exception):
    """Base class of every error the agents package raises."""


class ModelSpecError(AgentError, ValueError):
    """A model spec or its configuration (key, base URL, scripted file) is unusable."""


class ModelError(AgentError):
    """A model call failed for good: a non-retryable status, or every retry was spent.

    `sampling` is what the failed request sent (temperature, seed), when the backend knows it.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retries: list[dict] | None = None,
        sampling: dict | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retries = list(retries or [])
        self.sampling = dict(sampling) if sampling is not None else None


class PromptError(AgentError):
    """A prompt template is missing or could not be filled."""
