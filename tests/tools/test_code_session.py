"""The code session itself: state between cells, the item's images, what comes back and how it is bounded, the
warm pool, the key-free environment, and running under --unsafe-local-code (limits without the sandbox)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcot.canvas import Canvas
from mcot.tools.code.binding import attach, bound_session, release, reserve, session_for
from mcot.tools.code.cell import RESTARTED
from mcot.tools.code.kernel import CodeSession, secret_names
from mcot.tools.code.limits import CodeLimits, prompt_listing
from mcot.tools.code.manifest import code_manifest
from mcot.tools.code.pool import SessionPool
from mcot.tools.code.sandbox import kernel_environment, sandbox_problem
from PIL import Image

needs_sandbox = pytest.mark.skipif(sandbox_problem() is not None, reason=f"no sandbox here: {sandbox_problem()}")
LIMITS = CodeLimits(cell_s=5.0, images_per_cell=2, image_max_side=300, image_max_pixels=300 * 300, output_chars=500)


@pytest.fixture(scope="module")
def pictures(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("pictures")
    paths = []
    for n, (size, color) in enumerate([((64, 48), "red"), ((20, 10), "blue")]):
        path = folder / f"p{n}.png"
        Image.new("RGB", size, color).save(path)
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def session(pictures: list[Path]) -> Iterator[CodeSession]:
    with CodeSession(LIMITS, isolated=sandbox_problem() is None) as started:
        started.load_images(pictures)
        yield started


def test_the_session_keeps_its_variables_and_has_the_items_images(session: CodeSession) -> None:
    assert session.run("a = 20").ok
    assert session.run("a + 1").value == "21"
    assert session.run("image.size, [im.size for im in images], image.getpixel((0, 0))").value == (
        "((64, 48), [(64, 48), (20, 10)], (255, 0, 0))"
    )
    # matplotlib is imported at the first use of `plt`, not at start (a third of a cold start)
    assert session.run("import sys; 'matplotlib' in sys.modules, 'sympy' in sys.modules").value == "(False, False)"
    assert session.run("type(np).__name__, plt.get_backend(), nx.__name__, sympy.sqrt(8)").value == (
        "('module', 'module://matplotlib_inline.backend_inline', 'networkx', 2*sqrt(2))"
    )


def test_images_come_back_as_png_within_the_limits(session: CodeSession) -> None:
    shown = session.run("image.crop((0, 0, 32, 24)).resize((64, 48))")
    assert shown.ok and len(shown.images) == 1
    with Image.open(io.BytesIO(shown.images[0])) as back:
        assert back.size == (64, 48) and back.getpixel((5, 5))[:3] == (255, 0, 0)
    large = session.run("Image.new('RGB', (1200, 600), 'green')")  # reduced in the kernel to 300 a side
    with Image.open(io.BytesIO(large.images[0])) as back:
        assert back.size == (300, 150)
    many = session.run("from IPython.display import display\nfor _ in range(5):\n    display(image)")
    assert len(many.images) == 2 and "3 more image(s) were not shown (at most 2 per cell)" in many.text()
    figure = session.run("fig, ax = plt.subplots(figsize=(2, 2), dpi=50)\nax.plot([0, 1], [0, 1])")
    assert len(figure.images) == 1 and figure.images[0][:4] == b"\x89PNG"
    entry = figure.trace_entry()
    assert entry["outcome"] == "ok" and entry["images"] == figure.image_hashes() and len(entry["images"][0]) == 64


def test_an_exception_is_one_line_and_a_value_is_cut_at_the_limit(session: CodeSession) -> None:
    failed = session.run("def f():\n    return 1 / 0\nf()")
    assert failed.outcome == "exception" and failed.exception == "ZeroDivisionError"
    assert failed.text().splitlines()[0] == "ZeroDivisionError: division by zero"
    assert "line 2" in failed.traceback
    long = session.run("'x' * 10_000")
    assert (
        len(long.value or "") == 500
        and "the value's text was 10,002 characters; the first 500 are shown" in long.text()
    )


def test_a_dead_kernel_is_restarted_with_the_images_and_says_so(session: CodeSession) -> None:
    session.run("b = 1")
    died = session.run("import os\nos._exit(3)")
    assert died.outcome == "restart" and died.restarted
    assert died.message == f"the session stopped (exit status 3); {RESTARTED}"  # no host path from the kernel's log
    assert session.run("'b' in dir()").value == "False"
    assert session.run("image.size").value == "(64, 48)"


def test_no_variable_naming_a_key_reaches_a_session() -> None:
    caller = {"OPENAI_API_KEY": "sk", "HF_TOKEN": "t", "MY_SECRET": "s", "PATH": "/bin", "DB_PASSWORD": "p"}
    assert secret_names(caller) == ["DB_PASSWORD", "HF_TOKEN", "MY_SECRET", "OPENAI_API_KEY"]
    assert secret_names(kernel_environment(LIMITS)) == []


@needs_sandbox
def test_the_pool_hands_over_a_warm_session_and_binding_follows_the_canvas(pictures: list[Path]) -> None:
    pool = SessionPool(LIMITS, size=1)
    pool.fill()
    assert pool.wait_ready() == 1
    taken = pool.take()
    try:
        assert pool.cold_starts == 0 and taken.alive and taken.cells == 0
        canvas = Canvas(size=(10, 10))
        attach(canvas, taken)
        assert session_for(canvas) is taken
        release(canvas)
        assert not taken.alive and bound_session(canvas) is None
    finally:
        taken.close()
        pool.close()


def test_a_reserved_session_opens_at_the_first_cell_with_the_reserved_images(pictures: list[Path]) -> None:
    canvas = Canvas(size=(10, 10))
    reserve(canvas, [pictures[1]], isolated=sandbox_problem() is None)
    assert bound_session(canvas) is None  # nothing started for a pair that runs no code
    try:
        assert session_for(canvas).run("image.size").value == "(20, 10)"
    finally:
        release(canvas)


def test_unsafe_local_code_keeps_the_limits_and_the_filter() -> None:
    with CodeSession(LIMITS, isolated=False) as unsafe:
        assert unsafe.run("import subprocess\nsubprocess.run(['true'])").exception == "PermissionError"
        assert unsafe.run("import os\nos.environ.get('HOME', '').endswith('scratch')").value == "True"
    entry = code_manifest(unsafe_local_code=True)
    assert entry["unsafe_local_code"] is True and entry["sandbox"]["kind"] == "none"
    assert entry["limits"]["memory_mb"] == 2048 and entry["libraries"]["ipykernel"]


def test_the_system_prompts_state_the_limits() -> None:
    from mcot.agents.prompts import load_prompt

    text = load_prompt("system.code.txt").render(width=64, height=48, max_steps=5)
    assert prompt_listing() in text and "`image`" in text and "display(...)" in text
    both = load_prompt("system.code-canvas.txt").render(width=64, height=48, max_steps=5)
    assert "draw_line" in both and prompt_listing() in both


def test_sessions_in_threads_at_once_need_no_event_loop_of_jupyter_core(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from jupyter_client.blocking.client import BlockingKernelClient

    def shared_loop(*args: object, **kwargs: object) -> None:
        raise AssertionError("a run_sync wrapper ran: it shares one event loop between threads")

    for name in ("get_iopub_msg", "get_shell_msg", "wait_for_ready"):
        monkeypatch.setattr(BlockingKernelClient, name, shared_loop)

    def pair(n: int) -> list[str | None]:
        with CodeSession(LIMITS, isolated=sandbox_problem() is None) as started:
            return [started.run(f"v = {n}").outcome, started.run("v * 2").value]

    async def both() -> list[list[str | None]]:
        return list(await asyncio.gather(asyncio.to_thread(pair, 1), asyncio.to_thread(pair, 2)))

    assert asyncio.run(both()) == [["ok", "2"], ["ok", "4"]]


def test_a_shown_image_is_encoded_once_as_png(session: CodeSession) -> None:
    client = session._client  # the kernel's own message: what crossed the wire, not what the parent kept
    asked = client.execute("image", store_history=False)
    bundles = []
    while True:
        message = client.iopub_channel.get_msg(timeout=10)
        if message["parent_header"].get("msg_id") != asked:
            continue
        if message["msg_type"] == "execute_result":
            bundles.append(sorted(message["content"]["data"]))
        if message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
            break
    assert bundles == [["image/png", "text/plain"]]  # no second encoding (PIL's _repr_jpeg_) sent to be dropped


@needs_sandbox
def test_a_cell_past_the_file_size_or_cpu_time_limit_ends_in_one_line() -> None:
    limits = CodeLimits(cpu_s=4, file_mb=1, cell_s=30.0)
    with CodeSession(limits) as small:
        big = small.run("open('/scratch/big', 'wb').write(b'0' * 2 * 1024 * 1024)")
        assert big.text().splitlines()[0] == "OSError: [Errno 27] File too large"
        assert small.run("import os\nos.path.getsize('/scratch/big')").value == str(1024 * 1024)
        spun = small.run("n = 0\nwhile True:\n    n += 1")
        assert spun.outcome == "restart" and spun.text().splitlines()[0] == (
            f"the session stopped (its CPU time of 4 s is spent); {RESTARTED}"
        )
        assert small.run("n").exception == "NameError"  # a fresh kernel, with a fresh CPU budget
