"""Helpers for tests of code that uses mcot — mcot's own tests and yours: a real local model provider and a tiny
image pipeline, so that nothing needs a network, a key or a download.

- `FakeProvider` (`mcot.testing.fake_provider`): an HTTP server on 127.0.0.1 speaking the OpenAI Chat
  Completions, Anthropic Messages and OpenAI Images wire formats, answering from a script (`Reply`, `Fail`,
  `Raw`, `ImageReply`, `Redirect`, `Trickle`, or an `Agent`), recording every request, and injecting the faults
  of a flaky provider (`Faults`).
- `last_image(body)`, `has_red(image)` (`mcot.testing.images`): the last image of a Chat Completions request
  and whether it holds a red drawing, for a test model that answers from what it drew.
- `build_tiny_pipeline(folder)` (`mcot.testing.tiny_pipeline`): a random-weight Stable Diffusion pipeline saved
  to a folder, loadable as `diffusers:FOLDER` (needs the `gen` extra; imported only when used).

These names are public and documented (docs/agent.md, "Testing against a local provider").
"""

from __future__ import annotations

from typing import Any

from mcot.testing.fake_provider import (
    FAULT_KINDS,
    Agent,
    Fail,
    FakeProvider,
    Faults,
    ImageReply,
    JudgeAgent,
    Raw,
    Recorded,
    Redirect,
    Reply,
    RequestInfo,
    ServerCounts,
    SoakAgent,
    Trickle,
)
from mcot.testing.images import has_red, last_image
from mcot.testing.tiny_pipeline import build_tiny_pipeline


def __getattr__(name: str) -> Any:
    if name == "build_tiny_pipeline":  # diffusers and torch load only when a test asks for the pipeline

        return build_tiny_pipeline
    raise AttributeError(f"module 'mcot.testing' has no attribute {name!r}")


__all__ = [
    "FAULT_KINDS",
    "Agent",
    "Fail",
    "FakeProvider",
    "Faults",
    "ImageReply",
    "JudgeAgent",
    "Raw",
    "Recorded",
    "Redirect",
    "Reply",
    "RequestInfo",
    "ServerCounts",
    "SoakAgent",
    "Trickle",
    "build_tiny_pipeline",
    "has_red",
    "last_image",
]
