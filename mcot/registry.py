"""One registry mechanism for everything mcot knows by name, and the registries themselves.

Backends, image generators, tools, toolsets, benchmarks, loaders, export formats and views, offline strategies,
item generators, answer forms and scoring protocols are each a `Registry`: register by name (with a one-line
description), look up with a did-you-mean for an unknown name, list with descriptions. A value may be a `Ref`
("module:attribute"), imported on first lookup, so that declaring something costs no import.

Declarations come from `mcot.builtin` (mcot's own) and from installed plugins (the entry-point group
`mcot.plugins`, see `mcot.plugins`), through the public declaration API `mcot.declare`. A registry loads them the
first time it is listed or misses a name, never before: `mcot --help` loads nothing. This module imports only
the standard library and `mcot.plugins` (which imports nothing of mcot); every room may use it.

A name is held by whoever declared it first (`Entry.origin`: "mcot" or a plugin's name). Another origin's
declaration of a held name is refused whatever the registry: a plugin's is named in one line and skipped (the
rest of the plugin loads, `mcot.plugins.refuse`), anyone else's raises RegistryError; `replace=True` replaces only
a name its own origin holds. Loading (plugins, then the registry's sources) holds `mcot.plugins.LOCK`, so a
second thread waits for the first and never sees a half-filled registry.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from mcot.plugins import LOCK, current_origin, declaring_as, load_plugins, refuse

if TYPE_CHECKING:
    from mcot.agents.backends import BackendFactory
    from mcot.agents.generators import GeneratorFactory
    from mcot.agents.offline.strategies import Strategy
    from mcot.canvas._ops import OpSpec
    from mcot.declare import AnswerForm, Benchmark, ExportFormat, ExportView, ItemGenerator, Loader, Toolset
    from mcot.tools.registry import ToolSpec

T = TypeVar("T")


class RegistryError(LookupError, ValueError):
    """A name that is not registered (the message has a did-you-mean and the known names), or a clash.

    Rooms re-raise it as their own error type where callers expect one (`ModelSpecError`, `ToolError`, …).
    """


@dataclass(frozen=True)
class Ref:
    """A value named by `module:attribute` (or a bare `module`), imported when it is first looked up; picklable."""

    target: str

    def resolve(self) -> Any:
        """Return the object this names, importing its module."""
        module, _, attribute = self.target.partition(":")
        value: Any = import_module(module)
        for part in filter(None, attribute.split(".")):
            value = getattr(value, part)
        return value

    @classmethod
    def of(cls, value: Any) -> Any:
        """Return `value`, or a Ref when it is a "module:attribute" string (a declaration naming a function)."""
        return cls(value) if isinstance(value, str) and ":" in value else value


@dataclass(frozen=True)
class Entry(Generic[T]):
    """One registered name: its value, what it is in one line, its spec form (`openai:MODEL`) and who declared it."""

    name: str
    value: T
    description: str = ""
    usage: str = ""
    origin: str = "mcot"

    @property
    def takes_argument(self) -> bool:
        """Return whether a spec naming this entry must carry an argument after the colon (its usage shows one)."""
        return ":" in self.usage


class Registry(Generic[T]):
    """Names → values of one kind, in registration order; `kind` names the kind in messages ("model provider").

    `error` is the exception type raised for an unknown name, or its "module:Name" (imported when first raised,
    so that a room's own error type serves without this module importing the room). `specs` registries read
    `name:argument` specs (`openai:gpt-4o`, `scripted:FILE`).
    """

    def __init__(self, kind: str, *, error: type[Exception] | str = RegistryError, specs: bool = False) -> None:
        self.kind = kind
        self._error = error
        self.specs = specs
        self._entries: dict[str, Entry[Any]] = {}
        self._resolved: dict[str, T] = {}
        self._sources: list[str] = []
        self._loaded_sources = 0
        self._imported_sources = 0
        self._depth = 0

    # --- declaring ---------------------------------------------------------------------------------------

    def register(
        self,
        name: str,
        value: T | Ref,
        *,
        description: str = "",
        usage: str | None = None,
        replace: bool = False,
    ) -> T | Ref:
        """Register `value` under `name` and return it; raise RegistryError if the name is taken (unless `replace`
        and the same origin holds it). A plugin's declaration of a name another origin holds is refused by name and
        skipped (`claim`)."""
        key = self._key(name)
        if not key or (self.specs and ":" in key):
            raise RegistryError(f"a {self.kind} name must be non-empty{' and without a colon' if self.specs else ''}, "
                                f"got {name!r}")  # fmt: skip
        if not self.claim(key, replace=replace):
            return value
        default_usage = f"{key}:NAME" if self.specs else key
        self._entries[key] = Entry(key, value, " ".join(description.split()), usage or default_usage, current_origin())
        self._resolved.pop(key, None)
        return value

    def claim(self, name: str, *, replace: bool = False) -> bool:
        """Return whether the current origin may register `name`: True when it is free or (with `replace`) its
        own; False, after naming the refusal in one line, for a plugin's claim of a name another origin holds;
        raise RegistryError for anyone else's clash."""
        key = self._key(name)
        held = self._entries.get(key)
        if held is None:
            return True
        origin = current_origin()
        if held.origin == origin and replace:
            return True
        if origin != "mcot" and held.origin != origin:
            refuse(self.kind, key, held.origin)
            return False
        raise RegistryError(f"a {self.kind} named {key!r} is already registered ({held.origin})")

    def peek(self, name: str) -> Entry[T] | None:
        """Return the entry registered as `name` so far, loading nothing (None when there is none yet)."""
        return self._entries.get(self._key(name))

    def replace_value(self, name: str, value: T) -> None:
        """Give the registered `name` a new value, keeping its description and who holds it; returns nothing."""
        key = self._key(name)
        held = self._entries[key]
        self._entries[key] = Entry(key, value, held.description, held.usage, held.origin)
        self._resolved.pop(key, None)

    def unregister(self, name: str) -> None:
        """Remove `name` (no error when it is not registered)."""
        key = self._key(name)
        self._entries.pop(key, None)
        self._resolved.pop(key, None)

    def add_source(self, module: str) -> None:
        """Name a module whose import registers more entries; it is imported when the registry is listed or misses."""
        if module not in self._sources:
            self._sources.append(module)

    # --- looking up --------------------------------------------------------------------------------------

    def get(self, name: str) -> T:
        """Return the value registered as `name` (imported when it is a Ref); raise `error` with a did-you-mean."""
        key = self._key(name)
        if key in self._resolved:
            return self._resolved[key]
        entry = self._entries.get(key) or self._load_and_find(key)
        if entry is None:
            raise self.error(self._unknown(name))
        return self._resolve(entry)

    def find(self, name: str) -> T | None:
        """Return the value registered as `name`, or None."""
        key = self._key(name)
        entry = self._entries.get(key) or self._load_and_find(key)
        return None if entry is None else self._resolve(entry)

    def entry(self, name: str) -> Entry[T]:
        """Return the entry registered as `name` (its value unresolved); raise `error` with a did-you-mean."""
        key = self._key(name)
        entry = self._entries.get(key) or self._load_and_find(key)
        if entry is None:
            raise self.error(self._unknown(name))
        return entry

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.find(name) is not None

    def names(self) -> tuple[str, ...]:
        """Return every registered name, in registration order (plugins loaded first)."""
        self._load_all()
        return tuple(self._entries)

    def entries(self, *, load: bool = True) -> tuple[Entry[T], ...]:
        """Return every entry, in registration order (plugins loaded first, unless `load` is False)."""
        if load:
            self._load_all()
        return tuple(self._entries.values())

    def items(self) -> Iterator[tuple[str, T]]:
        """Yield (name, value) for every entry, values resolved, in registration order."""
        for entry in self.entries():
            yield entry.name, self._resolve(entry)

    def describe(self) -> list[tuple[str, str]]:
        """Return (usage, description) per entry: what `--help` and `mcot COMMAND --list` show."""
        return [(entry.usage, entry.description) for entry in self.entries()]

    def choices(self, conjunction: str = "or") -> str:
        """Return the known forms as one phrase, e.g. `offline, scripted:FILE.json or openai:MODEL`."""
        forms = [entry.usage for entry in self.entries()]
        if len(forms) < 2:
            return forms[0] if forms else "(none registered)"
        return ", ".join(forms[:-1]) + f" {conjunction} " + forms[-1]

    def help(self) -> str:
        """Return the entries as one line for a help text: `usage (description); …`."""
        return "; ".join(f"{usage} ({text})" if text else usage for usage, text in self.describe())

    def parse(self, spec: str) -> tuple[Entry[T], str]:
        """Return (entry, argument) for a `name:argument` spec; raise `error` saying what would work."""
        text = spec.strip()
        if not text:
            raise self.error(f"an empty spec names no {self.kind}; use {self.choices()}")
        provider, colon, argument = text.partition(":")
        key = self._key(provider)
        entry = self._entries.get(key) or self._load_and_find(key)
        if entry is None:
            raise self.error(self._unknown_spec(text, key, argument.strip() if colon else None))
        argument = argument.strip()
        if entry.takes_argument and not argument:
            raise self.error(f"{spec!r} needs something after the colon: use {entry.usage}")
        return entry, argument

    def resolve(self, entry: Entry[T]) -> T:
        """Return the value of `entry`, importing it when it is a Ref."""
        return self._resolve(entry)

    @property
    def error(self) -> type[Exception]:
        """Return the exception type this registry raises for an unknown name."""
        if isinstance(self._error, str):
            self._error = Ref(self._error).resolve()
        return self._error  # type: ignore[return-value]

    # --- internals -------------------------------------------------------------------------------------

    @staticmethod
    def _key(name: str) -> str:
        return name.strip().lower() if isinstance(name, str) else ""

    def _resolve(self, entry: Entry[Any]) -> T:
        cached = self._resolved.get(entry.name)
        if cached is not None and self._entries.get(entry.name) is entry:
            return cached
        value = entry.value.resolve() if isinstance(entry.value, Ref) else entry.value
        if self._entries.get(entry.name) is entry:
            self._resolved[entry.name] = value
        return value

    def _load_and_find(self, key: str) -> Entry[T] | None:
        self._load_all()
        return self._entries.get(key)

    def _load_all(self) -> None:
        load_plugins()
        if self._imported_sources == len(self._sources):
            return
        with LOCK:  # another thread waits until every source is imported; a source's own lookups re-enter
            self._depth += 1
            try:
                while self._loaded_sources < len(self._sources):
                    module = self._sources[self._loaded_sources]
                    self._loaded_sources += 1  # counted before the import, so that a lookup inside it cannot recurse
                    with declaring_as("mcot"):  # mcot's own sources, even when a plugin's lookup imports them
                        import_module(module)
            finally:
                self._depth -= 1
            if self._depth == 0:  # the outermost load: every source is now imported whole
                self._imported_sources = self._loaded_sources

    def _unknown(self, name: str) -> str:
        close = difflib.get_close_matches(self._key(name), list(self._entries), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else "."
        return f"no {self.kind} named {name!r}{hint} Known: {self.choices()}."

    def _unknown_spec(self, spec: str, key: str, argument: str | None) -> str:
        suggestion = self._suggest(spec, key, argument)
        what = (
            f"unknown {self.kind} {key!r} in {spec!r}"
            if argument is not None
            else f"{spec!r} names no known {self.kind}"
        )
        hint = f"; did you mean {suggestion!r}?" if suggestion else "."
        return f"{what}{hint} Use one of: {self.choices()}."

    def _suggest(self, spec: str, key: str, argument: str | None) -> str | None:
        for name in sorted(self._entries, key=len, reverse=True):  # another separator: `openai/gpt-4o`
            cut = len(name)
            if key.startswith(name) and len(key) > cut and not (key[cut].isalnum() or key[cut] in "-_."):
                tail = spec[cut + 1 :].strip()
                return f"{name}:{tail}" if tail else self._entries[name].usage
        if argument is None and "/" in spec:  # `openai/gpt-image-1` for a provider named differently
            head, _, tail = spec.partition("/")
            near = difflib.get_close_matches(head.strip().lower(), self._entries, n=1, cutoff=0.6)
            if near and tail.strip() and self._entries[near[0]].takes_argument:
                return f"{near[0]}:{tail.strip()}"
        close = difflib.get_close_matches(key, self._entries, n=1, cutoff=0.85)
        if argument is None and not close:  # `procedural-broken` for `procedural:broken`
            for name in sorted(self._entries, key=len, reverse=True):
                if key.startswith(name) and key[len(name) : len(name) + 1] in ("-", "_") and len(key) > len(name) + 1:
                    return f"{name}:{spec.strip()[len(name) + 1 :]}"
        close = close or difflib.get_close_matches(key, self._entries, n=1, cutoff=0.6)
        if not close:
            return None
        entry = self._entries[close[0]]
        return f"{entry.name}:{argument}" if argument and entry.takes_argument else entry.usage


def _registry(kind: str, **options: Any) -> Registry[Any]:
    registry: Registry[Any] = Registry(kind, **options)
    ALL[kind] = registry
    return registry


ALL: dict[str, Registry[Any]] = {}
"""Every registry by its kind, for `mcot plugins` and the docs."""

BACKENDS: Registry[BackendFactory] = _registry("model provider", specs=True, error="mcot.agents.errors:ModelSpecError")
GENERATORS: Registry[GeneratorFactory] = _registry(
    "image generator", specs=True, error="mcot.agents.errors:ModelSpecError"
)
TOOLS: Registry[ToolSpec] = _registry("tool", error="mcot.tools.errors:ToolError")
TOOLSETS: Registry[Toolset] = _registry("toolset", error="mcot.tools.errors:ToolError")
BENCHMARKS: Registry[Benchmark] = _registry("benchmark")
LOADERS: Registry[Loader] = _registry("data format")
ITEM_GENERATORS: Registry[ItemGenerator] = _registry("item generator")
EXPORT_FORMATS: Registry[ExportFormat] = _registry("export format")
EXPORT_VIEWS: Registry[ExportView] = _registry("export view")
STRATEGIES: Registry[Strategy] = _registry("offline strategy")
ANSWER_FORMS: Registry[AnswerForm] = _registry("answer form")
CANVAS_OPS: Registry[OpSpec] = _registry("canvas operation", error="mcot.canvas._errors:CanvasError")
"""The canvas op table (mcot.canvas._ops declares into it; `mcot.canvas.declare_op` is its declaration API)."""
PROTOCOLS: Registry[str] = _registry("scoring protocol")
"""Scoring protocol variants (`official`, `robust`, …): the attribute a benchmark's protocol module defines."""
