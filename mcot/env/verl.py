"""mcot's canvas as verl tools (verl 0.9: `verl.tools.base_tool.BaseTool`, loaded by `initialize_tools_from_config`).

One class, `CanvasTool`, serves every tool: the YAML tool config (`mcot env verl-config`, `tool_config`) lists one
entry per tool of a toolset, each with `class_name: mcot.env.verl.CanvasTool`, the tool's schema and `config:
{type: native, toolset, images_root}`. All of them share one canvas per trajectory, an mcot Episode:

- in verl's tool agent loop, which calls `create` before and `release` after every single call and passes the
  trajectory's `agent_data` to `execute`, the episode lives as long as that `agent_data`; it is opened at the
  trajectory's first call from the row's `tools_kwargs` (the entry that holds the item, `mcot export --as verl`)
  and its canvas image from the prompt's first image (the bytes verl read from the row), else under
  `images_root`;
- driven directly, `create(instance_id, create_kwargs={"item": …})` (or `create(instance_id, item=…, image=…)`)
  opens the episode of `instance_id`, which every CanvasTool shares; `execute(instance_id, parameters)` applies one
  call and returns the canvas in `ToolResponse.image`; `calc_reward` is the trace verifier's verdict on the drawing
  (1.0 valid, else 0.0; 0.0 where the task has no verifier); `release` frees it.

A malformed call answers with the error text and leaves the canvas as it was. The step reward `execute` returns is
0.0: the answer is scored by mcot.rewards.compute_score, the drawing by `calc_reward`.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import uuid4

from verl.tools.base_tool import BaseTool
from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse

from mcot.env.episode import Episode, EpisodeError, item_from_row
from mcot.env.verl_config import verl_tool_schema
from mcot.tools.toolsets import toolset

DEFAULT_TOOLSET = "canvas"


@dataclass
class _Instance:
    """What `create` was given for one instance: the item (JSON text), an image, and the episode once opened."""

    item: Any = None
    image: Any = None
    episode: Episode | None = None


_INSTANCES: dict[str, _Instance] = {}
"""Instances by id, shared by every CanvasTool: one id is one canvas, whichever tool is called."""
_TRAJECTORIES: weakref.WeakKeyDictionary[Any, Episode] = weakref.WeakKeyDictionary()
"""The episode of each trajectory of verl's agent loop, by its AgentData: gone when the trajectory is."""


class CanvasTool(BaseTool):
    """One mcot tool as a verl tool; every CanvasTool of a trajectory works on the same canvas."""

    def __init__(self, config: dict[str, Any], tool_schema: OpenAIFunctionToolSchema | None) -> None:
        if tool_schema is None:
            tool_schema = OpenAIFunctionToolSchema.model_validate(verl_tool_schema(str(config.get("tool"))))
        super().__init__(config, tool_schema)

        self.toolset = str(config.get("toolset") or DEFAULT_TOOLSET)
        self.offered = toolset(self.toolset)
        root = config.get("images_root")
        self.images_root = Path(root) if root else None

    async def create(
        self, instance_id: str | None = None, create_kwargs: dict[str, Any] | None = None, **kwargs: Any
    ) -> tuple[str, ToolResponse]:
        """Register an instance (its item from `create_kwargs` or `item=`, an optional `image=`); return its id and
        an empty response. The canvas opens at the first call."""
        given = {**(create_kwargs or {}), **kwargs}
        instance_id = instance_id or uuid4().hex
        instance = _INSTANCES.setdefault(instance_id, _Instance())
        if given.get("item") is not None:
            instance.item = given["item"]
        if given.get("image") is not None:
            instance.image = given["image"]
        return instance_id, ToolResponse()

    async def execute(
        self, instance_id: str, parameters: dict[str, Any], **kwargs: Any
    ) -> tuple[ToolResponse, float, dict[str, Any]]:
        """Apply one call of this tool on the instance's canvas; return (the text and the canvas image, 0.0, metrics)."""
        try:
            episode = self._episode(instance_id, kwargs.get("agent_data"))
        except EpisodeError as exc:
            return ToolResponse(text=f"Error: {exc}"), 0.0, {"ok": False}
        seen = episode.call(self.name, parameters)
        response = (
            ToolResponse(text=seen.text, image=list(seen.images)) if seen.images else ToolResponse(text=seen.text)
        )
        return response, 0.0, {"ok": seen.ok}

    async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
        """Return the trace verifier's verdict on the instance's drawing: 1.0 valid, else 0.0."""
        instance = _INSTANCES.get(instance_id)
        episode = instance.episode if instance is not None else None
        return episode.reward() if episode is not None else 0.0

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        """Free the instance (its canvas, unless its trajectory still holds it)."""
        _INSTANCES.pop(instance_id, None)

    def _episode(self, instance_id: str, agent_data: Any) -> Episode:
        """Return the episode the call works on: its trajectory's, else its instance's (opened when first needed)."""
        if agent_data is not None:
            episode = _TRAJECTORIES.get(agent_data)
            if episode is None:
                given = _INSTANCES.get(instance_id) or _Instance()
                item = given.item or _item_of_trajectory(agent_data)
                episode = self._open(item, given.image or _prompt_image(agent_data, item))
                _TRAJECTORIES[agent_data] = episode
            if instance_id in _INSTANCES:
                _INSTANCES[instance_id].episode = episode
            return episode
        instance = _INSTANCES.get(instance_id)
        if instance is None:
            raise EpisodeError(f"no instance {instance_id!r}: create it first")
        if instance.episode is None:
            instance.episode = self._open(instance.item, instance.image)
        return instance.episode

    def _open(self, item: Any, image: Any) -> Episode:
        if item is None:
            raise EpisodeError(
                "the canvas has no item: give create_kwargs {'item': …} (the row's extra_info.tools_kwargs, "
                "mcot export --as verl)"
            )
        return Episode.open(item_from_row(item), self.offered, image, self.images_root)


def _item_of_trajectory(agent_data: Any) -> Any:
    """Return the item of a trajectory: the first entry of its `tools_kwargs` that holds one, else None."""
    for entry in (getattr(agent_data, "tools_kwargs", None) or {}).values():
        item = ((entry or {}).get("create_kwargs") or {}).get("item")
        if item is not None:
            return item
    return None


def _prompt_image(agent_data: Any, item: Any) -> Any:
    """Return the canvas image of a trajectory's prompt: the image part named as the item's first image, else the
    first image part (verl keeps the row's bytes and path in the prompt's parts)."""
    if item is None:
        return None
    names = item_from_row(item).images
    parts = [
        part
        for message in getattr(agent_data, "messages", None) or []
        if isinstance(message.get("content"), list)
        for part in message["content"]
        if isinstance(part, dict) and part.get("type") == "image"
    ]
    for part in parts:
        if names and part.get("path") == names[0]:
            return part.get("bytes") or part.get("image")
    if names and parts:
        return parts[0].get("bytes") or parts[0].get("image")
    return None
