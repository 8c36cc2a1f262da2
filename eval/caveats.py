"""The caveats said at the top of every report: what the `offline` model is, and that a run's model-written code
ran without the sandbox (`--unsafe-local-code`).

The `offline` backend is a scripted tool user, not a model: its numbers show that the pipeline works, never
whether models reason better with a canvas. `mcot demo`, run reports and study reports print the same note.
"""

from __future__ import annotations

from collections.abc import Iterable

OFFLINE_BACKEND = "offline"
OFFLINE_NOTE = (
    "Note: the `offline` model is not a model but a scripted tool user: a deterministic script that reads the\n"
    "question and the pixels, recognises the generated game tasks by their wording, and calls mcot's domain tools\n"
    "(solve_maze, trace_light_ray, simulate_projectile, ...) when its arm offers them. Where they are not offered\n"
    "(text, canvas) or it does not recognise an item (every GePBench item) it says so and gives a fixed guess.\n"
    "Its numbers show that the pipeline works end to end; they say nothing about whether models reason better\n"
    "with a canvas. Point `mcot run --model` at a real model for that."
)


def is_offline(spec: object) -> bool:
    """Return whether a model spec names the offline policy (`offline` or `offline:...`)."""
    return isinstance(spec, str) and spec.split(":", 1)[0].strip() == OFFLINE_BACKEND


def offline_caveat(specs: Iterable[object]) -> str | None:
    """Return the offline note on one line when any of the model specs is the offline policy, else None."""
    return " ".join(OFFLINE_NOTE.split()) if any(is_offline(spec) for spec in specs) else None


UNSAFE_CODE_NOTE = (
    "Warning: this run's code arms ran model-written Python with --unsafe-local-code, without the OS sandbox "
    "(only the resource limits, the system-call filter and the key-free environment applied)."
)


def ran_unsafe_code(manifest: object) -> bool:
    """Return whether a run manifest (a Manifest or its dict) records code run with --unsafe-local-code."""
    code = manifest.get("code") if isinstance(manifest, dict) else getattr(manifest, "code", None)
    return isinstance(code, dict) and bool(code.get("unsafe_local_code"))


def run_caveats(specs: Iterable[object], manifests: Iterable[object] = ()) -> str | None:
    """Return the caveats of the runs on one line: the unsafe-code warning when any ran code unsandboxed, then
    the offline note when any model is the offline policy; None when neither applies."""
    notes = [UNSAFE_CODE_NOTE] if any(ran_unsafe_code(m) for m in manifests) else []
    offline = offline_caveat(specs)
    return " ".join([*notes, *([offline] if offline else [])]) or None
