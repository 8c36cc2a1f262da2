"""The visual trace of one solve: one Step per model turn, tool call and canvas observation.

A Step serialises to one line of `RUN/traces/<id>.<mode>.jsonl` in the format of docs/contracts.md.
Images appear as blob paths only; their bytes live in the run's BlobStore. `Trace.ops()` gives the canvas
operations in order, which is all `Canvas.replay` needs to rebuild every snapshot byte for byte.

A model step records `sampling`, the sampling fields its request sent (`{"temperature": 0.0, "seed": 7}`;
keys the backend does not send are left out). A tool step records `drawn_by`: "model" for a canvas
operation the model issued itself, "tool" for any other tool (geometry a domain tool drew with `draw=true`).
A model step also records `request_key` (the sha256 key of its request, `mcot.agents.cache.request_key`),
`request_parts` (the key's parts as short digests, to tell what changed between two runs), `cached` (True when
the response cache served it: its tokens were not paid) and `tool_calls_in_text` (the calls were parsed from
the text). Old traces lack these fields; `replay:RUN` needs them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from mcot.benchmarks.files import write_text_atomic

StepKind = Literal["model", "tool", "observation"]
DrawnBy = Literal["model", "tool"]
_COMMON = ("step", "kind", "text", "tool", "arguments", "result", "error", "image", "svg", "changed", "usage", "t")
_EXTRA: dict[str, tuple[str, ...]] = {
    "model": (
        "tool_calls",
        "latency_s",
        "retries",
        "sampling",
        "request_key",
        "request_parts",
        "cached",
        "tool_calls_in_text",
    ),
    "tool": ("drawn_by", "ops", "data"),
    "observation": ("seen",),
}


@dataclass
class Step:
    """One trace line; fields that do not apply to a kind stay None (or empty)."""

    step: int
    kind: StepKind
    t: float
    text: str | None = None
    tool: str | None = None
    arguments: dict[str, Any] | str | None = None
    result: str | None = None
    error: str | None = None
    image: str | None = None
    svg: str | None = None
    changed: list[str] = field(default_factory=list)
    usage: dict[str, int] | None = None
    tool_calls: list[dict[str, Any]] | None = None
    latency_s: float | None = None
    retries: list[dict[str, Any]] | None = None
    sampling: dict[str, Any] | None = None
    request_key: str | None = None
    request_parts: dict[str, str] | None = None
    cached: bool | None = None
    tool_calls_in_text: bool | None = None
    drawn_by: DrawnBy | None = None
    ops: list[dict[str, Any]] | None = None
    data: dict[str, Any] | None = None
    seen: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the step as the JSON object of one trace line (common fields, then its kind's)."""
        return {name: getattr(self, name) for name in (*_COMMON, *_EXTRA[self.kind])}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Step:
        """Return a Step from one parsed trace line (unknown keys are ignored)."""
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["changed"] = known.get("changed") or []
        return cls(**known)


@dataclass
class Trace:
    """The ordered steps of one (item, mode) solve."""

    steps: list[Step] = field(default_factory=list)

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    def __len__(self) -> int:
        return len(self.steps)

    def to_lines(self) -> list[str]:
        """Return one JSON line per step (no trailing newlines)."""
        return [json.dumps(step.to_dict(), ensure_ascii=False, default=str) for step in self.steps]

    def write_jsonl(self, path: Path | str) -> Path:
        """Write the trace as JSON lines atomically, with the umask's mode; return the path."""
        return write_text_atomic(Path(path), "".join(line + "\n" for line in self.to_lines()))

    @classmethod
    def read_jsonl(cls, path: Path | str) -> Trace:
        """Return the trace stored in a JSON-lines file."""
        with Path(path).open(encoding="utf-8") as handle:
            return cls([Step.from_dict(json.loads(line)) for line in handle if line.strip()])

    def ops(self, upto: int | None = None) -> list[dict[str, Any]]:
        """Return the canvas op records of the tool steps before line `upto` (all when None), in order."""
        out: list[dict[str, Any]] = []
        for step in self.steps[:upto]:
            if step.kind == "tool" and step.ops:
                out.extend(step.ops)
        return out

    def of_kind(self, kind: StepKind) -> list[Step]:
        """Return the steps of one kind."""
        return [s for s in self.steps if s.kind == kind]


class Recorder:
    """Builds a Trace while a solve runs; `t` of each step is seconds since the recorder started."""

    def __init__(self) -> None:
        self.trace = Trace()
        self._t0 = time.perf_counter()

    def elapsed(self) -> float:
        """Return seconds since the recorder started."""
        return time.perf_counter() - self._t0

    def add(self, kind: StepKind, **fields: Any) -> Step:
        """Append a step of `kind` with the given fields; return it."""
        step = Step(step=len(self.trace.steps), kind=kind, t=round(self.elapsed(), 4), **fields)
        self.trace.steps.append(step)
        return step
