"""Options declared once: a dataclass's fields are a command's options — name, help, default, range,
placeholder — their validation, and what a manifest records.

`option(...)` declares one field (an option, or with `argument=True` a positional argument); `command(Config,
body, …)` turns the fields into the parameters of a Typer command (so `mcot run --help` is generated from
`RunConfig`, `mcot score --help` from `ScoreOptions`); `check(config)` (called by the config's `__post_init__`)
refuses a value outside its rule with a UsageError naming the flag (`--concurrency must be between 1 and 1024
(got 0)`); `validated(Config)` makes a command function check its arguments against the same declaration when
called from Python; `result_settings(config)` returns the fields marked as changing results, by their manifest
names. Plain dataclasses, so that building the CLI imports nothing heavy. docs/extending.md says how to add a
command or an option.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from mcot.errors import UsageError

P = ParamSpec("P")
R = TypeVar("R")


def option(
    default: Any = dataclasses.MISSING,
    *,
    help: str,
    metavar: str | None = None,
    flag: str | None = None,
    result: bool = False,
    manifest: str | None = None,
    cli: bool = True,
    argument: bool = False,
    rule: str | None = None,
    ge: float | None = None,
    le: float | None = None,
    gt: float | None = None,
    lt: float | None = None,
) -> Any:
    """Return a dataclass field declaring one command option.

    `help` is its help text (`{backends}` and the like are filled from the registries when help is shown); `flag`
    its long option (default `--field-name`); `result` True when it changes results (the manifest records it under
    `manifest`, default the field name, and a resume with another value is refused); `cli` False for a setting
    with no flag; `argument` True for a positional argument (a `list[...]` one takes any number of values);
    `ge`/`le`/`gt`/`lt` its bounds (a float must also be finite) and `rule` the words of the error for a value
    outside them (default: said from the bounds).
    """
    metadata = {"help": help, "metavar": metavar, "flag": flag, "result": result, "manifest": manifest, "cli": cli,
                "argument": argument, "rule": rule, "ge": ge, "le": le, "gt": gt, "lt": lt}  # fmt: skip
    return dataclasses.field(default=default, metadata=metadata)


def flag_of(field: dataclasses.Field[Any]) -> str:
    """Return the long option of a field (`--max-steps` for max_steps unless the field says otherwise)."""
    return str(field.metadata.get("flag") or "--" + field.name.replace("_", "-"))


def cli_fields(config: type[Any]) -> list[dataclasses.Field[Any]]:
    """Return the fields of a config dataclass that are command options, in declaration order."""
    return [f for f in dataclasses.fields(config) if f.metadata.get("cli", False)]


def command(
    config: type[Any], body: Callable[..., Any], *, name: str, doc: str, context: bool = False
) -> Callable[..., Any]:
    """Return a function whose signature is the config's options (as Typer reads it), calling `body(**values)`
    (with `context`, also `ctx=` the click context: a group's callback asks it which sub-command runs)."""
    import typer

    params = []
    if context:
        params.append(inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=typer.Context))
    for field in cli_fields(config):
        required = field.default is dataclasses.MISSING
        shown = {"help": field.metadata["help"], "metavar": field.metadata.get("metavar"),
                 "show_default": not required and field.default is not None and field.default is not False}  # fmt: skip
        if field.metadata.get("argument"):
            default = typer.Argument(... if required else field.default, **shown)
        else:
            default = typer.Option(... if required else field.default, flag_of(field), **shown)
        params.append(inspect.Parameter(field.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                        annotation=_annotation(field)))  # fmt: skip

    def run(**values: Any) -> Any:
        return body(**values)

    run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in params}
    run.__name__, run.__doc__ = name, doc
    run.declaration = config  # type: ignore[attr-defined]  # read by the test that every command is declared
    return run


_TYPES = {"int": int, "float": float, "str": str, "bool": bool, "Path": Path}


def _annotation(field: dataclasses.Field[Any]) -> Any:
    """Return the field's type as an object (the configs' annotations are strings): `int`, `Path | None`, …"""
    text = str(field.type).replace(" ", "")
    optional = text.endswith("|None")
    core = text.removesuffix("|None")
    kind: Any = list[_TYPES[core[5:-1]]] if core.startswith("list[") else _TYPES[core]  # type: ignore[misc]
    return kind | None if optional else kind


def validated(config: type[Any]) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Return a decorator making a command function check its arguments against `config` (the command's
    declaration): the declared ones are coerced and refused outside their rules (UsageError naming the flag),
    as on the command line, before the function runs. Its parameters are the declared fields (a test checks it).
    """

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        signature = inspect.signature(function)
        names = [field.name for field in dataclasses.fields(config) if field.init]

        @functools.wraps(function)
        def checked(*args: P.args, **kwargs: P.kwargs) -> R:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            values = config(**{name: bound.arguments[name] for name in names if name in bound.arguments})
            for name in names:
                if name in bound.arguments:
                    bound.arguments[name] = getattr(values, name)
            return function(*bound.args, **bound.kwargs)

        return checked

    return decorate


def arguments(config: Any) -> dict[str, Any]:
    """Return a config's fields by name (those without a flag too, such as `mcot gen NAME`'s name): the keyword
    arguments of the command function it declares."""
    return {field.name: getattr(config, field.name) for field in dataclasses.fields(config) if field.init}


def check(config: Any) -> None:
    """Coerce a config's paths and lists, and refuse a value outside its field's rule (UsageError naming the flag)."""
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        kind = str(field.type).replace(" ", "")
        if value is not None and kind.startswith("Path") and not isinstance(value, Path):
            object.__setattr__(config, field.name, Path(value))
        elif value is not None and kind.startswith("list[") and not isinstance(value, list):
            object.__setattr__(config, field.name, [value] if isinstance(value, str) else list(value))
        elif isinstance(value, int | float) and not isinstance(value, bool) and not _within(field, value):
            raise UsageError(f"{flag_of(field)} {rule(field)} (got {value!r})")


def _within(field: dataclasses.Field[Any], value: float) -> bool:
    meta = field.metadata
    if isinstance(value, float) and not math.isfinite(value):
        return False
    if meta.get("ge") is not None and value < meta["ge"]:
        return False
    if meta.get("le") is not None and value > meta["le"]:
        return False
    if meta.get("lt") is not None and value >= meta["lt"]:
        return False
    return not (meta.get("gt") is not None and value <= meta["gt"])


def rule(field: dataclasses.Field[Any]) -> str:
    """Return a field's bounds in words: `must be between 1 and 1024`, `must be a positive number`, …"""
    meta = field.metadata
    low, high, above = meta.get("ge"), meta.get("le"), meta.get("gt")
    if meta.get("rule"):
        return str(meta["rule"])
    if above is not None and meta.get("lt") is not None:
        return f"must be between {above} and {meta['lt']} (both excluded)"
    if low is not None and high is not None:
        return f"must be between {low} and {high}"
    if low is not None:
        return f"must be at least {low}" if low else "must be 0 (off) or a positive number"
    if above is not None:
        return "must be a positive number" if above == 0 else f"must be more than {above}"
    if high is not None:
        return f"must be at most {high}"
    return "must be a finite number"


def result_settings(config: Any) -> dict[str, Any]:
    """Return the settings of `config` that change results, by their manifest names (the manifest's `config`)."""
    settings = {}
    for field in dataclasses.fields(config):
        if field.metadata.get("result"):
            value = getattr(config, field.name)
            settings[str(field.metadata.get("manifest") or field.name)] = (
                str(value) if isinstance(value, Path) else value
            )
    return settings
