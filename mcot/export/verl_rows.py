"""The `verl` (RL prompt rows) and `verl-sft` (multi-turn SFT) views, in the shapes verl 0.9 reads.

`verl`: one prompt row per (item, arm), as verl's RLHFDataset and its tool agent loop take it: `data_source` (the
benchmark), `prompt` (chat messages whose content is text with one `<image>` per entry of `images`), `images`,
`ability` (the item's category), `reward_model: {"style": "rule", "ground_truth"}` (the item's answer),
`extra_info: {"split", "index", "id", "item", "need_tools_kwargs", "tool_selection", "tools_kwargs"}` and
`agent_name` (`tool_agent` when the arm has tools, else `single_turn_agent`). `extra_info.item` is the item as
mcot.rewards.compute_score scores it (JSON text). `tools_kwargs` gives every tool of the arm a `create_kwargs`:
the arm's first tool `{"item": …}` (the item as mcot.env.verl rebuilds its canvas, JSON text with the verifier's
meta only), the others `{"item": null}`: mcot's tools share one canvas per trajectory, built from the entry that
holds the item whichever tool is called first, so the item is stored once rather than once per tool.
`tool_selection` names the arm's tools, so that verl offers exactly those. The prompt is the item's opening
(mcot/export/prompt.py): from a run too, RL starts from the prompt, not from the run's answer.

`verl-sft`: the whole conversation as verl's MultiTurnSFTDataset takes it: `messages` (system, user, assistant
with `tool_calls` whose arguments are JSON text, `tool` turns), content as text with `<image>` tokens, the canvas
shown after a round of tools inside that round's last `tool` turn (verl's agent loop puts a tool's image in its
tool turn), `images` in token order and `tools` (the arm's Chat Completions tool definitions, JSON text: read
them with mcot.env.verl.SFTDataset, a MultiTurnSFTDataset that parses them).
"""

from __future__ import annotations

import json
from typing import Any

from mcot.export.conversation import Part, Turn, conversation
from mcot.export.images import ImageCatalog
from mcot.export.prompt import environment_item, opening
from mcot.export.records import Pair
from mcot.export.views import human_value, text_value, tool_definitions

TOOL_AGENT, SINGLE_TURN_AGENT = "tool_agent", "single_turn_agent"
"""verl's agent loops: multi-turn with tools, and one answer."""
SPLIT = "train"


def verl_view(pair: Pair, catalog: ImageCatalog, notes: list[str]) -> dict[str, Any]:
    """Return the `verl` view of a pair: an RL prompt row (see the module docstring)."""
    start = opening(pair, catalog, notes)
    prompt: list[dict[str, str]] = []
    if start.system is not None:
        prompt.append({"role": "system", "content": start.system})
    prompt.append({"role": "user", "content": human_value(start.parts)})
    item = json.dumps(environment_item(pair, start), ensure_ascii=False)
    canvas_item = json.dumps(environment_item(pair, start, full=False), ensure_ascii=False)
    created = {name: {"create_kwargs": {"item": canvas_item if k == 0 else None}} for k, name in enumerate(start.tools)}
    return {
        **pair.flags(),
        "data_source": pair.item.benchmark,
        "prompt": prompt,
        "images": start.images,
        "ability": pair.item.category,
        "reward_model": {"style": "rule", "ground_truth": pair.item.answer},
        "extra_info": {
            "split": SPLIT,
            "index": pair.index,
            "id": pair.item.id,
            "item": item,
            "need_tools_kwargs": bool(start.tools),
            "tool_selection": list(start.tools),
            "tools_kwargs": created,
        },
        "agent_name": TOOL_AGENT if start.tools else SINGLE_TURN_AGENT,
    }


def _assistant(turn: Turn) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "assistant",
        "content": "\n".join(text_value(value) for kind, value in turn.parts if kind == "text" and value),
    }
    if turn.tool_calls:
        message["tool_calls"] = [
            {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments or "{}"}}
            for call in turn.tool_calls
        ]
    return message


def sft_messages(turns: list[Turn]) -> list[dict[str, Any]]:
    """Return the turns as verl SFT messages: text content with `<image>` tokens, the canvas after a round in its
    last tool turn."""
    messages: list[dict[str, Any]] = []
    for turn in turns:
        if turn.role == "assistant":
            messages.append(_assistant(turn))
        elif turn.role == "tool":
            messages.append({"role": "tool", "content": human_value(turn.parts), "tool_call_id": turn.call_id})
        elif turn.role == "user" and messages and messages[-1]["role"] == "tool":
            messages[-1]["content"] += "\n" + human_value(turn.parts)
        else:
            messages.append({"role": turn.role, "content": human_value(turn.parts)})
    return messages


def _images(parts: list[Part]) -> list[str]:
    return [value for kind, value in parts if kind == "image"]


def verl_sft_view(pair: Pair, catalog: ImageCatalog, notes: list[str]) -> dict[str, Any]:
    """Return the `verl-sft` view of a pair: the flags, `messages`, `images` in token order and `tools` (JSON text)."""
    talk = conversation(pair, catalog)
    notes.extend(talk.notes)
    return {
        **pair.flags(),
        "messages": sft_messages(talk.turns),
        "images": [name for turn in talk.turns for name in _images(turn.parts)],
        "tools": json.dumps(tool_definitions(pair, talk.tools, notes), ensure_ascii=False),
    }
