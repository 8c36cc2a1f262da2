"""GOBench understanding: a critic model's ratings of an image against the human experts', by Scaled Proximity Score.

A critic rates an image on three dimensions; each dimension's Scaled Proximity Score is
max(0, 1 - |s_model - s_human| / 0.5) against the human experts' score (mcot.eval.proximity). The two protocols
differ in how the critic's reply is read and in what an unreadable reply leaves out:

- official reads the reply as VLMEvalKit's GOBench evaluation does (vlmeval/dataset/gobench.py, without a
  judge, its default): authenticity is the number on the reply's own `Total Score:` line, the two ratings are
  the first number after the labels `Aesthetics Rating` and `Instruction Consistency Rating`; if any of the
  three cannot be read, the item leaves all three means.
- robust reads it as the paper words it: authenticity is the sum of the five answers (Yes 1, No 0, Cannot be
  determined 0.5), the ratings are read by tolerant labels (mcot.eval.extract.read_labelled_rating), and a
  dimension that cannot be read leaves that dimension's mean only.

The tables: SPS per arm (Overall and per dimension, with the counts behind each mean), PLCC/SRCC against human
scores, and PLCC/SRCC between dimensions. mcot.eval.protocols.gobench joins this with the generation task.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from mcot.eval.extract import read_answer_list, read_labelled_rating
from mcot.eval.protocol_names import OFFICIAL, ROBUST
from mcot.eval.protocols.scorer import Scorer
from mcot.eval.proximity import scaled_proximity_score
from mcot.eval.tables import Table, by_mode, correlation_cell, mean, pct

from mcot.core.item import Item
from mcot.core.rundir import Score

GOBENCH_DIMENSIONS = ("authenticity", "aesthetics", "fidelity")

OFFICIAL_FAILURE_MARK = "Failed to obtain answer"
"""VLMEvalKit's mark of a failed model call: a reply containing it is unreadable (the item leaves the means)."""

_NUMBER_RUN = "([0-9.]+)"
_OFFICIAL_LABELS = {
    # the total's own line: the label (optionally "for Reality Assessment"), a colon, spaces or asterisks, a number
    "authenticity": re.compile("Total Score(?: for Reality Assessment)?:[ \t\n\r\f\v*]*" + _NUMBER_RUN, re.I),
    # a rating: the first run of digits and dots anywhere after the first occurrence of its label
    "aesthetics": re.compile("Aesthetics Rating[^0-9]*" + _NUMBER_RUN, re.I),
    "fidelity": re.compile("Instruction Consistency Rating[^0-9]*" + _NUMBER_RUN, re.I),
}
"""The official reading (VLMEvalKit's rule): the first match of each label; the run after it must be a number."""

AESTHETICS_LABELS = r"aesthetics?(?:\s+(?:rating|score|quality))?|美学|美观|审美"
FIDELITY_LABELS = (
    r"instruction[\s-]+(?:consistency|fidelity)(?:\s+(?:rating|score))?|(?<!in)consistency(?:\s+(?:rating|score))?|"
    r"fidelity(?:\s+(?:rating|score))?|指令一致性?|一致性"
)
OTHER_PARTS = r"total\s+score|reality|authenticity|总分|真实性"
"""Labels that end a rating's passage in the robust reading."""


def score_understanding(scorer: Scorer, item: Item, text: str, score: Score, protocol: str) -> None:
    """Fill `score` with the critic's reading under `protocol` ("official" or "robust") and its SPS; returns nothing."""
    score.details["task"] = "understanding"
    score.details["protocol"] = protocol
    if protocol == OFFICIAL:
        model, problem = official_gobench_scores(text)
        if problem:
            score.details["unreadable"] = problem
    else:
        model = robust_gobench_scores(text)
    human = human_gobench_scores(item)
    unparsable = [dim for dim in GOBENCH_DIMENSIONS if model.get(dim) is None]
    left_out = protocol == OFFICIAL and bool(unparsable)  # VLMEvalKit: an unreadable reply leaves all three means
    score.extracted = reading_text(model) + (" (leaves all three means)" if left_out else "")
    score.details["model_scores"] = model
    score.details["human_scores"] = human
    score.details["unparsable"] = unparsable
    if not human:
        scorer.unjudged(score, "the item has no human scores to compare with (convert with --scores)")
        return
    if left_out:
        score.details["left_out"] = True
    sps = {
        dim: scaled_proximity_score(value, human[dim])
        for dim in GOBENCH_DIMENSIONS
        if (value := model.get(dim)) is not None and dim in human and not left_out
    }
    score.details["sps"] = sps
    score.method = "rule"
    score.score = sum(sps.values()) / len(sps) if sps else None


def official_gobench_scores(text: str) -> tuple[dict[str, float | None], str | None]:
    """Return the official reading of a critic's reply (VLMEvalKit's) and why it failed, or None when it did not.

    Authenticity: the first `Total Score:` (or `Total Score for Reality Assessment:`) line, then spaces or
    asterisks, then a run of digits and dots. Aesthetics / fidelity: the first `Aesthetics Rating` /
    `Instruction Consistency Rating` (any case), then anything but a digit, then a run of digits and dots (so
    "Aesthetics Rating (1-5): 4" reads 1, as VLMEvalKit does). A run that is not a number ("4.5.") makes the
    whole reply unreadable, and so does VLMEvalKit's failed-call mark or an empty reply.
    """
    empty: dict[str, float | None] = dict.fromkeys(GOBENCH_DIMENSIONS)
    if not text.strip():
        return empty, "empty reply"
    if OFFICIAL_FAILURE_MARK in text:
        return empty, f"the reply holds VLMEvalKit's failed-call mark {OFFICIAL_FAILURE_MARK!r}"
    found: dict[str, float | None] = {}
    for dim, pattern in _OFFICIAL_LABELS.items():
        match = pattern.search(text)
        if match is None:
            found[dim] = None
            continue
        try:
            found[dim] = float(match.group(1))
        except ValueError:
            return empty, f"{dim}: {match.group(1)!r} is not a number"
    missing = [dim for dim, value in found.items() if value is None]
    return found, (f"no {', '.join(missing)} found" if missing else None)


def robust_gobench_scores(text: str) -> dict[str, float | None]:
    """Return the robust reading of a critic's reply: authenticity = the sum of the five answers (None unless all
    five are read), the aesthetics and instruction-fidelity ratings by their labels (None when absent)."""
    answers = read_answer_list(text, 5)
    authenticity = sum(value for value in answers if value is not None) if None not in answers else None
    return {
        "authenticity": authenticity,
        "aesthetics": read_labelled_rating(text, AESTHETICS_LABELS, f"{FIDELITY_LABELS}|{OTHER_PARTS}"),
        "fidelity": read_labelled_rating(text, FIDELITY_LABELS, f"{AESTHETICS_LABELS}|{OTHER_PARTS}"),
    }


def reading_text(model: Mapping[str, float | None]) -> str:
    """Return a reading as one short line ("authenticity 3.5; aesthetics 4; fidelity —") for reports."""
    parts = []
    for dim in GOBENCH_DIMENSIONS:
        value = model.get(dim)
        parts.append(f"{dim} {'—' if value is None else f'{value:g}'}")
    return "; ".join(parts)


_HUMAN_KEYS = {
    "authenticity": ("authentic", "reality", "real"),
    "aesthetics": ("aesthetic",),
    "fidelity": ("fidelity", "consisten", "instruction"),
}


def human_gobench_scores(item: Item) -> dict[str, float]:
    """Return the human expert scores attached to a GOBench item (meta dict or the TSV answer text), or {}."""
    for key in ("human_scores", "human", "scores", "gt_scores"):
        found = item.meta.get(key)
        if isinstance(found, dict):
            scores: dict[str, float] = {}
            for dim, needles in _HUMAN_KEYS.items():
                for name, value in found.items():
                    if any(needle in str(name).lower() for needle in needles) and isinstance(value, int | float):
                        scores.setdefault(dim, float(value))
            if len(scores) == 3:
                return scores
    patterns = {
        "authenticity": r"Reality\s+Assessment\s+Score\s*:\s*([\d.]+)",
        "aesthetics": r"Aesthetics\s+Rating\s*:\s*([\d.]+)",
        "fidelity": r"Instruction\s+Consistency\s+Rating\s*:\s*([\d.]+)",
    }
    scores = {}
    for dim, pattern in patterns.items():
        match = re.search(pattern, item.answer, re.IGNORECASE)
        if match:
            scores[dim] = float(match.group(1).rstrip("."))
    return scores if len(scores) == 3 else {}


GOBENCH_SPS_COUNTS = ["n", "errors", "unparsable", "no human scores", "averaged (auth. / aest. / fid.)"]
"""The count columns of the SPS table: all pairs, run failures, replies with a dimension that could not be read,
items without human scores, and how many items each dimension's mean is over."""


def understanding_tables(scores: Sequence[Score]) -> list[Table]:
    """Return the SPS table (Overall and per dimension, with the counts behind each mean) per arm, PLCC/SRCC
    against human scores, and PLCC/SRCC between dimensions.

    Each dimension's mean is over the items whose score for it entered the mean (`details["sps"]`): the protocol
    decides which (official: an item with any dimension unreadable leaves all three means; robust: only that
    dimension's). A pair the run failed on (errors) leaves all three means, as VLMEvalKit treats a failed call;
    it is counted. Overall is the mean of the three dimension means.
    """
    items = [s for s in scores if s.method == "error" or "model_scores" in s.details]
    sps = Table(
        "GOBench understanding — Scaled Proximity Score (δ = 0.5, ×100)",
        ["Mode", "Overall", *(dim.capitalize() for dim in GOBENCH_DIMENSIONS), *GOBENCH_SPS_COUNTS],
    )
    corr = Table("GOBench understanding — correlation with human scores (PLCC / SRCC)", ["Mode", *GOBENCH_DIMENSIONS])
    for mode, group in by_mode(items).items():
        read = [s for s in group if s.method != "error"]
        entered = sps_entered(read)
        means = [mean(values) for values in entered.values()]
        overall = sps_overall(group)
        human = [s for s in read if s.details.get("human_scores")]
        counts = [
            len(group),
            len(group) - len(read),
            sum(1 for s in human if s.details.get("unparsable")),
            len(read) - len(human),
        ]
        averaged = " / ".join(str(len(values)) for values in entered.values())
        sps.rows.append([mode, pct(overall), *(pct(m) for m in means), *(str(c) for c in counts), averaged])
        corr.rows.append([mode, *(correlation_cell(_human_pairs(read, dim)) for dim in GOBENCH_DIMENSIONS)])
    sps.notes = _gobench_sps_notes(items)
    kept = [s for s in items if s.method != "error" and not s.details.get("left_out")]
    between = _between_dimensions(
        "GOBench understanding — between dimensions, model scores (PLCC / SRCC)", kept, "model_scores"
    )
    tables = [sps, corr, between]
    human_items = [s for s in items if s.details.get("human_scores")]
    if human_items:
        tables.append(
            _between_dimensions("GOBench — between dimensions, human scores (PLCC / SRCC)", human_items, "human_scores")
        )
    return tables


def sps_entered(scores: Sequence[Score]) -> dict[str, list[float]]:
    """Return, per dimension, the SPS values of the scores that entered its mean (run errors enter none)."""
    return {
        dim: [s.details["sps"][dim] for s in scores if s.method != "error" and dim in (s.details.get("sps") or {})]
        for dim in GOBENCH_DIMENSIONS
    }


def sps_overall(scores: Sequence[Score]) -> float | None:
    """Return the SPS Overall of understanding scores: the mean of the three dimension means (None if one is empty)."""
    means = [mean(values) for values in sps_entered(scores).values()]
    return None if None in means else sum(m for m in means if m is not None) / len(means)


def _human_pairs(scores: Sequence[Score], dim: str) -> list[tuple[float, float]]:
    """Return (model, human) scores of `dim` for the items whose score entered that dimension's mean."""
    return [
        (s.details["model_scores"][dim], s.details["human_scores"][dim])
        for s in scores
        if dim in (s.details.get("sps") or {})
    ]


def _gobench_sps_notes(scores: Sequence[Score]) -> list[str]:
    protocols = {s.details.get("protocol") for s in scores if s.method != "error"}
    notes = []
    if OFFICIAL in protocols:
        notes.append(
            "official (VLMEvalKit): authenticity is the number on the reply's own `Total Score:` line, the ratings "
            "the first number after `Aesthetics Rating` / `Instruction Consistency Rating`; a reply with any of "
            "the three unreadable leaves all three means (counted in unparsable)"
        )
    if ROBUST in protocols:
        notes.append(
            "robust: authenticity is the sum of the five answers (Yes 1, No 0, Cannot be determined 0.5); a "
            "dimension that cannot be read leaves that dimension's mean only (counted in unparsable)"
        )
    notes.append(
        "a pair the run failed on (errors) leaves all three means, as VLMEvalKit treats a failed call; "
        "Overall = the mean of the three dimension means; averaged = the items each mean is over"
    )
    without = sum(1 for s in scores if s.method != "error" and not s.details.get("human_scores"))
    if without:
        notes.append(f"{without} item(s) have no human scores (convert with --scores) and have no SPS")
    return notes


def _between_dimensions(title: str, scores: Sequence[Score], key: str) -> Table:
    pairs = [("aesthetics", "authenticity"), ("authenticity", "fidelity"), ("aesthetics", "fidelity")]
    table = Table(title, ["Mode"] + [f"{a}–{b}" for a, b in pairs])
    for mode, group in by_mode(scores).items():
        row = [mode]
        for a, b in pairs:
            values = [
                (s.details[key][a], s.details[key][b])
                for s in group
                if (s.details.get(key) or {}).get(a) is not None and (s.details.get(key) or {}).get(b) is not None
            ]
            row.append(correlation_cell(values))
        table.rows.append(row)
    return table
