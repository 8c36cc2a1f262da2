"""`mcot run --samples K` against a seeded local model server: each sample its own resumable run directory, sent
its own seed; `mcot score` scores every sample, and the report's "Repeated samples" table matches hand counts."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from mcot.eval.samples import read_sample_scores, sample_differences, sample_figures
from mcot.eval.scoring import score_run
from PIL import Image

from mcot.core.errors import UsageError
from mcot.core.item import Item, write_items
from mcot.core.rundir import RunDir, read_manifest, sample_roots
from mcot.repeats import run_samples
from mcot.runconfig import RunConfig
from mcot.testing import FakeProvider, Reply

ANSWERS = {"q1": "A", "q2": "B", "q3": "A", "q4": "B", "q5": "A", "q6": "B"}


def _right(seed: int, item_id: str) -> bool:
    """The seeded model's rule: right unless sha256(seed:id) is divisible by 3."""
    return int(hashlib.sha256(f"{seed}:{item_id}".encode()).hexdigest(), 16) % 3 != 0


def _seeded(body: dict[str, Any]) -> Reply:
    text = json.dumps(body["messages"])
    item_id = next(i for i in ANSWERS if f"Item {i}." in text)
    right = _right(int(body["seed"]), item_id)
    letter = ANSWERS[item_id] if right else ("B" if ANSWERS[item_id] == "A" else "A")
    return Reply(f"The answer is {letter}")


@pytest.fixture
def items_dir(tmp_path: Path) -> Path:
    buffer = tmp_path / "blank.png"
    Image.new("RGB", (32, 32), "white").save(buffer)
    items = [
        (
            Item(id=item_id, benchmark="gepbench", category="counting", question=f"Item {item_id}. How many?",
                 images=[f"images/{item_id}.png"], choices=["1", "2"], answer=answer, answer_type="choice"),
            {f"images/{item_id}.png": buffer.read_bytes()},
        )
        for item_id, answer in ANSWERS.items()
    ]
    write_items(tmp_path / "items", items)
    return tmp_path / "items"


def _config(items_dir: Path, out: Path, server: FakeProvider, samples: int = 3) -> RunConfig:
    return RunConfig(data=items_dir, model="openai-compatible:local-vlm", base_url=[server.openai_url], out=out,
                     mode="text", concurrency=2, samples=samples, seed=5, temperature=1.0)  # fmt: skip


def test_each_sample_is_its_own_run_sent_its_own_seed_and_a_rerun_asks_nothing(items_dir: Path, tmp_path: Path):
    with FakeProvider(default=_seeded) as server:
        summary = run_samples(_config(items_dir, tmp_path / "run", server))
        assert summary.done == 3 * len(ANSWERS) and len(summary.samples) == 3
        asked = len(server.requests)
        assert asked == 3 * len(ANSWERS)
        assert sorted({request.body["seed"] for request in server.requests}) == [5, 6, 7]
        again = run_samples(_config(items_dir, tmp_path / "run", server))
        assert len(server.requests) == asked and again.skipped_done == 3 * len(ANSWERS)
    roots = sample_roots(tmp_path / "run")
    assert [(k, root.relative_to(tmp_path).as_posix()) for k, root in roots] == [
        (1, "run"), (2, "run/samples/2"), (3, "run/samples/3")]  # fmt: skip
    assert [read_manifest(root).config.get("sample_index") for _, root in roots] == [None, 2, 3]
    assert all(len(RunDir(root).results()) == len(ANSWERS) for _, root in roots)


def test_score_scores_every_sample_and_the_figures_match_hand_counts(items_dir: Path, tmp_path: Path):
    with FakeProvider(default=_seeded) as server:
        run_samples(_config(items_dir, tmp_path / "run", server))
    score_run(tmp_path / "run", figures=False)
    scores = read_sample_scores(tmp_path / "run")
    assert sorted(scores) == [1, 2, 3]
    rights = {i: [_right(seed, i) for seed in (5, 6, 7)] for i in ANSWERS}
    [row] = sample_figures(scores)
    n = len(ANSWERS)
    assert (row.n, row.samples) == (n, 3)
    assert row.mean == pytest.approx(sum(sum(r) / 3 for r in rights.values()) / n)
    assert row.pass_at_k == pytest.approx(sum(any(r) for r in rights.values()) / n)
    assert row.majority == pytest.approx(sum(sum(r) >= 2 for r in rights.values()) / n)
    assert row.always_right == pytest.approx(sum(all(r) for r in rights.values()) / n)
    assert row.always_wrong == pytest.approx(sum(not any(r) for r in rights.values()) / n)
    assert row.mixed == pytest.approx(1 - row.always_right - row.always_wrong)
    report = (tmp_path / "run" / "report.md").read_text()
    assert "Repeated samples (3 per item and arm)" in report
    assert (tmp_path / "run" / "samples" / "2" / "scores.jsonl").is_file()
    assert sample_differences(scores) == []  # one arm: nothing to compare


def test_samples_with_a_response_cache_are_refused(items_dir: Path, tmp_path: Path):
    with pytest.raises(UsageError, match="--samples 2 with --cache"):
        RunConfig(data=items_dir, model="offline", out=tmp_path / "run", samples=2, cache=tmp_path / "cache")


def test_one_sample_keeps_the_manifest_and_the_seed_as_before(items_dir: Path, tmp_path: Path):
    config = RunConfig(data=items_dir, model="offline", out=tmp_path / "run", seed=4)
    assert (config.backend_seed(), config.order_seed()) == (4, 4)
    assert "sample_index" not in config.result_settings()


def _by_model(body: dict[str, Any]) -> Reply:
    """Model `local-a` follows `_right`; `local-b` too, but is always right in the arm with tools."""
    text = json.dumps(body["messages"])
    item_id = next(i for i in ANSWERS if f"Item {i}." in text)
    right = _right(int(body["seed"]), item_id) or (body["model"] == "local-b" and bool(body.get("tools")))
    letter = ANSWERS[item_id] if right else ("B" if ANSWERS[item_id] == "A" else "A")
    return Reply(f"The answer is {letter}")


def test_a_study_with_samples_pools_the_arms_effect_on_per_item_means(items_dir: Path, tmp_path: Path):
    from mcot.commands.study import run_study_command

    with FakeProvider(default=_by_model) as server:
        text = (f'data = ["{items_dir}"]\narms = ["text", "canvas"]\nsamples = 3\nseed = 5\ntemperature = 1.0\n'
                "concurrency = 2\n")  # fmt: skip
        for name in ("a", "b"):
            text += f'\n[[model]]\nspec = "openai-compatible:local-{name}"\nname = "{name}"\nbase_url = "{server.openai_url}"\n'
        (tmp_path / "STUDY.toml").write_text(text)
        assert run_study_command(tmp_path / "STUDY.toml", tmp_path / "study") == 0
        assert len(server.requests) == 2 * 2 * 3 * len(ANSWERS)
    report = (tmp_path / "study" / "study.md").read_text()
    assert "## Repeated samples" in report
    assert "Repeated samples (3 per item and arm) — a" in report
    # model a: canvas and text follow the same rule (Δ 0); model b: canvas always right (Δ = 1 − text's mean)
    text_mean = sum(sum(_right(seed, i) for seed in (5, 6, 7)) / 3 for i in ANSWERS) / len(ANSWERS)
    pooled = (0.0 + (1 - text_mean)) / 2
    row = next(line for line in report.splitlines() if line.startswith("| gepbench | canvas | 2 | 12 |"))
    assert f"| {pooled * 100:+.1f} |" in row
    assert f"b {(1 - text_mean) * 100:+.1f}" in row and "a +0.0" in row


def test_compare_adds_the_repeated_samples_table(items_dir: Path, tmp_path: Path):
    from mcot.commands.compare import comparison_markdown

    with FakeProvider(default=_by_model) as server:
        config = RunConfig(data=items_dir, model="openai-compatible:local-b", base_url=[server.openai_url],
                           out=tmp_path / "run", mode="text,canvas", samples=2, seed=5, temperature=1.0)  # fmt: skip
        run_samples(config)
    score_run(tmp_path / "run", figures=False)
    text = comparison_markdown(tmp_path / "run")
    assert "Repeated samples (2 per item and arm)" in text
    means = sum(sum(_right(seed, i) for seed in (5, 6)) / 2 for i in ANSWERS) / len(ANSWERS)
    assert f"gepbench canvas − text (per-item means, n=6): {(1 - means) * 100:+.1f}" in text
