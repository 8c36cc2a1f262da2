"""The GePBench engine end to end: items directory, native layout, determinism, and the CLI's bad input."""

import io
import json
from pathlib import Path

import pytest
from mcot.benchmarks.generators.gepbench.engine import SUMMARY_FILE, generate, plan
from mcot.benchmarks.generators.gepbench.questions import ASPECTS
from PIL import Image
from typer.testing import CliRunner

from mcot.cli import app
from mcot.commands.gen_gepbench import gen_gepbench, gen_report
from mcot.core.errors import UsageError
from mcot.core.item import read_items


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gep") / "items"
    assert gen_gepbench(out, 8, 7, "both", True) == 0
    return out


def test_items_directory_is_valid(generated: Path) -> None:
    items = read_items(generated)
    assert items
    assert {"existence", "counting", "size", "location"} <= {i.category for i in items} <= set(ASPECTS)
    assert {i.meta["level"] for i in items} == {"easy", "hard"}
    for item in items:
        assert item.benchmark == "gepbench" and item.answer_type == "choice"
        assert item.choices is not None and len(item.choices) == 4 and item.answer in "ABCD"
        assert {"level", "image_id", "question_id", "description", "validator"} <= set(item.meta)
        assert item.meta["validator"]["agree"] in (True, None)
        with Image.open(generated / item.images[0]) as im:
            assert (im.format, im.mode, im.size) == ("JPEG", "L", (640, 640))
    figures = {(i.meta["level"], i.meta["image_id"]) for i in items}
    assert len(figures) == 8  # N figures, split between the levels
    assert plan(8, "both") == [("easy", 4), ("hard", 4)]


def test_every_figure_gets_questions_of_the_main_aspects(generated: Path) -> None:
    by_figure: dict[tuple[str, int], set[str]] = {}
    for item in read_items(generated):
        by_figure.setdefault((item.meta["level"], item.meta["image_id"]), set()).add(item.category)
    assert all({"existence", "counting", "size"} <= aspects for aspects in by_figure.values())


def test_native_layout_matches_the_public_engine(generated: Path) -> None:
    for level in ("easy", "hard"):
        rules = json.loads((generated / f"rules-{level}.json").read_text())
        assert len(rules) == 4 and all({"shapes", "relations"} <= set(r) for r in rules)
        for aspect in ("existence", "counting", "size", "location", "reference", "relation"):
            path = generated / f"vqa-{level}" / f"{aspect}.jsonl"
            for line in path.read_text().splitlines():
                record = json.loads(line)
                assert set(record) == {"image_id", "question_id", "question", "choices", "answer"}
                assert record["answer"] in record["choices"]
                if aspect == "counting":
                    assert all(isinstance(c, int) for c in record["choices"])
                assert (generated / "figures" / f"{level}_{record['image_id']:08d}.jpg").is_file()


def test_native_export_loads_back_with_the_same_answers(generated: Path) -> None:
    loaders = pytest.importorskip("mcot.benchmarks.loaders.gepbench")
    from mcot.benchmarks.loaders._types import LoadedItem, Tally

    loaded = [x.item for x in loaders.load(generated, Tally()) if isinstance(x, LoadedItem)]
    ours = {
        (i.meta["level"], i.category, i.meta["image_id"], i.meta["question_id"]): i.answer
        for i in read_items(generated)
    }
    theirs = {(i.meta["level"], i.category, i.meta["image_id"], i.meta["question_id"]): i.answer for i in loaded}
    assert theirs == ours


def test_same_seed_gives_byte_identical_files(tmp_path: Path) -> None:
    generate(tmp_path / "a", 4, 3, "both", native=True)
    generate(tmp_path / "b", 4, 3, "both", native=True)
    generate(tmp_path / "c", 4, 4, "both", native=True)
    a, b, c = _tree(tmp_path / "a"), _tree(tmp_path / "b"), _tree(tmp_path / "c")
    assert a == b
    assert a["items.jsonl"] != c["items.jsonl"]


def test_one_level_only(tmp_path: Path) -> None:
    generate(tmp_path / "h", 3, 1, "hard")
    items = read_items(tmp_path / "h")
    assert {i.meta["level"] for i in items} == {"hard"}
    summary = json.loads((tmp_path / "h" / SUMMARY_FILE).read_text())
    assert summary["figures"] == {"hard": 3}


@pytest.mark.parametrize(
    ("n", "level", "message"),
    [(0, "both", "--n"), (-5, "both", "--n"), (10**9, "both", "--n"), (5, "medium", "--level")],
)
def test_bad_options_are_usage_errors(tmp_path: Path, n: int, level: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        gen_gepbench(tmp_path / "out", n, 0, level, False)
    assert list(tmp_path.iterdir()) == []


def test_unwritable_or_occupied_out_is_a_usage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    with pytest.raises(UsageError, match="cannot write"):
        gen_gepbench(blocker / "out", 2, 0, "easy", False)
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "keep.txt").write_text("mine")
    with pytest.raises(UsageError, match="not empty"):
        gen_gepbench(occupied, 2, 0, "easy", False)
    assert [p.name for p in occupied.iterdir()] == ["keep.txt"]


def test_unwritable_parent_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import mcot.core.item as item_module

    monkeypatch.setattr(item_module.os, "access", lambda path, mode: False)  # as for a read-only folder
    with pytest.raises(UsageError, match="not writable"):
        gen_gepbench(tmp_path / "out", 2, 0, "easy", False)
    assert list(tmp_path.iterdir()) == []


def test_an_interrupted_run_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import mcot.benchmarks.generators.gepbench.engine as engine

    calls = {"n": 0}
    real = engine.make_figure

    def failing(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "make_figure", failing)
    with pytest.raises(KeyboardInterrupt):
        gen_gepbench(tmp_path / "out", 5, 0, "both", False)
    assert list(tmp_path.iterdir()) == []


def test_cli_exit_codes_and_report(tmp_path: Path, generated: Path) -> None:
    runner = CliRunner()
    bad = runner.invoke(app, ["gen", "gepbench", "--n", "0", "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "--n must be" in bad.output
    bad_level = runner.invoke(app, ["gen", "gepbench", "--n", "2", "--level", "medium", "--out", str(tmp_path / "x")])
    assert bad_level.exit_code == 2
    report = runner.invoke(app, ["gen", "report", str(generated)])
    assert report.exit_code == 0, report.output
    assert "max dev" in report.output and "validator:" in report.output
    missing = runner.invoke(app, ["gen", "report", str(tmp_path / "nothing")])
    assert missing.exit_code == 2


def test_report_counts(generated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert gen_report(generated) == 0
    out = capsys.readouterr().out
    total = len(read_items(generated))
    assert f"all{'':<21}{total:>7}" in out
    assert io.StringIO(out).readline().split()[:2] == ["group", "n"]


def test_style_and_noise_options(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "m"
    done = runner.invoke(app, ["gen", "gepbench", "--n", "2", "--level", "hard", "--style", "mcot", "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert {i.meta["wording"] for i in read_items(out)} == {"mcot"}
    summary = json.loads((out / SUMMARY_FILE).read_text())
    assert summary["style"] == "mcot" and summary["noise"]["model"] == "paper"
    quiet = tmp_path / "quiet"
    assert gen_gepbench(quiet, 2, 0, "hard", False, noise="none") == 0
    assert all(i.meta["style"]["noise_sigma"] == 0 and "perlin" not in i.meta["style"] for i in read_items(quiet))
    for option, value in (("--style", "fancy"), ("--noise", "loud")):
        bad = runner.invoke(app, ["gen", "gepbench", "--n", "2", option, value, "--out", str(tmp_path / "x")])
        assert bad.exit_code == 2 and option in bad.output
    assert not (tmp_path / "x").exists()
