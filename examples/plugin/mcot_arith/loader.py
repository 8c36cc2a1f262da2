"""The arith native format: a CSV file with the columns `a,b` (`mcot convert arith sums.csv --out DIR`)."""

import csv
from collections.abc import Iterator
from pathlib import Path

from mcot.benchmarks.item import Item
from mcot.benchmarks.loaders import LoaderError

from mcot import LoadedItem, Skip, Tally
from mcot_arith.generator import picture


def detect(path: Path) -> bool:
    """Return whether `path` is an arith CSV file (its header is `a,b`)."""
    if path.suffix.lower() != ".csv" or not path.is_file():
        return False
    with path.open(encoding="utf-8", errors="replace") as handle:
        return handle.readline().strip().replace(" ", "") == "a,b"


def load(src: Path, tally: Tally) -> Iterator[LoadedItem | Skip]:
    """Yield one item per row of the CSV (and a skip for a row that is not two integers)."""
    if not detect(src):
        raise LoaderError(f"{src}: not an arith CSV file (a header `a,b`, then two integers a row)")
    with src.open(encoding="utf-8") as handle:
        for number, row in enumerate(csv.DictReader(handle), start=2):
            tally.records += 1
            try:
                a, b = int(row["a"]), int(row["b"])
            except (TypeError, ValueError):
                yield Skip(f"{src.name}:{number}", "not two integers", f"row {number} is not two integers")
                continue
            image = f"images/row-{number}.png"
            item = Item(id=f"row-{number}", benchmark="arith", category="sum", question=f"What is {a} + {b}?",
                        images=[image], answer=str(a + b), answer_type="number", meta={"a": a, "b": b})  # fmt: skip
            yield LoadedItem(item, {image: picture(a, b)})
