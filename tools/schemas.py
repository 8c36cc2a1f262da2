"""JSON schemas of the tools for OpenAI function calling, Anthropic tool use and OpenAI-compatible servers.

One source of truth: each tool's pydantic argument model. References are inlined, titles dropped, optional
fields shown as their plain type; the compatible form keeps only the keywords every server understands.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from mcot.tools.registry import ToolSpec, lookup, registry

COMPATIBLE_KEYWORDS = frozenset({"type", "properties", "required", "items", "enum", "description"})
"""The schema keywords kept for OpenAI-compatible servers (vLLM, SGLang, Ollama, LM Studio)."""

_LAST = ("draw", "color")
"""Optional arguments listed after the tool's own (the drawing switches every geometry tool shares)."""

_DROPPED = frozenset({"title", "$defs", "definitions", "discriminator"})


def parameters_schema(spec: ToolSpec, *, compatible: bool = False) -> dict[str, Any]:
    """Return the JSON schema of a tool's arguments: inlined, without titles; minimal when `compatible`."""
    raw = spec.args_model.model_json_schema()
    defs = raw.get("$defs", {})
    schema = _clean(raw, defs, compatible)
    schema["type"] = "object"
    props = schema.get("properties", {})
    required = schema.get("required", [])
    late = [p for p in _LAST if p in props and p not in required]
    order = [*required, *(p for p in props if p not in required and p not in late), *late]
    schema["properties"] = {k: props[k] for k in order}
    if "required" not in schema:
        schema["required"] = []
    return schema


def openai_tools(names: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """Return Chat Completions `tools` entries (`{"type": "function", "function": {...}}`) for the named tools."""
    return [
        {
            "type": "function",
            "function": {"name": s.name, "description": s.description, "parameters": parameters_schema(s)},
        }
        for s in _select(names)
    ]


def anthropic_tools(names: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """Return Messages API `tools` entries (`{"name", "description", "input_schema"}`) for the named tools."""
    return [
        {"name": s.name, "description": s.description, "input_schema": parameters_schema(s)} for s in _select(names)
    ]


def compatible_tools(names: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """Return OpenAI-shaped `tools` entries with minimal schemas (no `strict`, no constraint keywords)."""
    return [
        {
            "type": "function",
            "function": {
                "name": s.name,
                "description": s.description,
                "parameters": parameters_schema(s, compatible=True),
            },
        }
        for s in _select(names)
    ]


SCHEMA_FLAVORS = {"openai": openai_tools, "anthropic": anthropic_tools, "compatible": compatible_tools}
"""The wire flavours of tool schemas, by the name a backend gives as its `schema_flavor`."""


def flavored_tools(flavor: str, names: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """Return the `tools` entries of the named tools in a wire flavour (`openai`, `anthropic`, `compatible`)."""
    if flavor not in SCHEMA_FLAVORS:
        raise KeyError(f"unknown tool schema flavour {flavor!r}; known: {', '.join(SCHEMA_FLAVORS)}")
    return SCHEMA_FLAVORS[flavor](names)


def _select(names: Iterable[str] | None) -> list[ToolSpec]:
    if names is None:
        return list(registry().values())
    chosen = []
    for name in names:
        spec = lookup(name)  # by name: the other tool modules load only when a name is not loaded yet
        if spec is None:
            raise KeyError(f"unknown tool {name!r}; known tools: {', '.join(registry())}")
        chosen.append(spec)
    return chosen


def _clean(node: Any, defs: dict[str, Any], compatible: bool) -> Any:
    if isinstance(node, list):
        return [_clean(v, defs, compatible) for v in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = copy.deepcopy(defs[node["$ref"].rsplit("/", 1)[-1]])
        extra = {k: v for k, v in node.items() if k != "$ref"}
        return _clean({**target, **extra}, defs, compatible)
    if "anyOf" in node:
        branches = [b for b in node["anyOf"] if b.get("type") != "null"]
        if len(branches) == 1:
            rest = {k: v for k, v in node.items() if k != "anyOf"}
            if rest.get("default", 0) is None:
                rest.pop("default")
            merged = {**branches[0], **rest}
            return _clean(merged, defs, compatible)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROPPED:
            continue
        if key == "properties":
            out[key] = {name: _clean(v, defs, compatible) for name, v in value.items()}
            continue
        if compatible and key not in COMPATIBLE_KEYWORDS and key != "anyOf":
            continue
        if key == "default" and value is None:
            continue
        out[key] = _clean(value, defs, compatible)
    return out
