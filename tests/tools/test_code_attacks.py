"""Every attack of issue 30, sent as a cell through the `python` tool: each ends in a one-line result the model can
read, the session goes on (or says it restarted), and another pair's session is untouched."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcot.canvas import Canvas
from mcot.tools import call
from mcot.tools.code.binding import attach, release
from mcot.tools.code.kernel import CodeSession
from mcot.tools.code.limits import CodeLimits
from mcot.tools.code.sandbox import sandbox_problem

pytestmark = pytest.mark.skipif(sandbox_problem() is not None, reason=f"no sandbox here: {sandbox_problem()}")

LIMITS = CodeLimits(memory_mb=1536, cell_s=3.0, scratch_mb=16, file_mb=64, output_chars=2000)


@pytest.fixture(scope="module")
def secret_env() -> Iterator[None]:
    saved = os.environ.get("OPENAI_API_KEY")
    os.environ["OPENAI_API_KEY"] = "sk-must-never-reach-the-sandbox"
    yield
    if saved is None:
        os.environ.pop("OPENAI_API_KEY", None)
    else:
        os.environ["OPENAI_API_KEY"] = saved


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("run")
    (folder / "results.jsonl").write_text('{"secret": "the run directory"}\n')
    return folder


@pytest.fixture(scope="module")
def pairs(secret_env: None, run_dir: Path) -> Iterator[tuple[Canvas, Canvas]]:
    victim, bystander = Canvas(size=(64, 48)), Canvas(size=(64, 48))
    attach(victim, CodeSession(LIMITS, hidden=[run_dir]).start())
    attach(bystander, CodeSession(LIMITS).start())
    yield victim, bystander
    release(victim)
    release(bystander)


def cell(canvas: Canvas, code: str):  # type: ignore[no-untyped-def]
    return call("python", {"code": code}, canvas)


def first_line(result) -> str:  # type: ignore[no-untyped-def]
    return result.text.splitlines()[0]


@pytest.fixture(scope="module")
def victim(pairs: tuple[Canvas, Canvas]) -> Canvas:
    canvas = pairs[0]
    assert cell(pairs[1], "kept = 41").ok
    return canvas


def test_a_fork_bomb_is_refused(victim: Canvas) -> None:
    result = cell(victim, "import os\nwhile True:\n    os.fork()")
    assert not result.ok
    assert first_line(result) == "PermissionError: [Errno 1] Operation not permitted"


def test_allocating_50_gb_is_a_memory_error(victim: Canvas) -> None:
    assert cell(victim, "x = 5").ok
    result = cell(victim, "big = bytearray(50 * 1024**3)")
    assert first_line(result).startswith("MemoryError")
    assert cell(victim, "x + 1").text == "[value]\n6"  # the session kept its variables


def test_an_endless_loop_is_interrupted_and_the_session_keeps_its_variables(victim: Canvas) -> None:
    assert cell(victim, "y = 7").ok
    result = cell(victim, "while True:\n    pass")
    assert not result.ok
    assert (
        first_line(result) == "the cell ran past its limit of 3 s and was interrupted; the session kept its variables"
    )
    assert result.data["cell"]["outcome"] == "timeout"
    assert cell(victim, "y").text == "[value]\n7"


def test_printing_without_end_is_cut_and_stopped(victim: Canvas) -> None:
    result = cell(victim, "while True:\n    print('spam' * 50)")
    assert result.data["cell"]["outcome"] == "timeout"
    assert len(result.data["cell"]["stdout"]) == LIMITS.output_chars
    assert "characters of stdout were left out (at most 2,000 are shown)" in result.text


def test_sleeping_past_the_limit_is_interrupted(victim: Canvas) -> None:
    result = cell(victim, "import time\ntime.sleep(1000)")
    assert result.data["cell"]["outcome"] == "timeout"


@pytest.mark.parametrize("path", ["/etc/shadow", "RUN/results.jsonl", "HOME/.cache"])
def test_secret_files_are_not_there(victim: Canvas, run_dir: Path, path: str) -> None:
    real = path.replace("RUN", str(run_dir)).replace("HOME", str(Path.home()))
    result = cell(
        victim,
        f"import os\nprint(os.path.exists({real!r}), os.listdir({os.path.dirname(real)!r}) if os.path.isdir({os.path.dirname(real)!r}) else None)",
    )
    assert result.ok
    assert result.data["cell"]["stdout"].startswith("False")
    failed = cell(victim, f"open({real!r}).read()")
    assert not failed.ok and first_line(failed).startswith(("FileNotFoundError", "IsADirectoryError"))


def test_the_home_folder_shows_at_most_the_python_installed_under_it(victim: Canvas) -> None:
    from mcot.tools.code.sandbox import python_paths

    home = str(Path.home())
    allowed = {p[len(home) + 1 :].split("/")[0] for p in python_paths() if p.startswith(home + "/")}
    result = cell(victim, f"import os\nsorted(os.listdir({home!r})) if os.path.isdir({home!r}) else []")
    assert set(eval(result.text.removeprefix("[value]\n"))) <= allowed


def test_the_environment_holds_no_key(victim: Canvas) -> None:
    assert os.environ["OPENAI_API_KEY"]  # the calling process has one
    result = cell(victim, "import os, re\nsorted(k for k in os.environ if re.search('KEY|TOKEN|SECRET', k))")
    assert result.text == "[value]\n[]"
    proc = cell(victim, "open('/proc/1/environ', 'rb').read().count(b'sk-must')")
    assert proc.text == "[value]\n0" or not proc.ok


def test_writing_outside_the_scratch_folder_fails(victim: Canvas) -> None:
    for target in ("/usr/evil.txt", "/evil.txt", f"{Path.home()}/evil.txt"):
        result = cell(victim, f"open({target!r}, 'w').write('x')")
        assert not result.ok and first_line(result).startswith(("OSError", "PermissionError", "FileNotFoundError")), (
            result.text
        )
    assert not Path("/usr/evil.txt").exists() and not (Path.home() / "evil.txt").exists()
    assert cell(victim, "open('/scratch/ok.txt', 'w').write('fine')").text == "[value]\n4"


def test_filling_the_scratch_folder_stops_at_its_size(victim: Canvas) -> None:
    result = cell(
        victim, "with open('/scratch/fill', 'wb') as f:\n    for _ in range(64):\n        f.write(b'0' * 1024 * 1024)"
    )
    assert first_line(result).startswith("OSError: [Errno 28] No space left on device")
    assert cell(victim, "import os; os.remove('/scratch/fill')").ok


def test_sockets_reach_neither_the_model_server_nor_anything_else(victim: Canvas) -> None:
    server = socket.create_server(("127.0.0.1", 0))  # the model server's own port, listening
    port = server.getsockname()[1]
    accepted: list[object] = []
    thread = threading.Thread(target=lambda: accepted.append(server.accept()), daemon=True)
    thread.start()
    try:
        local = cell(victim, f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)")
        assert first_line(local).startswith("ConnectionRefusedError")
        remote = cell(victim, "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=2)")
        assert first_line(remote).startswith("OSError: [Errno 101] Network is unreachable")
        assert not accepted
    finally:
        server.close()


def test_killing_the_parent_is_impossible(victim: Canvas) -> None:
    result = cell(victim, f"import os, signal\nos.kill({os.getpid()}, signal.SIGKILL)")
    assert first_line(result).startswith("ProcessLookupError")


def test_a_subprocess_cannot_start(victim: Canvas) -> None:
    result = cell(victim, "import subprocess\nsubprocess.run(['id'])")
    assert first_line(result) == "PermissionError: [Errno 1] Operation not permitted"
    # glibc's system() answers exit status 127 (127 << 8) when it cannot spawn the shell: no process started
    assert cell(victim, "import os\nos.system('id')").text == "[value]\n32512"
    assert (
        first_line(cell(victim, "import os\nos.popen('id').read()"))
        == "PermissionError: [Errno 1] Operation not permitted"
    )


def test_ctypes_tricks_end_in_a_restart_or_a_refusal(victim: Canvas) -> None:
    raw_fork = cell(victim, "import ctypes\nctypes.CDLL(None).syscall(57)")  # fork through the raw system call
    assert raw_fork.text == "[value]\n-1"
    crash = cell(victim, "import ctypes\nctypes.string_at(0)")
    assert not crash.ok
    assert (
        first_line(crash)
        == "the session stopped (it was killed by SIGSEGV); the session restarted: its variables are gone"
    )
    assert crash.data["cell"]["outcome"] == "restart"
    gone = cell(victim, "x")
    assert first_line(gone).startswith("NameError")


def test_a_gigantic_image_is_not_made_and_a_huge_one_is_not_shown(victim: Canvas) -> None:
    result = cell(victim, "Image.new('RGB', (100_000, 100_000))")
    assert first_line(result).startswith("MemoryError")  # 30 GB of pixels, past the session's address space
    header = cell(victim, "import struct, zlib\nfrom IPython.display import display\n"
                  "ihdr = struct.pack('>IIBBBBB', 100_000, 100_000, 8, 2, 0, 0, 0)\n"
                  "png = b'\\x89PNG\\r\\n\\x1a\\n' + struct.pack('>I', 13) + b'IHDR' + ihdr + struct.pack('>I', zlib.crc32(b'IHDR' + ihdr))\n"
                  "display({'image/png': png}, raw=True)")  # fmt: skip
    assert header.image is None
    assert "an image of 100000 × 100000 pixels was not shown" in header.text


def test_a_cell_of_10_mb_is_refused_before_it_runs(victim: Canvas) -> None:
    result = cell(victim, "x = 1\n" * 1_700_000)
    assert not result.ok
    assert first_line(result) == "the cell is 10,200,000 characters long; at most 100,000 are run. Send shorter cells."


def test_the_other_pair_was_untouched(pairs: tuple[Canvas, Canvas], victim: Canvas) -> None:
    assert cell(pairs[1], "kept + 1").text == "[value]\n42"
