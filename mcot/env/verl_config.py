"""The YAML tool config of mcot's verl tools (`mcot env verl-config`), without importing verl.

verl 0.9's `OpenAIFunctionToolSchema` holds a type, a description and an enum per argument (no `items`, no nested
`properties`): what it cannot hold of an array's items or an object's keys is written into the argument's
description, which the model reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcot.env.episode import EpisodeError
from mcot.tools.registry import lookup
from mcot.tools.schemas import parameters_schema
from mcot.tools.toolsets import toolset as toolset_tools

TOOL_CLASS = "mcot.env.verl.CanvasTool"


def tool_config(toolset: str, images_root: str | Path | None = None) -> dict[str, Any]:
    """Return the tool config verl's `initialize_tools_from_config` loads: one CanvasTool entry per tool of `toolset`."""

    config: dict[str, Any] = {"type": "native", "toolset": toolset}
    if images_root is not None:
        config["images_root"] = str(Path(images_root).absolute())
    return {
        "tools": [
            {"class_name": TOOL_CLASS, "config": dict(config), "tool_schema": verl_tool_schema(name)}
            for name in toolset_tools(toolset)
        ]
    }


def verl_tool_schema(name: str) -> dict[str, Any]:
    """Return a tool's schema in the shape verl's OpenAIFunctionToolSchema holds (type, description and enum per
    argument: the shapes of arrays and objects go into the description, which verl keeps)."""

    spec = lookup(name)
    if spec is None:
        raise EpisodeError(f"no tool named {name!r} (`mcot tools` lists them)")
    schema = parameters_schema(spec)
    properties = {}
    for argument, prop in (schema.get("properties") or {}).items():
        entry: dict[str, Any] = {"type": _type(prop)}
        description = " ".join(str(prop.get("description") or "").split())
        shape = _shape(prop)
        entry["description"] = f"{description} ({shape})" if description and shape else description or shape
        if isinstance(prop.get("enum"), list):
            entry["enum"] = list(prop["enum"])
        properties[argument] = entry
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": {"type": "object", "properties": properties, "required": list(schema.get("required") or [])},
        },
    }


def _type(prop: dict[str, Any]) -> str | list[str]:
    kind = prop.get("type")
    if isinstance(kind, list):
        return [str(one) for one in kind]
    if kind is None and "anyOf" in prop:
        kinds = [str(option.get("type")) for option in prop["anyOf"] if option.get("type")]
        return kinds if len(kinds) > 1 else (kinds[0] if kinds else "string")
    return str(kind or "string")


def _shape(prop: dict[str, Any]) -> str:
    """Return what verl's schema cannot hold of an argument: an array's items, an object's keys."""
    if prop.get("type") == "array" and isinstance(prop.get("items"), dict):
        inner = prop["items"]
        inner_shape = _shape(inner)
        return f"array of {inner_shape or inner.get('type', 'values')}"
    if prop.get("type") == "object" and isinstance(prop.get("properties"), dict):
        return "object with " + ", ".join(
            f"{key}: {_shape(value) or value.get('type', 'value')}" for key, value in prop["properties"].items()
        )
    return ""
