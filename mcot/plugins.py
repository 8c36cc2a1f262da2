"""Plugins: declarations from outside mcot's tree, found through the entry-point group `mcot.plugins`.

A plugin is an installed package whose metadata names, in the group `mcot.plugins`, a module that declares
things when imported (`arith = "arith_plugin.declare"`) or a callable that declares them when called with no
arguments (`arith = "arith_plugin:declare"`), through the public declaration API (`mcot.declare_benchmark`,
`mcot.tool`, `mcot.declare_backend`, …). mcot's own declarations (`mcot.builtin`) are loaded the same way, first.

Loading is lazy: a registry loads the plugins the first time it is listed or misses a name (`mcot --help` loads
none). A plugin that fails to load — any exception, `SystemExit` included — is named in one line on stderr,
once per process, and left out; nothing else stops. A plugin's declaration of a name that mcot or another plugin
already holds (in any registry: tools, toolsets, canvas ops, protocols, backends, formats, …) is refused by name in
one line, and the rest of the plugin still loads. A plugin whose import takes over `SLOW_S` seconds is named.
`plugin_errors()` lists what failed or was refused, for `mcot plugins`.

Loading is safe from any thread: `LOCK` is held for the whole load, so a second thread waits for the first and
never sees a half-filled registry; the registries and the canvas op table load their own sources under it too.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

GROUP = "mcot.plugins"
BUILTIN = "mcot.builtin"


@dataclass(frozen=True)
class PluginFailure:
    """A plugin that could not be loaded, or one declaration of it that was refused: its entry-point name, what
    it points at, and why (one line). `partial` is True for a refused declaration (the rest of the plugin loaded)."""

    name: str
    target: str
    reason: str
    partial: bool = False

    def line(self) -> str:
        """Return the failure as the one line mcot prints."""
        if self.partial:
            return f"mcot: plugin {self.name!r} ({self.target}): {self.reason}"
        return f"mcot: plugin {self.name!r} ({self.target}) was not loaded: {self.reason}"


@dataclass(frozen=True)
class LoadedPlugin:
    """A plugin that loaded: its entry-point name, what it points at, and its distribution."""

    name: str
    target: str
    distribution: str


SLOW_S = 1.0
"""A plugin whose import takes longer than this many seconds is named on stderr (it slows every command)."""

LOCK = threading.RLock()
"""Held while declarations load (plugins, registry sources, the canvas op table): one lock, so no two can deadlock."""

_clock = time.perf_counter
_state = {"loaded": False, "loading": False}
_origin: list[str] = []
_failures: list[PluginFailure] = []
_loaded: list[LoadedPlugin] = []
_targets: dict[str, str] = {}


def current_origin() -> str:
    """Return who is declaring right now: a plugin's entry-point name, else "mcot"."""
    return _origin[-1] if _origin else "mcot"


@contextmanager
def declaring_as(origin: str) -> Iterator[None]:
    """Attribute the declarations made inside the block to `origin` (a plugin's name)."""
    _origin.append(origin)
    try:
        yield
    finally:
        _origin.pop()


def load_plugins() -> None:
    """Load mcot's built-in declarations and every installed plugin, once per process; returns nothing.

    Re-entrant: a plugin's own lookups while it loads see what is declared so far.
    """
    if _state["loaded"]:
        return
    with LOCK:  # another thread waits here until the table is whole; the loading thread itself re-enters
        if _state["loaded"] or _state["loading"]:
            return
        _state["loading"] = True
        try:
            import_module(BUILTIN)
            for entry_point in _entry_points():
                _load_one(entry_point)
        finally:
            _state["loading"] = False
            _state["loaded"] = True


def _entry_points() -> list[EntryPoint]:
    from importlib.metadata import entry_points

    seen: set[tuple[str, str]] = set()
    found = []
    for entry_point in sorted(entry_points(group=GROUP), key=lambda ep: ep.name):
        key = (entry_point.name, entry_point.value)
        if key not in seen:  # an editable and a regular install of one plugin show the same entry twice
            seen.add(key)
            found.append(entry_point)
    return found


def _load_one(entry_point: EntryPoint) -> None:
    name, target = entry_point.name, entry_point.value
    _targets[name] = target
    started = _clock()
    try:
        with declaring_as(name):
            value = entry_point.load()
            if callable(value) and not isinstance(value, ModuleType):
                value()
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit too: a broken plugin is named and left out; it never stops mcot
        _report(PluginFailure(name, target, _one_line(f"{type(exc).__name__}: {exc}")))
        return
    finally:
        took = _clock() - started
        if took > SLOW_S:
            print(f"mcot: plugin {name!r} ({target}) took {took:.1f} s to load; every mcot command waits for it",
                  file=sys.stderr)  # fmt: skip
    dist = getattr(getattr(entry_point, "dist", None), "name", "") or ""
    _loaded.append(LoadedPlugin(name, target, str(dist)))


def refuse(kind: str, name: str, holder: str) -> None:
    """Name a plugin's declaration of a taken `name` in one line and record it (the rest of the plugin loads)."""
    plugin = current_origin()
    who = "mcot" if holder == "mcot" else f"plugin {holder!r}"
    reason = f"its {kind} {name!r} was refused: {who} already holds that name (the rest of the plugin loads)"
    _report(PluginFailure(plugin, _targets.get(plugin, plugin), reason, partial=True))


def _report(failure: PluginFailure) -> None:
    _failures.append(failure)
    print(failure.line(), file=sys.stderr)


def _one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def plugin_errors() -> tuple[PluginFailure, ...]:
    """Return the plugins that failed to load in this process (after loading them)."""
    load_plugins()
    return tuple(_failures)


def loaded_plugins() -> tuple[LoadedPlugin, ...]:
    """Return the plugins that loaded in this process (after loading them)."""
    load_plugins()
    return tuple(_loaded)
