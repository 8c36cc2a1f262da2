"""The training views of an (item, arm): OpenAI-style chat `messages`, and LLaVA-style `conversations`.

Both are rebuilt from the trace (mcot/export/conversation.py) and carry the pair's flags (id, mode, status,
error, correct, score) beside the conversation. Images are named by their export names (`images/<sha>.png`),
relative to the export folder.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mcot.export.conversation import Conversation, Part, Turn, conversation, image_order
from mcot.export.images import ImageCatalog
from mcot.export.records import Pair, record_view

IMAGE_TOKEN = "<image>"
IMAGE_TOKEN_IN_TEXT = "[image]"
"""A literal `<image>` in a question or an answer is written so in the llava view (one token per image)."""

View = Callable[[Pair, ImageCatalog, list[str]], dict[str, Any]]


def _content(parts: list[Part]) -> list[dict[str, Any]]:
    return [
        {"type": "text", "text": value} if kind == "text" else {"type": "image_url", "image_url": {"url": value}}
        for kind, value in parts
    ]


def chat_message(turn: Turn) -> dict[str, Any]:
    """Return a turn as an OpenAI Chat Completions message (content as a list of text and image_url parts)."""
    if turn.role == "tool":
        return {"role": "tool", "tool_call_id": turn.call_id, "content": _content(turn.parts)}
    if turn.role != "assistant":
        return {"role": turn.role, "content": _content(turn.parts)}
    message: dict[str, Any] = {"role": "assistant", "content": _content(turn.parts) if turn.parts else None}
    if turn.tool_calls:
        message["tool_calls"] = [
            {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
            for call in turn.tool_calls
        ]
    return message


def tool_definitions(pair: Pair, names: tuple[str, ...], notes: list[str]) -> list[dict[str, Any]]:
    """Return the Chat Completions `tools` entries the model was offered: the trace's record (`sent.tools`), else the
    arm's tools as registered now (noting tools gone or changed since the run)."""
    from mcot.export.conversation import sent_record

    sent = sent_record(pair)
    if sent is not None and isinstance(sent.get("tools"), list) and (sent["tools"] or not names):
        return [chat_completions_tool(entry) for entry in sent["tools"]]
    if not names:
        return []
    from mcot import tools
    from mcot.tools.toolsets import schema_sha256

    registered = tools.registry()
    known = [name for name in names if name in registered]
    gone = [name for name in names if name not in registered]
    if gone:
        notes.append(f"tools no longer registered, left out of `tools`: {', '.join(gone)}")
    recorded: dict[str, str] = {}
    for arm in pair.run.manifest.arms:
        if arm.name == pair.arm:
            recorded = arm.tool_schemas or {}
    changed = [name for name in known if recorded.get(name) not in (None, schema_sha256(name))]
    if changed:
        notes.append(f"tool schemas changed since the run, `tools` has the current ones: {', '.join(changed)}")
    return tools.openai_tools(known)


def chat_completions_tool(entry: dict[str, Any]) -> dict[str, Any]:
    """Return a recorded tool entry in Chat Completions form (a Messages API entry `{name, description,
    input_schema}` becomes `{"type": "function", "function": {name, description, parameters}}`)."""
    if entry.get("type") == "function" and isinstance(entry.get("function"), dict):
        return entry
    return {
        "type": "function",
        "function": {
            "name": entry.get("name"),
            "description": entry.get("description", ""),
            "parameters": entry.get("input_schema", entry.get("parameters", {})),
        },
    }


def messages_view(pair: Pair, catalog: ImageCatalog, notes: list[str]) -> dict[str, Any]:
    """Return the `messages` view: the pair's flags, its chat messages, their images in order and the arm's tools."""
    talk = conversation(pair, catalog)
    notes.extend(talk.notes)
    return {
        **pair.flags(),
        "messages": [chat_message(turn) for turn in talk.turns],
        "images": image_order(talk.turns),
        "tools": tool_definitions(pair, talk.tools, notes),
    }


def text_value(value: str) -> str:
    """Return text for a view with `<image>` tokens: a literal `<image>` in it written `[image]`."""
    return value.replace(IMAGE_TOKEN, IMAGE_TOKEN_IN_TEXT)


def human_value(parts: list[Part]) -> str:
    """Return text and image parts as one string, each image an `<image>` token where it appeared."""
    return "\n".join(IMAGE_TOKEN if kind == "image" else text_value(value) for kind, value in parts)


def _gpt_value(turn: Turn) -> str:
    lines = [text_value(value) for kind, value in turn.parts if kind == "text" and value]
    for call in turn.tool_calls:
        try:
            arguments: Any = json.loads(call.arguments) if call.arguments.strip() else {}
        except ValueError:
            arguments = call.arguments
        body = json.dumps({"name": call.name, "arguments": arguments}, ensure_ascii=False)
        lines.append(f"<tool_call>\n{text_value(body)}\n</tool_call>")
    return "\n".join(lines)


def llava_conversations(talk: Conversation) -> tuple[str | None, list[dict[str, str]]]:
    """Return (system prompt, LLaVA turns): human and gpt alternate; tool results open the next human turn."""
    system: str | None = None
    turns: list[dict[str, str]] = []

    def add(speaker: str, value: str) -> None:
        if turns and turns[-1]["from"] == speaker:
            turns[-1]["value"] += "\n" + value
        else:
            turns.append({"from": speaker, "value": value})

    for turn in talk.turns:
        if turn.role == "system":
            system = "\n".join(value for kind, value in turn.parts if kind == "text")
        elif turn.role == "user":
            add("human", human_value(turn.parts))
        elif turn.role == "tool":
            label = "error" if turn.is_error else "result"
            add("human", f"Tool {turn.tool_name} {label}: {human_value(turn.parts)}")
        else:
            add("gpt", _gpt_value(turn))
    return system, turns


def llava_view(pair: Pair, catalog: ImageCatalog, notes: list[str]) -> dict[str, Any]:
    """Return the `llava` view: the flags, the system prompt, `image` (names in token order) and `conversations`.

    `image` is left out when the conversation has no image (LLaVA's convention for text-only samples).
    """
    talk = conversation(pair, catalog)
    notes.extend(talk.notes)
    system, turns = llava_conversations(talk)
    record: dict[str, Any] = {**pair.flags(), "system": system}
    images = image_order(talk.turns)
    if images:
        record["image"] = images
    record["conversations"] = turns
    return record


def records_view(pair: Pair, catalog: ImageCatalog, notes: list[str]) -> dict[str, Any]:
    """Return the `records` view of a pair (mcot/export/records.py)."""
    return record_view(pair, catalog)
