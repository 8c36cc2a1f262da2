"""Each benchmark's scoring, one module a benchmark with fixed names, and the Scorer they share (see scorer.py).

`rbench_v`, `gepbench`, `gobench`, `omniphys`, `games` and `generic` (the fallback for unregistered benchmarks)
each hold exactly the names of mcot.eval.registry.MODULE_NAMES: `official` (the benchmark's published scoring,
the default), `robust` (mcot's own extraction and matching; None where the benchmark has one protocol),
`tables` (its report tables), `verifier` (its trace verifier, or None) and `headline` (the metrics the report
and the study lead with, mcot.eval.headline.Metric). A declaration names the module
(`ScoringSpec.from_module("mcot.eval.protocols.rbench_v")`); a plugin's protocol module has the same shape. A
protocol is `(scorer, item, text, result) -> Score` (`ScoringProtocol`): it returns the pair's decided score.
"""

from mcot.eval.protocols.scorer import FACET_KEYS, FAILED_STATUSES, Scorer, ScoringProtocol, failed_score

__all__ = ["FACET_KEYS", "FAILED_STATUSES", "Scorer", "ScoringProtocol", "failed_score"]
