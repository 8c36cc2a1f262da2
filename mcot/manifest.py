"""The run manifest: what a run was made with, and the check that a resume changes none of it.

A manifest is written once when a run starts. A resume appends a session (its start and finish times) and
changes nothing else; a resume whose settings would change results is refused with the setting named.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcot import __version__
from mcot.eval.rundir import now_iso


@dataclass(frozen=True)
class DatasetInfo:
    """The run's items: where they came from, their hashes, how many, and the limit applied."""

    path: Path
    sha256: str
    source_sha256: str
    n_items: int
    limit: int | None

    def manifest_entry(self) -> dict[str, Any]:
        """Return the manifest's `dataset` object."""
        return {
            "path": str(self.path),
            "sha256": self.sha256,
            "source_sha256": self.source_sha256,
            "format": "items",
            "n_items": self.n_items,
            "limit": self.limit,
        }


def build_manifest(
    *,
    model: dict[str, Any] | None,
    arms: list[dict[str, Any]],
    solver: dict[str, Any],
    config: dict[str, Any],
    prompts: dict[str, str],
    dataset: DatasetInfo,
    concurrency: int,
    command: str = "mcot run",
    generator: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Return the manifest of a new run (DESIGN.md's fields; never an API key).

    A chat run names its `model`; a generation run (`mcot imagine`) its `generator` instead.
    """
    started = now_iso()
    manifest = {
        "mcot_version": __version__,
        "created": started,
        "command": command,
        "model": model,
        "arms": arms,
        "modes": [arm["name"] for arm in arms],
        "solver": solver,
        "config": config,
        "prompts": prompts,
        "dataset": dataset.manifest_entry(),
        "sessions": [new_session(concurrency, started)],
        "judge": None,
    }
    if generator is not None:
        manifest["generator"] = generator
    return manifest


def new_session(concurrency: int, started: str | None = None) -> dict[str, Any]:
    """Return a `sessions` entry for one `mcot run` invocation (finished is set when it ends)."""
    return {"started": started or now_iso(), "finished": None, "concurrency": concurrency, "mcot_version": __version__}


def _arms_view(manifest: dict[str, Any]) -> list[tuple[Any, ...]]:
    keys = ("name", "tools", "tool_schemas", "generator", "options")
    return [tuple(arm.get(key) for key in keys) for arm in manifest.get("arms") or []]


def _config(key: str) -> Callable[[dict[str, Any]], Any]:
    return lambda manifest: (manifest.get("config") or {}).get(key, "<not recorded>")


ARMS = "--mode/--tools (the arms and their tools)"
PROMPTS = "the prompt templates"
RESULT_SETTINGS: tuple[tuple[str, Callable[[dict[str, Any]], Any]], ...] = (
    ("--model", lambda m: (m.get("model") or {}).get("spec")),
    ("--generator", lambda m: (m.get("generator") or {}).get("spec")),
    ("--data (the run's items)", lambda m: (m.get("dataset") or {}).get("sha256")),
    (ARMS, _arms_view),
    ("--max-steps", _config("max_steps")),
    ("--temperature", _config("temperature")),
    ("--seed", _config("seed")),
    ("--n-per-prompt", _config("n_per_prompt")),
    ("max_canvas_images", _config("max_canvas_images")),
    ("max_output_tokens", _config("max_output_tokens")),
    (PROMPTS, lambda m: m.get("prompts")),
)
"""The settings that change results, each with how a user names it and how to read it from a manifest."""


def resume_conflicts(existing: dict[str, Any], fresh: dict[str, Any]) -> list[str]:
    """Return one line per result-changing setting that differs between a run's manifest and a resume."""
    lines = []
    for label, read in RESULT_SETTINGS:
        old, new = read(existing), read(fresh)
        if old == new:
            continue
        if label == PROMPTS:
            lines.append(f"{label}: changed since the run ({', '.join(changed_prompts(existing, fresh))})")
        elif label == ARMS and [a[:2] + a[3:] for a in old] == [a[:2] + a[3:] for a in new]:
            changed = ", ".join(changed_tool_schemas(existing, fresh))
            lines.append(f"{label}: a tool's schema changed since the run ({changed})")
        else:
            lines.append(f"{label}: {_describe(label, old)} in the run, {_describe(label, new)} now")
    return lines


def _describe(label: str, value: Any) -> str:
    if label == ARMS:
        return ", ".join(_arm_words(arm) for arm in value) or "none"
    if isinstance(value, str) and len(value) == 64:
        return value[:12] + "…"
    return repr(value)


def changed_prompts(existing: dict[str, Any], fresh: dict[str, Any]) -> list[str]:
    """Return the names of prompt templates whose hash differs (or that exist on one side only)."""
    old, new = existing.get("prompts") or {}, fresh.get("prompts") or {}
    return sorted(name for name in set(old) | set(new) if old.get(name) != new.get(name))


def changed_tool_schemas(existing: dict[str, Any], fresh: dict[str, Any]) -> list[str]:
    """Return `arm/tool` for every tool whose schema hash differs between the two manifests."""
    old = {a.get("name"): a.get("tool_schemas") or {} for a in existing.get("arms") or []}
    changed = []
    for arm in fresh.get("arms") or []:
        before = old.get(arm["name"], {})
        changed += [f"{arm['name']}/{t}" for t, sha in arm["tool_schemas"].items() if before.get(t) not in (None, sha)]
    return changed


def _arm_words(arm: tuple[Any, ...]) -> str:
    name, tools, _, generator, options = arm
    if generator is not None:
        return f"{name} ({generator}, {json.dumps(options, sort_keys=True)})"
    return f"{name} ({len(tools or [])} tools)"
