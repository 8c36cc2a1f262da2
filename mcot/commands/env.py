"""`mcot env verl-config --toolset NAME --out tools.yaml [--images-root DIR]`: the YAML tool config of mcot's verl
tools, as verl's `initialize_tools_from_config` loads it (docs/training.md)."""

from __future__ import annotations

from pathlib import Path

import typer
import yaml

from mcot.command_options import VerlConfigOptions
from mcot.errors import UsageError
from mcot.options import validated


@validated(VerlConfigOptions)
def write_verl_config(toolset: str, out: Path, images_root: Path | None = None, overwrite: bool = False) -> int:
    """Write the verl tool config of `toolset` to `out` and print one line; return the exit code (0)."""
    from mcot.env.verl_config import tool_config
    from mcot.tools.errors import ToolError

    out = Path(out)
    if out.is_dir():
        raise UsageError(f"{out} is a directory; --out names the YAML file to write, e.g. {out / 'tools.yaml'}")
    if out.exists() and not overwrite:
        raise UsageError(f"{out} already exists; pass --overwrite to replace it, or choose another --out")
    if images_root is not None and not Path(images_root).is_dir():
        raise UsageError(f"--images-root {images_root} is not a folder (give the export folder that holds images/)")
    try:
        config = tool_config(toolset, images_root)
    except ToolError as exc:
        raise UsageError(str(exc)) from exc
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
    typer.echo(f"wrote the verl tool config of the {toolset} toolset ({len(config['tools'])} tools) to {out}")
    return 0
