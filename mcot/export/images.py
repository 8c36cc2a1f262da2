"""The images an export refers to: one content-addressed name per image file, `images/<sha256><suffix>`.

Records and training views name images by these export names; the jsonl format copies the files under them
into its folder, parquet and hf embed the bytes with the name as the image's `path`.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

IMAGES_DIR = "images"
_HASHED = re.compile(r"^[0-9a-f]{64}\.[A-Za-z0-9]+$")


class ImageCatalog:
    """Maps image files (run blobs, item images) to export names and remembers where each name's bytes are."""

    def __init__(self) -> None:
        self.sources: dict[str, Path] = {}
        self.missing: list[Path] = []
        self._names: dict[Path, str] = {}
        """Export names of files already hashed (an item image shared by many pairs is read once)."""

    def add(self, source: Path) -> str | None:
        """Return the export name of the image file `source`, or None (noted in `missing`) when it is absent."""
        source = Path(source)
        known = self._names.get(source)
        if known is not None:
            return known
        if not source.is_file():
            if source not in self.missing:
                self.missing.append(source)
            return None
        suffix = source.suffix.lower() or ".png"
        if _HASHED.match(source.name):  # a run blob is already named by the sha256 of its bytes
            name = f"{IMAGES_DIR}/{source.stem}{suffix}"
        else:
            name = f"{IMAGES_DIR}/{hashlib.sha256(source.read_bytes()).hexdigest()}{suffix}"
            self._names[source] = name
        self.sources.setdefault(name, source)
        return name

    def add_all(self, sources: list[Path]) -> list[str]:
        """Return the export names of the files that exist, in order (absent ones are noted and left out)."""
        return [name for name in (self.add(source) for source in sources) if name is not None]

    def embedded(self, name: str) -> dict[str, bytes | str]:
        """Return the image `name` as a Hugging Face image struct: its bytes and its export name as `path`."""
        return {"bytes": self.sources[name].read_bytes(), "path": name}
