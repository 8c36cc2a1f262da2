"""`mcot demo`: the whole pipeline offline — generate, solve in text and canvas mode, score, compare, view."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mcot.core.errors import UsageError
from mcot.core.item import ItemsWriter, read_items

DEMO_GEPBENCH_FIGURES = 8
DEMO_GAMES_PER_TASK = 4
DEMO_SEED = 7


@dataclass(frozen=True)
class DemoPaths:
    """Where the demo writes each of its products."""

    root: Path

    @property
    def items(self) -> Path:
        return self.root / "items"

    @property
    def run(self) -> Path:
        return self.root / "run"

    @property
    def comparison(self) -> Path:
        return self.root / "comparison.md"


def merge_items(sources: list[Path], out: Path) -> int:
    """Write the items of several items directories into one (ids must not collide); return the count."""
    with ItemsWriter(out, overwrite=True) as writer:
        for source in sources:
            for item in read_items(source):
                for image in item.images:
                    writer.add_image(image, (source / image).read_bytes())
                writer.add(item)
        return writer.count


def generate_suite(paths: DemoPaths, *, figures: int, per_task: int, seed: int) -> int:
    """Generate the demo's mixed suite (GePBench easy and hard, every game task) into paths.items."""
    from mcot.commands.gen_games import gen_games
    from mcot.commands.gen_gepbench import gen_gepbench

    with tempfile.TemporaryDirectory(prefix="mcot-demo-") as scratch:
        gep, games = Path(scratch) / "gepbench", Path(scratch) / "games"
        gen_gepbench(out=gep, n=figures, seed=seed, level="both", native=False)
        gen_games(out=games, task="all", n=per_task, seed=seed)
        return merge_items([gep, games], paths.items)


MARK = ".mcot-demo"
"""The file a demo leaves in its --out: what lets a later demo clear the items and run it made there."""


def prepare_out(out: Path) -> DemoPaths:
    """Return the demo's paths under `out`, clearing what an earlier demo left there; UsageError, before anything
    is removed, when `out/items` or `out/run` exists and no demo made it (the user's own items or a paid run)."""
    paths = DemoPaths(Path(out))
    stale = [path for path in (paths.items, paths.run) if path.exists()]
    if stale and not (paths.root / MARK).is_file():
        raise UsageError(f"{stale[0]} exists and was not made by mcot demo (which would replace it); choose another "
                         "--out or remove it")  # fmt: skip
    for path in stale:
        shutil.rmtree(path)
    paths.root.mkdir(parents=True, exist_ok=True)
    (paths.root / MARK).write_text("made by mcot demo: its items and run here are replaced by the next demo\n")
    return paths
