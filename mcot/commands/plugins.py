"""`mcot plugins`: the installed plugins, the ones that failed to load, and what every registry holds."""

from __future__ import annotations

import typer

from mcot.command_options import PluginsOptions
from mcot.options import validated
from mcot.plugins import loaded_plugins, plugin_errors
from mcot.registry import ALL


@validated(PluginsOptions)
def list_plugins(everything: bool = False) -> int:
    """Print the plugins that loaded and those that did not (and, with `everything`, every registry); return 0."""
    loaded, failed = loaded_plugins(), plugin_errors()
    if not loaded and not failed:
        typer.echo("no plugin installed (entry-point group mcot.plugins)")
    for plugin in loaded:
        typer.echo(f"{plugin.name}: {plugin.target} ({plugin.distribution or 'unknown distribution'})")
    for failure in failed:
        typer.echo(failure.line())
    if everything:
        for kind, registry in ALL.items():
            entries = registry.entries()
            typer.echo(f"\n{kind} ({len(entries)}):")
            for entry in entries:
                origin = "" if entry.origin == "mcot" else f"  [{entry.origin}]"
                typer.echo(f"  {entry.usage}{origin}  {entry.description}".rstrip())
    return 1 if failed else 0
