"""Scoring for mcot: answer extraction, matching, judges, benchmark metrics, statistics, trace verifiers, reports.

The public surface is re-exported here; docs/scoring.md describes each protocol. A benchmark plugs its
protocol, report tables and trace verifier in through `register_scoring` (eval.registry). Names are imported
on first use, so that `import eval.rundir` (what `mcot run` needs) does not load numpy and every protocol.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "advice": "eval.advice",
    "Comparison": "eval.compare",
    "compare_runs": "eval.compare",
    "EvalError": "eval.errors",
    "JudgeError": "eval.errors",
    "TemplateError": "eval.errors",
    "extract_boxed": "eval.extract",
    "extract_choice": "eval.extract",
    "extract_json": "eval.extract",
    "extract_rating": "eval.extract",
    "extract_yes_no_answers": "eval.extract",
    "JudgeCache": "eval.judges",
    "JudgeModel": "eval.judges",
    "JudgeReply": "eval.judges",
    "Template": "eval.judges",
    "ask_judge": "eval.judges",
    "load_templates": "eval.judges",
    "Match": "eval.match",
    "match_answer": "eval.match",
    "parse_number": "eval.match",
    "parse_quantity": "eval.match",
    "Table": "eval.metrics",
    "benchmark_tables": "eval.metrics",
    "micro_mean": "eval.metrics",
    "scaled_proximity_score": "eval.metrics",
    "Scorer": "eval.protocols",
    "ScoringSpec": "eval.registry",
    "register_scoring": "eval.registry",
    "scoring_spec": "eval.registry",
    "unregister_scoring": "eval.registry",
    "build_report": "eval.report",
    "write_report": "eval.report",
    "Run": "eval.rundir",
    "Score": "eval.rundir",
    "check_frozen_items": "eval.rundir",
    "open_run": "eval.rundir",
    "read_scores": "eval.rundir",
    "write_scores": "eval.rundir",
    "ScoreSummary": "eval.scoring",
    "score_run": "eval.scoring",
    "mcnemar_exact": "eval.stats",
    "paired_bootstrap": "eval.stats",
    "plcc": "eval.stats",
    "srcc": "eval.stats",
    "wilson_interval": "eval.stats",
    "TraceVerdict": "eval.verify",
    "verify_trace": "eval.verify",
}

if TYPE_CHECKING:
    from eval.advice import advice
    from eval.compare import Comparison, compare_runs
    from eval.errors import EvalError, JudgeError, TemplateError
    from eval.extract import (
        extract_boxed,
        extract_choice,
        extract_json,
        extract_rating,
        extract_yes_no_answers,
    )
    from eval.judges import JudgeCache, JudgeModel, JudgeReply, Template, ask_judge, load_templates
    from eval.match import Match, match_answer, parse_number, parse_quantity
    from eval.metrics import Table, benchmark_tables, micro_mean, scaled_proximity_score
    from eval.protocols import Scorer
    from eval.registry import ScoringSpec, register_scoring, scoring_spec, unregister_scoring
    from eval.report import build_report, write_report
    from eval.rundir import Run, Score, check_frozen_items, open_run, read_scores, write_scores
    from eval.scoring import ScoreSummary, score_run
    from eval.stats import mcnemar_exact, paired_bootstrap, plcc, srcc, wilson_interval
    from eval.verify import TraceVerdict, verify_trace


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'eval' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


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
    "register_scoring",
    "scaled_proximity_score",
    "score_run",
    "scoring_spec",
    "srcc",
    "unregister_scoring",
    "verify_trace",
    "wilson_interval",
    "write_report",
    "write_scores",
]
