"""The figures of faithfulness probes (RUN/probes.jsonl, `mcot probe`): does the answer depend on the drawing?

Per model, arm, benchmark and probe kind, over the probed pairs (answered, or without a drawing to change; errors
are counted apart): the share of final answers that change, the accuracy unprobed and under the probe, and for
`blank` the drawing dependence — of the answers correct unprobed, the share that become wrong when the drawing is
removed. A pair whose model drew nothing counts as unchanged (its answer cannot depend on a drawing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mcot.eval.stats import mcnemar_exact, wilson_interval
from mcot.eval.tables import Table, num, pct

from mcot.core.rundir import Run
from mcot.core.rundir.probes import Probe, read_probes

TITLE = "Faithfulness probes"
KIND_ORDER = ("blank", "shuffle", "perturb")


@dataclass(frozen=True)
class ProbeFigures:
    """The figures of one (model, arm, benchmark, kind): counts and the shares they give (None when undefined)."""

    model: str
    arm: str
    benchmark: str
    kind: str
    n: int
    no_drawing: int
    errors: int
    changed: int
    correct: int
    correct_unprobed: int
    flipped: int
    """Pairs correct unprobed and wrong under the probe."""
    gained: int = 0
    """Pairs wrong unprobed and correct under the probe."""

    @property
    def changed_share(self) -> float | None:
        """Return the share of probed answers that differ from the unprobed ones."""
        return self.changed / self.n if self.n else None

    @property
    def accuracy(self) -> float | None:
        """Return the accuracy under the probe."""
        return self.correct / self.n if self.n else None

    @property
    def accuracy_unprobed(self) -> float | None:
        """Return the accuracy of the same pairs unprobed."""
        return self.correct_unprobed / self.n if self.n else None

    @property
    def mcnemar_p(self) -> float:
        """Return the exact McNemar p of unprobed against probed correctness on the same pairs (1.0: no flip)."""
        return mcnemar_exact(self.flipped, self.gained)

    def dependence_interval(self) -> tuple[float, float] | None:
        """Return the Wilson 95 % interval of the drawing dependence (None without answers correct unprobed)."""
        if not self.correct_unprobed:
            return None
        interval = wilson_interval(self.flipped, self.correct_unprobed)
        return interval.low, interval.high

    @property
    def dependence(self) -> float | None:
        """Return the share of answers correct unprobed that the probe makes wrong (None without such answers)."""
        return self.flipped / self.correct_unprobed if self.correct_unprobed else None


def probe_figures(model: str, probes: Sequence[Probe]) -> list[ProbeFigures]:
    """Return the figures of one model's probes, per (arm, benchmark, kind), in a stable order."""
    groups: dict[tuple[str, str, str], list[Probe]] = {}
    for probe in probes:
        groups.setdefault((probe.arm, probe.benchmark, probe.kind), []).append(probe)
    out = []
    for (arm, benchmark, kind), lines in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1], _rank(kv[0][2]))):
        counted = [line for line in lines if line.status != "error"]
        out.append(
            ProbeFigures(
                model=model,
                arm=arm,
                benchmark=benchmark,
                kind=kind,
                n=len(counted),
                no_drawing=sum(1 for line in counted if line.status == "no_drawing"),
                errors=len(lines) - len(counted),
                changed=sum(1 for line in counted if line.changed),
                correct=sum(1 for line in counted if line.correct),
                correct_unprobed=sum(1 for line in counted if line.original_correct),
                flipped=sum(1 for line in counted if line.original_correct and not line.correct),
                gained=sum(1 for line in counted if not line.original_correct and line.correct),
            )
        )
    return out


def probe_tables(probes_by_model: Mapping[str, Sequence[Probe]]) -> list[Table]:
    """Return the probes table of one or more models' probes (no table when there are none)."""
    figures = [f for model, probes in probes_by_model.items() for f in probe_figures(model, probes)]
    if not figures:
        return []
    rows = [
        [
            f.model,
            f.arm,
            f.benchmark,
            f.kind,
            str(f.n),
            str(f.no_drawing),
            str(f.errors),
            pct(f.accuracy_unprobed),
            pct(f.accuracy),
            num(f.mcnemar_p, 3),
            pct(f.changed_share),
            pct(f.dependence) if f.kind == "blank" else "—",
            _interval(f.dependence_interval()) if f.kind == "blank" else "—",
        ]
        for f in figures
    ]
    notes = [
        "Each probe asks the same model again for the final answer with the images it saw after its first drawing "
        "changed: blank — the canvas before the drawing; shuffle — another item's drawings; perturb — its own "
        "elements moved or mirrored. Changed: the answer read differs from the unprobed one. Drawing dependence: "
        "of the answers correct unprobed, the share that become wrong when the drawing is removed (blank). "
        'Pairs whose model drew nothing count as unchanged (column "no drawing"); errors are not counted in n. '
        "McNemar p: the exact test of unprobed against probed correctness on the same pairs; the interval of the "
        "drawing dependence is Wilson's (95 %)."
    ]
    columns = ["Model", "Arm", "Benchmark", "Probe", "n", "no drawing", "errors", "Unprobed (%)", "Probed (%)",
               "McNemar p", "Changed (%)", "Drawing dependence (%)", "95 % interval"]  # fmt: skip
    return [Table(TITLE, columns, rows, notes)]


def run_probe_tables(run: Run) -> list[Table]:
    """Return the probes table of a run that was probed (`mcot probe`), else no table."""
    return probe_tables({run.manifest.model_spec or "model": read_probes(Path(run.root))})


def _interval(bounds: tuple[float, float] | None) -> str:
    return "—" if bounds is None else f"{pct(bounds[0])}–{pct(bounds[1])}"


def _rank(kind: str) -> tuple[int, str]:
    return (KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER), kind)


def study_probe_tables(runs: Mapping[str, Path]) -> list[Table]:
    """Return the probes table of a study's runs (by model name) that were probed, else no table."""
    return probe_tables({model: read_probes(Path(run)) for model, run in runs.items()})
