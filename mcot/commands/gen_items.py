"""`mcot gen NAME --n N --seed S --out DIR`: the items of a declared item generator (a plugin's benchmark)."""

from __future__ import annotations

from pathlib import Path

from mcot.benchmarks.item import ItemError, write_items
from mcot.errors import UsageError
from mcot.registry import ITEM_GENERATORS, RegistryError

MAX_ITEMS = 1_000_000


def gen_items(name: str, out: Path, n: int, seed: int) -> int:
    """Write the `n` items the generator `name` makes for `seed` into the items directory `out`; return 0."""
    if not 1 <= n <= MAX_ITEMS:
        raise UsageError(f"--n must be between 1 and {MAX_ITEMS}, got {n}")
    try:
        generator = ITEM_GENERATORS.get(name)
    except RegistryError as exc:
        raise UsageError(str(exc)) from exc
    try:
        count = write_items(Path(out), ((loaded.item, loaded.images) for loaded in generator.generate(n, seed)))
    except (ItemError, ValueError) as exc:
        raise UsageError(f"{name}: {exc}") from exc
    print(f"wrote {count} {name} items (seed {seed}) to {out}")
    return 0
