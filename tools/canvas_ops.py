"""The canvas operations as tools, built from the canvas's op table (``mcot.canvas.op_specs``), never written out.

Every op of the table that is offered to models (``OpSpec.tool``) is registered here as a tool of group
"canvas": its name, description, example and argument model come from the table, and running it is the op's
``perform`` (a drawing op: ``canvas.draw``). An op declared later (``mcot.canvas.declare_op``) becomes a tool at
once, and leaves with ``remove_op``. ``prompt_listing`` writes the canvas tools as the system prompt lists them.
"""

from __future__ import annotations

from typing import Any

from mcot.canvas._ops import OpSpec, Outcome, op_specs, watch
from mcot.tools.registry import Context, Output, tool, unregister
from pydantic import BaseModel

from mcot.plugins import declaring_as
from mcot.registry import CANVAS_OPS

GROUP = "canvas"
"""The registry group of the canvas tools."""


def canvas_tools() -> tuple[str, ...]:
    """Return the names of the canvas tools, in the table's order (DESIGN.md's for the built-in ones)."""
    return tuple(spec.name for spec in op_specs() if spec.tool)


def prompt_listing() -> str:
    """Return the canvas tools as the system prompt lists them: the drawing tools by name, a sentence for the rest."""
    offered = [spec for spec in op_specs() if spec.tool]
    drawing = [spec.name for spec in offered if spec.creates]
    editing = [spec.name for spec in offered if spec.role == "edit"]
    text = (
        f"Drawing tools ({', '.join(drawing)}) return the new element's id (e1, e2, …); use it with {_either(editing)}."
    )
    hints = [spec.hint for spec in offered if spec.hint]
    return " ".join([text, *hints])


def _either(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _given(args: BaseModel) -> dict[str, Any]:
    return args.model_dump(exclude_none=True)


def _drawn(spec: OpSpec, canvas: Any, given: dict[str, Any]) -> Outcome:
    new_id = canvas.draw(spec.name, **given)
    return Outcome(f"{spec.name}: created {new_id}", {"id": new_id}, [new_id])


def _tool_function(spec: OpSpec) -> Any:
    """Return the tool function of an op: it runs the op on the context's canvas and reports its outcome."""

    def run(args: BaseModel, ctx: Context) -> Output:
        given = _given(args)
        done = spec.perform(ctx.canvas, given) if spec.perform is not None else _drawn(spec, ctx.canvas, given)
        return Output(done.text, done.data, drawn=list(done.changed), image=done.image)

    run.__name__ = run.__qualname__ = spec.name
    run.__doc__ = spec.description
    run.__annotations__ = {"args": spec.args, "ctx": Context, "return": Output}
    return run


_REGISTERED: dict[str, OpSpec] = {}
"""The op each canvas tool was registered from (a tool is registered again only when its op changed)."""


def _sync() -> None:
    """Register a tool for every offered op of the table, and unregister those whose op is gone."""
    wanted = {spec.name: spec for spec in op_specs() if spec.tool}
    changed = False
    for name in [name for name in _REGISTERED if name not in wanted]:
        unregister(name)
        del _REGISTERED[name]
        changed = True
    for name, spec in wanted.items():
        if _REGISTERED.get(name) is spec:
            continue
        held = CANVAS_OPS.peek(name)
        with declaring_as(held.origin if held is not None else "mcot"):  # the tool is held by who declared the op
            tool(GROUP, example=dict(spec.example))(_tool_function(spec))
        _REGISTERED[name] = spec
        changed = True
    if changed:
        _forget_schema_hashes()


def _forget_schema_hashes() -> None:
    """Drop the cached schema hashes of the toolsets module (a re-declared op has a new schema)."""
    import sys

    toolsets = sys.modules.get("mcot.tools.toolsets")
    if toolsets is not None:
        toolsets.schema_sha256.cache_clear()


_sync()
watch(_sync)
