"""The item images a process has read and checked, kept while their files stay as they were.

Every pair used to read its images again, check them (a JPEG entropy-decoded at an eighth of its size), hash
them and base64 them: about half a millisecond a call. The parts are kept by file in a `FileCache`
(`mcot.core.file_cache`: a file written or replaced since is read and checked again; a file that fails its check
is never kept); the flag of a part is whether it is a canvas image.
"""

from __future__ import annotations

from mcot.agents.messages import ImagePart

from mcot.core.file_cache import FileCache

MAX_BYTES = 64 * 1024 * 1024
"""The image bytes kept at most (their base64 text, made at the first send, adds a third again)."""


class ImagePartCache(FileCache[ImagePart]):
    """Image parts by file, least recently used dropped first once their bytes pass `max_bytes`; thread-safe."""

    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        super().__init__(max_bytes, _part_bytes)


def _part_bytes(part: ImagePart) -> int:
    return len(part.data)
