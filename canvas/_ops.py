"""The op table: every canvas operation declared once, and every kind of element it draws.

An operation (``OpSpec``) is its name, its pydantic argument model (defaults written there, once), the
description a model reads, and what it is: a drawing op creates an element of its ``ElementKind`` (how that
kind renders with cairo, how it writes SVG, which of its properties a transform moves, which polyline a trace
verifier reads from it); the other ops edit elements, walk the history or change the view. The canvas, the
renderer, the SVG writer, the tool schemas (``mcot.tools.canvas_ops``), the system prompt's tool list and the
trace verifiers' replay all read this table; ``declare_op`` adds to it from anywhere (docs/canvas.md).

The table is a ``Registry`` (``mcot.registry.CANVAS_OPS``, kind "canvas operation"), like every other name mcot
knows: a plugin's op whose name mcot or another plugin holds is refused by name and the rest of the plugin loads.
Built-in ops are declared in ``_drawing_ops`` and ``_editing_ops``, loaded on first use of the table, under
``mcot.plugins.LOCK`` (a second thread waits, and never sees a half-filled table). Loading the table needs
neither cairo nor the Canvas: a kind's ``draw`` may be a ``"module:function"`` reference, resolved when something
is first rendered.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Annotated, Any, Literal, NamedTuple

from mcot.canvas._args import OpArgs, check_of
from mcot.canvas._errors import CanvasError
from pydantic import BaseModel, Field, create_model
from pydantic_core import PydanticUndefined

from mcot.geometry import Affine, Vec
from mcot.plugins import LOCK, current_origin, declaring_as, refuse
from mcot.registry import CANVAS_OPS

DrawFn = Callable[[Any, dict[str, Any], Any], None]
"""Draws one element: ``(cairo context, props, base surface)``; the context's state is saved around the call."""

SvgFn = Callable[[dict[str, Any], Any], str]
"""Writes one element's SVG body: ``(props, base image or None) -> markup`` (the ``<g>`` around it is added)."""

Role = Literal["draw", "edit", "history", "view"]
"""What an op does: draws an element, edits elements by id, walks the history, or changes only the view."""

REQUIRED: Any = object()
"""Marks a property that has no default."""

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


@dataclass(frozen=True)
class ElementKind:
    """A kind of element: its properties, how it renders and writes SVG, and how a transform moves it.

    ``props`` is a pydantic model whose fields are the kind's properties (their types carry the canvas's checks,
    their defaults are the defaults); None means the argument model of the op that creates it. A transform maps
    the ``points`` (``[x, y]`` properties) and ``point_lists``, scales the ``lengths`` by its scale factor, or
    calls ``move`` instead for a kind that moves otherwise (a patch composes its matrix). ``anchors`` gives the
    points whose bounding box centres a rotation or scaling without a centre (default: the points moved).
    ``path`` is the polyline a trace verifier reads from the element (None: the kind draws no path), and
    ``chains`` says whether such paths join end to start into one (segments do; a path stands alone).
    """

    name: str
    draw: DrawFn | str
    svg: SvgFn | str
    props: type[BaseModel] | None = None
    points: tuple[str, ...] = ()
    point_lists: tuple[str, ...] = ()
    lengths: tuple[str, ...] = ()
    move: Callable[[dict[str, Any], Affine], dict[str, Any]] | None = None
    anchors: Callable[[Mapping[str, Any]], list[Vec]] | None = None
    path: Callable[[Mapping[str, Any]], list[Vec]] | None = None
    chains: bool = False
    read_only: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Outcome:
    """What an operation did, as its tool tells the model: text, data, the element ids changed, an image."""

    text: str
    data: dict[str, Any] = field(default_factory=dict)
    changed: list[str] = field(default_factory=list)
    image: bytes | None = None


Perform = Callable[[Any, dict[str, Any]], Outcome]
"""Runs an op on a canvas with its validated arguments (``None`` values left out) and says what it did."""


@dataclass(frozen=True)
class OpSpec:
    """One canvas operation, declared once.

    ``name`` is the tool name and the ``op`` of its log records; ``args`` the pydantic argument model (the tool
    schema a model sees, with the defaults); ``description`` and ``example`` what the model reads; ``role`` what
    it does. A drawing op (``role="draw"``) creates an element of ``element``; any other op is a method of
    Canvas of the same name, with ``perform`` saying how its tool runs it (a drawing op's tool needs none).
    ``hint`` is its sentence in the system prompt's tool list (drawing ops are listed by name). ``changes_canvas``
    is False for an op that only reads (zoom: no record, no replay); ``tool`` False for an op models are not
    offered (redo). ``element`` of a non-drawing op is the kind it may create (transform's patch of a region).
    """

    name: str
    args: type[BaseModel]
    description: str
    example: Mapping[str, Any] = field(default_factory=dict)
    role: Role = "draw"
    element: ElementKind | None = None
    perform: Perform | None = None
    hint: str = ""
    changes_canvas: bool = True
    tool: bool = True

    @property
    def creates(self) -> bool:
        """Return whether the op creates an element each time it runs (a drawing op)."""
        return self.role == "draw"


_KINDS: dict[str, ElementKind] = {}
_PROPS: dict[str, dict[str, Property]] = {}
_BUILTIN: set[str] = set()
_WATCHERS: list[Callable[[], None]] = []
_state = {"loaded": False, "loading": False}


def declare_op(spec: OpSpec, *, replace_existing: bool = False) -> None:
    """Add ``spec`` to the table (tools, prompt, renderer, SVG and replay see it at once); raise CanvasError if bad.

    A drawing op needs an ``element`` whose properties all carry canvas checks (build them from the types of
    ``mcot.canvas``: Point, Color, Width, …); any other op must be a Canvas method, so only drawing ops can be
    added from outside. A name that is taken is refused unless ``replace_existing`` (built-in ops never).
    """
    _load_builtin()
    _declare(spec, replace_existing=replace_existing)


def remove_op(name: str) -> None:
    """Remove a declared op (and its element kind); raise CanvasError for a built-in or unknown one."""
    _load_builtin()
    if name in _BUILTIN:
        raise CanvasError(f"{name!r} is a built-in canvas operation and cannot be removed")
    entry = CANVAS_OPS.peek(name)
    if entry is None:
        raise CanvasError(f"no canvas operation named {name!r}")
    spec = entry.value
    CANVAS_OPS.unregister(name)
    if spec.element is not None and not any(o.element is spec.element for o in _table()):
        _KINDS.pop(spec.element.name, None)
        _PROPS.pop(spec.element.name, None)
    _changed()


def op_specs() -> tuple[OpSpec, ...]:
    """Return every declared op in table order (the built-ins first, in DESIGN.md's order)."""
    _load_builtin()
    return _table()


def _table() -> tuple[OpSpec, ...]:
    """Return the ops declared so far, loading nothing."""
    return tuple(entry.value for entry in CANVAS_OPS.entries(load=False))


def op_spec(name: str) -> OpSpec:
    """Return the op named ``name``; raise CanvasError listing the ops when there is none."""
    spec = find_op(name)
    if spec is None:
        raise CanvasError(f"unknown canvas operation {name!r}; known: {', '.join(s.name for s in _table())}")
    return spec


def find_op(name: str) -> OpSpec | None:
    """Return the op named ``name``, or None when there is none."""
    entry = CANVAS_OPS.peek(name) if isinstance(name, str) else None
    if entry is None:
        _load_builtin()
        entry = CANVAS_OPS.peek(name) if isinstance(name, str) and name.strip() else None
    return None if entry is None else entry.value


def element_kind(name: str) -> ElementKind:
    """Return the element kind named ``name`` (line, point, …, patch, or a declared one)."""
    kind = _KINDS.get(name)
    if kind is None:
        _load_builtin()
        kind = _KINDS.get(name)
    if kind is None:
        raise CanvasError(f"unknown element kind {name!r}; known: {', '.join(_KINDS)}")
    return kind


def record_ops() -> tuple[str, ...]:
    """Return the names of the ops that appear in op records (every op that changes the canvas)."""
    return tuple(spec.name for spec in op_specs() if spec.changes_canvas)


def watch(callback: Callable[[], None]) -> None:
    """Call ``callback()`` after every change of the table (the tool registry keeps its canvas tools in step)."""
    _WATCHERS.append(callback)


class Property(NamedTuple):
    """One property of an element kind: the canvas's check of a value and its default (or REQUIRED)."""

    check: Callable[[str, Any], Any]
    default: Any


@cache
def properties(model: type[BaseModel]) -> dict[str, Property]:
    """Return the properties a model declares, in order: each field's canvas check and default."""
    out: dict[str, Property] = {}
    for name, info in model.model_fields.items():
        if info.default_factory is not None:
            raise CanvasError(f"property {name!r} of {model.__name__}: give a plain default, not a default_factory")
        default = REQUIRED if info.default is PydanticUndefined else info.default
        out[name] = Property(check_of(info, name).fn, default)
    return out


def kind_properties(kind: ElementKind | str) -> dict[str, Property]:
    """Return the properties of an element kind or kind name (its own model, or the arguments of the op that
    creates it)."""
    name = kind if isinstance(kind, str) else kind.name
    props = _PROPS.get(name)
    if props is None:
        element_kind(name)  # loads the built-in ops, or raises naming the kinds
        props = _PROPS[name]
    return props


def resolve(ref: Callable[..., Any] | str) -> Callable[..., Any]:
    """Return the function a ``"module:function"`` reference names (a callable is returned as it is)."""
    if not isinstance(ref, str):
        return ref
    return _resolve(ref)


@cache
def _resolve(ref: str) -> Callable[..., Any]:
    module, _, attribute = ref.partition(":")
    value = getattr(importlib.import_module(module), attribute)
    if not callable(value):
        raise CanvasError(f"{ref!r} is not a function")
    return value


class UpdateTarget(OpArgs):
    """The element update_element edits; the table adds every property of every drawing op beside it."""

    id: str = Field(min_length=1, max_length=20, description="the element to edit, e.g. 'e3'")


def _update_model() -> type[BaseModel]:
    """Return update_element's argument model: id, and every property of the drawing ops, each optional.

    A property that several kinds declare with the same type keeps it (with its description where they agree);
    one they declare differently (a point's radius and a circle's) is offered with its bare type, and the canvas
    checks the value against the element's own kind.
    """
    seen: dict[str, list[Any]] = {}
    for spec in _table():
        if spec.creates and spec.element is not None and spec.tool:
            model = spec.element.props or spec.args
            for name, info in model.model_fields.items():
                if name not in spec.element.read_only:
                    seen.setdefault(name, []).append(info)
    fields: dict[str, Any] = {}
    for name, infos in seen.items():
        first = infos[0]
        annotation: Any = first.annotation | None
        if first.metadata and all(i.annotation == first.annotation and i.metadata == first.metadata for i in infos):
            annotation = Annotated[(annotation, *first.metadata)]
        described = all(i.description == first.description for i in infos)
        description = first.description if described else check_of(first, name).what or None
        fields[name] = (annotation, Field(None, description=description))
    return create_model("UpdateArgs", __base__=UpdateTarget, **fields)


def _declare(spec: OpSpec, *, replace_existing: bool, builtin: bool = False) -> None:
    if not isinstance(spec, OpSpec):
        raise CanvasError(f"declare_op takes an OpSpec, got {type(spec).__name__}")
    if not _NAME.match(spec.name):
        raise CanvasError(f"canvas operation names are lowercase identifiers such as 'draw_cross', got {spec.name!r}")
    held = CANVAS_OPS.peek(spec.name)
    previous = None if held is None else held.value
    if held is not None and current_origin() not in ("mcot", held.origin):
        refuse(CANVAS_OPS.kind, spec.name, held.origin)  # a plugin taking a held name: named, skipped
        return
    if previous is not None and (spec.name in _BUILTIN or not replace_existing):
        raise CanvasError(f"a canvas operation named {spec.name!r} is already declared")
    if not (isinstance(spec.args, type) and issubclass(spec.args, BaseModel)):
        raise CanvasError(f"{spec.name}: args must be a pydantic model class")
    if not spec.creates and not builtin:
        raise CanvasError(
            f"{spec.name}: only drawing ops (role='draw', with an element) can be declared; the other ops are "
            "methods of the Canvas"
        )
    if spec.creates and (spec.element is None or not spec.changes_canvas):
        raise CanvasError(f"{spec.name}: a drawing op needs the ElementKind it creates (element=...)")
    kind = spec.element
    if kind is not None:
        taken = _KINDS.get(kind.name)
        mine = previous is not None and previous.element is not None and previous.element.name == kind.name
        if taken is not None and taken is not kind and not mine:
            if current_origin() != "mcot":
                refuse("canvas element kind", kind.name, _kind_origin(kind.name))
                return
            raise CanvasError(f"{spec.name}: an element kind named {kind.name!r} is already declared")
        props = properties(kind.props or spec.args)  # every property must carry a canvas check: refused here if not
        _KINDS[kind.name] = kind
        _PROPS[kind.name] = props
    CANVAS_OPS.register(spec.name, spec, description=spec.description.split(".")[0], replace=True)
    if builtin:
        _BUILTIN.add(spec.name)
    if not _state["loading"]:
        _changed()


def _changed() -> None:
    held = CANVAS_OPS.peek("update_element")
    if held is not None:
        update = replace(held.value, args=_update_model())
        CANVAS_OPS.replace_value("update_element", update)
    for callback in list(_WATCHERS):
        callback()


def _load_builtin() -> None:
    """Declare the canvas's own ops, once, in DESIGN.md's order: the drawing ops, then the others."""
    if _state["loaded"]:
        return
    with LOCK:  # another thread waits here until the table is whole; this thread's own lookups re-enter
        if _state["loaded"] or _state["loading"]:
            return
        _state["loading"] = True
        try:
            from mcot.canvas._drawing_ops import DRAWING_OPS
            from mcot.canvas._editing_ops import EDITING_OPS

            with declaring_as("mcot"):  # the first use may come from inside a plugin's declarations
                for spec in (*DRAWING_OPS, *EDITING_OPS):
                    _declare(spec, replace_existing=False, builtin=True)
                _changed()
        finally:
            _state["loading"] = False
        _state["loaded"] = True


def _kind_origin(kind: str) -> str:
    """Return who declared the op that creates element kind `kind` ("mcot" for a built-in)."""
    for entry in CANVAS_OPS.entries(load=False):
        if entry.value.element is not None and entry.value.element.name == kind:
            return entry.origin
    return "mcot"
