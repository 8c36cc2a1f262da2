"""How many tokens an export's records hold: counted by the target trainer's tokenizer when it is named
(`--tokenizer PATH_OR_NAME`, a Hugging Face tokenizer), else estimated as characters / 4.

A record of a chat view (messages, llava, sharegpt, verl, verl-sft, trl) is counted as a trainer tokenizes it: its
conversation as chat messages with text content (each image written `<image>`), rendered by the tokenizer's chat
template with the record's tool definitions, then encoded without special tokens beyond the template's own (what
`apply_chat_template(..., tokenize=True)` counts). A tokenizer without a chat template counts the messages' text
joined by newlines. A record of another view (`records`) is counted over its JSON line. The vision tokens an image
becomes depend on the processor and the image's size, so they are not counted: images are counted apart.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from mcot.core.rundir import json_line
from mcot.export.output import ExportError

IMAGE = "<image>"
"""How an image part is written in the text a chat template renders."""
CHARS_PER_TOKEN = 4

Chat = tuple[list[dict[str, Any]], list[dict[str, Any]]]
"""A record's conversation: chat messages (text content) and tool definitions (Chat Completions entries)."""


def _text(content: Any) -> str:
    """Return message content as text: a string as is, typed or OpenAI parts joined by newlines, images `<image>`."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    lines = []
    for part in content:
        kind = part.get("type")
        lines.append(IMAGE if kind in ("image", "image_url") else str(part.get("text") or ""))
    return "\n".join(lines)


def _arguments(text: Any) -> Any:
    """Return a tool call's JSON-text arguments as an object (what chat templates take), or as given."""
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text) if text.strip() else {}
    except ValueError:
        return text


def _message(message: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"role": message["role"], "content": _text(message.get("content"))}
    calls = message.get("tool_calls") or []
    if calls:
        out["tool_calls"] = [
            {
                "type": "function",
                "function": {"name": call["function"]["name"], "arguments": _arguments(call["function"]["arguments"])},
            }
            for call in calls
        ]
    for key in ("tool_call_id", "name"):
        if message.get(key) is not None:
            out[key] = message[key]
    return out


def _tools(value: Any) -> list[dict[str, Any]]:
    """Return tool definitions (a list, or its JSON text) as Chat Completions entries."""
    entries = json.loads(value) if isinstance(value, str) and value.strip() else value
    return [
        entry if entry.get("type") == "function" else {"type": "function", "function": entry} for entry in entries or []
    ]


_SPEAKERS = {"human": "user", "gpt": "assistant", "function_call": "assistant", "observation": "tool"}


def _conversations(row: dict[str, Any]) -> Chat:
    """llava and sharegpt: `system` and `conversations` of `from`/`value` turns."""
    messages = [{"role": "system", "content": row["system"]}] if row.get("system") else []
    messages += [{"role": _SPEAKERS[turn["from"]], "content": turn["value"]} for turn in row["conversations"]]
    return messages, _tools(row.get("tools"))


def _messages(row: dict[str, Any]) -> Chat:
    return [_message(m) for m in row["messages"]], _tools(row.get("tools"))


def _prompt(row: dict[str, Any]) -> Chat:
    return [_message(m) for m in row["prompt"]], []


def _trl(row: dict[str, Any]) -> Chat:
    return [_message(m) for m in [*row["prompt"], *row["completion"]]], _tools(row.get("tools"))


CHAT_VIEWS: dict[str, Callable[[dict[str, Any]], Chat]] = {
    "messages": _messages,
    "verl-sft": _messages,
    "llava": _conversations,
    "sharegpt": _conversations,
    "verl": _prompt,
    "trl": _trl,
}
"""The views whose records are conversations, and how each gives its chat messages."""


def chat_of(view: str, row: dict[str, Any]) -> Chat | None:
    """Return the record's chat messages and tool definitions, or None for a view that is not a chat format."""
    build = CHAT_VIEWS.get(view)
    return build(row) if build is not None else None


def _plain(chat: Chat) -> str:
    """Return a conversation's text without a template: contents, tool calls and tool definitions, by lines."""
    messages, tools = chat
    lines = [message["content"] for message in messages]
    lines += [json.dumps(call["function"], ensure_ascii=False) for m in messages for call in m.get("tool_calls", [])]
    if tools:
        lines.append(json.dumps(tools, ensure_ascii=False))
    return "\n".join(lines)


class TokenCounter:
    """Counts a record's tokens with a named tokenizer, or estimates them (characters / 4); `method` says which."""

    def __init__(self, tokenizer: str | None = None) -> None:
        self.name = tokenizer
        self._tokenizer: Any = None
        self._templated = False
        if tokenizer is None:
            self.method = f"estimated as characters / {CHARS_PER_TOKEN} (name the trainer's tokenizer with --tokenizer)"
            return
        try:
            from transformers import AutoTokenizer
        except ImportError:
            raise ExportError(
                "--tokenizer needs the transformers library: pip install 'mcot[gen]' (or pip install transformers)"
            ) from None
        try:
            self._tokenizer = AutoTokenizer.from_pretrained(tokenizer)
        except (OSError, ValueError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ExportError(f"--tokenizer {tokenizer}: cannot load it as a Hugging Face tokenizer: {first}") from None
        self._templated = bool(getattr(self._tokenizer, "chat_template", None))
        how = "over each record's chat template" if self._templated else "over the messages' text (no chat template)"
        self.method = f"counted by {tokenizer} {how}"

    def count(self, view: str, row: dict[str, Any]) -> int:
        """Return the record's tokens under the view `view` (see the module docstring)."""
        chat = chat_of(view, row)
        if chat is None:
            text = json_line(row)
        elif self._tokenizer is not None and self._templated:
            text = self._templated_text(view, row, chat)
        else:
            text = _plain(chat)
        if self._tokenizer is None:
            return math.ceil(len(text) / CHARS_PER_TOKEN)
        return len(self._tokenizer(text, add_special_tokens=False)["input_ids"])

    def _templated_text(self, view: str, row: dict[str, Any], chat: Chat) -> str:
        """Return the record's conversation rendered by the tokenizer's chat template; raise ExportError (one line)
        when the template refuses it (a role order or a part it does not take)."""
        from jinja2 import TemplateError

        messages, tools = chat
        try:
            text: str = self._tokenizer.apply_chat_template(messages, tools=tools or None, tokenize=False)
        except (TemplateError, ValueError, TypeError, KeyError) as exc:
            said = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ExportError(
                f"--tokenizer {self.name}: its chat template cannot render the {view} record of {row.get('id')} "
                f"({row.get('mode')}): {said}; nothing was written"
            ) from None
        return text
