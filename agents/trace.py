"""The recorder that builds a solve's trace, one Step per model turn, tool call and canvas observation.

The trace types (`Step`, `Trace`) and the trace files belong to the run directory (`mcot.core.rundir.traces`, which
says what each field means); the recorder only times and numbers the steps as a solve makes them.
"""

from __future__ import annotations

import time
from typing import Any

from mcot.core.rundir.traces import Step, StepKind, Trace


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
