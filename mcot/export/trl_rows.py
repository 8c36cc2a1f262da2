"""The `trl` view: TRL's conversational prompt-completion rows with typed content parts (TRL 1.16).

`prompt` is the item's opening (mcot/export/prompt.py) as messages whose content is a list of parts,
`{"type": "text", "text"}` and `{"type": "image"}` placeholders; `completion` the rest of the run's conversation
(assistant turns with `tool_calls` whose arguments are JSON text, `tool` turns with the tool's `name`, the canvas
shown after a round as a user turn), empty for a prompt from an items directory; `images` the images of the
placeholders in order (prompt first), as TRL's `prepare_multimodal_messages` fills them; `tools` the arm's tool
definitions (JSON text, as TRL's SFTTrainer reads it). GRPO reads `prompt` and hands every other column to
`mcot.env.CanvasEnv.reset` and to the reward functions (mcot.rewards): `item` (the item as JSON text, for both),
`toolset` (the arm, the environment's tools) and `answer`.
"""

from __future__ import annotations

import json
from typing import Any

from mcot.export.conversation import Part, Turn, conversation
from mcot.export.images import ImageCatalog
from mcot.export.prompt import environment_item, opening
from mcot.export.records import Pair
from mcot.export.views import tool_definitions


def typed_parts(parts: list[Part]) -> list[dict[str, Any]]:
    """Return text and image parts as TRL's typed content: text parts, and image placeholders `{"type": "image"}`."""
    return [{"type": "image"} if kind == "image" else {"type": "text", "text": value} for kind, value in parts]


def trl_message(turn: Turn) -> dict[str, Any]:
    """Return a turn as a TRL conversational message (typed content; tool calls with JSON-text arguments)."""
    message: dict[str, Any] = {"role": turn.role, "content": typed_parts(turn.parts)}
    if turn.role == "tool":
        message["name"] = turn.tool_name
        message["tool_call_id"] = turn.call_id
    if turn.tool_calls:
        message["tool_calls"] = [
            {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments or "{}"}}
            for call in turn.tool_calls
        ]
    return message


def trl_view(pair: Pair, catalog: ImageCatalog, notes: list[str]) -> dict[str, Any]:
    """Return the `trl` view of a pair (see the module docstring)."""
    start = opening(pair, catalog, notes)
    prompt = []
    if start.system is not None:
        prompt.append({"role": "system", "content": typed_parts([("text", start.system)])})
    prompt.append({"role": "user", "content": typed_parts(start.parts)})
    completion: list[dict[str, Any]] = []
    images = list(start.images)
    tools = start.tools
    if not pair.is_prompt and pair.result is not None:
        talk = conversation(pair, catalog)
        notes.extend(talk.notes)
        rest = [turn for turn in talk.turns[2 if start.system is not None else 1 :]]
        completion = [trl_message(turn) for turn in rest]
        images += [value for turn in rest if turn.role != "tool" for kind, value in turn.parts if kind == "image"]
        tools = talk.tools or tools
    return {
        **pair.flags(),
        "prompt": prompt,
        "completion": completion,
        "images": images,
        "tools": json.dumps(tool_definitions(pair, tools, notes), ensure_ascii=False),
        "item": json.dumps(environment_item(pair, start), ensure_ascii=False),
        "toolset": pair.arm,
        "answer": pair.item.answer,
    }
