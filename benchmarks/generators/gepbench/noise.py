"""Pixel noise for hard figures, as the GePBench engine draws it: Gaussian noise on half the images, salt-and-
pepper specks, and a Perlin texture inside shapes.

The parameters are the public engine's (its draw options and test-split scripts; the paper's text was not at
hand here): Gaussian noise N(0, 10²) grey levels on a figure with probability 0.5 (its hard-split script);
Perlin gradient noise on a 20x20 lattice, `power` 16 and `bias` -16, i.e. each textured shape's interior (a
line: its stroke) is darkened by 16 - 16·n grey levels, n in [-1, 1], each shape textured with probability 0.5
(its hard training script; the released test split had it at 0); salt-and-pepper: a share of 0.05 % of the
pixels set to black or white at random, on a figure with probability 0.5 (its Pillow back end scatters about 100
black pixels, the pepper half of that share). Every random draw comes from the figure's own generator, so the
same seed gives the same bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from statistics import NormalDist

import numpy as np
from PIL import Image

SIZE = 640
SAMPLES_PER_CELL = 8  # the Perlin field is computed at this many samples per lattice cell and upsampled


@dataclass(frozen=True)
class NoiseModel:
    """How often each kind of noise is drawn on a hard figure, and how strong it is."""

    gaussian_p: float = 0.5  # share of figures with Gaussian pixel noise
    gaussian_sigma: float = 10.0  # grey levels
    salt_pepper_p: float = 0.5  # share of figures with salt-and-pepper specks
    salt_pepper_share: float = 0.0005  # share of a speckled figure's pixels set to 0 or 255 (half each)
    perlin_p: float = 0.5  # share of shapes (closed shapes and lines) whose interior gets the Perlin texture
    perlin_cells: int = 20  # lattice cells across the image
    perlin_power: float = 16.0  # grey levels per unit of Perlin noise
    perlin_bias: float = -16.0  # grey levels added everywhere inside a textured shape

    def as_meta(self) -> dict[str, float]:
        """Return the parameters as a JSON-ready dict."""
        return dict(self.__dict__)


NOISE_MODELS: dict[str, NoiseModel] = {
    "paper": NoiseModel(),
    "release": NoiseModel(salt_pepper_p=0.0, perlin_p=0.0),  # the released test split: Gaussian on half only
    "none": NoiseModel(gaussian_p=0.0, salt_pepper_p=0.0, perlin_p=0.0),
}


@cache
def _unit_quantiles() -> np.ndarray:
    unit = NormalDist()
    return np.array([unit.inv_cdf((k + 0.5) / 65536) for k in range(65536)])


@cache
def _noise_table(sigma: float) -> np.ndarray:
    """Return 65536 rounded N(0, sigma) quantiles: indexing it with uniform 16-bit draws samples the noise."""
    return np.rint(_unit_quantiles() * sigma).astype(np.int16)


def gaussian(shape: tuple[int, int], sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Return int16 Gaussian noise N(0, sigma²), rounded to whole grey levels."""
    return np.take(_noise_table(sigma), rng.integers(0, 1 << 16, shape, dtype=np.uint16))  # take: faster than []


def salt_and_pepper(image: np.ndarray, share: float, rng: np.random.Generator) -> int:
    """Set about `share` of the uint8 image's pixels to 0 or 255 (half each), in place; return how many were set."""
    flat = image.reshape(-1)
    count = int(rng.binomial(flat.size, share))
    where = rng.integers(0, flat.size, count)
    flat[where] = rng.integers(0, 2, count, dtype=np.uint8) * np.uint8(255)
    return count


def _fade(t: np.ndarray) -> np.ndarray:
    return t * t * t * (t * (t * 6 - 15) + 10)


def gradient_noise(cells: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """Return a (size, size) float32 Perlin gradient-noise field on a `cells` x `cells` lattice, scaled by √2 so
    that it lies in [-1, 1] (its mean is about 0)."""
    angles = rng.uniform(0, 2 * math.pi, (cells + 1, cells + 1))
    gx, gy = np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)
    t = (np.arange(size) + 0.5) * (cells / size)
    i = np.floor(t).astype(int)
    f = (t - i).astype(np.float32)
    ix, iy, fx, fy = i[None, :], i[:, None], f[None, :], f[:, None]

    def corner(dy: int, dx: int) -> np.ndarray:
        return gx[iy + dy, ix + dx] * (fx - dx) + gy[iy + dy, ix + dx] * (fy - dy)

    u, v = _fade(fx), _fade(fy)
    c00, c10 = corner(0, 0), corner(1, 0)
    top = c00 + u * (corner(0, 1) - c00)
    bottom = c10 + u * (corner(1, 1) - c10)
    return np.float32(math.sqrt(2)) * (top + v * (bottom - top))


def perlin_darkening(
    cells: int, power: float, bias: float, rng: np.random.Generator, box: tuple[int, int, int, int] = (0, 0, SIZE, SIZE)
) -> np.ndarray:
    """Return the int16 grey levels a Perlin texture takes away, -(power·n + bias) with n in [-1, 1], over the
    pixel `box` (x0, y0, x1, y1) of the image (the whole image by default)."""
    x0, y0, x1, y1 = box
    res = min(SIZE, cells * SAMPLES_PER_CELL)
    field = -(power * gradient_noise(cells, res, rng) + bias)
    if res == SIZE:
        return np.rint(field[y0:y1, x0:x1]).astype(np.int16)
    # upsampled as 8-bit in fractions of a grey level (Pillow's 8-bit bilinear resize is 3x faster than its float
    # one): 7 steps a level for the paper's 0-32 darkening
    low = math.floor(float(field.min()))
    steps = max(1, int(255 // max(1, math.ceil(float(field.max())) - low)))
    small = Image.fromarray(np.rint((field - low) * steps).astype(np.uint8))
    scale = res / SIZE
    big = small.resize((x1 - x0, y1 - y0), Image.Resampling.BILINEAR, box=(x0 * scale, y0 * scale, x1 * scale, y1 * scale))
    levels = ((np.arange(256) + steps // 2) // steps + low).astype(np.int16)  # byte -> grey levels
    return np.take(levels, np.asarray(big))
