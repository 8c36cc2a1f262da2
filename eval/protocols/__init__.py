"""Each benchmark's scoring protocol, one module a benchmark, and the Scorer they share (see scorer.py)."""

from mcot.eval.protocols.generic import games_protocol, generic_protocol
from mcot.eval.protocols.gepbench import gepbench_official, gepbench_robust
from mcot.eval.protocols.gobench import (
    GOBENCH_DIMENSIONS,
    gobench_official,
    gobench_robust,
    human_gobench_scores,
    official_gobench_scores,
    robust_gobench_scores,
)
from mcot.eval.protocols.omniphys import omniphys_kind, omniphys_official, omniphys_result_rule, omniphys_solution
from mcot.eval.protocols.rbench_v import exact_reading, rbench_match, rbench_v_official, rbench_v_robust
from mcot.eval.protocols.scorer import FACET_KEYS, FAILED_STATUSES, Scorer, failed_score

__all__ = [
    "FACET_KEYS",
    "FAILED_STATUSES",
    "GOBENCH_DIMENSIONS",
    "Scorer",
    "exact_reading",
    "failed_score",
    "games_protocol",
    "generic_protocol",
    "gepbench_official",
    "gepbench_robust",
    "gobench_official",
    "gobench_robust",
    "human_gobench_scores",
    "official_gobench_scores",
    "omniphys_kind",
    "omniphys_official",
    "omniphys_result_rule",
    "omniphys_solution",
    "rbench_match",
    "rbench_v_official",
    "rbench_v_robust",
    "robust_gobench_scores",
]
