"""How `mcot` help pages look: `-h`/`--help` everywhere, flags without a value placeholder, named placeholders,
and the names a registry knows filled into help texts when they are shown.

Typer shows a type placeholder such as `<bool>` beside every flag (`--help` included), `<str>` or `<int>`
beside every option and argument, and `{RUN}` for a required argument in the usage line. Here a flag shows
none (`--effects`, `--help`), an option without an explicit `metavar` shows its own name in capitals, the
argparse convention (`--format FORMAT`), an argument only its name, and the usage line reads
`mcot score [OPTIONS] RUN`. A help text may name a registry in braces (`the model: {backends}`): it is filled
with what is declared, plugins included, when the help is shown, and only then (`mcot --help` loads nothing).
"""

from __future__ import annotations

import re
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from mcot.command_options import GenItemsOptions
from mcot.options import command

CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["--help", "-h"], "max_content_width": 100}


_PLACEHOLDER = re.compile(r"\{(backends|generators|toolsets|export_formats|export_views|protocols|formats)\}")


def declared(kind: str) -> str:
    """Return what the registry `kind` holds as help text: `usage (description) | …`."""
    from mcot import registry

    if kind == "formats":
        from mcot.benchmarks.loaders import convertible_formats

        return " | ".join(convertible_formats())
    by_kind: dict[str, registry.Registry[Any]] = {
        "backends": registry.BACKENDS,
        "generators": registry.GENERATORS,
        "toolsets": registry.TOOLSETS,
        "export_formats": registry.EXPORT_FORMATS,
        "export_views": registry.EXPORT_VIEWS,
        "protocols": registry.PROTOCOLS,
    }
    chosen = by_kind[kind]
    return " | ".join(f"{usage} ({text})" if text else usage for usage, text in chosen.describe())


def filled(text: str | None) -> str | None:
    """Return a help text with its `{registry}` placeholders filled (unchanged when it has none)."""
    if not text or "{" not in text:
        return text
    return _PLACEHOLDER.sub(lambda match: declared(match.group(1)), text)


"""Click context settings of the root app (sub-commands inherit them): `-h` works wherever `--help` does."""


def _no_type(ctx: Any = None) -> None:
    """Return no type label: an argument's name (RUN, SRC) already says what goes there."""
    return None


_SHOWING_HELP = "mcot.showing_help"
"""The context's `meta` key set while a help page is made: only then are registries read into help texts."""


def placeholder(param: Any, *, fill: bool = True) -> None:
    """Give one parameter the placeholder its help line shows: none for a flag, its name for an option or an
    argument (without Typer's `<path>` type label); `fill` its help text's `{registry}` names too."""
    kind = getattr(param, "param_type_name", "")
    if fill and getattr(param, "help", None):
        param.help = filled(param.help)
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
        # parsing a command line asks for the parameters too: the registries (which import the canvas ops, the
        # tools, the loaders) are read only for a help page, not on the way to running the command
        fill = bool(getattr(ctx, "meta", {}).get(_SHOWING_HELP))
        for param in params:
            placeholder(param, fill=fill)
        return params

    def get_help(self, ctx: Any) -> str:
        """Return the help page, with the registries' names filled into the help texts."""
        ctx.meta[_SHOWING_HELP] = True
        return str(super().get_help(ctx))  # type: ignore[misc]

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        """Return the usage line's pieces with required arguments bare (`RUN`), optional ones in brackets."""
        pieces: list[str] = super().collect_usage_pieces(ctx)  # type: ignore[misc]
        return [p[1:-1] if p.startswith("{") and p.endswith("}") else p for p in pieces]


class HelpCommand(_Placeholders, TyperCommand):
    """A Typer command whose help shows flags without `<bool>` and options with named placeholders."""


class HelpGroup(_Placeholders, TyperGroup):
    """A Typer group (the app, `gen`, `tools`) with the same help conventions as HelpCommand."""

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """Write the commands with their whole first sentence, wrapped (click cuts it to the first line's width)."""
        rows = []
        for name in self.list_commands(ctx):
            found = self.get_command(ctx, name)
            if found is not None and not found.hidden:
                rows.append((name, found.get_short_help_str(limit=1_000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


class HelpTyper(typer.Typer):
    """typer.Typer whose groups are HelpGroup and whose commands default to HelpCommand."""

    def __init__(self, *, cls: type[TyperGroup] | None = None, **kwargs: Any) -> None:
        # click's plain help formatter: rich's renderer was ~0.28 s of a 0.43 s `mcot --help` (perf/cli_help.py)
        kwargs.setdefault("rich_markup_mode", None)
        super().__init__(cls=cls or HelpGroup, **kwargs)

    def command(self, name: str | None = None, *, cls: type[TyperCommand] | None = None, **kwargs: Any) -> Any:
        """Return the usual command decorator, with HelpCommand as the default command class."""
        return super().command(name, cls=cls or HelpCommand, **kwargs)


class GeneratorGroup(HelpGroup):
    """`mcot gen`: its own commands, plus one `NAME --n N --seed S --out DIR` per declared item generator."""

    def list_commands(self, ctx: Any) -> list[str]:
        """Return the built-in generation commands and the declared item generators' names."""
        from mcot.registry import ITEM_GENERATORS

        names = list(super().list_commands(ctx))
        return names + [name for name in ITEM_GENERATORS.names() if name not in names]

    def get_command(self, ctx: Any, name: str) -> Any:
        """Return the command `name`: a built-in one, or the command of a declared item generator."""
        found = super().get_command(ctx, name)
        if found is not None:
            return found
        from mcot.registry import ITEM_GENERATORS

        declared = ITEM_GENERATORS.find(name)
        return _generator_command(declared.name, declared.description) if declared is not None else None


def _generator_command(name: str, description: str) -> Any:
    """Return the `mcot gen NAME` command of a declared item generator, built from GenItemsOptions like every
    command."""
    from mcot.cli import dispatch  # mcot.cli imports this module

    def body(**values: Any) -> None:
        dispatch("gen_items", "gen_items", GenItemsOptions, name=name, **values)

    doc = f"{description} (items from a declared generator)."
    generated = command(GenItemsOptions, body, name=name.replace("-", "_"), doc=doc)
    generated.target = ("gen_items", "gen_items")  # type: ignore[attr-defined]
    single = HelpTyper(add_completion=False)
    single.command(name=name, help=doc)(generated)
    return typer.main.get_command(single)
