"""The check that a resume changes nothing that changes results: which settings those are, and how a refusal names
each of them."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mcot.core.rundir.manifest import Manifest

ARMS = "--mode/--tools (the arms and their tools)"
PROMPTS = "the prompt templates"
_NOT_RECORDED = "<not recorded>"


def _arms_view(manifest: Manifest) -> list[tuple[Any, ...]]:
    return [(arm.name, arm.tools, arm.tool_schemas, arm.generator, arm.options) for arm in manifest.arms]


def _config(key: str) -> Callable[[Manifest], Any]:
    return lambda manifest: manifest.config.get(key, _NOT_RECORDED)


RESULT_SETTINGS: tuple[tuple[str, Callable[[Manifest], Any]], ...] = (
    ("--model", lambda m: m.model_spec),
    ("--generator", lambda m: m.generator_spec),
    ("--data (the run's items)", lambda m: m.dataset.sha256),
    (ARMS, _arms_view),
    ("--max-steps", _config("max_steps")),
    ("--temperature", _config("temperature")),
    ("--seed", _config("seed")),
    ("--n-per-prompt", _config("n_per_prompt")),
    ("max_canvas_images", _config("max_canvas_images")),
    ("max_output_tokens", _config("max_output_tokens")),
    (PROMPTS, lambda m: m.prompts),
)
"""The settings that change results, each with how a user names it and how to read it from a manifest."""


def resume_conflicts(existing: Manifest, fresh: Manifest) -> list[str]:
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


def changed_prompts(existing: Manifest, fresh: Manifest) -> list[str]:
    """Return the names of prompt templates whose hash differs (or that exist on one side only)."""
    old, new = existing.prompts, fresh.prompts
    return sorted(name for name in set(old) | set(new) if old.get(name) != new.get(name))


def changed_tool_schemas(existing: Manifest, fresh: Manifest) -> list[str]:
    """Return `arm/tool` for every tool whose schema hash differs between the two manifests."""
    old = {arm.name: arm.tool_schemas or {} for arm in existing.arms}
    changed = []
    for arm in fresh.arms:
        before = old.get(arm.name, {})
        schemas = arm.tool_schemas or {}
        changed += [f"{arm.name}/{t}" for t, sha in schemas.items() if before.get(t) not in (None, sha)]
    return changed


def _arm_words(arm: tuple[Any, ...]) -> str:
    name, tools, _, generator, options = arm
    if generator is not None:
        return f"{name} ({generator}, {json.dumps(options, sort_keys=True)})"
    return f"{name} ({len(tools or [])} tools)"
