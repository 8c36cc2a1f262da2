"""`mcot gen NAME --n N --seed S --out DIR`: the items of a declared item generator (a plugin's benchmark)."""

from __future__ import annotations

from pathlib import Path

from mcot.command_options import GenItemsOptions
from mcot.core.errors import UsageError
from mcot.core.item import ItemError, write_items
from mcot.core.options import validated
from mcot.core.registry import ITEM_GENERATORS, RegistryError


@validated(GenItemsOptions)
def gen_items(name: str, out: Path, n: int, seed: int) -> int:
    """Write the `n` items the generator `name` makes for `seed` into the items directory `out`; return 0."""
    try:
        generator = ITEM_GENERATORS.get(name)
    except RegistryError as exc:
        raise UsageError(str(exc)) from exc
    try:
        count = write_items(
            Path(out),
            ((loaded.item, loaded.images) for loaded in generator.generate(n, seed)),
            command=f"mcot gen {name}",
        )
    except (ItemError, ValueError) as exc:
        raise UsageError(f"{name}: {exc}") from exc
    print(f"wrote {count} {name} items (seed {seed}) to {out}")
    return 0
