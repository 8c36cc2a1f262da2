"""The Scorer: what every benchmark protocol gets besides the item (judge, templates, cache, roots), and failures.

A protocol is a module-level coroutine `(scorer, item, text, result) -> Score` (`Protocol`): it starts the pair's
score with `scorer.score_for(item, result)`, decides it with the Scorer's helpers and returns it; the benchmark's
protocol module names it `official` (and `robust`), and the scoring pass (mcot.eval.scoring.score_pair) looks it
up in the registry. `text` is the result's prediction (`result.text`); `result` the pair's typed results.jsonl
line (`mcot.rundir.Result`). A result that failed (status "error" or "budget")
never reaches a protocol: it is scored `method: "error"`, wrong, with the status and reason in its details.
A protocol never guesses what it could not decide: without a judge, what rules cannot settle gets method
"none" (unjudged); a judge that fails or replies unparsably gives method "judge_error". Both have `correct`
None; the report counts them wrong in its accuracies and shows them in their own columns.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcot.benchmarks.item import Item, ItemError, contained_path
from mcot.eval import judges
from mcot.eval.judges import JudgeCache, JudgeModel, JudgeReply, Template
from mcot.eval.match import DEFAULT_REL_TOL
from mcot.eval.protocol_names import OFFICIAL

from mcot.rundir import Result, Score

ScoringProtocol = Callable[["Scorer", Item, str, Result], Awaitable[Score]]
"""A benchmark's protocol: `(scorer, item, text, result) -> Score`, the decided score of one answered pair."""

FAILED_STATUSES = ("error", "budget")
FACET_KEYS = ("level", "task")
"""Details that say which kind of item a score is (the cell a table puts it in), kept on failed pairs too."""


def failed_score(item: Item, mode: str, status: str, reason: str) -> Score:
    """Return the score of an (item, arm) the run did not finish: wrong, method "error", status and reason kept."""
    return Score(
        id=item.id,
        mode=mode,
        benchmark=item.benchmark,
        category=item.category,
        score=0.0,
        correct=False,
        method="error",
        details={"status": status, "reason": reason},
    )


@dataclass
class Scorer:
    """What a protocol needs besides the item: an optional judge, the templates, the cache, file roots."""

    judge: JudgeModel | None = None
    templates: dict[str, Template] = field(default_factory=judges.load_templates)
    cache: JudgeCache | None = None
    items_root: Path = Path(".")
    run_root: Path = Path(".")
    rel_tol: float = DEFAULT_REL_TOL
    generator: str | None = None
    protocol: str = OFFICIAL
    """Which of the benchmark's protocols scores: "official" (the published one) or "robust" (mcot's own)."""

    def score_for(self, item: Item, result: Result) -> Score:
        """Return the undecided score of (item, result's arm) that a protocol decides and returns (method "none")."""
        return Score(id=item.id, mode=result.mode, benchmark=item.benchmark, category=item.category)

    def settle(self, score: Score, correct: bool, method: str = "rule", **details: Any) -> Score:
        """Mark `score` decided (1.0 or 0.0) by `method`, with `details` added; return it."""
        score.correct = correct
        score.score = 1.0 if correct else 0.0
        score.method = method  # type: ignore[assignment]
        score.details.update(details)
        return score

    def unjudged(self, score: Score, reason: str) -> Score:
        """Mark `score` unjudged (method "none": rules could not decide, no judge) with the reason; return it."""
        score.method = "none"
        score.details["unjudged"] = reason
        return score

    def judge_failed(self, score: Score, reply: JudgeReply) -> Score:
        """Mark `score` a judge error (method "judge_error") with the judge's error; return it."""
        score.method = "judge_error"
        score.correct = None
        score.score = None
        score.details["judge_error"] = reply.error
        return score

    async def ask(self, name: str, parse: Any, images: tuple[bytes, ...] = (), **values: object) -> JudgeReply:
        """Return the judge's parsed reply to template `name` filled with `values` (cached); needs a judge."""
        assert self.judge is not None
        return await judges.ask_judge(
            self.judge, self.templates[name], parse, cache=self.cache, images=images, temperature=None, **values
        )

    def image(self, relative: str, *, run: bool = False) -> bytes | None:
        """Return the bytes of an image under the items root (or the run root), or None when absent.

        A path that leaves its root (absolute, `..`, a symlink pointing outside) counts as absent: neither a
        dataset nor a model's answer can make the judge read a file from elsewhere.
        """
        try:
            path = contained_path(self.run_root if run else self.items_root, relative)
            return path.read_bytes() if path.is_file() else None
        except (ItemError, OSError):
            return None
