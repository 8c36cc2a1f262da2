"""What the OS refused, in one line: each errno a user meets names the file (or the command's output) and what to do.

The CLI tests (test_files_and_inputs.py) meet these errors for real on a full and a read-only file system; here the
errors are the OS's own (`OSError(errno, strerror, filename)`), to show each message and exit code.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from mcot.core.inputs import NotRegularFile
from mcot.core.oserrors import os_failure


def _os(code: int, filename: str | None = None) -> OSError:
    return OSError(code, os.strerror(code), filename) if filename else OSError(code, os.strerror(code))


def test_a_full_disk_names_the_file_or_the_output_and_exits_1() -> None:
    assert os_failure(_os(errno.ENOSPC, "runs/a/results.jsonl")) == (
        "no space left on the device (writing runs/a/results.jsonl): free some space, then re-run the same command",
        1,
    )
    line, code = os_failure(_os(errno.ENOSPC), {"out": Path("runs/b"), "model": "offline"})
    assert (code, "(writing runs/b)" in line) == (1, True)
    assert os_failure(_os(errno.EFBIG), {"run_dir": "runs/c"})[0].startswith("a file grew past the file-size limit")
    assert os_failure(_os(errno.EDQUOT))[1] == 1


def test_a_read_only_or_forbidden_folder_exits_2_naming_the_folder_not_a_temporary_file() -> None:
    line, code = os_failure(_os(errno.EROFS, "runs/a/.manifest.json.0123abcd.tmp"))
    assert (line, code) == (
        "cannot write runs/a: the file system is read-only (write elsewhere, or mount it read-write)",
        2,
    )
    assert os_failure(_os(errno.EACCES, "/srv/runs"))[0].startswith("permission denied: /srv/runs;")


def test_an_input_that_is_not_a_regular_file_keeps_its_own_words() -> None:
    refused = NotRegularFile("image items/q.png is a named pipe (FIFO), not a regular file")
    assert os_failure(refused) == ("image items/q.png is a named pipe (FIFO), not a regular file", 2)


def test_a_long_or_multi_line_path_stays_one_short_line() -> None:
    line, _ = os_failure(_os(errno.ENOSPC, "runs/" + "x" * 5000 + "\nsecond line"))
    assert "\n" not in line and len(line) < 400
