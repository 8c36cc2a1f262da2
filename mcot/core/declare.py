"""The public declaration API: how a benchmark, a tool, a toolset, a backend, a generator, a loader, an export
format or view, an offline strategy or an answer form becomes known to mcot by name.

mcot's own things are declared with these functions (`mcot.builtin`), and so is a plugin's (`mcot.core.plugins`);
`mcot` re-exports them. Functions and modules may be named by string (`"my_plugin.backend:build"`,
`"my_plugin.protocol"`), so that declaring imports nothing: the registry imports them on first use.

A benchmark is one declaration naming one module per room, each with fixed names:

- `protocols`: a module holding `official` (the benchmark's published scoring), `tables` (its report tables),
  and optionally `robust` (mcot's own extraction) and `verifier` (the trace verifier);
- `loader`: a module holding `load(src, tally, **options)` (yields `LoadedItem`s and `Skip`s) and optionally
  `detect(path) -> bool` (whether a file or folder holds this format) and `DESCRIPTION`;
- `generator`: a module holding `generate(n, seed) -> Iterable[LoadedItem]` (`mcot gen NAME`);
- `prompt`: its task template, a file of `mcot/agents/prompts/` (`task.gepbench.txt`) or of another package
  (`my_plugin:task.txt`), filled with `$question`, `$choices_block`, `$choices_lines`, `$answer_format`;
- `answer`: the answer form its protocol reads (`boxed`, `bare`, `answer-line`, or a declared one).

The types a plugin's functions take and return are public here too (and in `mcot`), imported on first use so
that declaring loads no room: `Scorer`, `Score`, `Result` and `ScoringProtocol` (a protocol), `Tally`,
`LoadedItem` and `Skip` (a loader), `Context` and `Output` (a tool), `Strategy`, `OfflineView` and `Move` (an
offline strategy).

docs/extending.md walks through a plugin that declares one of each.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from mcot.core.clusters import ClusterKeyError, check_cluster_key
from mcot.core.lazy import lazy_exports
from mcot.core.plugin_types import PLUGIN_TYPES
from mcot.core.registry import (
    ANSWER_FORMS,
    BACKENDS,
    BENCHMARKS,
    EXPORT_FORMATS,
    EXPORT_VIEWS,
    GENERATORS,
    ITEM_GENERATORS,
    LOADERS,
    PROTOCOLS,
    STRATEGIES,
    TOOLS,
    TOOLSETS,
    Ref,
    RegistryError,
)

if TYPE_CHECKING:
    from mcot.agents.offline.strategies import Move, OfflineView, Strategy
    from mcot.benchmarks.loaders._types import LoadedItem, Skip, Tally
    from mcot.core.rundir.results import Result
    from mcot.core.rundir.scores import Score
    from mcot.eval.protocols.scorer import Scorer, ScoringProtocol
    from mcot.tools.registry import Context, Output


__getattr__, __dir__ = lazy_exports(__name__, PLUGIN_TYPES, globals())


def _module(name: str) -> ModuleType:
    module: ModuleType = Ref(name).resolve()
    return module


# --- benchmarks ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Benchmark:
    """A benchmark as mcot knows it: how its items are asked, answered, scored, tabled, verified, loaded, made.

    `protocols`, `loader` and `generator` are module names (see the module docstring for the names each holds);
    `protocols` may also be any object with those attributes (a namespace built in code). `format` is the name
    its native files go by in `mcot convert FORMAT` and `--format` (default: `name`). `max_new_tokens` caps each
    answer of the text arm, as the benchmark's official inference does (None: no cap; the arms with tools are
    never capped by it: a tool call needs more). `inference` says in one line how the official inference asks
    and how mcot's arms with tools differ from it (reports quote it).
    """

    name: str
    description: str
    prompt: Any = "task.default.txt"
    """A template reference (`task.NAME.txt`, `package:file.txt`) or a `mcot.agents.prompts.PromptTemplate`."""
    answer: str = "boxed"
    protocols: Any = None
    loader: str | None = None
    generator: str | None = None
    format: str | None = None
    max_new_tokens: int | None = None
    inference: str = ""
    cluster: tuple[str, ...] = ("id",)
    """The item field paths whose values group correlated items (mcot.core.clusters; the default: each item)."""
    cluster_name: str = ""
    """What one cluster is, in words, for reports ("the figure"); empty: the key's paths name it."""

    def protocol_module(self) -> Any:
        """Return the protocol module (imported) or object, or None when the generic protocol scores the benchmark."""
        return _module(self.protocols) if isinstance(self.protocols, str) else self.protocols


def declare_benchmark(
    name: str,
    *,
    description: str,
    prompt: Any = "task.default.txt",
    answer: str = "boxed",
    protocols: Any = None,
    loader: str | None = None,
    generator: str | None = None,
    format: str | None = None,
    max_new_tokens: int | None = None,
    inference: str = "",
    cluster: Sequence[str] = ("id",),
    cluster_name: str = "",
    replace: bool = False,
) -> Benchmark:
    """Declare a benchmark (and its loader and item generator, when named); return the declaration."""
    if max_new_tokens is not None and max_new_tokens < 1:
        raise RegistryError(f"benchmark {name!r}: max_new_tokens must be at least 1 (got {max_new_tokens})")
    try:
        key = check_cluster_key(cluster)
    except ClusterKeyError as exc:
        raise RegistryError(f"benchmark {name!r}: {exc}") from None
    benchmark = Benchmark(
        name,
        description,
        prompt,
        answer,
        protocols,
        loader,
        generator,
        format,
        max_new_tokens,
        inference,
        key,
        cluster_name,
    )
    BENCHMARKS.register(name, benchmark, description=description, replace=replace)
    if loader is not None:
        declare_loader(format or name, loader, description=f"{name} native files", replace=replace)
    if generator is not None:
        declare_item_generator(name, generator, description=description, replace=replace)
    return benchmark


# --- loaders and item generators ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Loader:
    """A native data format: the module that reads it (`load`, optionally `detect`) and one line about it.

    `convertible` False keeps it out of `mcot convert`'s formats (the items directory itself is one).
    """

    name: str
    module: str
    description: str = ""
    convertible: bool = True

    def load_function(self) -> Callable[..., Any]:
        """Return the format's `load(src, tally, **options)`."""
        return getattr(_module(self.module), "load")  # noqa: B009

    def detects(self, path: Path) -> bool:
        """Return whether the format's `detect` recognises `path` (False when the loader has none)."""
        detect = getattr(_module(self.module), "detect", None)
        return bool(detect(path)) if detect is not None else False


def declare_loader(
    name: str, module: str, *, description: str = "", convertible: bool = True, replace: bool = False
) -> Loader:
    """Declare a native data format read by `module` (`load`, optional `detect`); return the declaration."""
    loader = Loader(name, module, description, convertible)
    LOADERS.register(name, loader, description=description, replace=replace)
    return loader


@dataclass(frozen=True)
class ItemGenerator:
    """Items made from a seed: the module holding `generate(n, seed) -> Iterable[LoadedItem]` (`mcot gen NAME`)."""

    name: str
    module: str
    description: str = ""

    def generate(self, n: int, seed: int) -> Iterable[Any]:
        """Return the generator's items (LoadedItem: the item and its image bytes) for `n` and `seed`."""
        return _module(self.module).generate(n, seed)


def declare_item_generator(name: str, module: str, *, description: str = "", replace: bool = False) -> ItemGenerator:
    """Declare `mcot gen NAME --n N --seed S --out DIR` for the generator in `module`; return the declaration."""
    generator = ItemGenerator(name, module, description)
    ITEM_GENERATORS.register(name, generator, description=description, replace=replace)
    return generator


# --- answer forms and protocol variants ------------------------------------------------------------------


@dataclass(frozen=True)
class AnswerForm:
    """How a final answer is written in a benchmark's form (`\\boxed{B}`, `B`, `Answer: B`)."""

    name: str
    write: Callable[[str], str]
    description: str = ""


def declare_answer_form(
    name: str, write: Callable[[str], str] | str, *, description: str = "", replace: bool = False
) -> AnswerForm:
    """Declare an answer form (`write(value) -> final answer text`); return the declaration."""
    form = AnswerForm(name, _lazy_call(Ref.of(write)), description)
    ANSWER_FORMS.register(name, form, description=description, replace=replace)
    return form


def declare_protocol(name: str, *, description: str, replace: bool = False) -> str:
    """Declare a scoring protocol variant: the attribute of a protocol module that `--protocol NAME` scores with."""
    PROTOCOLS.register(name, name, description=description, replace=replace)
    return name


# --- tools and toolsets ---------------------------------------------------------------------------------

DEFAULT_SYSTEM_PROMPT = "system.canvas.txt"
"""The system prompt's template of an arm with tools unless its toolset names another."""


@dataclass(frozen=True)
class Toolset:
    """A named set of tools an arm offers: `tools()` returns their names, resolved when the arm is built.

    `sees_canvas` False: the model is shown the canvas only in the first observation; after each round of tool
    calls it is told in words what changed (the `canvas-blind` ablation), and tool results carry no image.
    `system_prompt` names the template (agents/prompts, or `package:file.txt`) of the system prompt of an arm with
    tools (`system.canvas.txt` for the canvas arms; `look` says what it offers); None: a prompt generated from
    the toolset's own tools (`system.generated.txt`), so that no arm is told of tools it does not offer.
    """

    name: str
    tools: Callable[[], tuple[str, ...]]
    description: str = ""
    sees_canvas: bool = True
    system_prompt: str | None = None


def declare_toolset(
    name: str,
    tools: Sequence[str] | Callable[[], Sequence[str]] | str,
    *,
    description: str,
    sees_canvas: bool = True,
    system_prompt: str | None = None,
    replace: bool = False,
) -> Toolset:
    """Declare a named toolset (a list of tool names, or a function returning them); return the declaration.

    `sees_canvas` False shows the canvas image only in the first observation; `system_prompt` is the template
    of its arm's system prompt (see `Toolset`).
    """
    source = Ref.of(tools)
    if isinstance(source, Ref):
        resolver: Callable[[], tuple[str, ...]] = lambda: tuple(source.resolve()())  # noqa: E731
    elif callable(source):
        resolver = lambda: tuple(source())  # noqa: E731
    else:
        fixed = tuple(source)
        resolver = lambda: fixed  # noqa: E731
    toolset = Toolset(name, resolver, description, sees_canvas, system_prompt)
    TOOLSETS.register(name, toolset, description=description, replace=replace)
    return toolset


def declare_tools(module: str) -> None:
    """Name a module whose `@mcot.tool` functions are imported when the tools are listed or one is missed."""

    TOOLS.add_source(module)


def tool(group: str, example: dict[str, Any] | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Return a decorator that declares a function as a tool a model can call (see `mcot.tools.registry.tool`).

    The function is either plain and typed (`def add(a: int, b: int) -> int`, its docstring the description)
    or takes a pydantic argument model and a `Context` and returns an `Output`. The tools room builds the tool
    (named by a Ref: the ground floor imports no room).
    """
    register: Callable[..., Callable[[Callable[..., Any]], Callable[..., Any]]]
    register = Ref("mcot.tools.registry:tool").resolve()
    return register(group, example)


# --- model backends and image generators ------------------------------------------------------------------


def declare_backend(
    name: str, factory: Callable[..., Any] | str, *, usage: str, description: str, replace: bool = False
) -> None:
    """Declare a model backend: `factory(argument, options) -> ModelBackend` for specs `usage` (`name:MODEL`)."""
    BACKENDS.register(name, Ref.of(factory), usage=usage, description=description, replace=replace)


def declare_generator(
    name: str, factory: Callable[..., Any] | str, *, usage: str, description: str, replace: bool = False
) -> None:
    """Declare an image generator: `factory(argument, options) -> ImageGenerator` for specs `usage`."""
    GENERATORS.register(name, Ref.of(factory), usage=usage, description=description, replace=replace)


# --- exports ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExportFormat:
    """How export rows are written: `write(rows, catalog, view, target, run) -> count`, to a folder or a file.

    `requires` names an import the format needs (`datasets`), checked before anything is read.
    """

    name: str
    write: Callable[..., int]
    description: str = ""
    folder: bool = True
    requires: str | None = None


def declare_export_format(
    name: str,
    write: Callable[..., int] | str,
    *,
    description: str,
    folder: bool = True,
    requires: str | None = None,
    replace: bool = False,
) -> ExportFormat:
    """Declare an export format (`mcot export --format NAME`); return the declaration."""
    writer = Ref.of(write)
    fmt = ExportFormat(name, _lazy_call(writer), description, folder, requires)
    EXPORT_FORMATS.register(name, fmt, description=description, replace=replace)
    return fmt


@dataclass(frozen=True)
class ExportView:
    """How a (item, arm) pair becomes one export record: `build(pair, catalog, notes) -> dict`.

    `schema()` returns the record's Arrow schema (for parquet and hf; None: jsonl only); `image_columns` hold
    lists of image export names (embedded as image structs), `json_columns` values stored as JSON text.
    `conversation` True: the view needs the run's answers as a conversation (not an image-generation run).
    `prompts` True: the view is also built from an items directory (`mcot export ITEMS`: prompt rows, no run).
    """

    name: str
    build: Callable[..., dict[str, Any]]
    description: str = ""
    conversation: bool = True
    schema: Callable[[], Any] | None = None
    image_columns: tuple[str, ...] = field(default=())
    json_columns: tuple[str, ...] = field(default=())
    prompts: bool = False

    def arrow_schema(self) -> Any:
        """Return the view's Arrow schema; raise RegistryError when it has none (it exports as jsonl only)."""
        if self.schema is None:
            raise RegistryError(f"the {self.name} view has no Arrow schema: export it with --format jsonl")
        return self.schema()


def declare_export_view(
    name: str,
    build: Callable[..., dict[str, Any]] | str,
    *,
    description: str,
    conversation: bool = True,
    schema: Callable[[], Any] | str | None = None,
    image_columns: Sequence[str] = (),
    json_columns: Sequence[str] = (),
    prompts: bool = False,
    replace: bool = False,
) -> ExportView:
    """Declare an export view (`mcot export --as NAME`); return the declaration."""
    arrow = _lazy_call(Ref.of(schema)) if schema is not None else None
    view = ExportView(
        name,
        _lazy_call(Ref.of(build)),
        description,
        conversation,
        arrow,
        tuple(image_columns),
        tuple(json_columns),
        prompts,
    )
    EXPORT_VIEWS.register(name, view, description=description, replace=replace)
    return view


# --- the offline policy ------------------------------------------------------------------------------------


def declare_strategy(name: str, strategy: Strategy, *, replace: bool = False) -> Strategy:
    """Declare how the offline policy plays one kind of item; return the strategy."""
    STRATEGIES.register(name, strategy, description=strategy.kind, replace=replace)
    return strategy


# --- helpers ---------------------------------------------------------------------------------------------


def _lazy_call(value: Any) -> Callable[..., Any]:
    """Return `value` itself, or for a Ref a function that imports it on the first call."""
    if not isinstance(value, Ref):
        if not callable(value):
            raise RegistryError(f"expected a function or a 'module:function' name, got {value!r}")
        return value

    def call(*args: Any, **kwargs: Any) -> Any:
        return value.resolve()(*args, **kwargs)

    call.__name__ = value.target.rpartition(":")[2] or value.target
    return call


__all__ = [
    "AnswerForm",
    "Benchmark",
    "Context",
    "ExportFormat",
    "ExportView",
    "ItemGenerator",
    "LoadedItem",
    "Loader",
    "Move",
    "OfflineView",
    "Output",
    "Result",
    "Score",
    "Scorer",
    "ScoringProtocol",
    "Skip",
    "Strategy",
    "Tally",
    "Toolset",
    "declare_answer_form",
    "declare_backend",
    "declare_benchmark",
    "declare_export_format",
    "declare_export_view",
    "declare_generator",
    "declare_item_generator",
    "declare_loader",
    "declare_protocol",
    "declare_strategy",
    "declare_tools",
    "declare_toolset",
    "tool",
]
