"""Options declared once: a dataclass's fields are a command's options — name, help, default, range,
placeholder — their validation, and what a manifest records.

`option(...)` declares one field; `command(Config, body, …)` turns the fields into the parameters of a Typer
command (so `mcot run --help` is generated from `RunConfig`); `check(config)` (called by the config's
`__post_init__`) refuses a value outside its rule with a UsageError naming the flag (`--concurrency must be
between 1 and 1024 (got 0)`); `result_settings(config)` returns the fields marked as changing results, by their
manifest names. Plain dataclasses, so that building the CLI imports nothing heavy.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcot.errors import UsageError


def option(
    default: Any = dataclasses.MISSING,
    *,
    help: str,
    metavar: str | None = None,
    flag: str | None = None,
    result: bool = False,
    manifest: str | None = None,
    cli: bool = True,
    rule: str | None = None,
    ge: float | None = None,
    le: float | None = None,
    gt: float | None = None,
) -> Any:
    """Return a dataclass field declaring one command option.

    `help` is its help text (`{backends}` and the like are filled from the registries when help is shown); `flag`
    its long option (default `--field-name`); `result` True when it changes results (the manifest records it under
    `manifest`, default the field name, and a resume with another value is refused); `cli` False for a setting
    with no flag; `ge`/`le`/`gt` its bounds (a float must also be finite) and `rule` the words of the error for
    a value outside them (default: said from the bounds).
    """
    metadata = {"help": help, "metavar": metavar, "flag": flag, "result": result, "manifest": manifest, "cli": cli,
                "rule": rule, "ge": ge, "le": le, "gt": gt}  # fmt: skip
    return dataclasses.field(default=default, metadata=metadata)


def flag_of(field: dataclasses.Field[Any]) -> str:
    """Return the long option of a field (`--max-steps` for max_steps unless the field says otherwise)."""
    return str(field.metadata.get("flag") or "--" + field.name.replace("_", "-"))


def cli_fields(config: type[Any]) -> list[dataclasses.Field[Any]]:
    """Return the fields of a config dataclass that are command options, in declaration order."""
    return [f for f in dataclasses.fields(config) if f.metadata.get("cli", False)]


def command(config: type[Any], body: Callable[..., Any], *, name: str, doc: str) -> Callable[..., Any]:
    """Return a function whose signature is the config's options (as Typer reads it), calling `body(**values)`."""
    import typer

    params = []
    for field in cli_fields(config):
        required = field.default is dataclasses.MISSING
        default = typer.Option(
            ... if required else field.default,
            flag_of(field),
            help=field.metadata["help"],
            metavar=field.metadata.get("metavar"),
            show_default=not required and field.default is not None,
        )
        params.append(inspect.Parameter(field.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                        annotation=_annotation(field)))  # fmt: skip

    def run(**values: Any) -> Any:
        return body(**values)

    run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in params}
    run.__name__, run.__doc__ = name, doc
    return run


_TYPES = {"int": int, "float": float, "str": str, "bool": bool, "Path": Path}


def _annotation(field: dataclasses.Field[Any]) -> Any:
    """Return the field's type as an object (the configs' annotations are strings): `int`, `Path | None`, …"""
    text = str(field.type).replace(" ", "")
    optional = text.endswith("|None")
    core = text.removesuffix("|None")
    kind: Any = list[str] if core == "list[str]" else _TYPES[core]
    return kind | None if optional else kind


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
    return not (meta.get("gt") is not None and value <= meta["gt"])


def rule(field: dataclasses.Field[Any]) -> str:
    """Return a field's bounds in words: `must be between 1 and 1024`, `must be a positive number`, …"""
    meta = field.metadata
    low, high, above = meta.get("ge"), meta.get("le"), meta.get("gt")
    if meta.get("rule"):
        return str(meta["rule"])
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
            settings[str(field.metadata.get("manifest") or field.name)] = str(value) if isinstance(value, Path) else value
    return settings
