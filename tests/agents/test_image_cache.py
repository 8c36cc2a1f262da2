"""Item images read once per process while their files stay as they were (mcot.agents.image_cache)."""

from __future__ import annotations

import io
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from mcot.agents.image_cache import ImagePartCache
from mcot.agents.messages import ImagePart
from mcot.agents.session import image_part, kept_image_parts
from PIL import Image

from mcot.core.inputs import InputFileError


def _png(path: Path, color: str, size: tuple[int, int] = (40, 30)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="PNG")
    path.write_bytes(buffer.getvalue())
    return buffer.getvalue()


class Counting:
    def __init__(self) -> None:
        self.reads: list[Path] = []

    def __call__(self, path: Path, canvas: bool) -> ImagePart:
        self.reads.append(path)
        return ImagePart(path.read_bytes(), "image/png", canvas)


def test_an_unchanged_file_is_read_once_and_a_rewritten_one_again(tmp_path: Path) -> None:
    cache, read = ImagePartCache(), Counting()
    path = tmp_path / "a.png"
    first = _png(path, "red")
    part = cache.get(path, False, read)
    assert cache.get(path, False, read) is part and part.data == first and len(read.reads) == 1
    assert cache.get(path, True, read).canvas is True and len(read.reads) == 2  # a canvas part is its own
    before = os.stat(path)
    second = _png(path, "blue")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # its modification time put back: the change time tells
    assert cache.get(path, False, read).data == second and len(read.reads) == 3


def test_a_replaced_file_a_missing_one_and_a_bad_one_are_never_served_from_the_cache(tmp_path: Path) -> None:
    path = tmp_path / "figure.png"
    good = _png(path, "green")
    assert image_part(path).data == good
    spare = tmp_path / "spare.png"
    spare.write_bytes(good[: len(good) // 2])  # truncated
    os.replace(spare, path)  # a new inode in the old one's place
    with pytest.raises((InputFileError, OSError, SyntaxError)):
        image_part(path)
    path.unlink()
    with pytest.raises(OSError):
        image_part(path)


def test_the_least_recently_used_parts_go_first_past_the_byte_bound(tmp_path: Path) -> None:
    read = Counting()
    paths = [tmp_path / f"p{k}.png" for k in range(3)]
    sizes = [len(_png(path, color, (60, 60))) for path, color in zip(paths, ("red", "green", "blue"), strict=True)]
    cache = ImagePartCache(max_bytes=sum(sizes) - 1)  # room for two of the three
    cache.get(paths[0], False, read)
    cache.get(paths[1], False, read)
    cache.get(paths[0], False, read)  # p0 is now the most recent
    cache.get(paths[2], False, read)  # p1 goes
    assert len(cache) == 2 and len(read.reads) == 3
    cache.get(paths[0], False, read)
    assert len(read.reads) == 3
    cache.get(paths[1], False, read)
    assert read.reads[-1] == paths[1] and len(read.reads) == 4


def test_kept_parts_are_given_without_a_read_only_while_every_file_is_unchanged(tmp_path: Path) -> None:
    first, second = tmp_path / "k1.png", tmp_path / "k2.png"
    _png(first, "red")
    _png(second, "green")
    assert kept_image_parts([first, second]) is None  # never read: the caller reads them in a thread
    parts = [image_part(first), image_part(second)]
    assert kept_image_parts([first, second]) == parts
    assert kept_image_parts([]) == []
    _png(second, "blue", (41, 30))
    assert kept_image_parts([first, second]) is None
    cache = ImagePartCache()
    assert cache.kept(first, False) is None and cache.kept(tmp_path / "missing.png", False) is None


def test_a_file_wanted_by_many_threads_at_once_is_read_once(tmp_path: Path) -> None:
    path = tmp_path / "shared.png"
    _png(path, "red")
    cache, reads = ImagePartCache(), []

    def slow_read(p: Path, canvas: bool) -> ImagePart:
        reads.append(p)
        time.sleep(0.05)  # the others ask while this read is under way
        return ImagePart(p.read_bytes(), "image/png", canvas)

    with ThreadPoolExecutor(8) as pool:
        parts = list(pool.map(lambda _: cache.get(path, False, slow_read), range(8)))
    assert len(reads) == 1 and all(part is parts[0] for part in parts)
