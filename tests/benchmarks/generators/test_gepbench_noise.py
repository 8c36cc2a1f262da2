"""The paper's noise model for hard figures: pixel statistics within tolerance of the stated parameters, how
often each kind is drawn, and byte-identical output per seed."""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from mcot.benchmarks.generators.gepbench.engine import generate, make_figure
from mcot.benchmarks.generators.gepbench.noise import (
    NOISE_MODELS,
    gaussian,
    gradient_noise,
    perlin_darkening,
    salt_and_pepper,
)
from mcot.benchmarks.generators.gepbench.placement import place_figure
from mcot.benchmarks.generators.gepbench.questions import LetterBalancer
from mcot.benchmarks.generators.gepbench.render import SIZE, Style, choose_style, render

from mcot.core.item import read_items

PAPER = NOISE_MODELS["paper"]


def test_stated_parameters() -> None:
    assert (PAPER.gaussian_p, PAPER.gaussian_sigma) == (0.5, 10.0)
    assert (PAPER.salt_pepper_p, PAPER.salt_pepper_share) == (0.5, 0.0005)
    assert (PAPER.perlin_p, PAPER.perlin_cells, PAPER.perlin_power, PAPER.perlin_bias) == (0.5, 20, 16.0, -16.0)
    assert NOISE_MODELS["release"].salt_pepper_p == NOISE_MODELS["release"].perlin_p == 0.0
    assert NOISE_MODELS["none"].gaussian_p == 0.0


def test_gaussian_noise_has_the_stated_variance() -> None:
    noise = gaussian((SIZE, SIZE), PAPER.gaussian_sigma, np.random.default_rng(0)).astype(float)
    assert abs(noise.mean()) < 0.1
    assert noise.var() == pytest.approx(PAPER.gaussian_sigma**2 + 1 / 12, rel=0.02)  # + the rounding's 1/12


def test_salt_and_pepper_flips_the_stated_share() -> None:
    rng = np.random.default_rng(1)
    flipped = black = 0
    for _ in range(4):
        image = np.full((SIZE, SIZE), 128, dtype=np.uint8)
        count = salt_and_pepper(image, PAPER.salt_pepper_share, rng)
        changed = image != 128
        assert changed.sum() <= count  # a pixel drawn twice counts once
        assert set(np.unique(image[changed])) <= {0, 255}
        flipped += int(changed.sum())
        black += int((image == 0).sum())
    share = flipped / (4 * SIZE * SIZE)
    assert share == pytest.approx(PAPER.salt_pepper_share, rel=0.1)
    assert black / flipped == pytest.approx(0.5, abs=0.06)


def test_perlin_texture_darkens_within_the_stated_range() -> None:
    dark = perlin_darkening(PAPER.perlin_cells, PAPER.perlin_power, PAPER.perlin_bias, np.random.default_rng(2))
    assert dark.shape == (SIZE, SIZE)
    assert dark.min() >= 0 and dark.max() <= 32  # -(16 n - 16), n in [-1, 1]
    assert dark.mean() == pytest.approx(-PAPER.perlin_bias, abs=2.5)
    field = gradient_noise(PAPER.perlin_cells, 160, np.random.default_rng(3))
    assert np.abs(field).max() <= 1.0 and field.std() > 0.15
    cell = 160 // PAPER.perlin_cells  # smooth within a lattice cell, independent far apart
    near = np.corrcoef(field[:, :-1].ravel(), field[:, 1:].ravel())[0, 1]
    far = np.corrcoef(field[:, : -4 * cell].ravel(), field[:, 4 * cell :].ravel())[0, 1]
    assert near > 0.9 and abs(far) < 0.1


def test_each_kind_of_noise_is_drawn_as_often_as_stated() -> None:
    figures = [place_figure("hard", np.random.default_rng(k)) for k in range(5)]
    styles = [choose_style(fig, np.random.default_rng([k, j])) for k, fig in enumerate(figures) for j in range(100)]
    assert np.mean([s.noise_sigma > 0 for s in styles]) == pytest.approx(PAPER.gaussian_p, abs=0.07)
    assert {s.noise_sigma for s in styles} == {0.0, PAPER.gaussian_sigma}
    assert np.mean([s.salt_pepper > 0 for s in styles]) == pytest.approx(PAPER.salt_pepper_p, abs=0.07)
    eligible = textured = 0
    for k, fig in enumerate(figures):
        can = [i for i, s in enumerate(fig.shapes) if s.closed or s.kind == "line"]
        for s in styles[100 * k : 100 * (k + 1)]:
            assert set(s.perlin_shapes) <= set(can)
            eligible += len(can)
            textured += len(s.perlin_shapes)
    assert textured / eligible == pytest.approx(PAPER.perlin_p, abs=0.04)
    release = choose_style(figures[0], np.random.default_rng(0), noise=NOISE_MODELS["release"])
    assert release.salt_pepper == 0 and release.perlin_shapes == ()
    easy = place_figure("easy", np.random.default_rng(0))
    assert choose_style(easy, np.random.default_rng(0)) == Style(
        (0,) * len(easy.shapes), (2.5,) * len(easy.shapes), False, 0.0
    )


def _noise_only(style: Style, **noise: object) -> Style:
    plain = dataclasses.replace(style, noise_sigma=0.0, salt_pepper=0.0, perlin_shapes=(), perlin=(0, 0.0, 0.0))
    return dataclasses.replace(plain, **noise)  # type: ignore[arg-type]


def test_rendered_noise_statistics() -> None:
    fig = place_figure("hard", np.random.default_rng(4))
    base = choose_style(fig, np.random.default_rng(0))
    clean = render(fig, _noise_only(base), np.random.default_rng(9))
    background = clean == 255
    # Gaussian: on the white background the darker half survives the clip; E[(255 - v)^2] = sigma^2 / 2
    noisy = render(fig, _noise_only(base, noise_sigma=PAPER.gaussian_sigma), np.random.default_rng(9))
    deficit = 255.0 - noisy[background]
    assert np.sqrt(2 * np.mean(deficit**2)) == pytest.approx(PAPER.gaussian_sigma, rel=0.05)
    # salt and pepper: half the flipped pixels turn black (the white ones vanish on the white background)
    speckled = _noise_only(base, salt_pepper=PAPER.salt_pepper_share)
    black = sum(int(((render(fig, speckled, np.random.default_rng(k)) == 0) & background).sum()) for k in range(6))
    assert black == pytest.approx(6 * 0.5 * PAPER.salt_pepper_share * background.sum(), rel=0.15)
    # Perlin: only inside the textured shapes, by 0-32 grey levels
    params = (PAPER.perlin_cells, PAPER.perlin_power, PAPER.perlin_bias)
    closed = tuple(i for i, s in enumerate(fig.shapes) if s.closed)
    textured = render(fig, _noise_only(base, perlin_shapes=closed, perlin=params), np.random.default_rng(9))
    darker = clean.astype(int) - textured
    assert darker.min() >= 0 and darker.max() <= 32
    inside = darker > 0
    assert inside.sum() > 2000
    xs = (np.nonzero(inside)[1] + 0.5) / SIZE
    lo = min(fig.shapes[i].box[0][0] for i in closed)
    hi = max(fig.shapes[i].box[1][0] for i in closed)
    assert xs.min() >= lo - 0.01 and xs.max() <= hi + 0.01


def test_noisy_hard_figures_are_byte_identical_per_seed(tmp_path: Path) -> None:
    a = make_figure("hard", 2, 5, LetterBalancer())
    b = make_figure("hard", 2, 5, LetterBalancer())
    assert a.image == b.image and a.style == b.style
    generate(tmp_path / "a", 8, 2, "hard")
    generate(tmp_path / "b", 8, 2, "hard")
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert files and all((tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in files)
    styles = {item.meta["image_id"]: item.meta["style"] for item in read_items(tmp_path / "a")}
    assert any("salt_pepper" in s for s in styles.values()) and any("perlin" in s for s in styles.values())
    assert any(s["noise_sigma"] > 0 for s in styles.values())
    summary = json.loads((tmp_path / "a" / "generation.json").read_text())
    assert summary["noise"]["model"] == "paper" and summary["style"] == "public"
