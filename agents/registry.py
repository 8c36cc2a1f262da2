"""A small registry of named factories (provider name → factory) that reads `provider:argument` specs.

Model backends register in one (`mcot.agents.backends`); image generators (a later issue) will use another
instance. An unknown spec is answered with a did-you-mean: `openai/gpt-4o` suggests `openai:gpt-4o`, a
misspelt provider the close one, and the message always lists the known providers.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Registered(Generic[T]):
    """One registered provider: its name, factory, usage (`openai:MODEL`, or `offline`) and one line of help."""

    name: str
    factory: T
    usage: str
    help: str = ""

    @property
    def takes_argument(self) -> bool:
        """Return whether the spec must carry an argument after the colon (the usage shows one)."""
        return ":" in self.usage


class Registry(Generic[T]):
    """Provider name → factory, registered once each; `parse(spec)` finds the entry a spec names.

    `kind` names what is registered, in messages ("model provider"); `error` is the exception type raised for
    an unknown or incomplete spec (its message says what would work instead).
    """

    def __init__(self, kind: str, *, error: type[Exception] = LookupError) -> None:
        self.kind = kind
        self.error = error
        self._entries: dict[str, Registered[T]] = {}

    def register(
        self, name: str, factory: T, *, usage: str | None = None, help: str = "", replace: bool = False
    ) -> None:
        """Register `factory` under the provider `name`; raise ValueError if the name is taken (unless `replace`)."""
        key = name.strip().lower()
        if not key or ":" in key:
            raise ValueError(f"a {self.kind} name must be non-empty and without ':', got {name!r}")
        if key in self._entries and not replace:
            raise ValueError(f"a {self.kind} named {key!r} is already registered")
        self._entries[key] = Registered(key, factory, usage or f"{key}:NAME", help)

    def unregister(self, name: str) -> None:
        """Remove a provider (no error when it is not registered)."""
        self._entries.pop(name.strip().lower(), None)

    def names(self) -> tuple[str, ...]:
        """Return the registered provider names in registration order."""
        return tuple(self._entries)

    def entries(self) -> tuple[Registered[T], ...]:
        """Return the registered entries in registration order."""
        return tuple(self._entries.values())

    def usage(self) -> str:
        """Return the known spec forms as one line, e.g. `offline, scripted:FILE.json or openai:MODEL`."""
        forms = [entry.usage for entry in self._entries.values()]
        if len(forms) < 2:
            return forms[0] if forms else "(none registered)"
        return ", ".join(forms[:-1]) + " or " + forms[-1]

    def parse(self, spec: str) -> tuple[Registered[T], str]:
        """Return (entry, argument) for a `provider:argument` spec; raise `error` saying what would work."""
        text = spec.strip()
        if not text:
            raise self.error(f"an empty spec names no {self.kind}; use {self.usage()}")
        provider, colon, argument = text.partition(":")
        key = provider.strip().lower()
        entry = self._entries.get(key)
        if entry is None:
            raise self.error(self._unknown(text, key, argument.strip() if colon else None))
        argument = argument.strip()
        if entry.takes_argument and not argument:
            raise self.error(f"{spec!r} needs something after the colon: use {entry.usage}")
        return entry, argument

    def _unknown(self, spec: str, key: str, argument: str | None) -> str:
        suggestion = self._suggest(spec, key, argument)
        what = (
            f"unknown {self.kind} {key!r} in {spec!r}"
            if argument is not None
            else f"{spec!r} names no known {self.kind}"
        )
        hint = f"; did you mean {suggestion!r}?" if suggestion else "."
        return f"{what}{hint} Use one of: {self.usage()}."

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
        close = difflib.get_close_matches(key, self._entries, n=1, cutoff=0.6)
        if not close:
            return None
        entry = self._entries[close[0]]
        return f"{entry.name}:{argument}" if argument and entry.takes_argument else entry.usage
