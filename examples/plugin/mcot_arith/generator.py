"""`mcot gen arith --n N --seed S --out DIR`: N questions "What is A + B?", each with a picture of the sum."""

import io
import random
from collections.abc import Iterator

from mcot.benchmarks.loaders import LoadedItem
from PIL import Image, ImageDraw

from mcot.core.item import Item


def picture(a: int, b: int) -> bytes:
    """Return a small PNG showing `A + B = ?`."""
    image = Image.new("RGB", (160, 48), "white")
    ImageDraw.Draw(image).text((12, 16), f"{a} + {b} = ?", fill="black")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def generate(n: int, seed: int) -> Iterator[LoadedItem]:
    """Yield `n` arith items for `seed` (the same seed, the same items and bytes)."""
    rng = random.Random(f"mcot-arith:{seed}")
    for index in range(n):
        a, b = rng.randint(0, 99), rng.randint(0, 99)
        image = f"images/arith-{seed}-{index:05d}.png"
        item = Item(
            id=f"arith-{seed}-{index:05d}",
            benchmark="arith",
            category="sum",
            question=f"What is {a} + {b}?",
            images=[image],
            answer=str(a + b),
            answer_type="number",
            meta={"a": a, "b": b},
        )
        yield LoadedItem(item, {image: picture(a, b)})
