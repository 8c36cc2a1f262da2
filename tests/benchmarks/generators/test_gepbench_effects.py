"""The optional hard-level effects of the GePBench engine: Perlin texture and occluding white strokes."""

import dataclasses
import json
from pathlib import Path

import numpy as np
from mcot.benchmarks.generators.gepbench.engine import make_figure
from mcot.benchmarks.generators.gepbench.placement import place_figure
from mcot.benchmarks.generators.gepbench.questions import LetterBalancer
from mcot.benchmarks.generators.gepbench.render import SIZE, TEXTURE_MAX, choose_style, perlin, render
from mcot.benchmarks.generators.gepbench.validator import DARK

from mcot.commands.gen_gepbench import gen_gepbench
from mcot.core.item import read_items


def test_effects_are_off_by_default_and_never_on_easy() -> None:
    fig = place_figure("hard", np.random.default_rng(3))
    style = choose_style(fig, np.random.default_rng(1))
    assert style.texture == 0 and style.occluders == ()
    assert not {"texture", "occluders"} & set(style.as_meta())
    # the plain draws come first, so turning effects on leaves the rest of the style as it was
    with_effects = choose_style(fig, np.random.default_rng(1), effects=True)
    assert (with_effects.greys, with_effects.widths, with_effects.noise_sigma) == (
        style.greys,
        style.widths,
        style.noise_sigma,
    )
    assert 0 < with_effects.texture <= TEXTURE_MAX and 1 <= len(with_effects.occluders) <= 3
    easy = place_figure("easy", np.random.default_rng(3))
    assert choose_style(easy, np.random.default_rng(1), effects=True).texture == 0


def test_perlin_field_is_smooth_and_in_range() -> None:
    field = perlin(5, 160, np.random.default_rng(0))
    assert field.shape == (160, 160)
    assert np.abs(field).max() == 1.0
    assert np.abs(np.diff(field, axis=0)).max() < 0.2 and np.abs(np.diff(field, axis=1)).max() < 0.2
    assert np.array_equal(field, perlin(5, 160, np.random.default_rng(0)))


def test_texture_keeps_the_background_light_and_occluders_white() -> None:
    fig = place_figure("hard", np.random.default_rng(8))
    effects = choose_style(fig, np.random.default_rng(2), effects=True)
    style = dataclasses.replace(effects, noise_sigma=0.0, salt_pepper=0.0, perlin_shapes=())  # the effects alone
    image = render(fig, style, np.random.default_rng(0))
    plain = render(fig, dataclasses.replace(style, texture=0.0, occluders=()), np.random.default_rng(0))
    background = plain == 255
    assert image[background].min() >= 255 - TEXTURE_MAX - 1 > DARK  # texture never reads as a stroke
    assert image[background].min() < 250  # and it is there
    for x0, y0, x1, y1, _ in style.occluders:
        t = np.linspace(0.2, 0.8, 20)
        cols = np.clip(np.rint(x0 + t * (x1 - x0)).astype(int), 0, SIZE - 1)
        rows = np.clip(np.rint(y0 + t * (y1 - y0)).astype(int), 0, SIZE - 1)
        assert image[rows, cols].min() >= 255 - TEXTURE_MAX - 1  # no ink under an occluder's centre line
    occluded = render(fig, dataclasses.replace(style, texture=0.0), np.random.default_rng(0))
    assert (occluded < DARK).sum() < (plain < DARK).sum()  # some stroke pixels were occluded


def test_effects_are_deterministic_and_validated() -> None:
    a = make_figure("hard", 4, 11, LetterBalancer(), effects=True)
    b = make_figure("hard", 4, 11, LetterBalancer(), effects=True)
    assert a.image == b.image and a.style == b.style
    assert a.image != make_figure("hard", 4, 11, LetterBalancer()).image
    kept = dropped = 0
    balancer = LetterBalancer()
    for index in range(40):
        result = make_figure("hard", index, 5, balancer, effects=True)
        kept += len(result.kept)
        dropped += len(result.dropped)
        assert all(v.agree is not False for _, v in result.kept)
    assert dropped < 0.03 * (kept + dropped)


def test_command_writes_effects_into_meta_and_summary(tmp_path: Path) -> None:
    assert gen_gepbench(tmp_path / "fx", 4, 3, "hard", False, effects=True) == 0
    summary = json.loads((tmp_path / "fx" / "generation.json").read_text())
    assert summary["effects"] is True
    styles = [item.meta["style"] for item in read_items(tmp_path / "fx")]
    assert styles and all("texture" in s and s["occluders"] for s in styles)
    assert gen_gepbench(tmp_path / "plain", 4, 3, "hard", False) == 0
    assert "effects" not in json.loads((tmp_path / "plain" / "generation.json").read_text())
