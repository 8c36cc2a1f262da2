"""`ask_text`: one user message (text and images) to any backend, the reply's text back (used by judges)."""

from __future__ import annotations

from collections.abc import Sequence

from mcot.agents.backends import load_model
from mcot.agents.backends.base import ModelBackend, ModelRequest
from mcot.agents.messages import ImagePart, Message, TextPart, sniff_media_type


async def ask_text(
    model: ModelBackend | str,
    prompt: str,
    images: Sequence[bytes] = (),
    temperature: float = 0.0,
    max_tokens: int = 1024,
) -> str:
    """Return the model's reply text to `prompt` with `images` (PNG/JPEG/GIF/WEBP bytes) before it."""
    backend = load_model(model) if isinstance(model, str) else model
    parts = [ImagePart(data, sniff_media_type(data)) for data in images]
    message = Message("user", [*parts, TextPart(prompt)])
    request = ModelRequest([message], None, max_tokens=max_tokens, temperature=temperature)
    response = await backend.generate(request)
    return response.text
