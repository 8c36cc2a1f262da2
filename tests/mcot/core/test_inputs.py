"""Reading input files: only regular files, opened without blocking; YAML without aliases; quotes cut short."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from mcot.benchmarks.loaders._paths import read_inside
from mcot.benchmarks.loaders._types import SkipItem

from mcot.core.inputs import (
    EXCERPT_CHARS,
    FileTooLarge,
    NotRegularFile,
    UnsafeYaml,
    check_regular,
    excerpt,
    kind_of,
    load_yaml,
    read_image_file,
    read_regular,
    read_yaml_file,
)


def _in_a_thread(call: Callable[[], object]) -> BaseException | None:
    """Run `call` in a daemon thread and return what it raised; fail the test when it does not end in 10 s."""
    raised: list[BaseException | None] = [None]

    def target() -> None:
        try:
            call()
        except BaseException as exc:  # handed back to the test
            raised[0] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), "reading blocked"
    return raised[0]


def test_a_named_pipe_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "image.png"
    os.mkfifo(fifo)
    raised = _in_a_thread(lambda: read_image_file(fifo))
    assert isinstance(raised, NotRegularFile) and isinstance(raised, OSError)
    assert str(raised) == f"image {fifo} is a named pipe (FIFO), not a regular file"


def test_devices_sockets_and_folders_are_refused(tmp_path: Path) -> None:
    with pytest.raises(NotRegularFile, match="is a character device, not a regular file"):
        read_regular("/dev/zero")  # a read would never end
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "sock"))
    try:
        with pytest.raises(NotRegularFile, match="is a socket"):
            read_regular(tmp_path / "sock")
    finally:
        server.close()
    with pytest.raises(NotRegularFile, match="is a folder"):
        check_regular(tmp_path)
    assert kind_of(os.stat(tmp_path).st_mode) == "a folder"


def test_a_regular_file_and_a_symlink_to_one_are_read(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(b"\x89PNG data")
    (tmp_path / "b.png").symlink_to(tmp_path / "a.png")
    assert read_image_file(tmp_path / "a.png") == read_image_file(tmp_path / "b.png") == b"\x89PNG data"
    with pytest.raises(FileNotFoundError):
        read_image_file(tmp_path / "absent.png")


def test_a_file_over_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "big.bin"
    big.write_bytes(b"x" * 1001)
    with pytest.raises(FileTooLarge, match="is 1,001 bytes; at most 1,000 are read"):
        read_regular(big, max_bytes=1000)
    assert read_regular(big, max_bytes=1001) == b"x" * 1001


def test_loaders_skip_a_pipe_with_its_own_kind(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "q.png")
    raised = _in_a_thread(lambda: read_inside(tmp_path, "q.png"))
    assert isinstance(raised, SkipItem) and raised.kind == "not a regular file"


ALIAS_BOMB = """
a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: [*c, *c, *c, *c, *c, *c, *c, *c, *c]
"""


def test_yaml_aliases_are_refused_and_anchors_alone_are_fine() -> None:
    with pytest.raises(UnsafeYaml, match=r"YAML aliases \(\*a\) are not allowed \(line 3, column 8\)"):
        load_yaml(ALIAS_BOMB)
    with pytest.raises(UnsafeYaml, match="aliases"):
        load_yaml("base: &base {x: 1}\nother:\n  <<: *base\n")  # a merge key is an alias too
    assert load_yaml("x: &a 1\ny: [2, 3]\n") == {"x": 1, "y": [2, 3]}
    assert load_yaml('{"fields": {"question": "题目"}}') == {"fields": {"question": "题目"}}
    with pytest.raises(yaml.YAMLError):
        load_yaml("a: [1, 2")


def test_yaml_nested_past_any_use_and_large_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UnsafeYaml, match="nests too deeply"):
        load_yaml("[" * 100_000)
    big = tmp_path / "mapping.yaml"
    big.write_text("x: " + "y" * (1024 * 1024) + "\n")
    with pytest.raises(FileTooLarge, match="mapping file"):
        read_yaml_file(big, what="mapping file")


def test_an_excerpt_says_how_much_it_left_out() -> None:
    assert excerpt("short") == "short"
    cut = excerpt("z" * 5000)
    assert cut.startswith("z" * EXCERPT_CHARS + "…") and cut.endswith("(4,800 more characters)")
