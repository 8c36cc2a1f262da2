"""`mcot tools`: list the tools a model can call with their schemas, or run one on a canvas from the shell."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import typer

from mcot.canvas import Canvas, CanvasError
from mcot.command_options import ToolCallOptions, ToolsListOptions
from mcot.core.errors import UsageError
from mcot.core.inputs import NotRegularFile, check_regular
from mcot.core.options import validated
from mcot.core.rundir import write_bytes_atomic
from mcot.tools import call, registry
from mcot.tools.schemas import parameters_schema


@validated(ToolsListOptions)
def list_tools(json_out: bool = False) -> int:
    """Print every tool (name, group, description, argument schema) as text or as JSON; return 0."""

    specs = registry()
    if json_out:
        listing = [
            {
                "name": s.name,
                "group": s.group,
                "description": s.description,
                "parameters": parameters_schema(s),
                "example": s.example,
            }
            for s in specs.values()
        ]
        typer.echo(json.dumps(listing, indent=2))
        return 0
    group = None
    for spec in specs.values():
        if spec.group != group:
            group = spec.group
            typer.echo(f"\n== {group} ==")
        schema = parameters_schema(spec)
        required = set(schema.get("required", []))
        typer.echo(f"\n{spec.name}")
        for line in spec.description.splitlines():
            typer.echo(f"    {line}" if line else "")
        for arg, prop in schema.get("properties", {}).items():
            mark = "" if arg in required else "?"
            typer.echo(f"    - {arg}{mark}: {_type_of(prop)}  {prop.get('description', '')}".rstrip())
        typer.echo(f"    example: {json.dumps(spec.example)}")
    typer.echo("\n(? = optional; coordinates in canvas pixels, y down; angles in degrees)")
    return 0


@validated(ToolCallOptions)
def call_tool(
    name: str, arguments: str = "{}", image: Path | None = None, out: Path | None = None, size: str = "640x640"
) -> int:
    """Run one tool on a canvas (the image, or a blank canvas of `size`), print its result as JSON; return 0.

    With `out`, writes the canvas PNG there (for zoom, the magnified view). A tool error prints the result and
    raises UsageError (exit 2) with the error as its one-line reason.
    """

    try:
        if image is not None:
            if not image.exists():
                raise UsageError(f"--image {image}: no such file")
            try:
                check_regular(image, what="--image")  # a FIFO or a device: named, never opened
            except NotRegularFile as exc:
                raise UsageError(str(exc)) from None
            canvas = Canvas.from_path(image)
        else:
            match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", size)
            if not match:
                raise UsageError(f"--size must be WIDTHxHEIGHT in pixels, e.g. 640x480; got {size!r}")
            canvas = Canvas(size=(int(match[1]), int(match[2])))
    except CanvasError as exc:
        raise UsageError(str(exc)) from exc
    result = call(name, arguments, canvas)
    report: dict[str, Any] = result.to_dict()
    report["ops"] = canvas.log
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(out, result.image if result.image is not None else canvas.snapshot().png)
        report["png"] = str(out)
    typer.echo(json.dumps(report, indent=2))
    if not result.ok:
        raise UsageError(str(result.error).replace("\n", " "))
    return 0


def _type_of(prop: dict[str, Any]) -> str:
    kind = prop.get("type", "any")
    if "enum" in prop:
        return " | ".join(json.dumps(v) for v in prop["enum"])
    if kind == "array":
        return f"list[{_type_of(prop.get('items', {}))}]"
    return str(kind)
