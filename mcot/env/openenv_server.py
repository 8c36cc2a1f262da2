"""`mcot env serve`: the canvas environment as an OpenEnv environment server (`openenv-core` 0.3, the `openenv` extra).

OpenEnv's own HTTP/WebSocket server (`openenv.core.env_server.create_fastapi_app`) serves `CanvasOpenEnv`, one
instance per WebSocket session (what `GenericEnvClient` opens), so that sessions never share a canvas:

- `reset(**row)` takes the columns of an `mcot export --as trl` row (`item`, `images`: a path under the server's
  `--images-root`, or base64 / a `data:` URL), or nothing for a blank canvas; it observes the opening note, the
  canvas as PNG base64 and the task text.
- `step({"tool": NAME, "arguments": {...}})` runs one tool of the toolset and observes its text, `ok`, the
  canvas (PNG base64) when the call changed it and a tool's own image (zoom). Its reward is the trace verifier's
  drawing reward (`mcot.rewards.drawing`'s: 1.0 for a valid drawing, else 0.0). The action
  `{"tool": "answer", "arguments": {"text": "..."}}` ends the episode (`done`), rewarded by the benchmark's
  official protocol as `mcot.rewards.accuracy` scores it.
- `state` gives the episode id, step count, toolset, tools, canvas size and the item's id.

Bounds: `--max-sessions` sessions at once (OpenEnv refuses one more with its capacity error); each holds one
canvas, at most 4096 × 4096 pixels and the canvas's element limit (mcot.canvas), so about 50-70 MB at the
largest, a few MB for a 1024 × 768 canvas. A session whose step raises is closed by OpenEnv without touching the
others; a step never raises for a bad call (it observes the error text).
"""

from __future__ import annotations

import base64
import logging
import re
from pathlib import Path
from typing import Any

from openenv.core.env_server import Action, Environment, Observation, State
from pydantic import Field

from mcot.agents.prompts import render_task
from mcot.env.canvas_session import BLANK, CanvasSession, _image_bytes
from mcot.rewards import score_answer

ANSWER = "answer"
"""The action name that ends an episode with the model's final answer."""

_DATA_URL = re.compile(r"^data:image/[a-z]+;base64,")


class CanvasAction(Action):
    """One step: a tool of the toolset and its arguments (`answer` with `text`: the final answer)."""

    tool: str = Field(description="a tool of the toolset, or `answer` to end the episode with arguments.text")
    arguments: dict[str, Any] = Field(default_factory=dict, description="the tool's arguments, as its schema says")


class CanvasObservation(Observation):
    """What a step observes: the text for the model, whether the call succeeded, and PNG images (base64)."""

    text: str = ""
    ok: bool = True
    canvas: str | None = Field(default=None, description="the canvas as the model is shown it, PNG base64, if changed")
    images: list[str] = Field(default_factory=list, description="a tool's own images (zoom), PNG base64")
    task: str | None = Field(default=None, description="the item's task text (reset only)")
    tools: list[str] = Field(default_factory=list, description="the tools a step may call (reset only)")


class CanvasState(State):
    """The session's state: its toolset and tools, the canvas size, the item drawn on."""

    toolset: str = "canvas"
    tools: list[str] = Field(default_factory=list)
    width: int = 0
    height: int = 0
    item_id: str | None = None
    answered: bool = False


def environment_factory(toolset: str, images_root: Path | None = None) -> type[CanvasOpenEnv]:
    """Return the environment class OpenEnv instantiates per session: CanvasOpenEnv on `toolset`."""
    return type(
        "CanvasOpenEnv",
        (CanvasOpenEnv,),
        {"TOOLSET": toolset, "IMAGES_ROOT": images_root, "__module__": __name__, "__doc__": CanvasOpenEnv.__doc__},
    )


class CanvasOpenEnv(Environment[CanvasAction, CanvasObservation, CanvasState]):
    """mcot's canvas as an OpenEnv environment: one canvas per session, tools as steps, rewards from mcot.rewards."""

    SUPPORTS_CONCURRENT_SESSIONS = True
    TOOLSET = "canvas"
    IMAGES_ROOT: Path | None = None

    def __init__(self) -> None:
        super().__init__()
        self.session = CanvasSession(self.TOOLSET, self.IMAGES_ROOT)
        self._state = CanvasState(toolset=self.TOOLSET, tools=list(self.session.tools))
        self._size()

    def reset(self, seed: int | None = None, episode_id: str | None = None, **row: Any) -> CanvasObservation:
        """Start an episode on a `trl` export row's item and image (nothing: a blank canvas); observe the opening."""
        item = row.get("item")
        images = row.get("images") or []
        first = images[0] if images else None
        if isinstance(first, str) and _DATA_URL.match(first):
            first = _image_bytes(first)
        if first is not None and not isinstance(first, bytes):
            first = str(first)
        reply = (
            self.session.start(item=item, path=first)
            if isinstance(first, str)
            else self.session.start(item=item, image=first)
        )
        self._state = CanvasState(
            episode_id=episode_id,
            toolset=self.TOOLSET,
            tools=list(self.session.tools),
            item_id=self.session.episode.item.id if item is not None else None,
        )
        self._size()
        task = None
        if reply.ok and item is not None:
            chosen = self.session.episode.item
            choices = tuple(chosen.choices) if chosen.choices else None
            task = render_task(chosen.benchmark, chosen.question, choices, chosen.answer_type)
        return CanvasObservation(
            text=reply.text,
            ok=reply.ok,
            canvas=_b64(reply.canvas) if reply.canvas is not None else None,
            task=task,
            tools=[*self.session.tools, ANSWER],
            done=not reply.ok,
            reward=0.0,
        )

    def step(self, action: CanvasAction, timeout_s: float | None = None, **kwargs: Any) -> CanvasObservation:
        """Run one tool call (or take the final answer); observe the text, the images and the reward."""
        self._state.step_count += 1
        if self._state.answered:
            return CanvasObservation(text="Error: the episode has ended (reset it)", ok=False, done=True, reward=0.0)
        if action.tool == ANSWER:
            return self._answer(str(action.arguments.get("text", "")))
        reply = self.session.call(action.tool, action.arguments)
        canvas = _b64(reply.canvas) if reply.canvas is not None else None
        own = [_b64(png) for png in reply.images]
        self._size()
        drawing = self.session.reward()
        return CanvasObservation(
            text=reply.text, ok=reply.ok, canvas=canvas, images=own, reward=drawing, metadata={"drawing": drawing}
        )

    def close(self) -> None:
        """End the session's canvas and its code session (OpenEnv calls it when the session ends); returns None."""
        self.session.close()

    @property
    def state(self) -> CanvasState:
        """Return the session's state (episode id, step count, toolset, canvas size, item)."""
        return self._state

    def _answer(self, text: str) -> CanvasObservation:
        self._state.answered = True
        item = self.session.episode.item
        drawing = self.session.reward()
        if item.benchmark == BLANK:  # a blank canvas has no question to be right about
            return CanvasObservation(text="answer taken (no item: no reward)", done=True, reward=0.0)
        score = score_answer(item, text)
        reward = 1.0 if score.correct is True else 0.0
        return CanvasObservation(
            text=f"answer taken: {'correct' if reward else 'not correct'}",
            done=True,
            reward=reward,
            metadata={"accuracy": reward, "drawing": drawing, "extracted": score.extracted},
        )

    def _size(self) -> None:
        canvas = self.session.episode.canvas
        self._state.width, self._state.height = canvas.width, canvas.height


def _b64(png: bytes) -> str:
    return base64.b64encode(png).decode("ascii")


def app(toolset: str = "canvas", images_root: Path | None = None, max_sessions: int = 16) -> Any:
    """Return the OpenEnv FastAPI application serving the canvas environment (`max_sessions` at once)."""
    from openenv.core.env_server import ConcurrencyConfig, create_fastapi_app

    config = ConcurrencyConfig(max_concurrent_envs=max_sessions, session_timeout=None)
    return create_fastapi_app(
        environment_factory(toolset, images_root), CanvasAction, CanvasObservation, concurrency_config=config
    )


class _ClosedByClient(logging.Filter):
    """Drop the traceback openenv-core's WebSocket endpoint logs when it closes a socket the client closed first
    (every `GenericEnvClient.close()`): the session ended normally."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return type(error).__name__ not in ("WebSocketDisconnect", "ClientDisconnected")


def serve(toolset: str, host: str, port: int, images_root: Path | None = None, max_sessions: int = 16) -> None:
    """Serve the environment with uvicorn until stopped; returns None."""
    import uvicorn

    logging.getLogger("uvicorn.error").addFilter(_ClosedByClient())
    # no permessage-deflate: every observation is a PNG (already deflated) in base64, which a second deflate
    # shrinks by a quarter at the cost of milliseconds a step on each side
    uvicorn.run(
        app(toolset, images_root, max_sessions),
        host=host,
        port=port,
        log_level="warning",
        ws_per_message_deflate=False,
    )
