"""The run's order: seeded, shuffled, the arms of one item adjacent, recorded."""

import json
from collections import Counter

from mcot.core.rundir import shuffled_pairs, write_schedule


def test_the_order_is_a_shuffle_with_each_items_arms_side_by_side() -> None:
    ids = [f"i{n:03d}" for n in range(50)]
    arms = ["text", "canvas", "tools"]
    pairs = shuffled_pairs(ids, arms, 7)
    assert Counter(pairs) == Counter((i, a) for i in ids for a in arms)
    items_in_order = [pairs[k][0] for k in range(0, len(pairs), 3)]
    assert all(pairs[k][0] == pairs[k + 1][0] == pairs[k + 2][0] for k in range(0, len(pairs), 3))
    assert items_in_order != ids  # shuffled
    first_arms = Counter(pairs[k][1] for k in range(0, len(pairs), 3))
    assert len(first_arms) == 3  # no arm always goes first
    assert shuffled_pairs(ids, arms, 7) == pairs
    assert shuffled_pairs(ids, arms, 8) != pairs


def test_the_order_is_written_one_pair_a_line(tmp_path) -> None:
    pairs = shuffled_pairs(["a", "b"], ["text"], 0)
    write_schedule(tmp_path / "schedule.jsonl", pairs)
    lines = (tmp_path / "schedule.jsonl").read_text().splitlines()
    assert [tuple(json.loads(line).values()) for line in lines] == pairs
