"""Scoring for mcot: answer extraction, matching, judges, each benchmark's protocols and tables, statistics, reports.

The public surface is re-exported here; docs/scoring.md describes each protocol. A benchmark's declaration
(`mcot.declare_benchmark`) names its protocol module (`official`, `robust`, `tables`, `verifier`:
mcot.eval.protocols), which `scoring_spec` (mcot.eval.registry) reads; its tables are built from mcot.eval.tables.
Names are imported on first use, so that `import mcot.eval` does not load numpy and every protocol; the
run-directory names (`Run`, `Score`, …) are those of `mcot.core.rundir`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcot.core.lazy import lazy_exports

_EXPORTS = {
    "advice": "mcot.eval.advice",
    "Comparison": "mcot.eval.compare",
    "compare_runs": "mcot.eval.compare",
    "EvalError": "mcot.eval.errors",
    "JudgeError": "mcot.eval.errors",
    "TemplateError": "mcot.eval.errors",
    "extract_boxed": "mcot.eval.extract",
    "extract_choice": "mcot.eval.extract",
    "extract_json": "mcot.eval.extract",
    "extract_rating": "mcot.eval.extract",
    "extract_yes_no_answers": "mcot.eval.extract",
    "JudgeCache": "mcot.eval.judges",
    "JudgeModel": "mcot.eval.judges",
    "JudgeReply": "mcot.eval.judges",
    "Template": "mcot.eval.judges",
    "ask_judge": "mcot.eval.judges",
    "load_templates": "mcot.eval.judges",
    "Match": "mcot.eval.match",
    "match_answer": "mcot.eval.match",
    "parse_number": "mcot.eval.match",
    "parse_quantity": "mcot.eval.match",
    "Table": "mcot.eval.tables",
    "tally": "mcot.eval.tables",
    "benchmark_tables": "mcot.eval.report",
    "micro_mean": "mcot.eval.tables",
    "scaled_proximity_score": "mcot.eval.proximity",
    "Scorer": "mcot.eval.protocols",
    "ScoringSpec": "mcot.eval.registry",
    "scoring_spec": "mcot.eval.registry",
    "build_report": "mcot.eval.report",
    "write_report": "mcot.eval.report",
    "Run": "mcot.core.rundir",
    "Score": "mcot.core.rundir",
    "check_frozen_items": "mcot.core.rundir",
    "open_run": "mcot.core.rundir",
    "read_scores": "mcot.core.rundir",
    "write_scores": "mcot.core.rundir",
    "ScoreSummary": "mcot.eval.scoring",
    "score_pair": "mcot.eval.scoring",
    "score_run": "mcot.eval.scoring",
    "mcnemar_exact": "mcot.eval.stats",
    "paired_bootstrap": "mcot.eval.stats",
    "plcc": "mcot.eval.stats",
    "srcc": "mcot.eval.stats",
    "wilson_interval": "mcot.eval.stats",
    "TraceVerdict": "mcot.eval.verify",
    "verify_trace": "mcot.eval.verify",
}

if TYPE_CHECKING:
    from mcot.eval.advice import advice
    from mcot.eval.compare import Comparison, compare_runs
    from mcot.eval.errors import EvalError, JudgeError, TemplateError
    from mcot.eval.extract import (
        extract_boxed,
        extract_choice,
        extract_json,
        extract_rating,
        extract_yes_no_answers,
    )
    from mcot.eval.judges import JudgeCache, JudgeModel, JudgeReply, Template, ask_judge, load_templates
    from mcot.eval.match import Match, match_answer, parse_number, parse_quantity
    from mcot.eval.protocols import Scorer
    from mcot.eval.proximity import scaled_proximity_score
    from mcot.eval.registry import ScoringSpec, scoring_spec
    from mcot.eval.report import benchmark_tables, build_report, write_report
    from mcot.eval.scoring import ScoreSummary, score_pair, score_run
    from mcot.eval.stats import mcnemar_exact, paired_bootstrap, plcc, srcc, wilson_interval
    from mcot.eval.tables import Table, micro_mean, tally
    from mcot.eval.verify import TraceVerdict, verify_trace

    from mcot.core.rundir import Run, Score, check_frozen_items, open_run, read_scores, write_scores



__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


__all__ = [
    "Comparison",
    "EvalError",
    "JudgeCache",
    "JudgeError",
    "JudgeModel",
    "JudgeReply",
    "Match",
    "Run",
    "Score",
    "ScoreSummary",
    "Scorer",
    "ScoringSpec",
    "Table",
    "Template",
    "TemplateError",
    "TraceVerdict",
    "advice",
    "ask_judge",
    "benchmark_tables",
    "build_report",
    "check_frozen_items",
    "compare_runs",
    "extract_boxed",
    "extract_choice",
    "extract_json",
    "extract_rating",
    "extract_yes_no_answers",
    "load_templates",
    "match_answer",
    "mcnemar_exact",
    "micro_mean",
    "open_run",
    "paired_bootstrap",
    "parse_number",
    "parse_quantity",
    "plcc",
    "read_scores",
    "scaled_proximity_score",
    "score_pair",
    "score_run",
    "scoring_spec",
    "srcc",
    "tally",
    "verify_trace",
    "wilson_interval",
    "write_report",
    "write_scores",
]
