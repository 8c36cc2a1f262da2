import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from loader_files import make_image
from mcot.benchmarks.loaders._answers import answer_letter, infer_answer_type, letters_answer, parse_options, yes_no
from mcot.benchmarks.loaders._images import check_image, decode_base64
from mcot.benchmarks.loaders._paths import inside
from mcot.benchmarks.loaders._types import SkipItem
from PIL import Image

OPTION = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789 ", min_size=1, max_size=12).map(str.strip).filter(bool)


@settings(max_examples=60, deadline=None)
@given(options=st.lists(OPTION, min_size=2, max_size=6), style=st.sampled_from(["{}. {}", "({}) {}", "{}: {}"]))
def test_options_one_per_line_come_back_in_order(options: list[str], style: str) -> None:
    lines = [style.format("ABCDEFGH"[k], text) for k, text in enumerate(options)]
    assert parse_options("What is shown?\n" + "\n".join(lines)) == options


@pytest.mark.parametrize(
    ("question", "options"),
    [
        ("Pick one: (A) 3 cm (B) 4 cm (C) 5 cm", ["3 cm", "4 cm", "5 cm"]),
        ("选哪个？（A）甲（B）乙", ["甲", "乙"]),
        ("Which? A. red B. blue", ["red", "blue"]),
        ("A ball rolls 3.5 m. How far? B. is not an option list", None),
        ("The value of f(A) is 2.", None),
    ],
)
def test_inline_options(question: str, options: list[str] | None) -> None:
    assert parse_options(question) == options


def test_answer_helpers() -> None:
    assert answer_letter("(C)", ["x", "y", "z"]) == "C"
    assert answer_letter("y", ["x", "y", "z"]) == "B"
    assert answer_letter("E", ["x", "y"]) is None
    assert letters_answer("C、A", 4) == "AC" and letters_answer(["b", "d"], 4) == "BD"
    assert letters_answer("AE", 4) is None
    assert (yes_no("正确"), yes_no("×"), yes_no(True), yes_no("maybe")) == ("yes", "no", "yes", None)
    assert [infer_answer_type(a) for a in ["42", "-0.5 m/s", "3/4", "No", "the left one"]] == [
        "number",
        "number",
        "number",
        "yesno",
        "text",
    ]


def test_png_and_jpeg_bytes_are_kept_and_other_formats_become_lossless_png() -> None:
    rgba = make_image(mode="RGBA")
    assert check_image(rgba).data == rgba
    checked = check_image(make_image(mode="RGBA", fmt="TIFF"))
    assert checked.suffix == ".png"
    original = Image.open(io.BytesIO(make_image(mode="RGBA", fmt="TIFF")))
    assert Image.open(io.BytesIO(checked.data)).tobytes() == original.tobytes()
    assert check_image(make_image(mode="CMYK", fmt="TIFF")).mode == "RGB"


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b"", "invalid image"),
        (b"GIF89a junk", "invalid image"),
        (make_image(size=(64, 64))[:76], "invalid image"),
        (make_image(size=(64, 64), fmt="JPEG")[:1300], "invalid image"),
    ],
)
def test_bad_image_bytes_are_named(data: bytes, kind: str) -> None:
    with pytest.raises(SkipItem) as info:
        check_image(data)
    assert info.value.kind == kind


def test_pixel_limit_is_checked_before_decoding() -> None:
    with pytest.raises(SkipItem, match="100x100 = 10000 pixels"):
        check_image(make_image(size=(100, 100)), max_pixels=9_999)


def test_base64_and_paths(tmp_path: Path) -> None:
    assert decode_base64("data:image/png;base64,aGVs\nbG8=") == b"hello"
    with pytest.raises(SkipItem, match="base64"):
        decode_base64("not*base64")
    (tmp_path / "ds").mkdir()
    (tmp_path / "secret.png").write_bytes(b"x")
    (tmp_path / "ds" / "link.png").symlink_to(tmp_path / "secret.png")
    for bad in ["../secret.png", "link.png", str(tmp_path / "secret.png")]:
        with pytest.raises(SkipItem) as info:
            inside(tmp_path / "ds", bad)
        assert info.value.kind == "path escapes dataset"
    with pytest.raises(SkipItem, match="not found"):
        inside(tmp_path / "ds", "absent.png")
