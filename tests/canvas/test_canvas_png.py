"""The canvas's own PNG writer: exact pixels back, a valid file for Pillow, Pillow's writer for other modes."""

from __future__ import annotations

import io
import sys
import zlib

from mcot.canvas import Canvas
from mcot.canvas._png import encode_png
from PIL import Image, ImageDraw


def _diagram() -> Image.Image:
    image = Image.new("RGB", (97, 61), "white")
    draw = ImageDraw.Draw(image)
    draw.line((3, 5, 90, 50), fill=(200, 30, 30), width=3)
    draw.ellipse((20, 10, 60, 40), outline=(0, 90, 255))
    return image


def test_rgb_pixels_come_back_exactly_from_a_valid_png() -> None:
    image = _diagram()
    data = encode_png(image)
    decoded = Image.open(io.BytesIO(data))
    decoded.verify()  # chunk CRCs and structure
    decoded = Image.open(io.BytesIO(data))
    assert (decoded.format, decoded.mode, decoded.size) == ("PNG", "RGB", (97, 61))
    assert decoded.tobytes() == image.tobytes()
    assert len(data) < len(image.tobytes()) // 4  # compressed
    assert encode_png(image) == data  # deterministic


def test_the_stream_is_unfiltered_rows_at_the_level_asked() -> None:
    image = _diagram()
    data = encode_png(image, level=1)
    idat = data[data.index(b"IDAT") + 4 : data.index(b"IEND") - 8]
    rows = zlib.decompress(idat)
    assert len(rows) == (97 * 3 + 1) * 61 and rows[:: 97 * 3 + 1] == bytes(61)  # filter byte 0 on every row


def test_other_modes_go_through_pillow() -> None:
    rgba = Image.new("RGBA", (8, 4), (10, 20, 30, 128))
    decoded = Image.open(io.BytesIO(encode_png(rgba)))
    assert decoded.mode == "RGBA" and decoded.getpixel((0, 0)) == (10, 20, 30, 128)


def test_canvas_snapshots_use_it() -> None:
    canvas = Canvas(size=(40, 30))
    canvas.draw_line([1, 1], [30, 20])
    snapshot = canvas.snapshot()
    assert snapshot.png == encode_png(Image.open(io.BytesIO(snapshot.png)).convert("RGB"))


def test_a_writer_that_keeps_bands_writes_the_bytes_of_a_fresh_encoding() -> None:
    from mcot.canvas._png import BAND_ROWS, PngWriter

    writer = PngWriter(1)
    image = Image.new("RGB", (120, BAND_ROWS * 5 + 3), "white")
    first = writer.encode(image)
    assert first == encode_png(image)
    kept = list(writer._bands)
    ImageDraw.Draw(image).line((0, BAND_ROWS * 2 + 1, 119, BAND_ROWS * 2 + 4), fill=(200, 30, 30), width=2)
    second = writer.encode(image)
    assert second == encode_png(image) and second != first
    changed = [index for index, band in enumerate(writer._bands) if band is not kept[index]]
    assert changed == [2]  # only the band the line crossed was compressed again
    assert Image.open(io.BytesIO(second)).tobytes() == image.tobytes()
    smaller = image.resize((60, 20))
    assert writer.encode(smaller) == encode_png(smaller)  # another size starts afresh
    assert Image.open(io.BytesIO(writer.encode(smaller))).tobytes() == smaller.tobytes()


def test_every_zlib_level_and_a_one_row_image_decode_exactly() -> None:
    image = _diagram()
    for level in range(10):
        data = encode_png(image, level)
        assert Image.open(io.BytesIO(data)).tobytes() == image.tobytes()
        assert zlib.decompress(data[data.index(b"IDAT") + 4 : data.index(b"IEND") - 8])  # checksum holds
    row = Image.new("RGB", (5, 1), (1, 2, 3))
    assert Image.open(io.BytesIO(encode_png(row))).tobytes() == row.tobytes()


def test_a_canvas_step_changes_the_snapshot_as_a_fresh_encoding_would() -> None:
    canvas = Canvas(size=(300, 200))
    canvas.snapshot()
    canvas.draw_line([10, 150], [290, 160], color="blue")
    snapshot = canvas.snapshot()
    assert snapshot.png == encode_png(canvas.render_full())


def test_a_cairo_buffer_is_written_as_its_rgb_image_is() -> None:
    from mcot.canvas._pixels import cairo_buffer
    from mcot.canvas._png import PngWriter

    image = _diagram()
    buffer = cairo_buffer(image)
    assert bytes(buffer) == image.tobytes("raw", "BGRX" if sys.byteorder == "little" else "XRGB")
    assert PngWriter(1).encode_cairo(buffer, *image.size) == encode_png(image)


def test_a_rekeyed_writer_compresses_only_the_bands_a_drawing_changed() -> None:
    from mcot.canvas._pixels import cairo_buffer
    from mcot.canvas._png import BAND_ROWS, PngWriter

    image = Image.new("RGB", (90, BAND_ROWS * 4), "white")
    writer = PngWriter(1)
    writer.encode(image)  # the opening: the bands keep Pillow's RGB pixels
    kept = list(writer._bands)
    buffer = cairo_buffer(image)
    writer.rekey(buffer, *image.size)  # the same pixels, now in cairo's layout
    ImageDraw.Draw(image).line((0, BAND_ROWS * 3 + 2, 89, BAND_ROWS * 3 + 5), fill=(0, 0, 255), width=2)
    drawn = cairo_buffer(image)
    assert writer.encode_cairo(drawn, *image.size) == encode_png(image)
    assert [i for i, band in enumerate(writer._bands) if band.deflated is not kept[i].deflated] == [3]


def test_rekey_leaves_a_writer_of_another_size_alone() -> None:
    from mcot.canvas._pixels import cairo_buffer
    from mcot.canvas._png import PngWriter

    writer = PngWriter(1)
    small, large = Image.new("RGB", (10, 10), "red"), Image.new("RGB", (20, 20), "red")
    writer.encode(small)
    writer.rekey(cairo_buffer(large), *large.size)
    assert writer.encode_cairo(cairo_buffer(large), *large.size) == encode_png(large)
    assert writer.encode(small) == encode_png(small)


def test_a_canvas_first_step_after_its_opening_recompresses_only_what_it_drew() -> None:
    from mcot.canvas._png import BAND_ROWS

    canvas = Canvas(base=Image.new("RGB", (200, BAND_ROWS * 6), (250, 250, 240)))
    canvas.snapshot()  # the opening observation: from the base image, before any cairo pixels exist
    writer = canvas._png
    assert writer is not None
    kept = [band.deflated for band in writer._bands]
    canvas.draw_line([5, BAND_ROWS * 4 + 3], [190, BAND_ROWS * 4 + 6], color="red")
    snapshot = canvas.snapshot()
    assert snapshot.png == encode_png(canvas.render_full())
    assert [i for i, band in enumerate(writer._bands) if band.deflated is not kept[i]] == [4]
