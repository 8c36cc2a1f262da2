"""The cluster key of an item: the declared field paths, the item id by default or when a field is missing."""

from __future__ import annotations

import pytest

import mcot.builtin  # noqa: F401  (the built-in benchmarks' declarations)
from mcot.core.clusters import (
    ClusterKeyError,
    benchmark_cluster,
    check_cluster_key,
    cluster_key,
    cluster_of,
    key_label,
)
from mcot.core.declare import declare_benchmark
from mcot.core.item import Item
from mcot.core.registry import RegistryError


def _item(item_id: str, benchmark: str = "gepbench", **meta: object) -> Item:
    return Item(
        id=item_id, benchmark=benchmark, category="size", question="q", images=[f"images/{item_id}.png"],
        answer="A", answer_type="choice", meta=dict(meta),
    )  # fmt: skip


def test_gepbench_questions_of_one_figure_share_a_cluster_and_other_figures_do_not() -> None:
    assert cluster_key("gepbench") == ("meta.level", "meta.image_id")
    first, second = _item("q1", level="easy", image_id=7), _item("q2", level="easy", image_id=7)
    other_level, other_figure = _item("q3", level="hard", image_id=7), _item("q4", level="easy", image_id=8)
    assert benchmark_cluster(first) == benchmark_cluster(second) == '["gepbench", "easy", 7]'
    assert len({benchmark_cluster(i) for i in (first, other_level, other_figure)}) == 3


def test_the_default_key_and_a_missing_field_leave_every_item_alone() -> None:
    assert cluster_key("rbench-v") == ("id",) and cluster_key("no-such-benchmark") == ("id",)
    assert benchmark_cluster(_item("r1", "rbench-v")) == "r1"
    assert benchmark_cluster(_item("q9", level="easy")) == "q9"  # no image_id: its own cluster
    assert cluster_of(_item("q1"), ("images.0",)) == '["gepbench", "images/q1.png"]'
    assert cluster_of(_item("q1"), ("images.3",)) == "q1"
    assert cluster_of(_item("q1", scene={"seed": 4}), ("meta.scene.seed",)) == '["gepbench", 4]'


def test_games_cluster_by_scene() -> None:
    item = _item("maze-1-00003", "games", seed=1, index=3)
    assert benchmark_cluster(item) == '["games", "size", 1, 3]'
    assert key_label(cluster_key("games")) == "category + meta.seed + meta.index" and key_label(("id",)) == "item"


@pytest.mark.parametrize("key", [(), ("answer",), ("meta",), ("images.x",), ("id.x",)])
def test_a_key_that_names_no_field_is_refused_in_one_line(key: tuple[str, ...]) -> None:
    with pytest.raises(ClusterKeyError):
        check_cluster_key(key)
    with pytest.raises(RegistryError, match="cluster"):
        declare_benchmark("clustered-badly", description="x", cluster=key)
