"""What typed record lines cost: reading and writing results.jsonl and scores.jsonl as models against plain dicts.

A synthetic ledger of N result lines (the shape `mcot run` writes: a prediction of about 80 words, usage, trace
path) and a scores file of N lines are written once. Each is then read back, several times, two ways in the same
run: as JSON objects (`iter_jsonl`, the reference: what readers got before lines were typed) and as models
(`ResultsLedger.records()`, `iter_scores`, which validate every line). Writing is timed the same two ways
(`json_line(dict)` against `Result.to_line()` / `Score.to_json_line()`).

    python perf/record_lines.py [--lines 20000] [--runs 5]

Last line: `lines=N read_results_us=… read_results_ratio=… read_scores_us=… read_scores_ratio=… write_result_us=…
write_result_ratio=… write_score_us=… write_score_ratio=…` (per line, medians; ratio = typed / dicts).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcot.rundir import RESULTS, SCORES, Result, ResultsLedger, Score, iter_jsonl, iter_scores, json_line

WORDS = "the ball leaves the wall at forty degrees and meets the mirror before the exit".split()


def result_row(n: int) -> dict[str, Any]:
    """Return a results.jsonl line as `mcot run` writes it (about 80 words of prediction)."""
    prediction = " ".join(WORDS[(n + k) % len(WORDS)] for k in range(80)) + " \\boxed{B}"
    return {
        "schema_version": 2,
        "id": f"item-{n}",
        "mode": ("text", "canvas", "tools")[n % 3],
        "status": "ok" if n % 17 else "error",
        "prediction": prediction,
        "steps": 1 + n % 5,
        "usage": {"input_tokens": 1200 + n % 300, "output_tokens": 90, "cost_usd": 0.0031, "cached_calls": 0},
        "latency_s": 1.234,
        "error": None if n % 17 else "HTTP 500 from the server",
        "trace": f"traces/item-{n}.0123456789abcdef01234567.canvas.jsonl",
        "benchmark": "gepbench",
        "category": "angle",
    }


def score_row(n: int) -> dict[str, Any]:
    """Return a scores.jsonl line as `mcot score` writes it."""
    return {
        "schema_version": 2,
        "id": f"item-{n}",
        "mode": ("text", "canvas", "tools")[n % 3],
        "benchmark": "gepbench",
        "category": "angle",
        "score": float(n % 2),
        "correct": bool(n % 2),
        "method": "rule",
        "extracted": "B",
        "judge": None,
        "details": {"status": "ok", "match": "letter", "level": "easy"},
    }


def per_line_us(work: Callable[[], int], runs: int) -> float:
    """Return the median microseconds per line of `work` (which returns how many lines it handled)."""
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        count = work()
        samples.append((time.perf_counter() - started) / max(count, 1) * 1e6)
    return statistics.median(samples)


def main() -> None:
    """Measure and print the figures (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=20000, help="lines of each file")
    parser.add_argument("--runs", type=int, default=5, help="repetitions of each measurement (median reported)")
    args = parser.parse_args()
    results = [result_row(n) for n in range(args.lines)]
    scores = [score_row(n) for n in range(args.lines)]
    typed_results = [Result.from_line(row) for row in results]
    typed_scores = [Score.from_line(row) for row in scores]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / RESULTS).write_text("".join(json_line(row) + "\n" for row in results), encoding="utf-8")
        (root / SCORES).write_text("".join(json_line(row) + "\n" for row in scores), encoding="utf-8")
        figures = {
            "read_results_dicts": per_line_us(lambda: sum(1 for _ in iter_jsonl(root / RESULTS)), args.runs),
            "read_results": per_line_us(lambda: sum(1 for _ in ResultsLedger(root).records()), args.runs),
            "read_scores_dicts": per_line_us(lambda: sum(1 for _ in iter_jsonl(root / SCORES)), args.runs),
            "read_scores": per_line_us(lambda: sum(1 for _ in iter_scores(root / SCORES)), args.runs),
            "write_result_dicts": per_line_us(lambda: len([json_line(row) for row in results]), args.runs),
            "write_result": per_line_us(lambda: len([row.to_line() for row in typed_results]), args.runs),
            "write_score_dicts": per_line_us(lambda: len([json_line(row) for row in scores]), args.runs),
            "write_score": per_line_us(lambda: len([row.to_json_line() for row in typed_scores]), args.runs),
        }
    for name in ("read_results", "read_scores", "write_result", "write_score"):
        print(f"{name}: {figures[name]:.1f} µs a line typed, {figures[name + '_dicts']:.1f} µs as dicts")
    pairs = " ".join(
        f"{name}_us={figures[name]:.2f} {name}_ratio={figures[name] / figures[name + '_dicts']:.2f}"
        for name in ("read_results", "read_scores", "write_result", "write_score")
    )
    print(f"lines={args.lines} {pairs}")


if __name__ == "__main__":
    main()
