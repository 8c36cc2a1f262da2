import io
from collections import Counter
from pathlib import Path

import mcot.benchmarks.generators.games as games
import pytest
from mcot.benchmarks.generators.games import TASKS, build_scene, make_item
from PIL import Image

from mcot.commands.gen_games import gen_games
from mcot.core.errors import UsageError
from mcot.core.item import prompt_view, read_items


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_same_seed_gives_byte_identical_directories(tmp_path: Path) -> None:
    assert gen_games(tmp_path / "a", "all", 3, 7) == 0
    assert gen_games(tmp_path / "b", "all", 3, 7) == 0
    a, b = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert len(a) == 1 + 3 * len(TASKS) and a == b
    gen_games(tmp_path / "c", "all", 3, 8)
    assert _files(tmp_path / "c")["items.jsonl"] != a["items.jsonl"]


def test_items_are_valid_rgb_pngs_with_hidden_answers(tmp_path: Path) -> None:
    out = tmp_path / "items"
    gen_games(out, "all", 2, 1)
    items = read_items(out)
    assert Counter(i.category for i in items) == dict.fromkeys(TASKS, 2)
    for item in items:
        assert item.benchmark == "games" and item.category == item.meta["task"]
        image = Image.open(out / item.images[0])
        assert image.format == "PNG" and image.mode == "RGB" and list(image.size) == item.meta["size"]
        if item.answer_type == "choice":
            assert item.choices is not None and len(item.choices) == 4 and item.answer in "ABCD"
        else:
            assert item.choices is None and item.answer.isdigit()
        view = prompt_view(item, out).model_dump()
        assert "answer" not in view and "meta" not in view


def test_answer_letters_are_balanced() -> None:
    letters = Counter(build_scene(task, 3, i)[0].answer for task in ("ray", "dart") for i in range(150))
    assert sum(letters.values()) == 300
    for letter in "ABCD":  # 25 % each; 8 points is about three standard deviations at 300 items
        assert 0.25 - 0.08 <= letters[letter] / 300 <= 0.25 + 0.08, letters


def test_one_item_is_the_same_alone_or_in_a_batch() -> None:
    batch = list(games.generate("maze", 4, 5))
    alone = make_item("maze", 5, 3)
    assert batch[3].item == alone.item and batch[3].png == alone.png
    assert Image.open(io.BytesIO(alone.png)).mode == "RGB"


@pytest.mark.parametrize(
    ("task", "n", "message"),
    [("chess", 5, "unknown --task"), ("maze", 0, "--n"), ("maze", -3, "--n"), ("maze", 10**9, "--n")],
)
def test_bad_usage_is_a_usage_error(tmp_path: Path, task: str, n: int, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        gen_games(tmp_path / "out", task, n, 0)
    assert not (tmp_path / "out").exists()


def test_unwritable_or_occupied_out_is_a_usage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(UsageError, match="cannot write"):
        gen_games(blocker / "out", "maze", 1, 0)
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "keep.txt").write_text("mine")
    with pytest.raises(UsageError, match="not empty"):
        gen_games(occupied, "maze", 1, 0)
    assert (occupied / "keep.txt").read_text() == "mine"


def test_a_failure_midway_leaves_no_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(rng: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setitem(games.TASKS, "dots", broken)
    with pytest.raises(RuntimeError):
        gen_games(tmp_path / "out", "all", 1, 0)
    assert list(tmp_path.iterdir()) == []
