"""`mcot plan --baseline P --effect D`: the paired items a McNemar test needs to detect a difference."""

from __future__ import annotations

import typer

from mcot.command_options import PlanOptions
from mcot.errors import UsageError
from mcot.options import validated


@validated(PlanOptions)
def run_plan(baseline: float, effect: float, discordance: float | None = None, power: float = 0.8,
             alpha: float = 0.05) -> int:  # fmt: skip
    """Print the number of paired items needed (Connor's formula) and what it assumes; return 0."""
    from mcot.eval.errors import EvalError
    from mcot.eval.stats import independent_discordance, items_needed

    if not 0 <= baseline <= 1 or not 0 <= baseline + effect <= 1:
        raise UsageError(
            f"--baseline and --baseline + --effect must be accuracies in [0, 1] (got {baseline}, {effect})"
        )
    psi = discordance if discordance is not None else independent_discordance(baseline, baseline + effect)
    try:
        n = items_needed(psi, effect, alpha=alpha, power=power)
    except EvalError as exc:
        raise UsageError(str(exc)) from exc
    except (ZeroDivisionError, OverflowError, ValueError):  # an effect too small for any finite number of items
        raise UsageError(
            f"an effect of {effect:g} is too small to plan for: no finite number of items detects it"
        ) from None
    source = "given" if discordance is not None else "if the two arms' outcomes were independent"
    typer.echo(
        f"{n} paired items detect {100 * baseline:.1f}% → {100 * (baseline + effect):.1f}% "
        f"({100 * effect:+.1f} pp) with {100 * power:.0f}% power at α = {alpha:g} (two-sided McNemar test)"
    )
    typer.echo(
        f"assumes {100 * psi:.1f}% of pairs discordant ({source}); correlated arms disagree less and need fewer "
        "items: pass --discordance from a pilot run (`mcot compare` prints its wrong→right + right→wrong)"
    )
    return 0
