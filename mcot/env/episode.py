"""One episode of the canvas as a training environment: an item's canvas, the tool calls made on it, their op log.

An `Episode` is what `mcot.env.CanvasEnv` (TRL) and `mcot.env.verl`'s tools hold per rollout. `call` runs one
tool exactly as a run's solver does (`mcot.tools.call`: a malformed call answers with an error text and leaves the
canvas as it was; a tool the toolset does not offer is refused by name) and returns the observation: the canvas
as a PIL image when the call changed it (scaled like a run's observation, never encoded), a tool's own image
(zoom), and the text. Each call is recorded as a run's trace records it (a `tool` step with its canvas `ops` and
`drawn_by`, an `observation` step when the canvas changed), so that `trace()` gives steps that the trace verifier
reads (`reward`) and that `mcot.env.runs.write_episodes` writes as a run the viewer opens; observation images are
rendered only then, by replaying the op log, which gives the images the episode returned, byte for byte.
"""

from __future__ import annotations

import copy
import io
import json
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from PIL import Image
from pydantic import ValidationError

from mcot import tools
from mcot.agents.prompts import load_prompt
from mcot.agents.session import BLANK_CANVAS, drawn_by
from mcot.canvas import MAX_PIXELS, Canvas, CanvasError
from mcot.core.item import Item
from mcot.eval.verify import verify_trace
from mcot.tools.code.binding import release, reserve

OBSERVE_MAX_SIDE = 1024
"""A run's default observation size (mcot.agents.budget.Budget.observe_max_side): larger canvases are shown scaled."""


class EpisodeError(ValueError):
    """An episode cannot be opened as asked (the message says what is missing)."""


@dataclass(frozen=True)
class Observation:
    """What one call gives back: whether it succeeded, the text for the model, and the images (canvas, tool image)."""

    ok: bool
    text: str
    images: tuple[Image.Image, ...] = ()

    def content(self) -> list[dict[str, Any]]:
        """Return the observation as content blocks: `{"type": "image", "image"}` per image, then the text."""
        blocks: list[dict[str, Any]] = [{"type": "image", "image": image} for image in self.images]
        blocks.append({"type": "text", "text": self.text})
        return blocks


def item_from_row(value: str | Mapping[str, Any] | Item) -> Item:
    """Return the item of an export row's `item` column (JSON text or a dict), or the item itself; raise
    EpisodeError with a one-line reason for a row that is not an item (bad JSON, not an object, invalid fields)."""
    if isinstance(value, Item):
        return value
    try:
        data = json.loads(value) if isinstance(value, str | bytes | bytearray) else dict(value)
    except (ValueError, TypeError) as exc:
        raise EpisodeError(f"the row's `item` is not an item's JSON object: {_one_line(exc)}") from None
    if not isinstance(data, dict):
        raise EpisodeError(f"the row's `item` is a JSON {type(data).__name__}, not an object")
    fields = {key: data[key] for key in Item.model_fields if key in data}
    fields.setdefault("meta", {})
    try:
        return Item.model_validate(fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ())) or "item"
        raise EpisodeError(f"the row's `item` is not a valid item: {where}: {first.get('msg', 'invalid')}") from None


def open_base(image: Any, root: Path | None = None) -> Image.Image:
    """Return an image given as a PIL image, bytes, a `{"bytes", "path"}` struct or a path relative to `root`.

    A path must stay inside `root` (no `..`, absolute path or symlink out of it; without `root` a path is refused),
    the image's size is read from its header and refused past `MAX_PIXELS` before anything is decoded, and every
    bad image raises EpisodeError with a one-line reason.
    """
    if isinstance(image, Image.Image):
        return image
    if isinstance(image, Mapping):
        if image.get("bytes"):
            return open_base(image["bytes"], root)
        image = image.get("path")
    if isinstance(image, bytes | bytearray):
        return _decoded(io.BytesIO(image), "the canvas image bytes")
    if isinstance(image, str | Path):
        path = _inside(image, root)
        with path.open("rb") as handle:
            return _decoded(handle, repr(str(image)))
    raise EpisodeError(f"cannot open a canvas image from {type(image).__name__}")


def _inside(image: str | Path, root: Path | None) -> Path:
    """Return the regular file `image` names under `root`; raise EpisodeError when it leaves `root` or is not one."""
    named = str(image)
    if root is None:
        raise EpisodeError(f"the canvas image {named!r} is a path: give images_root, the folder it is relative to")
    relative = Path(named)
    if relative.is_absolute() or ".." in relative.parts or "\x00" in named:
        raise EpisodeError(f"the canvas image {named!r} leaves images_root (an absolute path or '..')")
    base = Path(root).resolve()
    path = (base / relative).resolve()
    if not path.is_relative_to(base):
        raise EpisodeError(f"the canvas image {named!r} leaves images_root (a symlink out of it)")
    if not path.is_file():  # is_file follows to the target: a FIFO, a device or a folder is not one
        raise EpisodeError(f"the canvas image {named!r} is not a regular file under images_root")
    return path


def _decoded(handle: Any, what: str) -> Image.Image:
    """Return the image read from `handle`, its size checked from the header before decoding."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(handle) as opened:
                width, height = opened.size
                if width * height > MAX_PIXELS:
                    raise EpisodeError(f"{what} is {width} × {height} pixels, over the limit of {MAX_PIXELS}")
                opened.load()
                return opened.copy()
    except EpisodeError:
        raise
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:
        raise EpisodeError(f"{what} is not an image mcot can read: {_one_line(exc)}") from None


def _one_line(exc: BaseException, limit: int = 200) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class Episode:
    """An item's canvas and every call made on it: the op log, the trace steps, the images returned."""

    item: Item
    tools: tuple[str, ...]
    base: Image.Image | None
    canvas: Any
    steps: list[dict[str, Any]] = field(default_factory=list)
    blobs: dict[str, bytes] = field(default_factory=dict)
    """Images tools returned (zoom), by sha256: written with the trace."""
    observed: int = 0

    @classmethod
    def open(cls, item: Item, tools: tuple[str, ...], image: Any = None, root: Path | None = None) -> Episode:
        """Return a new episode on the item's canvas: `image` (the item's first image) as its base, else the
        canvas size the item names, else a blank canvas."""

        try:
            if image is not None:
                base = open_base(image, root).convert("RGB")
                canvas = Canvas(base=base)
            elif item.images and root is not None:
                base = open_base(item.images[0], root).convert("RGB")
                canvas = Canvas(base=base)
            elif item.images:
                raise EpisodeError(
                    f"item {item.id} is drawn on its image {item.images[0]!r}: give the image (the row's `images`) "
                    "or the folder it is relative to"
                )
            else:
                size = tuple(item.meta.get("canvas") or ()) or BLANK_CANVAS
                base, canvas = None, Canvas(size=size)
        except EpisodeError as exc:
            raise EpisodeError(f"item {item.id}: {exc}") from None
        except (CanvasError, TypeError, ValueError) as exc:  # a canvas size of the wrong shape, …
            raise EpisodeError(f"item {item.id}: {_one_line(exc)}") from None
        episode = cls(item, tools, base, canvas)
        if "python" in tools and item.images and root is not None:  # the episode's code session: every image
            reserve(canvas, [Path(root) / path for path in item.images])
        episode._record("observation", text=_note("observation.initial.txt", canvas, []), changed=[], version=0)
        return episode

    def call(self, name: str, arguments: Mapping[str, Any] | str | None, *, images: bool = True) -> Observation:
        """Run one tool call on the canvas; return the observation (never raises): with `images=False` it carries
        no image (a server sends the PNG bytes it already has: `blobs` and the canvas's own PNG), so that no
        image is decoded or converted for it."""

        canvas = self.canvas
        if name not in self.tools:
            known = name in tools.registry() if isinstance(name, str) else False
            why = "is not offered here" if known else "is unknown"
            message = f"tool {name!r} {why}; the available tools are: {', '.join(self.tools)}"
            self._record("tool", tool=str(name), arguments=_plain(arguments), result=message, error=message)
            return Observation(False, f"Error: {message}")
        before = len(canvas.log)
        result = tools.call(name, dict(arguments) if isinstance(arguments, Mapping) else arguments, canvas)
        ops = copy.deepcopy(canvas.log[before:])
        image_path = None
        shown_images: list[Image.Image] = []
        paths: list[str] = []
        for data in (result.image, *result.more_images) if result.image else ():  # a code cell may show several
            import hashlib

            sha = hashlib.sha256(data).hexdigest()
            self.blobs[sha] = data
            paths.append(f"blobs/{sha}.png")
            if images:
                shown_images.append(open_base(data))
        image_path = paths[0] if paths else None
        self._record(
            "tool",
            tool=name,
            arguments=_plain(arguments),
            result=result.text,
            error=result.error,
            image=image_path,
            **({"images": paths} if len(paths) > 1 else {}),
            changed=list(result.drawn),
            drawn_by=drawn_by(name),
            ops=ops,
            data=result.data,
        )
        text = result.text
        if len(canvas.log) != self.observed:
            changed = list(result.drawn)
            note = _note("observation.txt", canvas, changed)
            self._record("observation", text=note, changed=changed, version=len(canvas.log))
            self.observed = len(canvas.log)
            if images:
                shown_images.append(self.view())
            text = f"{text}\n{note}"
        return Observation(result.ok, text, tuple(shown_images))

    def close(self) -> None:
        """End what the episode holds beyond its objects (its code session, when it offers `python`)."""
        if "python" in self.tools:
            release(self.canvas)

    def view(self) -> Image.Image:
        """Return the canvas as the model is shown it: the rendering, scaled down past OBSERVE_MAX_SIDE.

        The image is the canvas's rendering of this moment (a new image after every change, never drawn on
        again): treat it as read-only.
        """
        return shown(self.canvas.rendering())

    def ops(self) -> list[dict[str, Any]]:
        """Return the canvas op log: every operation in order, what `Canvas.replay` rebuilds the canvas from."""
        return copy.deepcopy(self.canvas.log)

    def trace(self) -> list[dict[str, Any]]:
        """Return the episode's trace steps (tool and observation steps, without images): what the verifier reads."""
        return [{key: value for key, value in step.items() if key != "version"} for step in self.steps]

    def verdict(self) -> Any:
        """Return the trace verifier's verdict on what was drawn (mcot.eval.verify), or None without a verifier."""

        return verify_trace(self.item, self.trace())

    def reward(self) -> float:
        """Return 1.0 when the trace verifier finds the drawing valid, else 0.0 (0.0 too where the task has none)."""
        verdict = self.verdict()
        return 1.0 if verdict is not None and verdict.verdict == "valid" else 0.0

    def _record(self, kind: str, **fields: Any) -> None:
        self.steps.append({"step": len(self.steps), "kind": kind, **fields})


def shown(image: Image.Image) -> Image.Image:
    """Return a canvas rendering as a run shows it: scaled so that its longer side is at most 1024."""
    scale = min(1.0, OBSERVE_MAX_SIDE / max(image.size))
    if scale == 1.0:
        return image
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    return image.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)


@cache
def _template(name: str) -> Any:
    return load_prompt(name)


def _note(template: str, canvas: Any, changed: list[str]) -> str:
    width, height = canvas.width, canvas.height
    scale = min(1.0, OBSERVE_MAX_SIDE / max(width, height))
    scaled = "" if scale == 1.0 else f", shown at {round(width * scale)} × {round(height * scale)}"
    return _template(template).render(width=width, height=height, scaled=scaled, changed=", ".join(changed) or "none")


def _plain(arguments: Any) -> Any:
    """Return the arguments as a trace records them: a dict, or the text as sent when it is not a JSON object."""
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return arguments
        return parsed if isinstance(parsed, dict) else arguments
    return {} if arguments is None else arguments
