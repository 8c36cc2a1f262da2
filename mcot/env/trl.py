"""`CanvasEnv`: mcot's canvas as a TRL environment (`GRPOTrainer(environment_factory=CanvasEnv)`, TRL 1.16).

TRL builds one instance per rollout with no arguments, calls `reset(**row)` with the dataset row's columns, offers
the instance's public methods as tools (their schemas read by `transformers.utils.get_json_schema` from type
hints and Google-style docstrings), calls them with the model's arguments, and calls `get_reward()` once the
rollout is done. So the class's only public methods are `reset`, `get_reward` and the toolset's tools, one method
per tool named as the tool, whose signature and docstring are made from the tool's argument schema; each returns
the observation as content blocks, `[{"type": "image", "image": PIL.Image}, {"type": "text", "text"}]`.

`CanvasEnv` offers the canvas toolset; `CanvasEnv.with_toolset("tools")` returns the class that offers the domain
tools too (any declared toolset; `images_root=` for rows whose images are paths, as a jsonl export writes them).
`env.episode` (mcot.env.episode.Episode) holds the episode: its op log, its trace steps, the verdict.
"""

from __future__ import annotations

import inspect
import re
from functools import cache
from pathlib import Path
from types import GenericAlias
from typing import Any, ClassVar, Literal, Union

from mcot.env.episode import Episode, EpisodeError, Observation, item_from_row

DEFAULT_TOOLSET = "canvas"
RETURNS = "The observation: the canvas image after the call when it changed, and the tool's result as text."


class CanvasEnvironment:
    """The methods every canvas environment has: `reset`, `get_reward`; the tools are added per toolset."""

    toolset: ClassVar[str] = DEFAULT_TOOLSET
    tools: ClassVar[tuple[str, ...]] = ()
    images_root: ClassVar[Path | None] = None

    def __init__(self) -> None:
        self.episode: Episode | None = None

    def reset(self, **row: Any) -> list[dict[str, Any]] | None:
        """Open the episode of a `trl` export row (its `item` and `images` columns); return the opening to add to
        the prompt: None when the row has a `prompt` (which holds it already), else the canvas note, the canvas
        image and the task as content blocks."""
        if row.get("item") is None:
            raise EpisodeError(
                "CanvasEnv.reset needs the row's `item` column: train on an `mcot export --as trl` dataset"
            )
        item = item_from_row(row["item"])
        images = row.get("images") or []
        if not isinstance(images, list | tuple):
            raise EpisodeError(f"the row's `images` is a {type(images).__name__}, not a list of images")
        self.episode = Episode.open(item, self.tools, images[0] if images else None, self.images_root)
        if row.get("prompt"):
            return None
        from mcot.agents.prompts import render_task

        opening = self.episode.steps[0]["text"]
        task = render_task(
            item.benchmark,
            item.question,
            tuple(item.choices) if item.choices else None,
            item.answer_type,
            has_image=bool(item.images),
        )
        return [
            {"type": "text", "text": opening},
            {"type": "image", "image": self.episode.view()},
            {"type": "text", "text": task},
        ]

    def get_reward(self) -> float:
        """Return the trace verifier's verdict on what the model drew: 1.0 valid, else 0.0 (0.0 where the task has
        no verifier, such as GePBench: reward those with mcot.rewards.accuracy)."""
        return self.episode.reward() if self.episode is not None else 0.0

    def _call(self, name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
        if self.episode is None:
            return Observation(False, "Error: the environment has no episode yet (reset it with a row first)").content()
        return self.episode.call(name, arguments).content()

    @classmethod
    def with_toolset(cls, name: str, *, images_root: str | Path | None = None) -> type[CanvasEnvironment]:
        """Return the environment class offering the declared toolset `name` (images read under `images_root`)."""
        return environment_class(name, str(images_root) if images_root is not None else None)


@cache
def environment_class(toolset: str, images_root: str | None = None) -> type[CanvasEnvironment]:
    """Return the environment class of a toolset: CanvasEnvironment with one method per tool (cached)."""
    from mcot.tools.toolsets import toolset as toolset_tools

    names = toolset_tools(toolset)
    methods: dict[str, Any] = {name: tool_method(name) for name in names}
    label = "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]+", toolset) if part)
    namespace = {
        **methods,
        "toolset": toolset,
        "tools": names,
        "images_root": Path(images_root) if images_root is not None else None,
        "__doc__": f"mcot's canvas as a TRL environment, offering the {toolset} toolset ({len(names)} tools).",
        "__module__": __name__,
    }
    name = "CanvasEnv" if toolset == DEFAULT_TOOLSET and images_root is None else f"CanvasEnv{label}"
    return type(name, (CanvasEnvironment,), namespace)


def tool_method(name: str) -> Any:
    """Return the environment method of a tool: `(self, **arguments)` under a signature and a Google-style
    docstring made from the tool's argument schema, so that get_json_schema reads the tool as the model sees it."""
    from mcot.tools.registry import lookup
    from mcot.tools.schemas import parameters_schema

    spec = lookup(name)
    if spec is None:
        raise EpisodeError(f"no tool named {name!r}")
    schema = parameters_schema(spec)
    required = set(schema.get("required") or [])
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    lines: list[str] = []
    for argument, prop in (schema.get("properties") or {}).items():
        hint = annotation(prop)
        optional = argument not in required
        annotations[argument] = hint | None if optional else hint
        default = None if optional else inspect.Parameter.empty
        parameters.append(inspect.Parameter(argument, inspect.Parameter.KEYWORD_ONLY, default=default))
        lines.append(f"    {argument}: {describe(argument, prop, optional)}")
    annotations["return"] = list[dict[str, Any]]

    def method(self: CanvasEnvironment, **arguments: Any) -> list[dict[str, Any]]:
        return self._call(name, arguments)

    method.__name__ = method.__qualname__ = name
    method.__annotations__ = annotations
    method.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [p.replace(annotation=annotations.get(p.name, inspect.Parameter.empty)) for p in parameters],
        return_annotation=annotations["return"],
    )
    args = "\n\nArgs:\n" + "\n".join(lines) if lines else ""
    method.__doc__ = f"{spec.description}{args}\n\nReturns:\n    {RETURNS}"
    return method


_SCALARS: dict[str, Any] = {"string": str, "number": float, "integer": int, "boolean": bool}


def annotation(schema: dict[str, Any]) -> Any:
    """Return the Python type hint of a JSON schema that get_json_schema turns back into that schema's type."""
    if "enum" in schema and all(isinstance(value, str | int | float | bool) for value in schema["enum"]):
        return Literal[tuple(schema["enum"])]
    if "anyOf" in schema:
        options = [annotation(option) for option in schema["anyOf"] if option.get("type") != "null"]
        return Union[tuple(options)] if len(options) > 1 else (options[0] if options else Any)  # noqa: UP007
    kind = schema.get("type")
    if isinstance(kind, list):
        options = [annotation({**schema, "type": one}) for one in kind if one != "null"]
        return Union[tuple(options)] if len(options) > 1 else options[0]  # noqa: UP007
    if kind == "array":
        items = schema.get("items")
        return GenericAlias(list, (annotation(items),)) if isinstance(items, dict) and items else list[Any]
    if kind == "object":
        return dict[str, Any]
    return _SCALARS.get(str(kind), Any)


def describe(argument: str, schema: dict[str, Any], optional: bool) -> str:
    """Return one line describing an argument (its schema's description, else its shape), for the docstring."""
    text = str(schema.get("description") or "").strip()
    if not text:
        if schema.get("type") == "object" and schema.get("properties"):
            keys = ", ".join(
                f"{key} ({value.get('description') or value.get('type') or 'value'!s})"
                for key, value in schema["properties"].items()
            )
            text = f"an object with {keys}"
        else:
            text = f"the new {argument}" if optional else argument
    text = " ".join(text.split())
    return f"{text} (optional)" if optional and not text.endswith("(optional)") else text


CanvasEnv = environment_class(DEFAULT_TOOLSET)
"""The canvas toolset's environment, the class to pass as TRL's `environment_factory`."""
