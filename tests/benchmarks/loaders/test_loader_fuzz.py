"""Random and truncated native files against every loader and `mcot convert`: each one either loads (with
skips that say why) or fails with a LoaderError / usage error naming the problem; never another exception,
never a traceback.

Each case starts from a valid source of the format and damages one of its files: cut at a random byte, bytes
flipped, replaced by random bytes, or (for JSON files) replaced by random JSON records with wrong types, huge
numbers, deep nesting, very long strings and odd paths.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from loader_files import OMNIPHYS_MAPPING, gepbench_native, gobench_dataset, make_image, omniphys_records, write_jsonl
from mcot.benchmarks.loaders import LoaderError, LoadResult, load

from mcot.commands.convert import run_convert
from mcot.core.errors import UsageError
from mcot.core.item import ItemError, read_items

EXAMPLES = int(os.environ.get("LOADER_FUZZ_EXAMPLES", "25"))
"""Damaged sources tried per format (CI size)."""


def _rbench_tsv(root: Path) -> tuple[Path, Path]:
    png = base64.b64encode(make_image(size=(5, 4))).decode()
    rows = [["0", png, "Count the dots. (A) 3 (B) 4 (C) 5", "C", "counting"], ["1", "", "Is it even?", "Yes", "math"]]
    path = root / "RBench-V.tsv"
    path.write_text("\n".join(["index\timage\tquestion\tanswer\tsubject"] + ["\t".join(r) for r in rows]) + "\n")
    return root, path


def _rbench_parquet(root: Path) -> tuple[Path, Path]:
    kind = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    schema = pa.schema([("catagory", pa.string()), ("question", pa.string()), ("image", kind), ("answer", pa.string())])
    rows = [
        {
            "catagory": "Physics",
            "question": "How fast?",
            "image": {"bytes": make_image(), "path": "a.png"},
            "answer": "1",
        },
        {"catagory": "Math", "question": "2 + 3?", "image": None, "answer": "5"},
    ]
    path = root / "test.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return root, path


def _gepbench(root: Path) -> tuple[Path, Path]:
    gepbench_native(root)
    return root, root / "vqa-easy" / "counting.jsonl"


def _gepbench_figure(root: Path) -> tuple[Path, Path]:
    gepbench_native(root)
    return root, root / "figures" / "easy_00000000.jpg"


def _gobench(root: Path) -> tuple[Path, Path]:
    gobench_dataset(root)
    return root, root / "data_total.json"


def _gobench_image(root: Path) -> tuple[Path, Path]:
    gobench_dataset(root)
    return root, root / "reflect_light_images" / "1.1.png"


def _omniphys(root: Path) -> tuple[Path, Path]:
    path = write_jsonl(root / "omniphys.jsonl", omniphys_records(root))
    return root, path


def _items(root: Path) -> tuple[Path, Path]:
    (root / "images").mkdir(parents=True)
    (root / "images" / "q.png").write_bytes(make_image())
    line = {"id": "q1", "benchmark": "games", "category": "maze", "question": "?", "images": ["images/q.png"],
            "choices": None, "answer": "A", "answer_type": "text", "meta": {}}  # fmt: skip
    (root / "items.jsonl").write_text(json.dumps(line) + "\n")
    return root, root / "items.jsonl"


SOURCES: dict[str, tuple[str, Callable[[Path], tuple[Path, Path]], dict[str, Any]]] = {
    "rbench-v tsv": ("rbench-v", _rbench_tsv, {}),
    "rbench-v parquet": ("rbench-v", _rbench_parquet, {}),
    "gepbench questions": ("gepbench", _gepbench, {}),
    "gepbench figure": ("gepbench", _gepbench_figure, {}),
    "gobench data": ("gobench", _gobench, {}),
    "gobench generation": ("gobench", _gobench, {"generation": True}),
    "gobench image": ("gobench", _gobench_image, {}),
    "omniphys": ("omniphys", _omniphys, {"mapping": OMNIPHYS_MAPPING}),
    "items": ("items", _items, {}),
}

ODD_TEXTS = ["../../etc/passwd", "/etc/passwd", "a\x00b.png", "x" * 5000 + ".png", "data:image/png;base64,!!"]
ODD_TEXTS += ["img/in.png", "\ud7ff", "NaN", "1e999", "単選題", "多选题"]
odd_text = st.one_of(st.text(max_size=40), st.sampled_from(ODD_TEXTS))
json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        odd_text,
    ),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(odd_text, inner, max_size=4)),
    max_leaves=10,
)


@st.composite
def damage(draw: st.DrawFn, original: bytes, is_json: bool) -> bytes:
    """Return `original` damaged one way: cut, bits flipped, random bytes, or random JSON records."""
    how = draw(st.sampled_from(["cut", "flip", "random", "json", "deep"] if is_json else ["cut", "flip", "random"]))
    if how == "cut":
        return original[: draw(st.integers(0, max(0, len(original) - 1)))]
    if how == "flip":
        data = bytearray(original)
        for _ in range(draw(st.integers(1, 8))):
            if data:
                index = draw(st.integers(0, len(data) - 1))
                data[index] ^= draw(st.integers(1, 255))
        return bytes(data)
    if how == "random":
        return draw(st.binary(max_size=400))
    if how == "deep":
        return b"[" * 100_000 + b"]" * 100_000
    records = draw(st.lists(json_values, min_size=1, max_size=5))
    as_lines = draw(st.booleans())
    text = (
        "\n".join(json.dumps(r, allow_nan=True) for r in records) if as_lines else json.dumps(records, allow_nan=True)
    )
    return text.encode("utf-8", errors="surrogatepass")


def _load_or_loader_error(format: str, src: Path, options: dict[str, Any]) -> LoadResult | LoaderError:
    try:
        return load(format, src, **options)
    except LoaderError as exc:
        return exc


@pytest.mark.parametrize("source", list(SOURCES))
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.explicit, Phase.generate],
)
@given(data=st.data())
def test_a_damaged_source_loads_or_says_why(source: str, data: st.DataObject, tmp_path_factory: Any) -> None:
    format, build, options = SOURCES[source]
    root = tmp_path_factory.mktemp("src")
    src, victim = build(root)
    damaged = data.draw(damage(victim.read_bytes(), victim.suffix in (".json", ".jsonl")))
    victim.write_bytes(damaged)
    outcome = _load_or_loader_error(format, src, options)
    if isinstance(outcome, LoaderError):
        message = str(outcome)
        assert message and "Traceback" not in message and len(message) < 2000, message
        return
    for skip in outcome.skipped:
        assert skip.kind and skip.reason and len(skip.reason) < 2000, skip
        json.loads(skip.to_json_line())
    if format != "items":
        out = root.parent / f"{root.name}-out"
        try:
            run_convert(format, src, out, **{k: v for k, v in options.items() if k != "generation"},
                        generation=bool(options.get("generation")))  # fmt: skip
        except UsageError as exc:
            assert str(exc) and "Traceback" not in str(exc)
            return
        written = read_items(out)
        assert len(written) == len(outcome.items)
        shutil.rmtree(out)


def test_read_items_names_the_bad_line(tmp_path: Path) -> None:
    _items(tmp_path)
    (tmp_path / "items.jsonl").write_text('{"id": "q1", "benchm\n')
    with pytest.raises(ItemError, match=r"items\.jsonl:1"):
        read_items(tmp_path)


CONVERT_CASES = {
    "a cut parquet": ("rbench-v", _rbench_parquet, "cut"),
    "a gobench file of random bytes": ("gobench", _gobench, "random"),
    "gepbench questions nested too deep": ("gepbench", _gepbench, "deep"),
    "omniphys of random bytes": ("omniphys", _omniphys, "random"),
}


@pytest.mark.parametrize("case", list(CONVERT_CASES))
def test_mcot_convert_answers_a_damaged_source_without_a_traceback(tmp_path: Path, case: str) -> None:
    format, build, how = CONVERT_CASES[case]
    (tmp_path / "src").mkdir()
    src, victim = build(tmp_path / "src")
    original = victim.read_bytes()
    victim.write_bytes({"cut": original[: len(original) // 2], "random": os.urandom(300), "deep": b"[" * 100_000}[how])
    extra = ["--mapping", OMNIPHYS_MAPPING] if format == "omniphys" else []
    done = subprocess.run(
        [sys.executable, "-m", "mcot", "convert", format, str(src), "--out", str(tmp_path / "out"), *extra],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 2), done.stderr
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    if done.returncode == 2:
        assert done.stderr.strip() and len(done.stderr.strip().splitlines()) <= 3, done.stderr


# ------------------------------------------------------------------------------------------- regressions (found here)


def test_a_tsv_row_that_is_not_utf8_is_a_skip(tmp_path: Path) -> None:
    src, path = _rbench_tsv(tmp_path)
    lines = path.read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b"Count", b"C\xbaunt")
    path.write_bytes(b"\n".join(lines))
    result = load("rbench-v", src)
    assert [(s.locator, s.kind, s.reason) for s in result.skipped] == [
        ("RBench-V.tsv:row 0", "malformed record", "TSV row is not UTF-8 text")
    ]
    assert [loaded.item.id for loaded in result.items] == ["math-0000"]


def test_a_parquet_with_damaged_text_is_an_unreadable_file_skip(tmp_path: Path) -> None:
    src, path = _rbench_parquet(tmp_path)
    path.write_bytes(path.read_bytes().replace(b"Physics", b"Phys\x9bcs"))
    result = load("rbench-v", src)
    assert result.items == [] and [s.kind for s in result.skipped] == ["unreadable file"]


def test_a_jsonl_line_that_is_not_utf8_is_a_skip(tmp_path: Path) -> None:
    src, path = _gepbench(tmp_path / "gep")
    path.write_bytes(path.read_bytes().replace(b"How many lines?", b"How many l\xc2nes?"))
    skipped = {s.locator: (s.kind, s.reason) for s in load("gepbench", src).skipped}
    assert skipped["vqa-easy/counting.jsonl:2"] == ("malformed record", "line is not UTF-8 text")
    src, path = _items(tmp_path / "items")
    path.write_bytes(path.read_bytes().replace(b'"?"', b'"\xff?"'))
    assert [(s.kind, s.reason) for s in load("items", src).skipped] == [("malformed record", "line is not UTF-8 text")]


def test_json_nested_too_deeply_is_a_skip_or_a_loader_error(tmp_path: Path) -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    src, path = _gepbench(tmp_path / "gep")
    path.write_bytes(deep + b"\n" + path.read_bytes())
    first = load("gepbench", src).skipped[0]
    assert (first.locator, first.kind, first.reason) == (
        "vqa-easy/counting.jsonl:1",
        "malformed record",
        "line nests JSON too deeply to read",
    )
    src, path = _omniphys(tmp_path / "omni")
    path.write_bytes(deep + b"\n")
    assert [s.reason for s in load("omniphys", src, mapping=OMNIPHYS_MAPPING).skipped] == [
        "line nests JSON too deeply to read"
    ]
    src, path = _gobench(tmp_path / "go")
    path.write_bytes(deep)
    with pytest.raises(LoaderError, match="nests too deeply"):
        load("gobench", src)
