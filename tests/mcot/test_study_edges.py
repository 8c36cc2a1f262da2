"""A study report that never drops: a model at 0 % in every arm, one at 100 %, a benchmark with one item and an
arm with no answers still give study.md and study.html; a figure that cannot be drawn is left out in one line."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from local_models import FakeProvider, Reply
from mcot.eval.figures import StudyPoint, study_figure

from mcot.commands.study import run_study_command
from mcot.core.item import Item, write_items
from mcot.testing.fake_provider import Fail


def _items(root: Path) -> tuple[Path, Path]:
    """Three GePBench-style items (answer C) and a one-item benchmark of a plugin's kind (answer C)."""
    gep = [
        (Item(id=f"g{i}", benchmark="gepbench", category="counting", question=f"How many? ({i})", images=[],
              choices=["1", "2", "3", "4"], answer="C", answer_type="choice", meta={"level": "easy"}), {})
        for i in range(3)
    ]  # fmt: skip
    toy = [(Item(id="t0", benchmark="toy-plugin", category="only", question="Pick one.", images=[],
                 choices=["x", "y", "z"], answer="C", answer_type="choice"), {})]  # fmt: skip
    write_items(root / "gep", gep)
    write_items(root / "toy", toy)
    return root / "gep", root / "toy"


def _study(root: Path, data: Sequence[Path], urls: dict[str, str], arms: list[str], extra: str = "") -> Path:
    models = "".join(
        f'\n[[model]]\nspec = "openai-compatible:{name}"\nname = "{name}"\nbase_url = "{url}"\n'
        f'key_env = "STUDY_EDGE_KEY"\n'
        for name, url in urls.items()
    )
    path = root / "STUDY.toml"
    path.write_text(
        f"data = {json.dumps([str(d) for d in data])}\narms = {json.dumps(arms)}\nmax_steps = 2\n{extra}{models}"
    )
    return path


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUDY_EDGE_KEY", "sk-local-not-a-key")


def test_zero_and_hundred_percent_in_every_arm_write_the_report(tmp_path: Path) -> None:
    data = _items(tmp_path)
    with FakeProvider(default=Reply("\\boxed{A}")) as never, FakeProvider(default=Reply("\\boxed{C}")) as always:
        study = _study(tmp_path, data, {"never": never.openai_url, "always": always.openai_url}, ["text", "canvas"])
        assert run_study_command(study, tmp_path / "out") == 0
    md = (tmp_path / "out" / "study.md").read_text(encoding="utf-8")
    assert (tmp_path / "out" / "study.html").is_file()
    assert "| never | 0.0" in md and "| always | 100.0" in md
    assert "toy-plugin" in md  # the one-item benchmark has its table


def test_an_arm_whose_every_pair_failed_still_reports_and_exits_3(tmp_path: Path) -> None:
    data = _items(tmp_path)
    with FakeProvider(default=Reply("\\boxed{C}")) as good, FakeProvider(default=Fail(400)) as broken:
        urls = {"good": good.openai_url, "gone": broken.openai_url}
        study = _study(tmp_path, data, urls, ["text"])
        assert run_study_command(study, tmp_path / "out") == 3  # some pairs failed: never the usage code 2
    md = (tmp_path / "out" / "study.md").read_text(encoding="utf-8")
    assert "| gone |" in md and "| good | 100.0" in md


def test_a_bar_at_zero_with_a_wilson_bound_just_above_it_is_drawn(tmp_path: Path) -> None:
    # Wilson's lower bound at 0/n is about 1e-17, not 0: the error bar must not go negative
    points = [
        StudyPoint("b — Accuracy", "m", "text", 0.0, 1e-17, 0.3),
        StudyPoint("b — Accuracy", "m", "canvas", 1.0, 0.7, 1.0 - 1e-16),
    ]
    figure = study_figure(points, tmp_path)
    assert figure is not None and (tmp_path / Path(figure.path).name).is_file()


def test_a_sampled_study_says_what_it_covers(tmp_path: Path) -> None:
    data = _items(tmp_path)
    with FakeProvider(default=Reply("\\boxed{C}")) as server:
        study = _study(tmp_path, data, {"m": server.openai_url}, ["text"], extra="seed = 3\nsample = 2\n")
        assert run_study_command(study, tmp_path / "out") == 0
    md = (tmp_path / "out" / "study.md").read_text(encoding="utf-8")
    assert "(a stratified sample of 2 of each)" in md
    assert "- **coverage**: 3 items: gepbench 2 (counting 2); toy-plugin 1 (only 1)" in md


def test_a_figure_that_cannot_be_drawn_is_left_out_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(points: object, folder: Path) -> None:
        raise ValueError("'xerr' must not contain negative values\nsecond line of the message")

    monkeypatch.setattr("mcot.study.report.study_figure", broken)
    data = _items(tmp_path)
    with FakeProvider(default=Reply("\\boxed{C}")) as server:
        study = _study(tmp_path, data, {"m": server.openai_url}, ["text"])
        assert run_study_command(study, tmp_path / "out") == 0  # the runs were paid and scored: the report stands
    md = (tmp_path / "out" / "study.md").read_text(encoding="utf-8")
    html = (tmp_path / "out" / "study.html").read_text(encoding="utf-8")
    line = "the figure was left out: ValueError: 'xerr' must not contain negative values"
    assert md.count(line) == 1 and "second line" not in md
    assert "## Figure" not in md and "<img" not in html
    assert "| m | 100.0" in md  # the tables are written


def test_a_study_scored_without_the_rbench_judge_titles_its_table_a_lower_bound(tmp_path: Path) -> None:
    items = [
        (Item(id=f"counting-{i}", benchmark="rbench-v", category="Counting", question=f"How many? ({i})", images=[],
              answer="7", answer_type="number"), {})
        for i in range(2)
    ]  # fmt: skip
    write_items(tmp_path / "rbv", items)
    with FakeProvider(default=Reply("There are seven.")) as server:  # prose: only a judge can settle it
        study = _study(tmp_path, [tmp_path / "rbv"], {"m": server.openai_url}, ["text"])
        assert run_study_command(study, tmp_path / "out") == 0
    md = (tmp_path / "out" / "study.md").read_text(encoding="utf-8")
    bound = ", rules only: lower bound; `--judge openai:gpt-4o` gives the number"
    assert f"### rbench-v — Overall{bound}" in md
