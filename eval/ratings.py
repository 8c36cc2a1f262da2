"""People's ratings of a run's traces: the dimensions a person rates, the form each (item, arm) gets, the file.

The viewer (`mcot view RUN --rate`) shows each trace a rating form and saves what a person rated as one JSON file,
`{"run", "rater", "ratings": [{"id", "mode", "dimension", "value", "t"}]}`; `mcot score RUN --human FILE` reads it
back (`read_ratings`). Both take the dimensions from here, so the page and the scoring cannot drift apart:

| form | for | dimensions (values) |
|---|---|---|
| answer | an item answered in words | `answer` (`right`, `wrong`): overrides the protocol's verdict in a named variant |
| diagram | a diagram edit (an input image and a reference output) | `diagram` (1, 0.5, 0) |
| generation | a generated image | `authenticity_1` … `authenticity_N` (`yes`, `no`, `unsure`: Yes / No / Cannot be determined), `aesthetics` and `fidelity` (1–5) |

A number key gives a value: the key is the value's digit (1–5 on the scales), `1` and `0` for right / wrong, yes /
no and the grades 1 / 0, and `5` for a half (Cannot be determined, grade 0.5).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from mcot.benchmarks.inputs import InputFileError, read_regular
from mcot.benchmarks.item import Item
from mcot.eval.errors import EvalError

Value = str | float
Scale = Literal["nominal", "ordinal"]

GOBENCH_QUESTIONS = 5
"""GOBench asks five authenticity questions of every image; a form without its questions recorded gets five."""


class RatingsError(EvalError):
    """A ratings file cannot be read: not JSON, not of the ratings shape, or a value outside its dimension."""


@dataclass(frozen=True)
class Dimension:
    """One thing a person rates: its values in order (with their labels and keys), scale and numeric reading.

    `numbers` reads each value as a number (right 1, wrong 0; Yes 1, No 0, Cannot be determined 0.5; the grades
    and scales as themselves), the reading GOBench sums into authenticity and the correlations use.
    """

    name: str
    label: str
    values: tuple[Value, ...]
    names: tuple[str, ...]
    keys: tuple[str, ...]
    scale: Scale
    numbers: tuple[float, ...]

    def number(self, value: Value) -> float:
        """Return the numeric reading of one of the dimension's values."""
        return self.numbers[self.values.index(value)]

    def to_json(self) -> dict[str, Any]:
        """Return the dimension as the viewer's page reads it (name, label, values, names, keys)."""
        return {
            "name": self.name,
            "label": self.label,
            "values": [plain_value(value) for value in self.values],
            "names": list(self.names),
            "keys": list(self.keys),
        }


_SCALE = (1.0, 2.0, 3.0, 4.0, 5.0)
_DIGITS = ("1", "2", "3", "4", "5")
ANSWER = Dimension("answer", "answer", ("right", "wrong"), ("right", "wrong"), ("1", "0"), "nominal", (1.0, 0.0))
DIAGRAM = Dimension(
    "diagram", "diagram grade", (1.0, 0.5, 0.0), ("1", "0.5", "0"), ("1", "5", "0"), "ordinal", (1.0, 0.5, 0.0)
)
AESTHETICS = Dimension("aesthetics", "aesthetics (1–5)", _SCALE, _DIGITS, _DIGITS, "ordinal", _SCALE)
FIDELITY = Dimension("fidelity", "instruction fidelity (1–5)", _SCALE, _DIGITS, _DIGITS, "ordinal", _SCALE)
AUTHENTICITY_PREFIX = "authenticity_"
AUTHENTICITY_VALUES = ("yes", "no", "unsure")
AUTHENTICITY_WORDS = {"Yes": "yes", "No": "no", "Cannot be determined": "unsure"}
"""The judge's answer words (details.answers) as rating values."""


def authenticity(question: int) -> Dimension:
    """Return the dimension of the authenticity question numbered `question` (from 1): Yes / No / Cannot be determined."""
    return Dimension(
        f"{AUTHENTICITY_PREFIX}{question}",
        f"authenticity {question}",
        AUTHENTICITY_VALUES,
        ("Yes", "No", "Cannot be determined"),
        ("1", "0", "5"),
        "nominal",
        (1.0, 0.0, 0.5),
    )


FIXED = {dimension.name: dimension for dimension in (ANSWER, DIAGRAM, AESTHETICS, FIDELITY)}
_AUTHENTICITY = re.compile(rf"^{AUTHENTICITY_PREFIX}([1-9][0-9]?)$")


def dimension(name: str) -> Dimension | None:
    """Return the dimension called `name` (answer, diagram, aesthetics, fidelity, authenticity_K), None if none."""
    if name in FIXED:
        return FIXED[name]
    match = _AUTHENTICITY.match(name)
    return authenticity(int(match.group(1))) if match else None


def question_number(name: str) -> int | None:
    """Return K of an `authenticity_K` dimension name, None for any other name."""
    match = _AUTHENTICITY.match(name)
    return int(match.group(1)) if match else None


@dataclass(frozen=True)
class Form:
    """What a person rates of one (item, arm): its kind (answer, diagram, generation) and dimensions in order."""

    kind: Literal["answer", "diagram", "generation"]
    dimensions: tuple[Dimension, ...]

    def to_json(self) -> dict[str, Any]:
        """Return the form as the viewer's page reads it."""
        return {"kind": self.kind, "dimensions": [d.to_json() for d in self.dimensions]}


ANSWER_FORM = Form("answer", (ANSWER,))
DIAGRAM_FORM = Form("diagram", (DIAGRAM,))


def generation_form(questions: int = GOBENCH_QUESTIONS) -> Form:
    """Return the form of a generated image with `questions` authenticity questions, then aesthetics and fidelity."""
    return Form("generation", (*(authenticity(k) for k in range(1, questions + 1)), AESTHETICS, FIDELITY))


def is_diagram_edit(item: Item) -> bool:
    """Return True for a diagram edit: an image answer with an input image and a reference output."""
    return item.answer_type == "image" and bool(item.images) and bool(item.meta.get("reference_image") or item.answer)


def rating_form(item: Item, details: Mapping[str, Any] | None = None) -> Form:
    """Return the form a person rates a pair of `item` with, `details` being its score's (for the questions asked).

    By what the answer is, never by the benchmark's name: an image answer with an input image is a diagram edit, any
    other image answer a generated image (as many authenticity questions as its score asked, else GOBench's five),
    everything else an answer in words.
    """
    if item.answer_type != "image":
        return ANSWER_FORM
    if is_diagram_edit(item):
        return DIAGRAM_FORM
    questions = (details or {}).get("questions")
    count = len(questions) if isinstance(questions, list) and questions else GOBENCH_QUESTIONS
    return generation_form(count)


# ------------------------------------------------------------------------------------------ the file


@dataclass(frozen=True)
class Rating:
    """One value a person gave one dimension of one (item id, arm), and when (`t`, as the file says it)."""

    id: str
    mode: str
    dimension: str
    value: Value
    t: str | float | None = None


@dataclass(frozen=True)
class Ratings:
    """One rater's ratings of a run (from one file or several of the same rater), the last per key kept.

    `values` maps (id, arm, dimension) to the value; `files` are the files read; `run` the run name they give.
    """

    rater: str
    run: str
    values: dict[tuple[str, str, str], Value]
    files: tuple[Path, ...]
    count: int
    """Rating lines read (before later ones replaced earlier ones of the same key)."""


def _value(dim: Dimension, raw: Any) -> Value | None:
    """Return `raw` as one of the dimension's values, None when it is not one."""
    if isinstance(raw, bool):
        return None
    if isinstance(dim.values[0], str):
        return raw if isinstance(raw, str) and raw in dim.values else None
    if isinstance(raw, int | float) and float(raw) in dim.values:
        return float(raw)
    return None


def _values_text(dim: Dimension) -> str:
    return ", ".join(json.dumps(value if isinstance(value, str) else _plain(value)) for value in dim.values)


def _plain(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


def plain_value(value: Value) -> str | float | int:
    """Return a value as the file writes it: a word, an integer for whole numbers (4, not 4.0), else the number."""
    return value if isinstance(value, str) else _plain(value)


RATINGS_MAX_BYTES = 64 * 1024 * 1024
"""The largest ratings file read (a rating is about a hundred bytes: over half a million ratings)."""


def read_ratings(path: Path) -> Ratings:
    """Return the ratings of one file of the viewer's shape; raise RatingsError naming the file and what is wrong."""
    path = Path(path)
    try:
        data = json.loads(read_regular(path, what="ratings file", max_bytes=RATINGS_MAX_BYTES).decode("utf-8"))
    except FileNotFoundError:
        raise RatingsError(f"{path}: no such ratings file (save one from `mcot view RUN --rate`)") from None
    except InputFileError as exc:  # a FIFO, a device, a folder, or over the size limit: refused without blocking
        raise RatingsError(str(exc)) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RatingsError(f"{path}: not a JSON ratings file ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("ratings"), list):
        raise RatingsError(f'{path}: not a ratings file: expected {{"run", "rater", "ratings": [...]}}')
    rater = data.get("rater")
    if not isinstance(rater, str) or not rater.strip():
        raise RatingsError(f"{path}: the file names no rater (`rater` must be a non-empty string)")
    values: dict[tuple[str, str, str], Value] = {}
    for number, entry in enumerate(data["ratings"], start=1):
        rating = _rating(path, number, entry)
        values[(rating.id, rating.mode, rating.dimension)] = rating.value
    return Ratings(rater.strip(), str(data.get("run") or ""), values, (path,), len(data["ratings"]))


def _rating(path: Path, number: int, entry: Any) -> Rating:
    where = f"{path}: rating {number}"
    if not isinstance(entry, dict):
        raise RatingsError(f'{where} is not an object {{"id", "mode", "dimension", "value", "t"}}')
    for key in ("id", "mode", "dimension"):
        if not isinstance(entry.get(key), str) or not entry[key]:
            raise RatingsError(f"{where} has no {key!r} (a non-empty string)")
    dim = dimension(entry["dimension"])
    if dim is None:
        raise RatingsError(
            f"{where} has the unknown dimension {entry['dimension']!r}; dimensions are answer, diagram, "
            "aesthetics, fidelity and authenticity_1 … authenticity_N"
        )
    value = _value(dim, entry.get("value"))
    if value is None:
        raise RatingsError(f"{where}: {dim.name} is one of {_values_text(dim)}, not {entry.get('value')!r}")
    t = entry.get("t")
    return Rating(entry["id"], entry["mode"], dim.name, value, t if isinstance(t, str | int | float) else None)


def read_raters(paths: Sequence[Path]) -> list[Ratings]:
    """Return the raters of several files, in the order first named: files of the same rater are merged (a later
    file's value wins for the same (id, arm, dimension)). Raise RatingsError for an unreadable file."""
    merged: dict[str, Ratings] = {}
    for path in paths:
        ratings = read_ratings(path)
        if ratings.rater == JUDGE:
            raise RatingsError(f"{path}: the rater name {JUDGE!r} is the judge's in the report; rename the rater")
        earlier = merged.get(ratings.rater)
        if earlier is not None:
            ratings = Ratings(
                ratings.rater,
                earlier.run or ratings.run,
                {**earlier.values, **ratings.values},
                (*earlier.files, *ratings.files),
                earlier.count + ratings.count,
            )
        merged[ratings.rater] = ratings
    return list(merged.values())


JUDGE = "judge"
"""How the report names the scoring's side (the judge model, or the rules that decided an answer)."""
