"""The run manifest, RUN/manifest.json: what a run was made with, typed, read and written here only.

A manifest is written when a run starts; a resume appends a session (its start and finish times and figures)
and changes nothing else; scoring records its judge and protocol. Every object is open (`extra="allow"`) and
every field optional, so a manifest written by any earlier mcot reads, and is written back with the keys it had
(`exclude_unset`): the JSON shape is the one DESIGN.md and docs/contracts.md document.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mcot import __version__
from mcot.rundir.atomic import write_text_atomic
from mcot.rundir.clock import now_iso
from mcot.rundir.errors import RunDirError
from mcot.rundir.jsonl import json_text
from mcot.rundir.layout import MANIFEST, SCHEDULE
from mcot.rundir.schedule import ORDER


class _Entry(BaseModel):
    """An object of the manifest: known fields typed, any other key kept as it was."""

    model_config = ConfigDict(extra="allow")


class ModelEntry(_Entry):
    """`model`: the chat model's spec and endpoints (never a key; userinfo and query credentials removed)."""

    spec: str | None = None
    base_url: str | list[str] | None = None


class GeneratorEntry(_Entry):
    """`generator` (generation runs, `mcot imagine`): the image generator's spec and endpoint."""

    spec: str | None = None
    base_url: str | None = None


class ArmEntry(_Entry):
    """One of `arms`: its name, its tools and their schema hashes (chat), or its generator and options."""

    name: str
    tools: list[str] | None = None
    tool_schemas: dict[str, str] | None = None
    generator: str | None = None
    options: dict[str, Any] | None = None


class DatasetEntry(_Entry):
    """`dataset`: the items directory (images are read from it), the hashes of the frozen copy and the source."""

    path: str | None = None
    sha256: str | None = None
    source_sha256: str | None = None
    format: str | None = None
    n_items: int | None = None
    limit: int | None = None


class ScheduleEntry(_Entry):
    """`schedule`: the seed and rule of the run's order, and the file that lists it."""

    seed: int | None = None
    order: str | None = None
    file: str | None = None
    pairs: int | None = None


class SessionEntry(_Entry):
    """One of `sessions`: one invocation of a run command, its times and figures."""

    started: str | None = None
    finished: str | None = None
    concurrency: int | None = None
    mcot_version: str | None = None
    executor: dict[str, Any] | None = None
    pairs_started: int | None = None
    pairs_pending: int | None = None
    stopped: str | None = None
    cancelled: int | None = None
    concurrency_final: int | None = None
    overload_answers: int | None = None
    cost_usd: float | None = None
    max_cost_usd: float | None = None
    endpoints: dict[str, dict[str, int]] | None = None

    def record(self, figures: Mapping[str, Any]) -> None:
        """Set the session's figures (how it went) from a mapping of field names."""
        for name, value in figures.items():
            setattr(self, name, value)


class JudgeEntry(_Entry):
    """`judge`: the judge that scored the run and the hashes of its prompt templates."""

    spec: str | None = None
    template_sha256: str | None = None
    templates: dict[str, str] | None = None


class ScoringEntry(_Entry):
    """`scoring`: the protocol scores.jsonl holds, and with both protocols which file holds which."""

    protocol: str | None = None
    files: dict[str, str] | None = None
    human: dict[str, Any] | None = None
    """With `mcot score --human`: the raters, their files, and the file of the people's verdicts."""


class Manifest(_Entry):
    """RUN/manifest.json (docs/contracts.md, "Run directory details")."""

    mcot_version: str | None = None
    created: str | None = None
    command: str | None = None
    model: ModelEntry | None = None
    arms: list[ArmEntry] = Field(default_factory=list)
    modes: list[str] = Field(default_factory=list)
    solver: dict[str, Any] = Field(default_factory=dict)
    config: dict[str, Any] = Field(default_factory=dict)
    prompts: dict[str, Any] = Field(default_factory=dict)
    dataset: DatasetEntry = Field(default_factory=DatasetEntry)
    sessions: list[SessionEntry] = Field(default_factory=list)
    judge: JudgeEntry | None = None
    generator: GeneratorEntry | None = None
    schedule: ScheduleEntry | None = None
    scoring: ScoringEntry | None = None
    inference: dict[str, dict[str, Any]] | None = None
    """Per benchmark: the text arm's generation limit and how the arms with tools ask differently."""
    mcp: list[dict[str, Any]] | None = None
    """`mcot run --mcp`: per MCP server its name, command, the name and version it gave, its tools' schema hashes."""

    @property
    def model_spec(self) -> str | None:
        """Return the chat model's spec (None for a generation run or an older manifest without one)."""
        return self.model.spec if self.model is not None else None

    @property
    def generator_spec(self) -> str | None:
        """Return the image generator's spec (None for a chat run)."""
        return self.generator.spec if self.generator is not None else None

    @property
    def judge_spec(self) -> str | None:
        """Return the spec of the judge that scored the run, or None."""
        return self.judge.spec if self.judge is not None else None

    def is_generation(self) -> bool:
        """Return whether the run generated images (`mcot imagine`) rather than answered in words."""
        return self.command == "mcot imagine" or bool(self.generator_spec)

    def arm_names(self) -> list[str]:
        """Return the arm names the manifest lists (`arms[].name`, else `modes`), in its order; [] when neither."""
        return [arm.name for arm in self.arms if arm.name] or [str(mode) for mode in self.modes]

    def arm_tools(self, arm: str) -> tuple[str, ...] | None:
        """Return the tool names the manifest lists for `arm` (() for text), or None when it does not say."""
        for entry in self.arms:
            if entry.name == arm and entry.tools is not None:
                return tuple(str(tool) for tool in entry.tools)
        return () if arm == "text" else None

    def start_session(self, concurrency: int) -> SessionEntry:
        """Append a new session (this invocation) and return it."""
        session = new_session(concurrency)
        self.sessions = [*self.sessions, session]
        return session

    def record_schedule(self, seed: int, pairs: int) -> None:
        """Record the run's order: its seed, its rule, the file and how many pairs."""
        self.schedule = ScheduleEntry(seed=seed, order=ORDER, file=SCHEDULE, pairs=pairs)

    def to_json(self) -> dict[str, Any]:
        """Return the manifest as the JSON object written to RUN/manifest.json (the keys it was given or read with)."""
        return self.model_dump(mode="json", exclude_unset=True)


def order_arms(names: Iterable[str]) -> list[str]:
    """Return arm names text first, then canvas, then tools, then the others by name."""
    rank = {"text": 0, "canvas": 1, "tools": 2}
    return sorted(set(names), key=lambda name: (rank.get(name, 3), name))


def new_session(concurrency: int, started: str | None = None) -> SessionEntry:
    """Return a `sessions` entry for one invocation (`finished` is set when it ends)."""
    return SessionEntry(started=started or now_iso(), finished=None, concurrency=concurrency, mcot_version=__version__)


def build_manifest(
    *,
    model: Mapping[str, Any] | None,
    arms: list[dict[str, Any]],
    solver: dict[str, Any],
    config: dict[str, Any],
    prompts: dict[str, str],
    dataset: DatasetEntry,
    concurrency: int,
    command: str = "mcot run",
    generator: Mapping[str, Any] | None = None,
) -> Manifest:
    """Return the manifest of a new run (DESIGN.md's fields; never an API key).

    A chat run names its `model`; a generation run (`mcot imagine`) its `generator` instead.
    """
    started = now_iso()
    fields: dict[str, Any] = {
        "mcot_version": __version__,
        "created": started,
        "command": command,
        "model": ModelEntry.model_validate(model) if model is not None else None,
        "arms": [ArmEntry.model_validate(arm) for arm in arms],
        "modes": [arm["name"] for arm in arms],
        "solver": solver,
        "config": config,
        "prompts": prompts,
        "dataset": dataset,
        "sessions": [new_session(concurrency, started)],
        "judge": None,
    }
    if generator is not None:
        fields["generator"] = GeneratorEntry.model_validate(generator)
    return Manifest(**fields)


def parse_manifest(data: object, where: str) -> Manifest:
    """Return the Manifest of a parsed manifest.json; raise RunDirError (one line naming `where`) when it is not one."""
    if not isinstance(data, dict):
        raise RunDirError(f"{where} is not a run manifest (a JSON object)")
    try:
        return Manifest.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        at = ".".join(str(part) for part in first.get("loc", ())) or "the manifest"
        raise RunDirError(f"{where} is not a run manifest mcot can read ({at}: {first.get('msg')})") from None


def read_manifest(root: Path) -> Manifest:
    """Return RUN/manifest.json; raise RunDirError when `root` is not a run directory or the manifest is malformed."""
    path = Path(root) / MANIFEST
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        raise RunDirError(f"{root} is not a run directory: {MANIFEST} is missing (make one with `mcot run`)") from None
    except OSError as exc:
        raise RunDirError(f"{path} cannot be read ({exc.strerror or exc})") from None
    try:
        data = json.loads(text)
    except (UnicodeDecodeError, ValueError) as exc:
        why = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
        raise RunDirError(f"{path} is not valid JSON ({why})") from None
    return parse_manifest(data, str(path))


def write_manifest(root: Path, manifest: Manifest) -> Path:
    """Write RUN/manifest.json atomically (indented JSON, line separators escaped); return its path."""
    return write_text_atomic(Path(root) / MANIFEST, json_text(manifest.to_json()))
