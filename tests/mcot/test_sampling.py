"""`--sample N --seed S`: counts per (benchmark, category) in proportion, the same sample for the same seed, and
`--limit` still the first N."""

import json
from collections import Counter
from pathlib import Path

import pytest

from mcot.core.errors import UsageError
from mcot.core.item import Item, write_items
from mcot.runconfig import RunConfig
from mcot.runner import run_items, select_items
from mcot.sampling import stratified_sample, stratum_shares

SIZES = {("games", "maze"): 30, ("games", "bounce"): 10, ("games", "dart"): 5, ("gepbench", "counting"): 15}


def _items() -> list[Item]:
    items = []
    for (bench, category), size in SIZES.items():
        for n in range(size):
            items.append(
                Item(
                    id=f"{bench}-{category}-{n}",
                    benchmark=bench,
                    category=category,
                    question="Which?",
                    choices=["1", "2", "3", "4"],
                    answer="A",
                    answer_type="choice",
                )
            )
    return items


@pytest.fixture
def items_dir(tmp_path: Path) -> Path:
    out = tmp_path / "items"
    write_items(out, [(item, {}) for item in _items()])
    return out


def test_shares_are_proportional_and_sum_to_n() -> None:
    assert stratum_shares([30, 10, 5, 15], 12) == [6, 2, 1, 3]
    # 20 × (30, 10, 5, 15) / 60 = 10, 3.33, 1.67, 5: the largest remainder (dart's .67) gets the last one
    assert stratum_shares([30, 10, 5, 15], 20) == [10, 3, 2, 5]
    assert stratum_shares([1, 1, 1], 2) == [1, 1, 0]  # ties go to the stratum seen first
    assert stratum_shares([3, 2], 10) == [3, 2]


def test_the_sample_counts_per_category() -> None:
    sample = stratified_sample(_items(), 12, seed=0)
    counts = Counter((item.benchmark, item.category) for item in sample)
    assert counts == {("games", "maze"): 6, ("games", "bounce"): 2, ("games", "dart"): 1, ("gepbench", "counting"): 3}
    order = [item.id for item in _items()]
    assert [item.id for item in sample] == sorted((item.id for item in sample), key=order.index)  # source order


def test_the_same_seed_draws_the_same_sample_and_another_seed_another() -> None:
    first = [item.id for item in stratified_sample(_items(), 12, seed=3)]
    assert first == [item.id for item in stratified_sample(_items(), 12, seed=3)]
    assert first != [item.id for item in stratified_sample(_items(), 12, seed=4)]
    assert len(stratified_sample(_items(), 100, seed=0)) == 60


def test_limit_stays_the_first_n_and_sample_is_stratified(items_dir: Path) -> None:
    limited = select_items(items_dir, 12)
    assert {item.category for item in limited} == {"maze"} and limited.dataset_entry(items_dir, 12).limit == 12
    sampled = select_items(items_dir, None, sample=12, seed=0)
    assert Counter(item.category for item in sampled) == {"maze": 6, "bounce": 2, "dart": 1, "counting": 3}
    assert sampled.dataset_entry(items_dir, None).n_items == len(sampled.ids) == 12


def test_a_run_with_sample_records_it_and_refuses_sample_with_limit(items_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--sample and --limit"):
        RunConfig(data=items_dir, model="offline", out=tmp_path / "x", sample=4, limit=4)
    run = tmp_path / "run"
    run_items(RunConfig(data=items_dir, model="offline", out=run, mode="text", sample=8, seed=1), quiet=True)
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["config"]["sample"] == 8 and manifest["dataset"]["n_items"] == 8
    frozen = [json.loads(line) for line in (run / "items.jsonl").read_text().splitlines()]
    assert Counter(item["category"] for item in frozen) == {"maze": 4, "bounce": 1, "dart": 1, "counting": 2}
    with pytest.raises(UsageError, match="other settings"):  # another sample is another experiment
        run_items(RunConfig(data=items_dir, model="offline", out=run, mode="text", sample=8, seed=2), quiet=True)
