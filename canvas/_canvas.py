"""The Canvas: ID-addressable vector elements over a raster base, with history, rendering and replay."""

from __future__ import annotations

import hashlib
import io
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from mcot.canvas import _validate as v
from mcot.canvas._editing_ops import DEFAULT_ZOOM
from mcot.canvas._elements import anchors, build_props, transformed, updated_props
from mcot.canvas._errors import CanvasError
from mcot.canvas._figures import Figure, Opening, open_figure
from mcot.canvas._image import check_size, flatten
from mcot.canvas._limits import MAX_ELEMENTS, MAX_SCALE, MAX_SIDE, MAX_ZOOM, MAX_ZOOM_SIDE, MIN_GRID_STEP
from mcot.canvas._ops import find_op, op_spec, record_ops
from mcot.canvas._style import default_grid_step
from mcot.canvas._svg import svg_document
from mcot.canvas._types import Element, Observation, Snapshot
from PIL import Image

from mcot.core.geometry import Affine, reflection, rotation, scaling, translation

if TYPE_CHECKING:
    from mcot.canvas._png import PngWriter

PNG_LEVEL = 1
"""zlib level for every PNG the canvas encodes: level 1 is several times cheaper than the default at a
modest size cost, and encoding dominates the cost of a step."""

JPEG_QUALITY = 85
"""Quality of JPEG observations."""


@dataclass
class _Change:
    """What one operation changed: element states before and after (None = absent), and the grid."""

    before: dict[str, Element | None] = field(default_factory=dict)
    after: dict[str, Element | None] = field(default_factory=dict)
    grid: tuple[int | None, int | None] | None = None


@dataclass(frozen=True)
class Checkpoint:
    """The whole editable state of a canvas at one moment (``Canvas.checkpoint``), for ``Canvas.rollback``.

    Opaque to callers: elements, undo and redo stacks, log length, version, next id and grid.
    """

    owner: int
    version: int
    log_length: int
    next_id: int
    grid: int | None
    elements: dict[str, Element]
    undo: tuple[_Change, ...]
    redo: tuple[_Change, ...]


class Canvas:
    """A drawable canvas over a raster base (an image, or a blank white size).

    Drawing operations validate their arguments, apply atomically, append one JSON record to ``log`` and
    return the new element's id (``e1``, ``e2``, ... in creation order). Rendering happens only when an image
    is asked for (``snapshot``, ``observe``, ``zoom``) and is cached per version. The operations are those of
    the op table (``mcot.canvas.op_specs``): ``draw`` runs any drawing op by name, declared ones included.
    A blank canvas allocates its pixels (and loads cairo) only when something is first rendered, so replaying
    a log to read its elements costs no raster work. ``copy_base=False`` takes an RGB ``base`` as it is, without
    the copy that keeps the caller's image apart (for an image the caller will not touch again).
    """

    def __init__(
        self, base: Image.Image | None = None, size: tuple[int, int] | None = None, *, copy_base: bool = True
    ) -> None:
        if (base is None) == (size is None):
            raise CanvasError("Canvas needs exactly one of base (a PIL image) or size ((width, height) in pixels)")
        if base is not None:
            if not isinstance(base, Image.Image):
                raise CanvasError(
                    f"base must be a PIL image, got {type(base).__name__}; use Canvas.from_path for files"
                )
            # a copy, so that the caller's image stays theirs (from_path hands over one nobody else holds)
            image: Image.Image | None = base if not copy_base and base.mode == "RGB" else flatten(base)
            check_size(*base.size, what="the base image")
            width, height = base.size
        else:
            if isinstance(size, str | bytes) or not isinstance(size, Sequence) or len(size) != 2:
                raise CanvasError(f"size must be (width, height) in pixels, got {size!r}")
            width = v.integer("width", size[0], low=1, high=MAX_SIDE)
            height = v.integer("height", size[1], low=1, high=MAX_SIDE)
            check_size(width, height, what="the canvas", pixel_limit=False)
            image = None  # white, made when first needed
        self._size = (width, height)
        self._base_image = image
        self._base_pixels: tuple[Any, bytearray] | None = None  # the base as a cairo surface and its buffer
        self._elements: dict[str, Element] = {}
        self._next = 1
        self._grid: int | None = None
        self._undo: list[_Change] = []
        self._redo: list[_Change] = []
        self._log: list[dict[str, Any]] = []
        self._version = 0
        # Render cache: the base with every element drawn (None = stale), and elements still to draw onto it.
        self._surface: Any = None
        self._surface_buf: bytearray | None = None
        self._pending: list[Element] = []
        self._buffer: tuple[int, bytearray] | None = None  # the rendering's cairo pixels, per version
        self._image: tuple[int, Image.Image] | None = None
        self._snapshot: tuple[int, Snapshot] | None = None
        self._observations: dict[tuple[int, int, str], Observation] = {}
        # PNG writers that keep the last image's compressed row bands: a step recompresses only what it changed
        # (made at the first snapshot: a canvas replayed to read its elements encodes nothing)
        self._png: PngWriter | None = None
        self._scaled_png: PngWriter | None = None
        self._png_holds_base = False  # the full-size writer's bands are the base image's, from its Pillow pixels
        self._figure: Figure | None = None  # the file's figure (from_path): its opening is written once a process

    # ----------------------------------------------------------------- construction and replay

    @classmethod
    def from_path(cls, path: str | Path) -> Canvas:
        """Return a canvas over the image at ``path`` (size-checked before decoding, flattened to RGB)."""
        figure = open_figure(path)
        canvas = cls(base=figure.image, copy_base=False)  # a flattened RGB image that no canvas modifies
        canvas._figure = figure
        return canvas

    @classmethod
    def replay(cls, base: Image.Image | tuple[int, int], records: Iterable[Mapping[str, Any]]) -> Canvas:
        """Return a new canvas over ``base`` (an image or a blank (width, height)) with ``records`` applied."""
        canvas = cls(base=base) if isinstance(base, Image.Image) else cls(size=base)
        for record in records:
            canvas.apply(record)
        return canvas

    def apply(self, record: Mapping[str, Any]) -> str | None:
        """Apply one op record ``{"op", "args", "id"?}`` as written to ``log``; return the id it created, if any."""
        if not isinstance(record, Mapping) or not isinstance(record.get("op"), str):
            raise CanvasError(f"an op record must be a dict with 'op' and 'args', got {record!r}")
        op, args = record["op"], record.get("args", {})
        spec = find_op(op)
        if spec is None or not spec.changes_canvas:
            raise CanvasError(f"unknown canvas operation {op!r}; known: {', '.join(record_ops())}")
        if not isinstance(args, Mapping):
            raise CanvasError(f"'args' of a {op} record must be a dict, got {args!r}")
        expected = record.get("id")
        if expected is not None and expected != f"e{self._next}":
            raise CanvasError(
                f"the record creates {expected!r} but this canvas would name the element 'e{self._next}'; "
                "apply records in their original order to a canvas built on the same base"
            )
        before = self._next
        if spec.creates:
            return self.draw(op, **args)
        try:
            result = getattr(self, op)(**args)
        except TypeError as exc:
            raise CanvasError(f"bad arguments for {op}: {exc}") from exc
        if result is False:
            raise CanvasError(
                f"the record says {op} but there is nothing to {op} here; the records do not match this canvas"
            )
        return f"e{before}" if self._next > before else None

    # ----------------------------------------------------------------- read-only views

    @property
    def width(self) -> int:
        """Return the canvas width in pixels."""
        return self._size[0]

    @property
    def height(self) -> int:
        """Return the canvas height in pixels."""
        return self._size[1]

    @property
    def base(self) -> Image.Image:
        """Return the RGB base image (do not modify it)."""
        if self._base_image is None:
            self._base_image = Image.new("RGB", self._size, (255, 255, 255))
        return self._base_image

    @property
    def elements(self) -> Mapping[str, Element]:
        """Return a read-only mapping of element id to Element, in drawing (creation) order."""
        return MappingProxyType(self._elements)

    @property
    def log(self) -> list[dict[str, Any]]:
        """Return the op records of every successful operation so far, oldest first."""
        return list(self._log)

    @property
    def version(self) -> int:
        """Return a counter that grows by one with every successful operation."""
        return self._version

    @property
    def grid_step(self) -> int | None:
        """Return the grid spacing in pixels when the grid is shown, else None."""
        return self._grid

    # ----------------------------------------------------------------- drawing

    def draw(self, op: str, **args: Any) -> str:
        """Run the drawing op ``op`` of the op table with ``args`` (its defaults fill the rest); return the new id."""
        spec = op_spec(op)
        if not spec.creates or spec.element is None:
            raise CanvasError(f"{op} is not a drawing operation; call it as canvas.{op}(...)")
        return self._create(spec.element.name, op, args)

    def draw_line(self, start: Sequence[float], end: Sequence[float], **style: Any) -> str:
        """Draw a segment from ``start`` to ``end`` (``color``, ``width``, ``dashed``); return the new element id."""
        return self.draw("draw_line", start=start, end=end, **style)

    def mark_point(self, at: Sequence[float], **style: Any) -> str:
        """Put a filled marker at ``at`` (``label``, ``color``, ``radius``); return the new element id."""
        return self.draw("mark_point", at=at, **style)

    def trace_path(self, points: Sequence[Sequence[float]], **style: Any) -> str:
        """Draw a polyline through ``points`` (``closed``, ``arrow``, ``color``, ``width``); return its id."""
        return self.draw("trace_path", points=points, **style)

    def draw_arrow(self, start: Sequence[float], end: Sequence[float], **style: Any) -> str:
        """Draw an arrow from ``start`` with its head at ``end`` (``color``, ``width``); return its id."""
        return self.draw("draw_arrow", start=start, end=end, **style)

    def draw_circle(self, center: Sequence[float], radius: float, **style: Any) -> str:
        """Draw a circle outline (``color``, ``width``; filled when ``fill`` is given, at ``opacity``); return its id."""
        return self.draw("draw_circle", center=center, radius=radius, **style)

    def draw_polygon(self, points: Sequence[Sequence[float]], **style: Any) -> str:
        """Draw a closed polygon outlined in ``color``, filled with ``fill`` (default: ``color``) at ``opacity``."""
        return self.draw("draw_polygon", points=points, **style)

    def add_text(self, at: Sequence[float], text: str, **style: Any) -> str:
        """Write ``text`` with its top-left corner at ``at`` (``color``, ``size``); return the new element id."""
        return self.draw("add_text", at=at, text=text, **style)

    # ----------------------------------------------------------------- editing

    def transform(
        self,
        *,
        ids: Sequence[str] | str | None = None,
        region: Sequence[float] | None = None,
        translate: Sequence[float] | None = None,
        rotate: Mapping[str, Any] | None = None,
        reflect: Mapping[str, Any] | None = None,
        scale: Mapping[str, Any] | None = None,
    ) -> list[str]:
        """Move elements (``ids``) or a copy of a base region (``region``) by one transform; return the ids changed.

        ``translate=[dx, dy]``; ``rotate={"angle": degrees counter-clockwise on screen, "center": [x, y]}``;
        ``reflect={"line": [[x1, y1], [x2, y2]]}``; ``scale={"factor": f, "center": [x, y]}``. A missing
        center defaults to the centre of the elements' bounding box (or of the region).
        """
        if (ids is None) == (region is None):
            raise CanvasError(
                "transform needs exactly one of ids (element ids) or region ([x0, y0, x1, y1] of the image)"
            )
        given = {"translate": translate, "rotate": rotate, "reflect": reflect, "scale": scale}
        chosen = [name for name, value in given.items() if value is not None]
        if len(chosen) != 1:
            raise CanvasError(
                f"transform needs exactly one of translate, rotate, reflect, scale; got {', '.join(chosen) or 'none'}"
            )
        kind = chosen[0]
        args: dict[str, Any] = {}
        if region is not None:
            box = self._clip_region(v.region("region", region))
            args["region"] = box
            source = Element(
                id=f"e{self._next}", kind="patch", props=build_props("patch", {"region": box}, "transform")
            )
            targets = [source]
            self._check_room(1)
        else:
            id_list = [ids] if isinstance(ids, str) else ids
            if not isinstance(id_list, Sequence) or not id_list:
                raise CanvasError(f"ids must be a non-empty list of element ids such as ['e1', 'e2'], got {ids!r}")
            id_list = [v.element_id(i, self._elements) for i in id_list]
            if len(set(id_list)) != len(id_list):
                raise CanvasError(f"ids lists an element twice: {id_list}")
            args["ids"] = id_list
            targets = [self._elements[i] for i in id_list]
        spec, matrix = self._parse_transform(kind, given[kind], targets)
        args[kind] = spec
        moved = [transformed(e, matrix) for e in targets]
        change = _Change()
        for old, new in zip(targets, moved, strict=True):
            change.before[old.id] = None if region is not None else old
            change.after[old.id] = new
        record: dict[str, Any] = {"op": "transform", "args": args}
        if region is not None:
            record["id"] = source.id
            self._next += 1
        self._commit(record, change)
        return [e.id for e in moved]

    def update_element(self, id: str, **properties: Any) -> str:
        """Change properties of element ``id`` in place (any of its kind's properties); return the id."""
        element = self._elements[v.element_id(id, self._elements)]
        props = updated_props(element, properties)
        canonical = {name: props[name] for name in properties}
        change = _Change(before={id: element}, after={id: Element(id=id, kind=element.kind, props=props)})
        self._commit({"op": "update_element", "args": {"id": id, **canonical}}, change)
        return id

    def remove_element(self, id: str) -> None:
        """Delete element ``id`` from the canvas."""
        element = self._elements[v.element_id(id, self._elements)]
        self._commit({"op": "remove_element", "args": {"id": id}}, _Change(before={id: element}, after={id: None}))

    def undo(self) -> bool:
        """Revert the last operation not yet undone; return False (and log nothing) when there is none."""
        if not self._undo:
            return False
        change = self._undo.pop()
        self._restore(change.before, change.grid[0] if change.grid else None, change.grid is not None)
        self._redo.append(change)
        self._record({"op": "undo", "args": {}})
        return True

    def redo(self) -> bool:
        """Re-apply the last undone operation; return False (and log nothing) when there is none."""
        if not self._redo:
            return False
        change = self._redo.pop()
        self._restore(change.after, change.grid[1] if change.grid else None, change.grid is not None)
        self._undo.append(change)
        self._record({"op": "redo", "args": {}})
        return True

    def show_grid(self, on: bool, step: int | None = None) -> None:
        """Show (or hide) a coordinate grid every ``step`` px labelled with pixel coordinates."""
        on = v.boolean("on", on)
        resolved: int | None = None
        if on:
            if step is None:
                resolved = default_grid_step(self.width, self.height)
            else:
                resolved = v.integer("step", step, low=MIN_GRID_STEP, high=max(MIN_GRID_STEP, self.width, self.height))
        elif step is not None:
            v.integer("step", step, low=MIN_GRID_STEP, high=max(MIN_GRID_STEP, self.width, self.height))
        self._commit({"op": "show_grid", "args": {"on": on, "step": resolved}}, _Change(grid=(self._grid, resolved)))

    # ----------------------------------------------------------------- all-or-nothing groups of operations

    def checkpoint(self) -> Checkpoint:
        """Return the current state, so that ``rollback`` can bring back exactly this state later."""
        return Checkpoint(
            owner=id(self),
            version=self._version,
            log_length=len(self._log),
            next_id=self._next,
            grid=self._grid,
            elements=dict(self._elements),
            undo=tuple(self._undo),
            redo=tuple(self._redo),
        )

    def rollback(self, checkpoint: Checkpoint) -> None:
        """Return the canvas to ``checkpoint`` exactly: elements, grid, log, version, undo and redo stacks.

        Unlike ``undo``, a rollback logs nothing and leaves nothing to redo: the operations since the checkpoint
        are forgotten, as if they had never been applied (a failed tool call that drew some of its elements).
        """
        if not isinstance(checkpoint, Checkpoint) or checkpoint.owner != id(self):
            raise CanvasError("rollback needs a checkpoint taken from this canvas with checkpoint()")
        if checkpoint.version > self._version or checkpoint.log_length > len(self._log):
            raise CanvasError("this checkpoint is newer than the canvas state; it was already rolled back past")
        if self._version == checkpoint.version and len(self._log) == checkpoint.log_length:
            return  # nothing happened since the checkpoint
        self._elements = dict(checkpoint.elements)
        self._grid = checkpoint.grid
        self._next = checkpoint.next_id
        self._undo = list(checkpoint.undo)
        self._redo = list(checkpoint.redo)
        del self._log[checkpoint.log_length :]
        self._version = checkpoint.version
        # Renderings made after the checkpoint show forgotten states, and their version numbers will be reused.
        self._surface = None
        self._surface_buf = None
        self._pending = []
        if self._buffer is not None and self._buffer[0] > checkpoint.version:
            self._buffer = None
        if self._image is not None and self._image[0] > checkpoint.version:
            self._image = None
        if self._snapshot is not None and self._snapshot[0] > checkpoint.version:
            self._snapshot = None
        self._observations = {k: o for k, o in self._observations.items() if k[0] <= checkpoint.version}

    # ----------------------------------------------------------------- images

    def snapshot(self) -> Snapshot:
        """Return the full-resolution rendering as PNG bytes with their sha256 (cached until the next change)."""
        if self._snapshot is not None and self._snapshot[0] == self._version:
            return self._snapshot[1]
        buffer = self._cairo_rendering()
        opening = self._figure.opening if self._figure is not None and buffer is None else None
        if opening is not None and self._png is None:
            self._png, snap = opening.writer.copy(), opening.snapshot  # the figure's opening, written before
        else:
            if self._png is None:
                self._png = _writer()
            png = self._png.encode(self.base) if buffer is None else self._png.encode_cairo(buffer, *self._size)
            snap = Snapshot(png=png, sha256=hashlib.sha256(png).hexdigest(), width=self.width, height=self.height)
            if buffer is None and self._figure is not None and self._figure.opening is None:
                self._figure.opening = Opening(snap, self._png.copy())
        self._png_holds_base = buffer is None
        self._snapshot = (self._version, snap)
        return snap

    def observe(self, max_side: int = 1024, format: str = "png") -> Observation:
        """Return the image a model receives: downscaled so its longer side is at most ``max_side``, PNG or JPEG."""
        max_side = v.integer("max_side", max_side, low=16, high=MAX_SIDE)
        fmt = format.lower() if isinstance(format, str) else format
        if fmt == "jpg":
            fmt = "jpeg"
        if fmt not in ("png", "jpeg"):
            raise CanvasError(f"format must be 'png' or 'jpeg', got {format!r}")
        key = (self._version, max_side, fmt)
        cached = self._observations.get(key)
        if cached is not None:
            return cached
        scale = min(1.0, max_side / max(self.width, self.height))
        if scale == 1.0 and fmt == "png":
            snap = self.snapshot()
            result = Observation(snap.png, "image/png", snap.sha256, snap.width, snap.height)
        else:
            image = self._rendered()
            if scale < 1.0:
                size = (max(1, round(self.width * scale)), max(1, round(self.height * scale)))
                image = image.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)
            if fmt == "png":
                self._scaled_png = self._scaled_png or _writer()
                data = self._scaled_png.encode(image)
            else:
                data = _encode_jpeg(image)
            media = "image/png" if fmt == "png" else "image/jpeg"
            result = Observation(data, media, hashlib.sha256(data).hexdigest(), image.width, image.height)
        self._observations = {k: o for k, o in self._observations.items() if k[0] == self._version}
        self._observations[key] = result
        return result

    def zoom(self, region: Sequence[float], factor: float = DEFAULT_ZOOM) -> Image.Image:
        """Return the rendered ``region`` magnified by ``factor`` as a new image; the canvas is unchanged."""
        x0, y0, x1, y1 = self._clip_region(v.region("region", region))
        factor = v.number("factor", factor, low=0.0, high=MAX_ZOOM, low_open=True)
        size = (max(1, round((x1 - x0) * factor)), max(1, round((y1 - y0) * factor)))
        if max(size) > MAX_ZOOM_SIDE:
            raise CanvasError(
                f"zoom would make a {size[0]}x{size[1]} image; the largest side allowed is {MAX_ZOOM_SIDE} px: "
                "use a smaller region or factor"
            )
        return self._rendered().crop((x0, y0, x1, y1)).resize(size, Image.Resampling.LANCZOS)

    def rendering(self) -> Image.Image:
        """Return the current rendering (base, elements, grid) as an RGB image, cached per version: do not modify it."""
        return self._rendered()

    def svg(self) -> str:
        """Return the vector layer (elements, and the grid when shown) as an SVG document."""
        return svg_document(self.width, self.height, self._elements.values(), self.base, self._grid)

    # ----------------------------------------------------------------- internals

    def _create(self, kind: str, op: str, given: dict[str, Any]) -> str:
        props = build_props(kind, given, op)
        self._check_room(1)
        element = Element(id=f"e{self._next}", kind=kind, props=props)
        record = {"op": op, "args": _json_copy(props), "id": element.id}
        self._next += 1
        self._commit(record, _Change(before={element.id: None}, after={element.id: element}))
        return element.id

    def _check_room(self, count: int) -> None:
        if len(self._elements) + count > MAX_ELEMENTS:
            raise CanvasError(
                f"the canvas already holds {len(self._elements)} elements; at most {MAX_ELEMENTS} are allowed: "
                "remove some first"
            )

    def _clip_region(self, box: list[float]) -> list[int]:
        x0, y0 = max(0, math.floor(box[0])), max(0, math.floor(box[1]))
        x1, y1 = min(self.width, math.ceil(box[2])), min(self.height, math.ceil(box[3]))
        if x0 >= x1 or y0 >= y1:
            raise CanvasError(
                f"region {box} does not overlap the image, which spans [0, 0, {self.width}, {self.height}]"
            )
        return [x0, y0, x1, y1]

    def _parse_transform(self, kind: str, value: Any, targets: list[Element]) -> tuple[dict | list, Affine]:
        if kind == "translate":
            dx, dy = v.point("translate", value)
            return [dx, dy], translation(dx, dy)
        if not isinstance(value, Mapping):
            raise CanvasError(f"{kind} must be an object, e.g. {_TRANSFORM_HELP[kind]}; got {value!r}")
        allowed = {"rotate": {"angle", "center"}, "reflect": {"line"}, "scale": {"factor", "center"}}[kind]
        unknown = set(value) - allowed
        if unknown:
            raise CanvasError(f"{kind} has unknown keys {sorted(unknown)}; use {_TRANSFORM_HELP[kind]}")
        if kind == "reflect":
            if "line" not in value:
                raise CanvasError(f"reflect needs 'line': {_TRANSFORM_HELP[kind]}")
            line = v.points("reflect.line", value["line"], minimum=2)
            if len(line) != 2 or line[0] == line[1]:
                raise CanvasError("reflect.line must be two distinct points [[x1, y1], [x2, y2]]")
            return {"line": line}, reflection(line[0], line[1])
        center = v.point(f"{kind}.center", value["center"]) if value.get("center") is not None else _center(targets)
        if kind == "rotate":
            if "angle" not in value:
                raise CanvasError(f"rotate needs 'angle' in degrees: {_TRANSFORM_HELP[kind]}")
            angle = v.number("rotate.angle", value["angle"], low=-3600.0, high=3600.0)
            return {"angle": angle, "center": center}, rotation(angle, center)
        if "factor" not in value:
            raise CanvasError(f"scale needs 'factor': {_TRANSFORM_HELP[kind]}")
        factor = v.number("scale.factor", value["factor"], low=1.0 / MAX_SCALE, high=MAX_SCALE)
        return {"factor": factor, "center": center}, scaling(factor, center)

    def _commit(self, record: dict[str, Any], change: _Change) -> None:
        """Apply a validated change (it cannot fail from here on), remember it for undo, and log it."""
        self._restore(change.after, change.grid[1] if change.grid else None, change.grid is not None)
        self._undo.append(change)
        self._redo.clear()
        self._record(record)

    def _record(self, record: dict[str, Any]) -> None:
        self._log.append(record)
        self._version += 1

    def _restore(self, states: Mapping[str, Element | None], grid: int | None, grid_changed: bool) -> None:
        """Set elements to the given states (None removes) and update the render cache accordingly."""
        if grid_changed:
            self._grid = grid
        if not states:
            return
        # self._elements is kept in creation order, so its last element has the highest order.
        top = self._elements[next(reversed(self._elements))].order if self._elements else 0
        additions = all(self._elements.get(i) is None and e is not None and e.order > top for i, e in states.items())
        out_of_order, last = False, top
        for element_id, element in states.items():
            if element is None:
                self._elements.pop(element_id, None)
            else:
                if element_id not in self._elements:
                    out_of_order |= element.order < last
                    last = max(last, element.order)
                self._elements[element_id] = element
        if out_of_order:
            self._elements = dict(sorted(self._elements.items(), key=lambda kv: kv[1].order))
        if additions and self._surface is not None:
            self._pending.extend(sorted((e for e in states.values() if e is not None), key=lambda e: e.order))
        else:
            self._surface = None
            self._surface_buf = None
            self._pending = []

    def _rendered(self) -> Image.Image:
        """Return the current rendering (base, elements, grid) as an RGB image, cached per version."""
        if self._image is not None and self._image[0] == self._version:
            return self._image[1]
        if not self._elements and self._grid is None:
            image = self.base  # nothing drawn: the rendering is the base, pixel for pixel
        else:
            from mcot.canvas import _render

            buffer = self._cairo_rendering()
            assert buffer is not None
            image = _render.image_from_buffer(buffer, self.width, self.height)
        self._image = (self._version, image)
        return image

    def _cairo_rendering(self) -> bytearray | None:
        """Return the current rendering as cairo RGB24 pixels (cached per version; do not modify them), or None
        while nothing is drawn and no cairo pixels were made: then the rendering is the base image."""
        if self._buffer is not None and self._buffer[0] == self._version:
            return self._buffer[1]
        if not self._elements and self._grid is None:
            # a solve's first observation: neither cairo nor the round trip through its pixel format is needed
            # (nor loaded) for it
            if self._base_pixels is None:
                return None
            buffer = self._base_pixels[1]
        else:
            from mcot.canvas import _render

            base_surface, base_buffer = self._pixels()
            if self._surface is None:
                self._surface, self._surface_buf = _render.copy_surface(base_buffer, self.width, self.height)
                _render.draw_elements(self._surface, list(self._elements.values()), base_surface)
                self._pending = []
            elif self._pending:
                _render.draw_elements(self._surface, self._pending, base_surface)
                self._pending = []
            assert self._surface_buf is not None
            buffer = self._surface_buf
            if self._grid is not None:
                surface, buffer = _render.copy_surface(buffer, self.width, self.height)
                _render.paint_grid(surface, self.width, self.height, self._grid)
        self._buffer = (self._version, buffer)
        return buffer

    def _pixels(self) -> tuple[Any, bytearray]:
        """Return the base as a cairo surface and the buffer behind it, made on first use."""
        if self._base_pixels is None:
            from mcot.canvas import _render

            self._base_pixels = _render.surface_from_image(self.base)
            if self._png is not None and self._png_holds_base:
                # the writer's bands are of these very pixels: the next snapshot compresses only what changed
                self._png.rekey(self._base_pixels[1], *self._size)
                self._png_holds_base = False
        return self._base_pixels

    def render_full(self) -> Image.Image:
        """Return a rendering made from scratch, bypassing every cache (for checks that caching changes nothing)."""
        from mcot.canvas import _render

        base_surface, base_buffer = self._pixels()
        surface, buffer = _render.copy_surface(base_buffer, self.width, self.height)
        _render.draw_elements(surface, list(self._elements.values()), base_surface)
        if self._grid is not None:
            _render.paint_grid(surface, self.width, self.height, self._grid)
        return _render.image_from_buffer(buffer, self.width, self.height)


_TRANSFORM_HELP = {
    "translate": "[dx, dy]",
    "rotate": '{"angle": 30, "center": [x, y]}',
    "reflect": '{"line": [[x1, y1], [x2, y2]]}',
    "scale": '{"factor": 2, "center": [x, y]}',
}


def _center(targets: list[Element]) -> list[float]:
    """Return the centre of the bounding box of the targets' anchors (their points, vertices, patch corners)."""
    pts = [q for e in targets for q in anchors(e)]
    xs, ys = [q[0] for q in pts], [q[1] for q in pts]
    return [round((min(xs) + max(xs)) / 2, 9), round((min(ys) + max(ys)) / 2, 9)]


def _writer() -> PngWriter:
    """Return a new PNG writer at PNG_LEVEL (its module loads numpy: imported when a canvas first encodes)."""
    from mcot.canvas._png import PngWriter

    return PngWriter(PNG_LEVEL)


def _encode_jpeg(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=JPEG_QUALITY)
    return buffer.getvalue()


def _json_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _json_copy(x) for k, x in value.items()}
    if isinstance(value, list):
        return [_json_copy(x) for x in value]
    return value
