"""Tools: a tool is a typed function, a pydantic argument model and a docstring; `call` runs one.

Tools are declared in `mcot.registry.TOOLS` by the `@tool(group)` decorator (re-exported as `mcot.tool`), on
the import of their module; `mcot.builtin` names mcot's tool modules (`mcot.declare_tools`) so that they are
imported when the tools are listed or a name is looked up that is not loaded yet. A tool function is either
plain and typed (`def add(a: int, b: int) -> int`: its parameters become the argument model, its return value
the result) or `fn(args: Model, ctx: Context) -> Output` with a pydantic argument model.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import json
import math
import reprlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, get_type_hints

from mcot.tools.budget import time_budget
from mcot.tools.drawing import Sketch, checkpoint, rollback
from mcot.tools.errors import ToolError
from mcot.tools.result import ToolResult
from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from mcot.registry import TOOLS

_MAX_TEXT = 4000


@dataclass
class Output:
    """What a tool function returns: the text for the model, structured data, and optionally ids and an image."""

    text: str
    data: dict[str, Any] = field(default_factory=dict)
    drawn: list[str] = field(default_factory=list)
    image: bytes | None = None


@dataclass
class Context:
    """What a tool function may touch (public as `mcot.Context`; docs/extending.md, "What a tool gets").

    `canvas` is the pair's `mcot.canvas.Canvas`: read it (`width`, `height`, `elements`, `snapshot()`) or operate on it
    (`draw_line`, …) for a canvas tool. `sketch` is a `Sketch` of drawings queued by a domain tool (`line`,
    `arrow`, `path`, `point`, …); they are committed all or nothing after the tool returns, when the call asked
    `draw=true`, and the trace records them as drawn by the tool, not by the model.
    """

    canvas: Any
    sketch: Sketch


ToolFn = Callable[[Any, Context], Output]


@dataclass(frozen=True)
class ToolSpec:
    """One registered tool: its name, model-facing description, argument model, function and group."""

    name: str
    description: str
    args_model: type[BaseModel]
    fn: ToolFn
    group: str
    example: dict[str, Any] = field(default_factory=dict)


def tool(group: str, example: dict[str, Any] | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Return a decorator that declares a function as a tool of `group` (the function itself is returned).

    `fn(args: Model, ctx: Context) -> Output` is registered as it is; a plain typed function gets an argument
    model built from its parameters, and its return value becomes the result's text and `data.result`.
    """

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        doc = _unwrap(inspect.getdoc(fn) or "")
        model = _model_parameter(fn)
        if model is not None:
            spec = ToolSpec(fn.__name__, doc, model, fn, group, dict(example or {}))
        else:
            spec = _plain_tool(fn, doc, group, example)
        TOOLS.register(fn.__name__, spec, description=doc.split("\n", 1)[0], replace=True)
        return fn

    return register


def _model_parameter(fn: Callable[..., Any]) -> type[BaseModel] | None:
    """Return the pydantic model of `fn(args: Model, ctx)`'s first parameter, or None for a plain function."""
    params = list(inspect.signature(fn).parameters)
    if len(params) != 2:
        return None
    model = get_type_hints(fn).get(params[0])
    return model if isinstance(model, type) and issubclass(model, BaseModel) else None


def _plain_tool(fn: Callable[..., Any], doc: str, group: str, example: dict[str, Any] | None) -> ToolSpec:
    """Return the ToolSpec of a plain typed function: an argument model from its signature, a wrapper around it."""
    hints = get_type_hints(fn)
    fields: dict[str, Any] = {}
    for name, param in inspect.signature(fn).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD) or name not in hints:
            raise TypeError(f"tool {fn.__name__}: every parameter needs a type annotation (and no *args/**kwargs)")
        fields[name] = (hints[name], ... if param.default is param.empty else param.default)
    model = create_model(f"{fn.__name__}_arguments", __config__=ConfigDict(extra="forbid"), **fields)

    def run(args: BaseModel, ctx: Context) -> Output:
        value = fn(**{name: getattr(args, name) for name in fields})
        if isinstance(value, Output):
            return value
        if isinstance(value, dict):
            return Output(text=json.dumps(value, ensure_ascii=False), data=value)
        return Output(text=str(value), data={"result": value})

    run.__name__ = fn.__name__
    return ToolSpec(fn.__name__, doc, model, run, group, dict(example or {}))


def unregister(name: str) -> None:
    """Remove the tool declared as `name` (no error if absent); returns nothing."""
    TOOLS.unregister(name)


def _unwrap(doc: str) -> str:
    """Return the docstring with its hard line breaks joined (paragraphs stay apart), as a model should read it."""
    return "\n\n".join(" ".join(p.split()) for p in doc.split("\n\n") if p.strip())


def registry() -> dict[str, ToolSpec]:
    """Return every declared tool by name, canvas operations first, then the domain tools by group."""
    return dict(TOOLS.items())


def lookup(name: str) -> ToolSpec | None:
    """Return the tool declared as `name` (None: no such tool), loading the other tool modules only if needed.

    The canvas operations are declared when the package is imported; the domain tools' modules (shapely,
    numpy…) load on the first lookup of a name outside them, so an arm of canvas tools starts without them.
    """
    return TOOLS.find(name) if isinstance(name, str) else None


def call(name: str, arguments: dict[str, Any] | str | None, canvas: Any) -> ToolResult:
    """Return the result of running tool `name` with `arguments` on `canvas`; never raises.

    The arguments may be a dict or a JSON string. Bad arguments, failures and time-outs come back as an error
    result whose text says what was wrong and how to fix the call; a failed call leaves the canvas unchanged.
    """
    try:
        return _call(name, arguments, canvas)
    except Exception as exc:  # the contract: nothing escapes
        return _error(
            f"tool {name!r} failed unexpectedly ({type(exc).__name__}: {_short(str(exc))}); "
            "check the arguments against the tool's schema and try again"
        )


def _call(name: str, arguments: dict[str, Any] | str | None, canvas: Any) -> ToolResult:
    spec = lookup(name)  # by name: a call of a canvas tool never imports the domain tools' modules
    if spec is None:
        tools = registry()
        shown = _short(repr(name), 80)  # a name is echoed briefly, however long it was
        close = difflib.get_close_matches(name[:100], list(tools), n=3) if isinstance(name, str) else []
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        return _error(f"there is no tool named {shown}.{hint} Available tools: {', '.join(tools)}.")
    parsed = _parse_arguments(spec, arguments)
    if isinstance(parsed, ToolResult):
        return parsed
    try:
        args = spec.args_model.model_validate(parsed)
    except ValidationError as exc:
        return _error(f"{spec.name}: invalid arguments: {_explain(exc)}. {_usage(spec)}")
    sketch = Sketch()
    log_before = _log_length(canvas)
    mark = checkpoint(canvas)  # a failed call leaves the canvas exactly as it was: log, version, redo included
    try:
        with time_budget():
            out = spec.fn(args, Context(canvas, sketch))
            _check_json(out.data)
        drawn = sketch.commit(canvas) if sketch.ops else []
    except Exception as exc:
        rollback(canvas, mark, max(0, _log_length(canvas) - log_before))
        return _failure(spec, exc)
    text = out.text if len(out.text) <= _MAX_TEXT else out.text[: _MAX_TEXT - 20] + " … (truncated)"
    return ToolResult(ok=True, text=text, data=out.data, drawn=[*out.drawn, *drawn], error=None, image=out.image)


def _failure(spec: ToolSpec, exc: Exception) -> ToolResult:
    if isinstance(exc, ToolError) or type(exc).__name__ == "CanvasError":
        return _error(f"{spec.name}: {exc}")
    return _error(
        f"{spec.name} failed ({type(exc).__name__}: {_short(str(exc))}); check the arguments and try again. "
        f"{_usage(spec)}"
    )


def _parse_arguments(spec: ToolSpec, arguments: dict[str, Any] | str | None) -> dict[str, Any] | ToolResult:
    if arguments is None:
        return {}
    if isinstance(arguments, str):
        if not arguments.strip():
            return {}
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as exc:
            return _error(
                f"{spec.name}: the arguments are not valid JSON ({exc.msg} at character {exc.pos}); "
                f"send one JSON object, for example {json.dumps(spec.example)}"
            )
        except RecursionError:
            return _error(
                f"{spec.name}: the arguments nest too deeply to read; send one flat JSON object, "
                f"for example {json.dumps(spec.example)}"
            )
    if not isinstance(arguments, dict):
        return _error(
            f"{spec.name}: the arguments must be a JSON object of named arguments, not "
            f"{type(arguments).__name__}; for example {json.dumps(spec.example)}"
        )
    return arguments


def _explain(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False)[:6]:
        loc = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]).lstrip(".") or "(arguments)"
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "missing":
            parts.append(f"`{loc}` is required")
        elif err["type"] == "extra_forbidden":
            parts.append(f"`{loc}` is not an argument of this tool")
        else:
            parts.append(f"`{loc}`: {msg} (got {_preview(err.get('input'))})")
    more = exc.error_count() - 6  # counted, not listed again: a list of 10,000 bad points has 10,000 errors
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def _usage(spec: ToolSpec) -> str:
    example = f" Example: {json.dumps(spec.example)}" if spec.example else ""
    return f"Arguments: {_argument_names(spec.args_model)} (? = optional).{example}"


@functools.cache
def _argument_names(args_model: type[BaseModel]) -> str:
    schema = args_model.model_json_schema()  # slow (ms): once per tool, since models err often
    required = set(schema.get("required", []))
    properties = list(schema.get("properties", {}))
    names = [p for p in properties if p in required] + [f"{p}?" for p in properties if p not in required]
    return ", ".join(names) or "none"


def _error(message: str) -> ToolResult:
    return ToolResult(ok=False, text=f"Error: {message}", data={}, drawn=[], error=message, image=None)


def _preview(value: Any) -> str:
    """Return a short repr of a value a model sent, whatever it is (deeply nested, a number of 5,000 digits)."""
    try:
        return _short(reprlib.repr(value), 60)
    except (ValueError, RecursionError):
        return f"{type(value).__name__} too large to show"


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _log_length(canvas: Any) -> int:
    log = getattr(canvas, "log", None)
    return len(log) if isinstance(log, list) else 0


def _check_json(data: dict[str, Any]) -> None:
    """Raise ToolError when a tool produced data that does not serialise (NaN, infinity, objects)."""

    def walk(value: Any) -> None:
        if isinstance(value, float) and not math.isfinite(value):
            raise ToolError("the result contains a non-finite number")
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list | tuple):
            for v in value:
                walk(v)

    walk(data)
    json.dumps(data)
