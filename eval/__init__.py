"""Scoring for mcot: answer extraction, matching, judges, benchmark metrics, statistics, trace verifiers, reports.

The public surface is re-exported here; docs/scoring.md describes each protocol. A benchmark plugs its
protocol, report tables and trace verifier in through `register_scoring` (eval.registry).
"""

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
