"""Tool calls written as text by models whose server did not parse them (small local models)."""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

from mcot.agents.messages import ToolCall

_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
_FENCED = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL)


def _candidates(text: str) -> list[str]:
    found = _TAGGED.findall(text) or _FENCED.findall(text)
    if found:
        return found
    stripped = text.strip()
    return [stripped] if stripped.startswith("{") and stripped.endswith("}") else []


def _as_call(obj: Any, names: Collection[str], index: int) -> ToolCall | None:
    if not isinstance(obj, dict):
        return None
    name = obj.get("name") or (obj.get("function") or {}).get("name")
    if not isinstance(name, str) or name not in names:
        return None
    arguments = obj.get("arguments", obj.get("parameters", (obj.get("function") or {}).get("arguments", {})))
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return ToolCall(id=f"textcall_{index}", name=name, arguments=text)


def parse_text_tool_calls(text: str, names: Collection[str]) -> tuple[ToolCall, ...]:
    """Return the tool calls found in a reply's text (`<tool_call>` tags, fenced or bare JSON), if any.

    Only calls to offered tool names count, so an answer that merely contains JSON is left alone.
    """
    calls: list[ToolCall] = []
    for chunk in _candidates(text):
        try:
            obj = json.loads(chunk)
        except ValueError:
            continue
        for item in obj if isinstance(obj, list) else [obj]:
            call = _as_call(item, names, len(calls) + 1)
            if call is not None:
                calls.append(call)
    return tuple(calls)
