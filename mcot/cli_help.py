"""How `mcot` help pages look: `-h`/`--help` everywhere, flags without a value placeholder, named placeholders.

Typer shows a type placeholder such as `<bool>` beside every flag (`--help` included), `<str>` or `<int>`
beside every option and argument, and `{RUN}` for a required argument in the usage line. Here a flag shows
none (`--effects`, `--help`), an option without an explicit `metavar` shows its own name in capitals, the
argparse convention (`--format FORMAT`), an argument only its name, and the usage line reads
`mcot score [OPTIONS] RUN`.
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["--help", "-h"]}
"""Click context settings of the root app (sub-commands inherit them): `-h` works wherever `--help` does."""


def _no_type(ctx: Any = None) -> None:
    """Return no type label: an argument's name (RUN, SRC) already says what goes there."""
    return None


def placeholder(param: Any) -> None:
    """Give one parameter the placeholder its help line shows: none for a flag, its name for an option or an
    argument (without Typer's `<path>` type label)."""
    kind = getattr(param, "param_type_name", "")
    if kind == "argument" and hasattr(param, "display_type_rich"):
        param.display_type_rich = _no_type
    if kind != "option" or param.metavar is not None:
        return
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        param.metavar = ""
    else:
        long_names = [opt for opt in param.opts if opt.startswith("--")]
        param.metavar = (long_names[0][2:] if long_names else str(param.name)).replace("-", "_").upper()


class _Placeholders:
    """Mixin: set the help placeholders of every parameter (the help option too) before they are shown."""

    def get_params(self, ctx: Any) -> list[Any]:
        """Return the command's parameters (help option included) with their placeholders set."""
        params: list[Any] = super().get_params(ctx)  # type: ignore[misc]
        for param in params:
            placeholder(param)
        return params

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        """Return the usage line's pieces with required arguments bare (`RUN`), optional ones in brackets."""
        pieces: list[str] = super().collect_usage_pieces(ctx)  # type: ignore[misc]
        return [p[1:-1] if p.startswith("{") and p.endswith("}") else p for p in pieces]


class HelpCommand(_Placeholders, TyperCommand):
    """A Typer command whose help shows flags without `<bool>` and options with named placeholders."""


class HelpGroup(_Placeholders, TyperGroup):
    """A Typer group (the app, `gen`, `tools`) with the same help conventions as HelpCommand."""


class HelpTyper(typer.Typer):
    """typer.Typer whose groups are HelpGroup and whose commands default to HelpCommand."""

    def __init__(self, *, cls: type[TyperGroup] | None = None, **kwargs: Any) -> None:
        super().__init__(cls=cls or HelpGroup, **kwargs)

    def command(self, name: str | None = None, *, cls: type[TyperCommand] | None = None, **kwargs: Any) -> Any:
        """Return the usual command decorator, with HelpCommand as the default command class."""
        return super().command(name, cls=cls or HelpCommand, **kwargs)
