"""LLaVA training data from the GePBench engine, as the GePBench paper trained LLaVA-GeP.

Two files of LLaVA-format records (`{"id", "image", "conversations"}`, one `<image>` each, image paths relative
to the items directory): a caption per figure written from its structured description (the shapes, where they
are, their sizes, the relations and crossings between them, in words), for the alignment stage; and the
multiple-choice questions as instructions (the question, its lettered options, the answer letter), for
fine-tuning. Everything is derived from the description and the questions, so the same seed gives the same bytes.
"""

from __future__ import annotations

import json
import math
import zlib
from collections import Counter
from collections.abc import Sequence
from typing import Any

from mcot.benchmarks.generators.gepbench.context import LETTERS, Question
from mcot.benchmarks.generators.gepbench.placement import Figure
from mcot.benchmarks.generators.gepbench.render import Style
from mcot.benchmarks.generators.gepbench.shapes import POLYGON_KINDS, Shape, edge_lengths
from mcot.benchmarks.generators.gepbench.vocabulary import article, plural

from mcot.core.item import ItemsWriter

CAPTIONS_FILE = "llava-captions.json"
INSTRUCTIONS_FILE = "llava-instructions.json"
IMAGE_TOKEN = "<image>"
CHOICE_INSTRUCTION = "Answer with the option's letter from the given choices directly."
CAPTION_PROMPTS: tuple[str, ...] = (
    "Describe the geometric figure in detail.",
    "Describe every shape in the image, where it is, how large it is and how the shapes relate.",
    "What shapes does this figure contain, and how are they arranged?",
    "Give a detailed description of the shapes in the image and their relations.",
    "List the shapes in the image with their positions, sizes and relations to each other.",
)
NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
RELATION_SENTENCES: dict[str, str] = {  # (i, j, word): shape i is `word` to shape j
    "tangent": "The {a} is tangent to the {b}.",
    "parallel": "The {a} is parallel to the {b}.",
    "perpendicular": "The {a} is perpendicular to the {b}.",
    "inscribed": "The {a} is inscribed in the {b}.",
    "circumscribed": "The {a} is circumscribed about the {b}.",
    "similar": "The {a} is similar to the {b}.",
    "concentric": "The {a} is concentric with the {b}.",
    "diameter": "The {a} is a diameter of the {b}.",
    "major axis": "The {a} is the major axis of the {b}.",
    "minor axis": "The {a} is the minor axis of the {b}.",
    "diagonal": "The {a} is a diagonal of the {b}.",
    "shared edge": "The {a} shares an edge with the {b}.",
    "symmetric": "The {a} and the {b} are mirror images of each other across an undrawn axis.",
}


def _count(n: int) -> str:
    return NUMBERS[n] if n < len(NUMBERS) else str(n)


def shape_names(shapes: Sequence[Shape]) -> list[str]:
    """Return a name per shape that tells it apart in a caption: its kind, with an ordinal when the kind repeats
    ("circle", or "first circle" and "second circle", in the description's order)."""
    totals = Counter(s.kind for s in shapes)
    seen: Counter[str] = Counter()
    names = []
    for shape in shapes:
        seen[shape.kind] += 1
        if totals[shape.kind] == 1:
            names.append(shape.kind)
        else:
            k = seen[shape.kind]
            names.append(f"{ORDINALS[k - 1] if k <= len(ORDINALS) else f'{k}th'} {shape.kind}")
    return names


def place_words(point: tuple[float, float]) -> str:
    """Return where a point (unit square, y up) lies in the image's 3 x 3 grid in words ("in the upper left",
    "at the top", "in the centre")."""
    x, y = point
    across = "left" if x < 1 / 3 else "right" if x > 2 / 3 else ""
    up = "upper" if y > 2 / 3 else "lower" if y < 1 / 3 else ""
    if across and up:
        return f"in the {up} {across}"
    if up:
        return "at the top" if up == "upper" else "at the bottom"
    if across:
        return f"on the {across}"
    return "in the centre"


def _measures(shape: Shape) -> str:
    """Return the clause on a shape's own size and kind-specific attributes."""
    width, height = shape.spans
    p = shape.params
    if shape.kind == "line":
        return f"it is {float(shape.geometry.length):.2f} long"
    if shape.kind == "circle":
        return f"its radius is {float(p['major_axis']):.2f}"
    if shape.kind == "ellipse":
        return f"its axes are {2 * float(p['major_axis']):.2f} and {2 * float(p['minor_axis']):.2f} long"
    if shape.kind == "sector":
        angle = math.degrees(float(p["end_angle"]) - float(p["start_angle"]))
        return f"its radius is {float(p['radius']):.2f} and its angle {angle:.0f} degrees"
    if shape.kind == "spiral":
        return f"it winds {float(p['turns']):.1f} turns out to a radius of {float(p['outer_radius']):.2f}"
    clause = f"it spans {width:.2f} across and {height:.2f} up and down"
    if shape.kind in POLYGON_KINDS and shape.kind.startswith(("regular", "equilateral", "square")):
        clause += f", with sides of {sum(edge_lengths(shape.vertices)) / len(shape.vertices):.2f}"
    return clause + f", enclosing an area of {shape.area:.3f}"


def _style_words(style: Style | None) -> str:
    if style is None:
        return ""
    if not style.hand_drawn:
        return " drawn in clean black strokes"
    noisy = style.noise_sigma > 0 or style.salt_pepper > 0 or bool(style.perlin_shapes) or style.texture > 0
    return " drawn by hand in grey strokes" + (", with noise over the image" if noisy else "")


def caption(figure: Figure, style: Style | None = None) -> str:
    """Return the caption of a figure written from its structured description: how many shapes of which kinds,
    each shape's place and size, the relations between shapes and which shapes cross (coordinates take the
    image's width and height as 1, from the lower left corner)."""
    shapes = figure.shapes
    names = shape_names(shapes)
    kinds = Counter(s.kind for s in shapes)
    listing = [article(kind) if n == 1 else f"{_count(n)} {plural(kind)}" for kind, n in kinds.items()]
    inventory = listing[0] if len(listing) == 1 else ", ".join(listing[:-1]) + " and " + listing[-1]
    total = len(shapes)
    sentences = [
        f"The image shows {_count(total)} shape{'s' if total != 1 else ''}{_style_words(style)}: {inventory}.",
        "Positions take the image's width and height as 1, measured from its lower left corner.",
    ]
    for name, shape in zip(names, shapes, strict=True):
        cx, cy = shape.centroid
        where = place_words((cx, cy))
        sentences.append(f"The {name} is {where}, its centroid at ({cx:.2f}, {cy:.2f}); {_measures(shape)}.")
    for i, j, word in figure.relations:
        sentences.append(RELATION_SENTENCES[word].format(a=names[i], b=names[j]))
    crossings = [(i, j) for (i, j), kind in sorted(figure.contacts.items()) if kind == "cross"]
    for i, j in crossings:
        sentences.append(f"The {names[i]} and the {names[j]} cross each other.")
    touching = {pair for pair, kind in figure.contacts.items() if kind == "touch"}
    if total > 1:
        if not figure.contacts:
            sentences.append("No two shapes touch or cross.")
        elif len(touching | set(crossings)) < total * (total - 1) // 2:
            sentences.append("No other shapes touch or cross.")
    return " ".join(sentences)


def choice_prompt(question: Question) -> str:
    """Return a question with its lettered options and the answer-format line (LLaVA-1.5's multiple-choice
    prompt)."""
    options = "\n".join(f"{LETTERS[k]}. {choice}" for k, choice in enumerate(question.choices))
    return f"{question.text}\n{options}\n{CHOICE_INSTRUCTION}"


def record(record_id: str, image: str, prompt: str, answer: str) -> dict[str, Any]:
    """Return one LLaVA-format record: the image, a human turn with `<image>` and the prompt, the answer."""
    return {
        "id": record_id,
        "image": image,
        "conversations": [
            {"from": "human", "value": f"{IMAGE_TOKEN}\n{prompt}"},
            {"from": "gpt", "value": answer},
        ],
    }


def caption_prompt(seed: int, level: str, index: int) -> str:
    """Return the describe-the-image prompt of one figure, drawn from CAPTION_PROMPTS by a hash of its place."""
    return CAPTION_PROMPTS[zlib.crc32(f"{seed}/{level}/{index}".encode()) % len(CAPTION_PROMPTS)]


def figure_records(
    seed: int,
    level: str,
    index: int,
    figure: Figure,
    style: Style | None,
    image: str,
    questions: Sequence[tuple[str, Question]],
) -> tuple[bytes, list[bytes]]:
    """Return one figure's encoded caption record and the instruction records of its (item id, question) pairs."""
    prompt = caption_prompt(seed, level, index)
    entry = record(f"gepbench-{level}-{index:06d}-caption", image, prompt, caption(figure, style))
    instructions = [
        _encode(record(item_id, image, choice_prompt(question), question.letter)) for item_id, question in questions
    ]
    return _encode(entry), instructions


class LlavaRecords:
    """Writes a generation run's LLaVA records as they come, a caption per figure and an instruction per kept
    question, into the two JSON files of the items directory being written (one record a line): nothing is held
    in memory but the counts."""

    def __init__(self, seed: int, writer: ItemsWriter) -> None:
        self.seed = seed
        self.captions = 0
        self.instructions = 0
        self._files = {CAPTIONS_FILE: writer.open_file(CAPTIONS_FILE), INSTRUCTIONS_FILE: writer.open_file(INSTRUCTIONS_FILE)}

    def add_records(self, caption_record: bytes, instructions: Sequence[bytes]) -> None:
        """Write one figure's encoded records, as `figure_records` returns them."""
        self._write(CAPTIONS_FILE, self.captions, [caption_record])
        self._write(INSTRUCTIONS_FILE, self.instructions, instructions)
        self.captions += 1
        self.instructions += len(instructions)

    def close(self) -> None:
        """Close both JSON lists and their files."""
        for name, count in ((CAPTIONS_FILE, self.captions), (INSTRUCTIONS_FILE, self.instructions)):
            handle = self._files[name]
            handle.write(b"\n]\n" if count else b"[]\n")
            handle.close()

    def _write(self, name: str, written: int, lines: Sequence[bytes]) -> None:
        handle = self._files[name]
        for k, line in enumerate(lines):
            handle.write((b"[\n" if written + k == 0 else b",\n") + line)


def _encode(entry: dict[str, Any]) -> bytes:
    return json.dumps(entry, ensure_ascii=False).encode("utf-8")
