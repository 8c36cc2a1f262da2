"""`mcot probe` against local model servers: one that answers from the last image it sees (a red drawing there
means A, else B), so that removing the drawing flips its answer, and one that ignores images (nothing flips).
The figures are checked against hand counts; a resume after an interrupted probes file asks nothing twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from mcot.agents.cache import digest_request
from mcot.agents.messages import ImagePart, ToolResultPart
from mcot.eval.probes import probe_figures
from mcot.eval.scoring import score_run
from mcot.tools.code.sandbox import sandbox_problem
from PIL import Image
from typer.testing import CliRunner

from mcot.cli import app
from mcot.commands.gen_games import gen_games
from mcot.commands.probe import run_probe
from mcot.core.errors import UsageError
from mcot.core.item import Item, write_items
from mcot.core.rundir import open_run
from mcot.core.rundir.probes import PROBES, Probe, ProbeLedger, read_probes
from mcot.probes.asker import Asker, ProbePlan
from mcot.probes.conversation import final_request
from mcot.probes.kinds import Perturbation, blank, perturb
from mcot.runconfig import RunConfig
from mcot.runner import run_items
from mcot.study.config import ModelEntry, StudyConfig
from mcot.study.report import build_study_report
from mcot.testing import Fail, FakeProvider, Reply, has_red, last_image
from mcot.viewer import write_viewer

ANSWERS = {"q1": "A", "q2": "A", "q3": "B", "q4": "A", "q5": "B"}
"""q5's model draws nothing (its question says so): it answers from the item's own image, B."""
LINE = ("draw_line", {"start": [4, 4], "end": [40, 30]})


def _png(color: str = "white") -> bytes:
    buffer = BytesIO()
    Image.new("RGB", (64, 48), color).save(buffer, format="PNG")
    return buffer.getvalue()


def _turns(body: dict[str, Any]) -> int:
    return sum(1 for message in body["messages"] if message["role"] == "assistant")


def _wants_no_drawing(body: dict[str, Any]) -> bool:
    return "Draw nothing" in json.dumps(body["messages"][:2])


def looker(body: dict[str, Any]) -> Reply:
    """Draws a red line on its first turn (unless told not to), then answers A when the last image holds red."""
    if body.get("tools") and _turns(body) == 0 and not _wants_no_drawing(body):
        return Reply("Let me mark it.", tool_calls=[LINE])
    return Reply("\\boxed{A}" if has_red(last_image(body)) else "\\boxed{B}")


def ignorer(body: dict[str, Any]) -> Reply:
    """Draws the same line, then answers A whatever it sees (B when told to draw nothing)."""
    if body.get("tools") and _turns(body) == 0 and not _wants_no_drawing(body):
        return Reply("Let me mark it.", tool_calls=[LINE])
    return Reply("\\boxed{B}" if _wants_no_drawing(body) else "\\boxed{A}")


@pytest.fixture
def items_dir(tmp_path: Path) -> Path:
    items = [
        (
            Item(
                id=item_id,
                benchmark="gepbench",
                category="counting",
                question="How many circles are there?" + (" Draw nothing." if item_id == "q5" else ""),
                images=[f"images/{item_id}.png"],
                choices=["1", "2"],
                answer=answer,
                answer_type="choice",
            ),
            {f"images/{item_id}.png": _png()},
        )
        for item_id, answer in ANSWERS.items()
    ]
    out = tmp_path / "items"
    write_items(out, items)
    return out


def _run(items_dir: Path, out: Path, server: FakeProvider) -> Path:
    config = RunConfig(data=items_dir, model="openai-compatible:local-vlm", base_url=[server.openai_url], out=out,
                       mode="canvas", concurrency=1)  # fmt: skip
    summary = run_items(config, quiet=True)
    assert summary.done == len(ANSWERS), summary
    return out


@pytest.fixture
def looking(items_dir: Path, tmp_path: Path) -> Iterator[tuple[Path, FakeProvider]]:
    with FakeProvider(default=looker) as server:
        yield _run(items_dir, tmp_path / "run", server), server


def _by_key(root: Path) -> dict[tuple[str, str], Probe]:
    return {(p.id, p.kind): p for p in read_probes(root)}


def test_removing_the_drawing_flips_the_answers_of_a_model_that_reads_its_last_image(
    looking: tuple[Path, FakeProvider],
) -> None:
    run, server = looking
    asked = len(server.requests)
    assert run_probe(run, arm="canvas", kinds="blank,shuffle,perturb") == 0
    probes = _by_key(run)
    assert len(probes) == 3 * len(ANSWERS)
    # four pairs drew (q5 did not): three kinds each, one request per probe
    assert len(server.requests) - asked == 3 * 4
    for item_id in ("q1", "q2", "q3", "q4"):
        assert probes[(item_id, "blank")].status == "ok"
        assert probes[(item_id, "blank")].original == "A" and probes[(item_id, "blank")].extracted == "B"
        assert probes[(item_id, "blank")].changed is True
        assert probes[(item_id, "blank")].images == 1  # the one canvas view after the drawing
        assert probes[(item_id, "shuffle")].changed is False and probes[(item_id, "shuffle")].donor != item_id
        assert probes[(item_id, "perturb")].changed is False
        assert probes[(item_id, "perturb")].setting == {"shift": [20.0, 20.0]}
    assert probes[("q5", "blank")].status == "no_drawing" and probes[("q5", "blank")].changed is False
    blank = next(f for f in probe_figures("m", read_probes(run)) if f.kind == "blank")
    # by hand: 5 pairs, 4 changed; unprobed right q1 q2 q4 q5 (4/5); blank right q3 q5 (2/5); flipped q1 q2 q4 (3/4)
    assert (blank.n, blank.no_drawing, blank.changed) == (5, 1, 4)
    assert (blank.correct_unprobed, blank.correct, blank.flipped) == (4, 2, 3)
    assert blank.dependence == 0.75 and blank.changed_share == 0.8 and blank.accuracy == 0.4
    # q3 became right: McNemar b = 3, c = 1, p = 2 * (C(4,0) + C(4,1)) / 2^4
    assert blank.gained == 1 and blank.mcnemar_p == 2 * (1 + 4) / 16


def test_a_model_that_ignores_images_changes_no_answer(items_dir: Path, tmp_path: Path) -> None:
    with FakeProvider(default=ignorer) as server:
        run = _run(items_dir, tmp_path / "run", server)
        assert run_probe(run, arm="canvas", kinds="blank,shuffle,perturb", mirror=True) == 0
    figures = probe_figures("m", read_probes(run))
    assert [f.kind for f in figures] == ["blank", "shuffle", "perturb"]
    assert all(f.changed == 0 and f.flipped == 0 and f.n == 5 for f in figures)
    assert all(f.dependence == 0.0 for f in figures)
    assert {p.setting.get("mirror") for p in read_probes(run) if p.kind == "perturb" and p.status == "ok"} == {
        "vertical"
    }


def test_the_unprobed_rebuild_is_the_request_the_model_was_sent(looking: tuple[Path, FakeProvider]) -> None:
    """The conversation rebuilt from the trace, nothing replaced, has the key of the final model turn's request."""
    run_dir, _ = looking
    run = open_run(run_dir)
    asker = Asker.for_run(run, ProbePlan(arm="canvas", kinds=("blank",)))
    for item_id in ANSWERS:
        rows = run.trace(item_id, "canvas")
        assert rows is not None
        request = asker.requests[item_id]
        assert not isinstance(request, str)
        rebuilt = asker.model_request(run.items[item_id], request, request.messages())
        final = rows[request.final_step]
        assert digest_request("openai-compatible:local-vlm", rebuilt).key == final["request_key"], item_id


def test_perturb_moves_the_models_line_by_the_shift(looking: tuple[Path, FakeProvider]) -> None:
    run_dir, _ = looking
    run = open_run(run_dir)
    rows = run.trace("q1", "canvas")
    assert rows is not None
    request = final_request(rows, run.root, [run.items_root / "images/q1.png"])
    (slot,) = request.slots
    original = Image.open(run.root / slot.blob).convert("RGB")
    moved = perturb(request, Perturbation(shift=10))(slot)
    assert moved is not None
    shifted = Image.open(BytesIO(moved.data)).convert("RGB")
    assert has_red(shifted) and original.getpixel((4, 4)) != (255, 255, 255)
    assert shifted.getpixel((4, 4)) == (255, 255, 255) and shifted.getpixel((14, 14)) != (255, 255, 255)


def test_a_resume_after_an_interrupted_probes_file_asks_only_what_is_missing(
    looking: tuple[Path, FakeProvider],
) -> None:
    run, server = looking
    assert run_probe(run, arm="canvas", kinds="blank,shuffle") == 0
    whole = (run / PROBES).read_bytes().splitlines(keepends=True)
    asked = len(server.requests)
    assert run_probe(run, arm="canvas", kinds="blank,shuffle") == 0
    assert len(server.requests) == asked  # everything finished: nothing asked again
    # a kill after three lines, the fourth torn half-way
    (run / PROBES).write_bytes(b"".join(whole[:3]) + whole[3][: len(whole[3]) // 2])
    kept = {p.key for p in read_probes(run)}
    lost = sum(1 for p in (Probe.from_line(json.loads(line)) for line in whole[3:]) if p.status == "ok")
    assert run_probe(run, arm="canvas", kinds="blank,shuffle") == 0
    assert len(server.requests) - asked == lost
    assert len(read_probes(run)) == 2 * len(ANSWERS) and kept <= {p.key for p in read_probes(run)}
    assert len(list(ProbeLedger(run).records())) == 2 * len(ANSWERS)


def test_an_arm_without_tools_or_unknown_is_refused_in_one_line(looking: tuple[Path, FakeProvider]) -> None:
    run, _ = looking
    with pytest.raises(UsageError, match="no arm 'tools'"):
        run_probe(run, arm="tools")
    with pytest.raises(UsageError, match="--protocol both is for `mcot score`"):
        run_probe(run, arm="canvas", protocol="both")
    with pytest.raises(UsageError, match="unknown scoring protocol 'lenient'"):
        run_probe(run, arm="canvas", protocol="lenient")
    with pytest.raises(UsageError, match="--kinds takes blank, shuffle, perturb"):
        run_probe(run, arm="canvas", kinds="blank,erase")
    assert not (run / PROBES).exists()


def test_probes_are_cached_and_a_failed_call_is_an_error_line_asked_again(
    looking: tuple[Path, FakeProvider], tmp_path: Path
) -> None:
    run, server = looking
    answer = server.default
    server.default = Fail(500)
    assert run_probe(run, arm="canvas", kinds="blank", max_tries=1) == 3
    errors = [p for p in read_probes(run) if p.status == "error"]
    assert len(errors) == 4 and all("500" in (p.error or "") for p in errors)
    server.default = answer
    cache = tmp_path / "cache"
    asked = len(server.requests)
    assert run_probe(run, arm="canvas", kinds="blank", cache=cache) == 0
    assert len(server.requests) - asked == 4  # the four errors asked again, nothing else
    assert all(p.status in ("ok", "no_drawing") for p in read_probes(run))
    (run / PROBES).unlink()
    asked = len(server.requests)
    assert run_probe(run, arm="canvas", kinds="blank", cache=cache) == 0
    assert len(server.requests) == asked  # every probe answered from the response cache
    answered = [p for p in read_probes(run) if p.status == "ok"]
    assert len(answered) == 4 and all(p.usage["cached"] and p.usage["cost_usd"] == 0.0 for p in answered)


def test_max_cost_needs_a_priced_model(looking: tuple[Path, FakeProvider]) -> None:
    run, _ = looking
    with pytest.raises(UsageError, match="--max-cost needs the price"):
        run_probe(run, arm="canvas", max_cost=1.0)


def test_the_command_line_prints_the_figures_and_the_viewer_shows_a_traces_probes(
    looking: tuple[Path, FakeProvider],
) -> None:
    run, _ = looking
    done = CliRunner().invoke(app, ["probe", str(run), "--arm", "canvas", "--kinds", "blank"], prog_name="mcot")
    assert done.exit_code == 0, done.output
    assert (
        "### Faithfulness probes" in done.output
        and "| blank | 5 | 1 | 0 | 80.0 | 40.0 | 0.625 | 80.0 | 75.0 | 30.1–95.4 |" in done.output
    )
    page = write_viewer(run)
    shards = "".join(path.read_text() for path in (page.parent / "index_files").glob("*.js"))
    shown = [{"kind": "blank", "status": "ok", "extracted": "B", "changed": True, "correct": False, "images": 1,
              "error": None}]  # fmt: skip
    assert json.dumps(shown, separators=(",", ":"))[1:-1] in shards.replace(", ", ",").replace(": ", ":")


def test_a_code_arms_blank_removes_the_images_its_cells_showed(tmp_path: Path) -> None:
    blobs = tmp_path / "blobs"
    blobs.mkdir()
    for name, color in (("first", "white"), ("cell", "red"), ("canvas", "blue")):
        (blobs / f"{name}.png").write_bytes(_png(color))
    rows = [
        {"step": 0, "kind": "observation", "text": "the canvas", "image": "blobs/first.png"},
        {
            "step": 1,
            "kind": "model",
            "text": "",
            "sent": {"system": "S", "task": "T"},
            "tool_calls": [{"id": "c1", "name": "python", "arguments": {"code": "show(img)"}}],
        },
        {
            "step": 2,
            "kind": "tool",
            "tool": "python",
            "result": "shown",
            "error": None,
            "drawn_by": "tool",
            "image": "blobs/cell.png",
            "images": ["blobs/cell.png", "blobs/canvas.png"],
        },
        {"step": 3, "kind": "model", "text": "\\boxed{A}"},
    ]
    request = final_request(rows, tmp_path, [])
    assert [(slot.source, slot.blob) for slot in request.slots] == [
        ("cell", "blobs/cell.png"),
        ("cell", "blobs/canvas.png"),
    ]

    def images(messages: list[Any]) -> int:
        parts = [part for message in messages for part in message.parts]
        return sum(1 for p in parts if isinstance(p, ImagePart)) + sum(
            len(p.images) for p in parts if isinstance(p, ToolResultPart)
        )

    assert images(request.messages()) == 3 and images(request.messages(blank(request))) == 1


def test_max_cost_stops_starting_probes_and_a_larger_budget_resumes(
    items_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-test")
    with FakeProvider(default=looker) as server:
        config = RunConfig(data=items_dir, model="openai:gpt-4o", base_url=[server.openai_url], out=tmp_path / "run",
                           mode="canvas", concurrency=1)  # fmt: skip
        run = config.out
        assert run_items(config, quiet=True).done == len(ANSWERS)
        asked = len(server.requests)
        # each answer costs 100 input and 20 output tokens of gpt-4o: $0.00045; three reach $0.001
        assert run_probe(run, arm="canvas", kinds="blank", max_cost=0.001, concurrency=1) == 4
        assert len(server.requests) - asked == 3 and len(read_probes(run)) == 3
        spent = sum(p.usage["cost_usd"] for p in read_probes(run))
        assert spent == pytest.approx(3 * 0.00045)
        assert run_probe(run, arm="canvas", kinds="blank", max_cost=1.0, concurrency=1) == 0
        assert len(server.requests) - asked == 4 and len(read_probes(run)) == len(ANSWERS)


@pytest.mark.timeout(180)
def test_a_probe_killed_mid_way_resumes_without_asking_a_finished_probe_again(
    looking: tuple[Path, FakeProvider],
) -> None:
    run, server = looking
    server.latency_s = 0.3
    asked = len(server.requests)
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcot", "probe", str(run), "--arm", "canvas", "--kinds", "blank,shuffle",
         "--concurrency", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and proc.poll() is None:
        if (run / PROBES).is_file() and len(list(ProbeLedger(run).records())) >= 3:
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()[1][-2000:]
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    server.latency_s = 0.0
    finished = [p for p in read_probes(run) if p.status == "ok"]
    before_resume = len(server.requests)
    assert 2 <= len(finished) < 8
    assert run_probe(run, arm="canvas", kinds="blank,shuffle") == 0
    # the resume asked for the 8 answered probes not finished before the kill (one may have been in flight)
    assert len(server.requests) - before_resume == 8 - len(finished)
    assert len(server.requests) - asked <= 8 + 1
    assert len(read_probes(run)) == 2 * len(ANSWERS)


def test_a_blind_arm_was_never_shown_its_drawing_so_nothing_is_asked(items_dir: Path, tmp_path: Path) -> None:
    with FakeProvider(default=looker) as server:
        config = RunConfig(data=items_dir, model="openai-compatible:local-vlm", base_url=[server.openai_url],
                           out=tmp_path / "run", mode="canvas-blind", concurrency=1)  # fmt: skip
        assert run_items(config, quiet=True).done == len(ANSWERS)
        asked = len(server.requests)
        assert run_probe(config.out, arm="canvas-blind", kinds="blank") == 0
        assert len(server.requests) == asked
    assert {p.status for p in read_probes(config.out)} == {"no_drawing"}


CELL = ("python", {"code": 'from PIL import Image\nImage.new("RGB", (32, 32), "red")'})


def coder(body: dict[str, Any]) -> Reply:
    """Shows a red image from a cell on its first turn, then answers A when the last image it sees holds red."""
    if body.get("tools") and _turns(body) == 0:
        return Reply("Let me compute.", tool_calls=[CELL])
    return Reply("\\boxed{A}" if has_red(last_image(body)) else "\\boxed{B}")


@pytest.mark.skipif(sandbox_problem() is not None, reason=f"no sandbox here: {sandbox_problem()}")
def test_the_code_arms_blank_leaves_out_what_the_cells_showed_and_flips_a_model_that_reads_it(
    items_dir: Path, tmp_path: Path
) -> None:
    with FakeProvider(default=coder) as server:
        config = RunConfig(data=items_dir, model="openai-compatible:local-vlm", base_url=[server.openai_url],
                           out=tmp_path / "run", mode="code", concurrency=1, limit=2)  # fmt: skip
        assert run_items(config, quiet=True).done == 2
        assert run_probe(config.out, arm="code", kinds="blank") == 0
    probes = {p.id: p for p in read_probes(config.out)}
    assert set(probes) == {"q1", "q2"}
    assert all(p.original == "A" and p.extracted == "B" and p.changed and p.images == 1 for p in probes.values())


def test_a_missing_image_is_an_error_line_with_its_reason_asked_again_once_it_is_back(
    looking: tuple[Path, FakeProvider],
) -> None:
    run_dir, server = looking
    run = open_run(run_dir)
    rows = run.trace("q1", "canvas")
    assert rows is not None
    (slot,) = final_request(rows, run.root, [run.items_root / "images/q1.png"]).slots
    kept = (run_dir / slot.blob).read_bytes()
    (run_dir / slot.blob).unlink()  # every drawing item saw the same canvas: one blob, shared
    asked = len(server.requests)
    assert run_probe(run_dir, arm="canvas", kinds="blank") == 3
    assert len(server.requests) == asked
    probes = _by_key(run_dir)
    assert all(probes[(i, "blank")].status == "error" for i in ("q1", "q2", "q3", "q4"))
    assert "missing from the run's blobs" in (probes[("q1", "blank")].error or "")
    (run_dir / slot.blob).write_bytes(kept)
    assert run_probe(run_dir, arm="canvas", kinds="blank") == 0
    assert len(server.requests) - asked == 4
    assert {p.status for p in read_probes(run_dir)} == {"ok", "no_drawing"}


def test_limit_probes_the_first_pairs_and_a_later_session_the_rest(looking: tuple[Path, FakeProvider]) -> None:
    run, server = looking
    asked = len(server.requests)
    assert run_probe(run, arm="canvas", kinds="blank", limit=2) == 0
    assert sorted(p.id for p in read_probes(run)) == ["q1", "q2"] and len(server.requests) - asked == 2
    assert run_probe(run, arm="canvas", kinds="blank") == 0
    assert len(read_probes(run)) == len(ANSWERS) and len(server.requests) - asked == 4


@pytest.mark.parametrize("arm", ["tools", "look"])
def test_every_rebuilt_request_of_an_offline_run_has_the_key_its_trace_recorded(tmp_path: Path, arm: str) -> None:
    """Domain tools that draw, zooms, grids: the rebuild is the request the offline policy answered, pair by pair."""
    gen_games(out=tmp_path / "items", task="all", n=1, seed=0)
    run_items(RunConfig(data=tmp_path / "items", model="offline", out=tmp_path / "run", mode=arm), quiet=True)
    run = open_run(tmp_path / "run")
    asker = Asker.for_run(run, ProbePlan(arm=arm, kinds=("blank",)))
    rebuilt = 0
    for item_id, request in asker.requests.items():
        assert not isinstance(request, str), request
        rows = run.trace(item_id, arm)
        assert rows is not None
        sent = asker.model_request(run.items[item_id], request, request.messages())
        assert digest_request("offline", sent).key == rows[request.final_step]["request_key"], item_id
        rebuilt += 1
    assert rebuilt == len(run.items)


def test_the_study_report_holds_the_probes_of_its_runs(looking: tuple[Path, FakeProvider], tmp_path: Path) -> None:
    run, _ = looking
    assert run_probe(run, arm="canvas", kinds="blank") == 0
    score_run(run, figures=False)
    config = StudyConfig(source=tmp_path / "STUDY.toml", data=(tmp_path / "items",), arms=("canvas",),
                         models=(ModelEntry(spec="openai-compatible:local-vlm", name="local"),))  # fmt: skip
    markdown, page = build_study_report(config, {"local": run}, tmp_path / "study")
    assert "### Faithfulness probes" in markdown and "| local | canvas | gepbench | blank | 5 | 1 |" in markdown
    assert "Faithfulness probes" in page
