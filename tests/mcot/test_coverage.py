"""A limited or sampled run says which benchmarks and categories it holds and how many of each."""

from pathlib import Path

import pytest
from mcot.benchmarks.item import Item, write_items

from mcot.commands.run import run_items
from mcot.sampling import coverage
from mcot.testing import FakeProvider, Reply


def _items(root: Path) -> Path:
    items = [
        (Item(id=f"{cat}-{i}", benchmark="games", category=cat, question="?", images=[], answer="1",
              answer_type="number"), {})
        for cat in ("maze", "bounce", "dart") for i in range(4)
    ]  # fmt: skip
    write_items(root / "items", items)
    return root / "items"


def test_coverage_counts_benchmarks_and_categories_in_order() -> None:
    items = [Item(id=str(i), benchmark=b, category=c, question="?", answer="1", answer_type="number")
             for i, (b, c) in enumerate([("games", "maze"), ("games", "maze"), ("gepbench", "size"), ("games", "dart")])]  # fmt: skip
    assert coverage(items) == "4 items: games 3 (maze 2, dart 1); gepbench 1 (size 1)"
    assert coverage([]) == "0 items"


@pytest.mark.parametrize(
    ("option", "said"),
    [
        ({"limit": 5}, "coverage (the first 5 items): 5 items: games 5 (maze 4, bounce 1)"),
        ({"sample": 6, "seed": 1}, "coverage (a sample of 6 stratified by benchmark and category, seed 1): "
                                   "6 items: games 6 (maze 2, bounce 2, dart 2)"),
    ],
)  # fmt: skip
def test_a_limited_or_sampled_run_prints_its_coverage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: dict[str, int], said: str
) -> None:
    data = _items(tmp_path)
    with FakeProvider(default=Reply("\\boxed{1}")) as server:
        code = run_items(data=data, model="openai-compatible:m", out=tmp_path / "run", mode="text",
                         base_url=server.openai_url, **option)  # fmt: skip
    assert code == 0
    assert said in capsys.readouterr().out
