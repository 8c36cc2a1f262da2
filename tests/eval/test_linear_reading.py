"""Model text is read in time linear in its length: every extractor, matcher and reward, fed adversarial strings,
takes a number of Python steps that grows linearly (counted by a trace function, never timed); and each reads
the largest answer a run keeps (1,000,000 characters) once."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from mcot.eval import extract, judges, match
from mcot.eval.errors import JudgeError
from typer.testing import CliRunner

from mcot import rewards
from mcot.cli import app

pytestmark = pytest.mark.long_running

CHOICES = ["red", "green", "blue", "none"]
ITEM = json.dumps({"id": "x", "benchmark": "rbench-v", "category": "physics", "question": "Which?",
                   "choices": CHOICES, "answer": "B", "answer_type": "choice"})  # fmt: skip

READERS: dict[str, Callable[[str], Any]] = {
    "extract_boxed": extract.extract_boxed,
    "extract_boxed_all": extract.extract_boxed_all,
    "extract_choice": lambda text: extract.extract_choice(text, CHOICES),
    "extract_choice_robust": lambda text: extract.extract_choice_robust(text, CHOICES),
    "last_standalone_letter": extract.last_standalone_letter,
    "extract_final_answer": extract.extract_final_answer,
    "extract_json": extract.extract_json,
    "extract_rating": extract.extract_rating,
    "yes_no_value": extract.yes_no_value,
    "extract_yes_no_answers": extract.extract_yes_no_answers,
    "read_answer_list": extract.read_answer_list,
    "read_labelled_rating": lambda text: extract.read_labelled_rating(text, "quality"),
    "last_line": extract.last_line,
    "parse_number": match.parse_number,
    "match_answer": lambda text: match.match_answer(text, "12.5", answer_type="number"),
    "rewards.accuracy": lambda text: rewards.accuracy([text], item=[ITEM]),
    "rewards.answer_format": lambda text: rewards.answer_format([text], item=[ITEM]),
    "rewards.compute_score": lambda text: rewards.compute_score("rbench-v", text, "B", {"item": ITEM}),
    "rewards.final_text": lambda text: rewards.final_text([{"role": "assistant", "content": text}]),
    "strip_latex_text": extract.strip_latex_text,
    "normalize_text": match.normalize_text,
    "arithmetic_value": match.arithmetic_value,
    "parse_quantity": match.parse_quantity,
    "angle_radians": match.angle_radians,
    "match_angle": lambda text: match.match_angle(text, "30°"),
    "judges.parse_binary": judges.parse_binary,
    "judges.parse_verdict_exact": judges.parse_verdict_exact,
    "judges.parse_extraction": judges.parse_extraction,
    "judges.parse_extraction_verbatim": judges.parse_extraction_verbatim,
    "judges.parse_extraction_whole": judges.parse_extraction_whole,
    "judges.parse_gobench_rating": judges.parse_gobench_rating,
    "judges.parse_result_score": judges.parse_result_score,
    "judges.parse_process_score": judges.parse_process_score,
    "judges.parse_diagram_grade": judges.parse_diagram_grade,
}
"""Every function that reads model text, by name: a new one belongs here."""

UNITS = ["\\boxed{", "\\\\boxed{", "\\fbox{", "\\boxed ", "{", "[", '{"a": [', "answer: ", "A ", "(B) ", "**",
         "yes no ", "1/5 ", "quality: ", "}", "\\boxed{1}", " \n", "$"]  # fmt: skip
"""Repeated, each makes an adversarial text (unclosed groups, many candidates, many markers)."""


def _steps(reader: Callable[[str], Any], text: str) -> int:
    """Return how many Python lines and calls `reader(text)` executes."""
    count = 0

    def trace(frame: FrameType, event: str, arg: object) -> Any:
        nonlocal count
        count += 1
        return trace

    sys.settrace(trace)
    try:
        reader(text)
    except Exception:  # a reader may refuse a text; what it costs to get there is what is counted
        pass
    finally:
        sys.settrace(None)
    return count


@pytest.mark.parametrize("name", READERS)
def test_a_reader_takes_linear_steps_on_adversarial_text(name: str) -> None:
    reader = READERS[name]
    for unit in UNITS:
        small, large = _steps(reader, unit * 500), _steps(reader, unit * 2000)
        assert large <= 4.5 * small + 500, (name, unit, small, large)


@pytest.mark.parametrize("name", READERS)
def test_a_reader_reads_the_largest_answer_a_run_keeps(name: str) -> None:
    for unit in ("\\boxed{", "{", "[", "answer: "):
        try:
            READERS[name]((unit * (1_000_000 // len(unit)))[:1_000_000])
        except JudgeError:  # a judge reply parser refuses what it cannot read: an answer, reached in time
            pass


def test_mcot_score_reads_the_largest_answer_a_run_keeps(tmp_path: Path) -> None:
    """The defect, through the command: one 84 KB answer of repeated `\\boxed{` made `mcot score` take 39 s (each
    box rescanned the rest). A run keeps answers up to 1,000,000 characters, which a quadratic reader would take
    hours over: the suite's time-out, not a bound asserted here, is what it would meet."""
    runner = CliRunner()
    items, run, script = tmp_path / "items", tmp_path / "run", tmp_path / "turns.json"
    assert runner.invoke(app, ["gen", "games", "--task", "maze", "--n", "1", "--seed", "1", "--out", str(items)]).exit_code == 0  # fmt: skip
    script.write_text(json.dumps([{"text": ("\\boxed{" * (1_000_000 // 7 + 1))[:1_000_000]}]))
    made = runner.invoke(app, ["run", "--data", str(items), "--model", f"scripted:{script}", "--mode", "text",
                               "--out", str(run)])  # fmt: skip
    assert made.exit_code == 0, made.output
    scored = runner.invoke(app, ["score", str(run), "--protocol", "both"])
    assert scored.exit_code == 0, scored.output
    for name in ("scores.jsonl", "scores.robust.jsonl"):
        (score,) = [json.loads(line) for line in (run / name).read_text().splitlines()]
        assert (score["correct"], score["method"], score["extracted"]) == (False, "rule", None), (name, score)
